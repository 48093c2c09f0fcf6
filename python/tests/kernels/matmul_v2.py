"""Tiled matrix multiplication in the destination-first form of the newer `nki` package, for allocsim's tests."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def matmul_tiled_dst(lhsT, rhs):
    K, M = lhsT.shape
    _, N = rhs.shape
    TILE_M = nl.tile_size.gemm_stationary_fmax
    TILE_K = nl.tile_size.pmax
    TILE_N = nl.tile_size.gemm_moving_fmax
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TILE_M):
        for n in nl.affine_range(N // TILE_N):
            res_psum = nl.ndarray((TILE_M, TILE_N), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TILE_K):
                lhsT_tile = nl.ndarray((TILE_K, TILE_M), dtype=lhsT.dtype, buffer=nl.sbuf)
                rhs_tile = nl.ndarray((TILE_K, TILE_N), dtype=rhs.dtype, buffer=nl.sbuf)
                nisa.dma_copy(dst=lhsT_tile, src=lhsT[k * TILE_K:(k + 1) * TILE_K, m * TILE_M:(m + 1) * TILE_M])
                nisa.dma_copy(dst=rhs_tile, src=rhs[k * TILE_K:(k + 1) * TILE_K, n * TILE_N:(n + 1) * TILE_N])
                nisa.nc_matmul(dst=res_psum, stationary=lhsT_tile, moving=rhs_tile)
            res_sb = nl.ndarray(res_psum.shape, dtype=result.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res_sb, src=res_psum)
            nisa.dma_copy(dst=result[m * TILE_M:(m + 1) * TILE_M, n * TILE_N:(n + 1) * TILE_N], src=res_sb)
    return result


@nki.jit
def matmul_hoisted(lhsT, rhs):
    """The hoist-load form with the tiles of a K column in a tile array (one tile per k)."""
    K, M = lhsT.shape
    _, N = rhs.shape
    TM, TK, TN = nl.tile_size.gemm_stationary_fmax, nl.tile_size.pmax, nl.tile_size.gemm_moving_fmax
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        lhsT_tiles = nl.ndarray((K // TK, nl.par_dim(TK), TM), dtype=lhsT.dtype, buffer=nl.sbuf)
        for k in nl.affine_range(K // TK):
            nisa.dma_copy(dst=lhsT_tiles[k], src=lhsT[k * TK:(k + 1) * TK, m * TM:(m + 1) * TM])
        for n in nl.affine_range(N // TN):
            rhs_tiles = nl.ndarray((K // TK, nl.par_dim(TK), TN), dtype=rhs.dtype, buffer=nl.sbuf)
            for k in nl.affine_range(K // TK):
                nisa.dma_copy(dst=rhs_tiles[k], src=rhs[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN])
            res_psum = nl.ndarray((TM, TN), nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TK):
                nisa.nc_matmul(res_psum, lhsT_tiles[k], rhs_tiles[k])
            res_sb = nl.ndarray(res_psum.shape, dtype=result.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res_sb, src=res_psum)
            nisa.dma_copy(dst=result[m * TM:(m + 1) * TM, n * TN:(n + 1) * TN], src=res_sb)
    return result


@nki.jit
def matmul_two_level_k(lhsT, rhs, KB=2):
    """The contraction in blocks of KB tiles: the accumulation spans two loops (kb, then k within the block)."""
    K, M = lhsT.shape
    _, N = rhs.shape
    TM, TK, TN = nl.tile_size.gemm_stationary_fmax, nl.tile_size.pmax, nl.tile_size.gemm_moving_fmax
    KT = K // TK // KB
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        for n in nl.affine_range(N // TN):
            acc = nl.ndarray((TM, TN), nl.float32, buffer=nl.psum)
            for kb in nl.affine_range(KB):
                for k in nl.affine_range(KT):
                    row = (kb * KT + k) * TK
                    a = nl.load(lhsT[row:row + TK, m * TM:(m + 1) * TM])
                    b = nl.load(rhs[row:row + TK, n * TN:(n + 1) * TN])
                    nisa.nc_matmul(acc, a, b)
            res = nl.ndarray((TM, TN), dtype=result.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=res, src=acc)
            nl.store(result[m * TM:(m + 1) * TM, n * TN:(n + 1) * TN], value=res)
    return result
