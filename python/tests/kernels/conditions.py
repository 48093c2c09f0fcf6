"""Kernels with `if` statements on loop indices, for allocsim's tests."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def branchy_rows(a):
    """Row tile 0 doubled, every other tile copied; odd tiles then get 1 added, and tiles from the third on are
    halved once more (a nested `if`)."""
    P = nl.tile_size.pmax
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // P):
        t = nl.load(a[i * P:(i + 1) * P, :])
        u = nl.ndarray(t.shape, dtype=t.dtype, buffer=nl.sbuf)
        if i == 0:
            u[...] = nl.multiply(t, 2.0)
        else:
            u[...] = nl.copy(t)
            if i >= 2:
                u[...] = nl.multiply(u, 0.5)
        if i % 2 == 1:
            nl.store(out[i * P:(i + 1) * P, :], value=nl.add(u, 1.0))
        else:
            nl.store(out[i * P:(i + 1) * P, :], value=u)
    return out


@nki.jit
def lower_block_sums(a):
    """out tile (q, k) of a square matrix of tiles: the tile where q >= k, zero above the diagonal of tiles."""
    P = nl.tile_size.pmax
    n = a.shape[0] // P
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for q in nl.affine_range(n):
        for k in nl.affine_range(n):
            t = nl.ndarray((P, P), dtype=a.dtype, buffer=nl.sbuf)
            if q >= k:
                t[...] = nl.load(a[q * P:(q + 1) * P, k * P:(k + 1) * P])
            if q < k:
                t[...] = 0.0
            nl.store(out[q * P:(q + 1) * P, k * P:(k + 1) * P], value=t)
    return out
