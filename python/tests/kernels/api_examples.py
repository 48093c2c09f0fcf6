"""Kernels in the forms of NKI's API examples: dtype limits as fill values, reversed tensor_scalar operands, numbers
and HBM views stored into HBM, launch grids over NeuronCores, kernels called directly in simulation mode."""

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import numpy as np


@nki.jit
def fill_below_diagonal(a):
    """The elements above and on the diagonal become the dtype's lowest finite value."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    ix, iy = nl.mgrid[0:8, 0:8]
    t = nl.load(a[ix, iy])
    r = nisa.affine_select(pred=(iy < ix), on_true_tile=t[ix, iy], on_false_value=nl.fp32.min)
    nl.store(out[ix, iy], r)
    return out


@nki.jit
def reversed_scalar_ops(a, col):
    """3 - a, then (2.5 - a) * col, then 0.5 < a (as a > 0.5)."""
    o1 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    o2 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    o3 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    c = nl.load(col)
    nl.store(o1, nisa.tensor_scalar(t, nl.subtract, 3.0, reverse0=True))
    nl.store(o2, nisa.tensor_scalar(t, nl.subtract, 2.5, reverse0=True, op1=nl.multiply, operand1=c))
    nl.store(o3, nisa.tensor_scalar(t, nl.less, 0.5, reverse0=True))
    return o1, o2, o3


@nki.jit
def subtract_from_column(a, col):
    """col - (a * 2): the second op reversed, its scalar a [P, 1] tile."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    c = nl.load(col)
    nl.store(out, nisa.tensor_scalar(t, nl.multiply, 2.0, op1=nl.subtract, operand1=c, reverse1=True))
    return out


@nki.jit
def store_number_and_copy(a):
    """out1 filled with 100 by nl.store; out2 a copy of a, HBM to HBM."""
    out1 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    out2 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out1, 100)
    nisa.dma_copy(dst=out2, src=a, dge_mode=nisa.dge_mode.swdge)
    return out1, out2


