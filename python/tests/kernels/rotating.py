"""Kernels with rotating buffers, written for allocsim's tests: tile arrays placed by a modulo allocation (more
blocks than tiles, so blocks share bytes), double buffers indexed by `(m + 1) % 2`, and a view that runs
backwards along its free axis."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import neuronxcc.nki.compiler as ncc


@nki.jit
def pipelined_matmul(aT, w):
    """out = aT.T @ w, one row tile at a time; the next tile of aT is loaded while the current one is multiplied.
    Every tile is placed by hand: the PSUM results of all row tiles rotate over two banks, the SBUF copies of them
    all share one tile."""
    K, M = aT.shape
    _, N = w.shape
    P = nl.tile_size.pmax
    nm = M // P
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    w_sb = nl.ndarray((K, N), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    a_sb = nl.ndarray((2, nl.par_dim(K), P), dtype=nl.float32,
                      buffer=ncc.sbuf.mod_alloc(base_addr=N * 4, num_free_tiles=(2,)))
    res = nl.ndarray((nm, nl.par_dim(P), N), dtype=nl.float32,
                     buffer=ncc.psum.mod_alloc(base_bank=0, num_bank_tiles=(2,)))
    o_sb = nl.ndarray((nm, nl.par_dim(P), N), dtype=nl.float32,
                      buffer=ncc.sbuf.mod_alloc(base_addr=N * 4 + 2 * P * 4, num_free_tiles=(1,)))
    w_sb[...] = nl.load(w)
    a_sb[0] = nl.load(aT[:, 0:P])
    for m in nl.sequential_range(nm - 1):
        a_sb[(m + 1) % 2] = nl.load(aT[:, nl.ds((m + 1) * P, P)])
        res[m] = nisa.nc_matmul(a_sb[m % 2], w_sb)
        o_sb[m] = nl.copy(res[m])
        nl.store(out[nl.ds(m * P, P), :], value=o_sb[m])
    res[nm - 1] = nisa.nc_matmul(a_sb[(nm - 1) % 2], w_sb)
    o_sb[nm - 1] = nl.copy(res[nm - 1])
    nl.store(out[(nm - 1) * P:nm * P, :], value=o_sb[nm - 1])
    return out


@nki.jit
def shifted_buffers(a):
    """out row tile i = a row tile i + a row tile i + 1 (the last one doubled), through a two-slot ring written at
    (i + 1) % 2 and read at (i + 2) % 2 (tile i) and (i + 3) % 2 (tile i + 1)."""
    R, C = a.shape
    P = nl.tile_size.pmax
    n = R // P
    out = nl.ndarray((R, C), dtype=a.dtype, buffer=nl.shared_hbm)
    ring = nl.ndarray((2, nl.par_dim(P), C), dtype=a.dtype, buffer=nl.sbuf)
    ring[0] = nl.load(a[0:P, :])
    for i in nl.sequential_range(n - 1):
        ring[(i + 1) % 2] = nl.load(a[nl.ds((i + 1) * P, P), :])
        s = nl.add(ring[(i + 2) % 2], ring[(i + 3) % 2])
        nl.store(out[nl.ds(i * P, P), :], value=s)
    last = nl.add(ring[(n + 1) % 2], ring[(n + 1) % 2])
    nl.store(out[(n - 1) * P:n * P, :], value=last)
    return out


@nki.jit
def reversed_columns(a):
    """out = a with its columns in reverse order, then doubled."""
    R, C = a.shape
    out = nl.ndarray((R, C), dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    i_p, i_f = nl.mgrid[0:R, 0:C]
    r = nl.multiply(t[i_p, C - 1 - i_f], 2.0)
    nl.store(out, value=r)
    return out
