"""Kernels whose tiles overhang the data, cut to it by masks (partial last tiles), for allocsim's tests."""
import math

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def ragged_exp(a):
    """exp of a [R, C] tensor whose R and C are not multiples of the tile: the last row and column tiles are
    partial; the masks name rows and columns through nl.mgrid and nl.arange."""
    R, C = a.shape
    P, F = nl.tile_size.pmax, 32
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:P, 0:F]
    for r in nl.affine_range(math.ceil(R / P)):
        for c in nl.affine_range(math.ceil(C / F)):
            rows = r * P + i_p
            cols = c * F + i_f
            t = nl.load(a[rows, cols], mask=(rows < R) & (cols < C))
            e = nl.exp(t, mask=(rows < R) & (cols < C))
            nl.store(out[rows, cols], value=e, mask=(rows < R) & (cols < C))
    return out


@nki.jit
def ragged_row_sums(a):
    """Row sums (as a column) of a [R, C] tensor, R not a multiple of the tile; a mask on partitions only."""
    R, C = a.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((R, 1), dtype=a.dtype, buffer=nl.shared_hbm)
    ip = nl.arange(P)[:, None]
    ic = nl.arange(C)[None, :]
    for r in nl.affine_range((R + P - 1) // P):
        t = nl.ndarray((P, C), dtype=a.dtype, buffer=nl.sbuf)
        nisa.dma_copy(dst=t[ip, ic], src=a[r * P + ip, ic], mask=(r * P + ip < R))
        s = nl.sum(t, axis=1, mask=(r * P + ip < R))
        nl.store(out[r * P + ip, nl.arange(1)[None, :]], value=s, mask=(r * P + ip < R))
    return out


@nki.jit
def lower_upper_where(a, b):
    """[N, N] tiles of P: a on and below the diagonal, b above it, and a copy of a with -9984 above the diagonal,
    through nl.where on indices (loop indices in the comparison)."""
    N = a.shape[0]
    P = nl.tile_size.pmax
    mixed = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    causal = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:P, 0:P]
    for q in nl.affine_range(N // P):
        for k in nl.affine_range(N // P):
            ta = nl.load(a[q * P + i_p, k * P + i_f])
            tb = nl.load(b[q * P + i_p, k * P + i_f])
            nl.store(mixed[q * P + i_p, k * P + i_f], value=nl.where(q * P + i_p >= k * P + i_f, ta, tb))
            nl.store(causal[q * P + i_p, k * P + i_f], value=nl.where(k * P + i_f > q * P + i_p, -9984.0, ta))
    return mixed, causal
