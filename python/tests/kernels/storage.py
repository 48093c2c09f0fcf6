"""Kernels about storage, written for allocsim's tests: HBM views that span rows, indexes over many loops, PSUM tile
arrays with more tiles than the machine's banks."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import neuronxcc.nki.compiler as ncc


@nki.jit
def window_rows_max(a, k):
    """out[r, c] = max(a[r, c], ..., a[r + k - 1, c]): each partition loads k consecutive rows of a at once."""
    R, C = a.shape
    P = R - (k - 1)
    out = nl.ndarray((P, C), dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_k, i_c = nl.mgrid[0:P, 0:k, 0:C]
    win = nl.load(a[i_p + i_k, i_c])
    m = nl.max(win, axis=1)
    nl.store(out, value=m)
    return out


@nki.jit
def five_loop_copy(a):
    """out = 2 * a, a [P, 32*F] moved in blocks of F by five nested loops; every view's offset uses all five."""
    P, N = a.shape
    F = N // 32
    out = nl.ndarray((P, N), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(2):
        for j in nl.affine_range(2):
            for k in nl.affine_range(2):
                for m in nl.affine_range(2):
                    for n in nl.affine_range(2):
                        off = (i * 16 + j * 8 + k * 4 + m * 2 + n) * F
                        t = nl.load(a[:, nl.ds(off, F)])
                        nl.store(out[:, nl.ds(off, F)], value=nl.multiply(t, 2.0))
    return out


@nki.jit
def psum_tiles_consumed_at_once(aT, w):
    """out row tile m = aT[:, m].T @ w, each product in tile m of a PSUM tile array with one tile per row tile, copied
    out right after the matmul: more tiles than PSUM banks, never more than one holding a value."""
    K, M = aT.shape
    _, N = w.shape
    P = nl.tile_size.pmax
    nm = M // P
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    w_sb = nl.load(w)
    a_sb = nl.load(aT)
    res = nl.ndarray((nm, nl.par_dim(P), N), dtype=nl.float32, buffer=nl.psum)
    for m in nl.affine_range(nm):
        res[m] = nisa.nc_matmul(a_sb[:, nl.ds(m * P, P)], w_sb)
        o = nl.copy(res[m])
        nl.store(out[nl.ds(m * P, P), :], value=o)
    return out


@nki.jit
def psum_tiles_kept_and_folded(aT, w):
    """The same products twice: into a tile array whose tiles are all written first and read in a second loop (each
    holds its value until the end), and into one whose tiles are consumed right after their matmul."""
    K, M = aT.shape
    _, N = w.shape
    P = nl.tile_size.pmax
    nm = M // P
    kept = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    now = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    w_sb = nl.load(w)
    a_sb = nl.load(aT)
    res_all = nl.ndarray((nm, nl.par_dim(P), N), dtype=nl.float32, buffer=nl.psum)
    res_now = nl.ndarray((nm, nl.par_dim(P), N), dtype=nl.float32, buffer=nl.psum)
    for m in nl.affine_range(nm):
        res_all[m] = nisa.nc_matmul(a_sb[:, nl.ds(m * P, P)], w_sb)
    for m in nl.affine_range(nm):
        res_now[m] = nisa.nc_matmul(a_sb[:, nl.ds(m * P, P)], w_sb)
        o = nl.copy(res_now[m])
        nl.store(now[nl.ds(m * P, P), :], value=o)
    for m in nl.affine_range(nm):
        o = nl.copy(res_all[m])
        nl.store(kept[nl.ds(m * P, P), :], value=o)
    return kept, now


def _psum_ring(idx, pdim_size, fdim_size):
    """An allocation function in NKI's form: block i in bank 2 + i % 2, partition 0, byte 0."""
    (i,) = idx
    return 2 + i % 2, 0, 0


@nki.jit
def placed_in_loop(aT, w):
    """out = aT.T @ w in two groups of row tiles; each group's tiles are declared inside the group's loop and placed
    by hand: its SBUF input tiles rotate over two tiles (mod_alloc), its PSUM tiles over banks 2 and 3 (an
    allocation function), its SBUF results share one tile."""
    K, M = aT.shape
    _, N = w.shape
    P = nl.tile_size.pmax
    groups = 2
    nm = M // (P * groups)
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    w_sb = nl.ndarray((K, N), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    w_sb[...] = nl.load(w)
    for g in nl.affine_range(groups):
        a_sb = nl.ndarray((nm, nl.par_dim(K), P), dtype=nl.float32,
                          buffer=ncc.sbuf.mod_alloc(base_addr=N * 4, num_free_tiles=(2,)))
        res = nl.ndarray((nm, nl.par_dim(P), N), dtype=nl.float32, buffer=ncc.psum.alloc(_psum_ring))
        o_sb = nl.ndarray((nm, nl.par_dim(P), N), dtype=nl.float32,
                          buffer=ncc.sbuf.mod_alloc(base_addr=N * 4 + 2 * P * 4, num_free_tiles=(1,)))
        for m in nl.affine_range(nm):
            a_sb[m] = nl.load(aT[:, nl.ds((g * nm + m) * P, P)])
            res[m] = nisa.nc_matmul(a_sb[m], w_sb)
            o_sb[m] = nl.copy(res[m])
            nl.store(out[nl.ds((g * nm + m) * P, P), :], value=o_sb[m])
    return out


@nki.jit
def partition_tiles(a):
    """Refused: tiles of a modulo allocation at different partitions."""
    shape = (2, nl.par_dim(4), 16)
    t = nl.ndarray(shape, dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(0, num_par_tiles=(2,)))  # refused: num_par_tiles
    t[0] = nl.load(a)
    return a


@nki.jit
def packed_mx(a):
    """Refused: an mx dtype of four packed values."""
    t = nl.ndarray((8, 16), dtype=nl.float8_e4m3fn_x4, buffer=nl.sbuf)  # refused: float8_e4m3fn_x4
    t[...] = nl.load(a)
    return a


@nki.jit
def scaled_sum(a, s, b):
    """out = a * s + b, s one number per row ([P, 1]), in one nisa.scalar_tensor_tensor."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    r = nisa.scalar_tensor_tensor(data=nl.load(a), op0=nl.multiply, operand0=nl.load(s), op1=nl.add,
                                  operand1=nl.load(b))
    nl.store(out, value=r)
    return out
