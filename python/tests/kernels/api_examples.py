"""Kernels in the forms of NKI's API examples: dtype limits as fill values, reversed tensor_scalar operands, numbers
and HBM views stored into HBM, launch grids over NeuronCores, kernels called directly in simulation mode."""

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


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
    """An HBM to HBM copy of more rows than a tile has partitions: refused."""
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