@nki.jit
def copy_hbm_rows(a):
    """An HBM to HBM copy of more rows than a tile has partitions."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nisa.dma_copy(dst=out, src=a)
    return out


@nki.jit
def swap_blocks(a):
    """Grid instance (i, j) writes block (i, j) of a, doubled, into block (j, i) of the output."""
    out = nl.ndarray((a.shape[1], a.shape[0], a.shape[2], a.shape[3]), dtype=a.dtype, buffer=nl.shared_hbm)
    i = nl.program_id(0)
    j = nl.program_id(1)
    t = nl.load(a[i, j])
    nl.store(out[j, i], nl.multiply(t, 2.0))
    return out


def _double(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.multiply(nl.load(a), 2.0))
    return out


double = nki.jit(_double)
double_sim = nki.jit(double, mode="simulation")


@nki.jit(mode="simulation")
def iota_rows():
    """No parameters: the kernel allocates and returns its output; row p holds p * 3."""
    out = nl.ndarray([8, 4], dtype=nl.int32, buffer=nl.shared_hbm)
    t = nisa.iota(nl.arange(8)[:, None] * 3 + nl.arange(4)[None, :] * 0, dtype=nl.int32)
    nl.store(out, t)
    return out


@nki.jit
def gather_rows(data, idx):
    """Rows of data picked by the values of idx (an indirect DMA): refused."""
    out = nl.ndarray((8, data.shape[1]), dtype=data.dtype, buffer=nl.shared_hbm)
    rows = nl.load(idx)
    t = nl.load(data[rows, nl.arange(data.shape[1])[None, :]])
    nl.store(out, t)
    return out


@nki.jit
def broadcast_adds(a, s, col, row):
    """a + s (s [1, 1]) and col - row ([P, 1] and [1, N]: the [P, N] table of differences)."""
    o1 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    o2 = nl.ndarray((col.shape[0], row.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(o1, nl.add(nl.load(a), nl.load(s)))
    nl.store(o2, nl.subtract(nl.load(col), nl.load(row)))
    return o1, o2


@nki.jit
def copy_predicated(pred, x, y):
    """out1 = where(pred, x, y) by copying x over y; out2 the same with reverse_pred: where(pred, y, x)."""
    o1 = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    o2 = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    p = nl.load(pred)
    tx = nl.load(x)
    d1 = nl.load(y)
    nisa.tensor_copy_predicated(src=tx, dst=d1, predicate=p)
    nl.store(o1, d1)
    d2 = nl.load(y)
    nisa.tensor_copy_predicated(src=tx, dst=d2, predicate=p, reverse_pred=True)
    nl.store(o2, d2)
    return o1, o2


@nki.jit
def select_with_max(pred, x, fill):
    """sel = where(pred, x, fill) (fill a [P, 1] column), mx its row maximum; sel2 = where(pred, x, -1.5)."""
    o1 = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    o2 = nl.ndarray((x.shape[0], 1), dtype=nl.float32, buffer=nl.shared_hbm)
    o3 = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    p = nl.load(pred)
    tx = nl.load(x)
    f = nl.load(fill)
    sel = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    mx = nl.ndarray((x.shape[0], 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.select_reduce(dst=sel, predicate=p, on_true=tx, on_false=f, reduce_res=mx,
                       reduce_cmd=nisa.reduce_cmd.reset_reduce, reduce_op=nl.maximum)
    nl.store(o1, sel)
    nl.store(o2, mx)
    sel2 = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.sbuf)
    nisa.select_reduce(dst=sel2, predicate=p, on_true=tx, on_false=-1.5)
    nl.store(o3, sel2)
    return o1, o2, o3


@nki.jit
def transposing_loads(a):
    """a [N, M] transposed twice over: nl.load_transpose2d and nisa.dma_transpose into a tile; printed on the way."""
    o1 = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
    o2 = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load_transpose2d(a)
    nl.device_print("t = ", t)
    nl.store(o1, t)
    u = nl.ndarray((a.shape[1], a.shape[0]), dtype=a.dtype, buffer=nl.sbuf)
    nisa.dma_transpose(a, dst=u)
    nl.store(o2, u)
    return o1, o2


@nki.jit
def partial_rows_unmasked_compute(a):
    """Rows in tiles of 8 with a masked last tile; the computation runs on whole tiles, the store is masked."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    P = nl.tile_size.pmax
    for i in nl.affine_range((a.shape[0] + P - 1) // P):
        i_p, i_f = nl.mgrid[0:P, 0:a.shape[1]]
        t = nl.load(a[i * P + i_p, i_f], mask=(i * P + i_p < a.shape[0]))
        r = nl.multiply(t, 3.0)
        nl.store(out[i * P + i_p, i_f], r, mask=(i * P + i_p < a.shape[0]))
    return out


@nki.jit
def cumulative(a, start, extra=None):
    """o1: running sum of a * 2 from 0; o2: running max of a + 1 from each row's start; o3: o1's sum carried on
    over a again (reduce_cmd=reduce), minus 0.5 (reverse0: 0.5 - a); extra, when given, is added to o1 first."""
    o1 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    o2 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    o3 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    s = nl.load(start)
    e = nl.load(extra) if extra else None
    src = nl.add(t, e) if e is not None else t
    r1 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar_cumulative(src=src, dst=r1, op0=nl.multiply, op1=nl.add, imm0=2.0)
    r3 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar_cumulative(src=t, dst=r3, op0=nl.subtract, op1=nl.add, imm0=0.5, reverse0=True,
                                  reduce_cmd=nisa.reduce_cmd.reduce)
    r2 = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.sbuf)
    nisa.tensor_scalar_cumulative(src=t, dst=r2, op0=nl.add, op1=nl.maximum, imm0=1.0, imm1=s,
                                  reduce_cmd=nisa.reduce_cmd.load_reduce)
    nl.store(o1, r1)
    nl.store(o2, r2)
    nl.store(o3, r3)
    return o1, o2, o3


@nki.jit
def partition_reduce(a, total, top):
    """total[0] = sum of a over its partitions, top[0] = their maximum (a [P, f1, f2], the outputs [1, f1, f2])."""
    t = nl.load(a)
    nl.store(total[0:1, :, :], nisa.tensor_partition_reduce(np.add, t))
    nl.store(top[0:1, :, :], nisa.tensor_partition_reduce(nl.maximum, t))


@nki.jit
def masked_group_max(a):
    """Rows of a [R, 12] (R < 8) in one masked tile: the maximum of each group of 3 columns, masked too."""
    out = nl.ndarray((a.shape[0], 4), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_g, i_e = nl.mgrid[0:8, 0:4, 0:3]
    t = nl.load(a[i_p, i_g * 3 + i_e], mask=(i_p < a.shape[0]))
    m = nl.max(t[i_p, i_g, i_e], axis=[2], mask=(i_p < a.shape[0]))
    j_p, j_g = nl.mgrid[0:8, 0:4]
    nl.store(out[j_p, j_g], m[j_p, j_g], mask=(j_p < a.shape[0]))
    return out
