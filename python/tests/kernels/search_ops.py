"""Kernels of the instructions the tracer composes from others: max8, nc_find_index8, nc_match_replace8,
nc_stream_shuffle, range_select, nl.rand, and double-row fp8 matmuls."""

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import numpy as np


@nki.jit
def top8(a):
    """The 8 largest values of each row, the positions of those values (nc_find_index8), and the rows with the
    matches of the 8 values replaced by -1 (nc_match_replace8, with the positions it matched)."""
    P, F = a.shape
    vals = nl.ndarray((P, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    found = nl.ndarray((P, 8), dtype=nl.uint32, buffer=nl.shared_hbm)
    replaced = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    matched = nl.ndarray((P, 8), dtype=nl.uint32, buffer=nl.shared_hbm)
    t = nl.load(a)
    v = nisa.max8(src=t)
    idx = nisa.nc_find_index8(data=t, vals=v)
    m = nl.ndarray((P, 8), dtype=nl.uint32, buffer=nl.sbuf)
    r = nisa.nc_match_replace8(data=t, vals=v, imm=-1.0, dst_idx=m)
    nl.store(vals, v)
    nl.store(found, idx)
    nl.store(replaced, r)
    nl.store(matched, m)
    return vals, found, replaced, matched


@nki.jit
def find_missing(a, b):
    """The positions in each row of a of the 8 values of the same row of b (some absent: all ones)."""
    out = nl.ndarray((a.shape[0], 8), dtype=nl.uint32, buffer=nl.shared_hbm)
    nl.store(out, nisa.nc_find_index8(data=nl.load(a), vals=nl.load(b)))
    return out


SHUFFLE = [(i + 5) % 32 for i in range(32)]
SHUFFLE[3] = 255  # partition 3 of each quadrant keeps its value


@nki.jit
def shuffle(a, b):
    """b's partitions shuffled in place within quadrants of 32 by SHUFFLE, and a's row 0 broadcast to 32 rows."""
    out = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.shared_hbm)
    spread = nl.ndarray((32, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(b)
    nisa.nc_stream_shuffle(src=t, dst=t, shuffle_mask=SHUFFLE)
    nl.store(out, t)
    row = nl.load(a[0:1, :])
    s = nl.ndarray((32, a.shape[1]), dtype=a.dtype, buffer=nl.sbuf)
    nisa.nc_stream_shuffle(src=row, dst=s, shuffle_mask=[0] * 32)
    nl.store(spread, s)
    return out, spread


@nki.jit
def ranges(a, lo, hi):
    """Elements whose position (from 3) lies in [lo, hi) of their row, others -100: once, and again on a + 1 from
    position 3 + F; the accumulated row maximum over both."""
    P, F = a.shape
    sel = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    top = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(a)
    b0, b1 = nl.load(lo), nl.load(hi)
    r = nisa.range_select(on_true_tile=t, comp_op0=np.greater_equal, comp_op1=np.less, bound0=b0, bound1=b1,
                          reduce_cmd=nisa.reduce_cmd.reset_reduce, reduce_op=np.max, range_start=3,
                          on_false_value=-100.0)
    nl.store(sel, r)
    u = nl.add(t, 1.0)
    m = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.range_select(on_true_tile=u, comp_op0=np.greater_equal, comp_op1=np.less, bound0=b0, bound1=b1,
                      reduce_cmd=nisa.reduce_cmd.reduce, reduce_res=m, reduce_op=np.max, range_start=3 + F,
                      on_false_value=-100.0)
    nl.store(top, m)
    return sel, top


@nki.jit
def randoms(out1, out2):
    """Two calls of nl.rand."""
    nl.store(out1, nl.rand(out1.shape, dtype=nl.float32))
    nl.store(out2, nl.rand(out2.shape, dtype=nl.float32))


@nki.jit
def double_row(a, b):
    """c = sum over k, r of a[k, r, m] * b[k, r, n]: one fp8 matmul in double-row mode."""
    c = nl.ndarray((a.shape[2], b.shape[2]), dtype=nl.float32, buffer=nl.shared_hbm)
    ta = nl.load(a.view(nl.float8_e4m3))
    tb = nl.load(b)
    nl.store(c, nisa.nc_matmul(ta, tb, perf_mode="double_row"))
    return c


@nki.jit
def returns_tile(a):
    """Returns an SBUF tile (a's values as float32), as NKI's simulation mode allows."""
    return nl.add(nl.load(a), 0.0, dtype=nl.float32)


@nki.jit
def gather_rows(a):
    """Rows 3p + 1 of a into row p of a tile set to -1 first, rows past a's end skipped (oob_mode=skip)."""
    P, F = 16, a.shape[1]
    out = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    ix, iy = nl.mgrid[0:P, 0:F]
    idx = nisa.iota(3 * nl.arange(P)[:, None] + 1, dtype=np.int32)
    t = nisa.memset(shape=(P, F), value=-1.0, dtype=a.dtype)
    nisa.dma_copy(dst=t[ix, iy], src=a[idx, iy], oob_mode=nisa.oob_mode.skip)
    nl.store(out, t)
    return out


@nki.jit
def scatter_add(a, b):
    """out = b, then row p of a added to row 2p of out (dst_rmw_op), and row p of a alone into row 2p + 1 of a
    second output allocated here (its other rows 0)."""
    P, F = a.shape
    out = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.shared_hbm)
    spread = nl.ndarray(b.shape, dtype=b.dtype, buffer=nl.shared_hbm)
    iy = nl.arange(F)[None, :]
    t = nl.load(a)
    nl.store(out, nl.load(b))
    even = nisa.iota(2 * nl.arange(P)[:, None], dtype=np.int32)
    nisa.dma_copy(dst=out[even, iy], src=t, dst_rmw_op=np.add)
    odd = nisa.iota(2 * nl.arange(P)[:, None] + 1, dtype=np.uint32)
    nl.store(spread[odd, iy], value=t)
    return out, spread


@nki.jit
def gather_past_end(a):
    """Rows 3p of a for 16 partitions: past the end of a [32, F] tensor (oob_mode=error)."""
    out = nl.ndarray((16, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    iy = nl.arange(a.shape[1])[None, :]
    idx = nisa.iota(3 * nl.arange(16)[:, None], dtype=np.int32)
    nl.store(out, nl.load(a[idx, iy]))
    return out


@nki.jit
def gather_by_loaded_index(a, rows):
    """Rows of a chosen by indices read from HBM (rows given): values the tracer cannot know; without rows, by an
    iota index tile changed after the iota, whose values are no longer the iota's."""
    out = nl.ndarray((8, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    iy = nl.arange(a.shape[1])[None, :]
    if rows is not None:
        idx = nl.load(rows)
    else:
        idx = nisa.iota(nl.arange(8)[:, None], dtype=np.int32)
        idx[...] = nl.add(idx, 1)
    nl.store(out, nl.load(a[idx, iy]))
    return out


@nki.jit
def gather_by_index_changed_in_loop(a):
    """The index tile is read, then rewritten, in one loop body: the second iteration reads other values."""
    out = nl.ndarray((8, a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    iy = nl.arange(a.shape[1])[None, :]
    idx = nisa.iota(nl.arange(8)[:, None], dtype=np.int32)
    for i in nl.sequential_range(2):
        nl.store(out, nl.load(a[idx, iy]))
        idx[...] = nl.add(idx, 1)
    return out


@nki.jit
def dropouts(a, rate):
    """a with elements dropped at the per-row rates (nl.dropout), then at 0.25 (nisa.dropout)."""
    o1 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    o2 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(o1, nl.dropout(t, nl.load(rate)))
    nl.store(o2, nisa.dropout(t, prob=0.25))
    return o1, o2


@nki.jit
def transpose_tile(a):
    """dma_transpose of an SBUF tile (the enumerations imported from nisa's constants module)."""
    from neuronxcc.nki.isa.constants import dge_mode
    t = nisa.dma_transpose(nl.load(a)[:, :], dge_mode=dge_mode.hwdge)
    out = nl.ndarray(t.shape, dtype=t.dtype, buffer=nl.shared_hbm)
    nl.store(out, t)
    return out


@nki.jit
def segments(ids):
    """nisa.sequence_bounds of the ids' rows."""
    P, n = ids.shape
    out = nl.ndarray((P, 2, n), dtype=ids.dtype, buffer=nl.shared_hbm)
    nl.store(out, nisa.sequence_bounds(segment_ids=nl.load(ids)))
    return out


@nki.jit
def api_odds(a):
    """nl.fori_loop and nl.dynamic_range with Python bounds, nl.is_sbuf / nl.is_hbm, nl.program_ndim, and
    tensor_scalar with one stage bypassed: out[r] = a[r] * 2 + (1 if is_sbuf(t) else 0) + program_ndim()."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    extra = (1.0 if nl.is_sbuf(nl.sbuf) and nl.is_hbm(a) and not nl.is_psum(a) else 0.0) + nl.program_ndim()

    def body(r):
        t = nl.load(a[r:r + 1, :])
        u = nisa.tensor_scalar(t, op0=nl.bypass, operand0=0.0, op1=nl.multiply, operand1=2.0)
        nl.store(out[r:r + 1, :], nl.add(u, extra))
    nl.fori_loop(0, a.shape[0] // 2, body)
    for r in nl.dynamic_range(a.shape[0] // 2, a.shape[0]):
        body(r)
    return out


def refused(name):
    """A kernel calling nisa.<name> on a tile."""
    @nki.jit
    def kernel(a):
        out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
        t = nl.load(a)
        nl.store(out, getattr(nisa, name)(t, t))
        return out
    return kernel


@nki.jit
def all_reduce(a):
    """A collective between NeuronCores."""
    import nki.collectives as cc
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    cc.all_reduce([t], [t], cc.ReplicaGroup([[0, 1]]), op=nl.add)
    nl.store(out, t)
    return out


@nki.jit
def top8_masked(a):
    """max8 under a mask of the first 4 rows and the columns from 2 to 21, nc_match_replace8 (imm 0) under one of
    the first 4 rows and the first 20 columns."""
    P, F = a.shape
    vals = nl.ndarray((P, 8), dtype=nl.float32, buffer=nl.shared_hbm)
    replaced = nl.ndarray((P, F), dtype=nl.float32, buffer=nl.shared_hbm)
    matched = nl.ndarray((P, 8), dtype=nl.uint32, buffer=nl.shared_hbm)
    ip, jf = nl.mgrid[0:P, 0:F]
    t = nl.load(a)
    box = (ip < 4) & (jf >= 2) & (jf < 22)
    v = nisa.max8(src=t[ip, jf], mask=box)
    m = nl.ndarray((P, 8), dtype=nl.uint32, buffer=nl.sbuf)
    r = nisa.nc_match_replace8(data=t[ip, jf], vals=v, imm=0.0, dst_idx=m, mask=(ip < 4) & (jf < 20))
    nl.store(vals, v)
    nl.store(replaced, r)
    nl.store(matched, m)
    return vals, replaced, matched


@nki.jit
def find_masked_from_column_2(a):
    """nc_find_index8 under a mask that leaves out the first two columns."""
    out = nl.ndarray((a.shape[0], 8), dtype=nl.uint32, buffer=nl.shared_hbm)
    ip, jf = nl.mgrid[0:a.shape[0], 0:a.shape[1]]
    t = nl.load(a)
    nl.store(out, nisa.nc_find_index8(data=t[ip, jf], vals=t[:, 0:8], mask=(jf >= 2)))
    return out


@nki.jit
def gather_columns(a):
    """Per row, the elements at positions written into an index tile by Python loops: 3j + 1 in every row but row
    2, which takes position 0 everywhere; then the same gather with an index tile changed by an addition (refused)."""
    P, F = a.shape
    out = nl.ndarray((P, 4), dtype=a.dtype, buffer=nl.shared_hbm)
    idx = nl.zeros((P, 4), dtype=nl.uint32)
    for i in nl.static_range(P):
        for j in nl.static_range(4):
            idx[i, j] = 0 if i == 2 else 3 * j + 1
    nl.store(out, nl.gather_flattened(data=nl.load(a), indices=idx))
    return out


@nki.jit
def gather_columns_computed(a):
    """nl.gather_flattened with an index tile an addition wrote: values the tracer does not follow."""
    out = nl.ndarray((a.shape[0], 4), dtype=a.dtype, buffer=nl.shared_hbm)
    idx = nl.add(nl.zeros((a.shape[0], 4), dtype=nl.uint32), 1)
    nl.store(out, nl.gather_flattened(data=nl.load(a), indices=idx))
    return out
