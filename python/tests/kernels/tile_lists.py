"""Kernels that keep their tiles in Python lists indexed by loop indices (the way current NKI tutorials write the
hoisted and blocked matrix multiplications), for allocsim's tests. The kernels are written for any machine: tile
sizes come from nl.tile_size."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def matmul_list_hoisted(lhsT, rhs):
    """Each K column of lhsT and rhs loaded once per m / n into a list, one tile per k iteration."""
    K, M = lhsT.shape
    _, N = rhs.shape
    TM, TK, TN = nl.tile_size.gemm_stationary_fmax, nl.tile_size.pmax, nl.tile_size.gemm_moving_fmax
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // TM):
        columns = []
        for k in nl.affine_range(K // TK):
            col = nl.ndarray((TK, TM), dtype=lhsT.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=col, src=lhsT[k * TK:(k + 1) * TK, m * TM:(m + 1) * TM])
            columns.append(col)
        for n in nl.affine_range(N // TN):
            rows = []
            for k in nl.affine_range(K // TK):
                rows.append(nl.load(rhs[k * TK:(k + 1) * TK, n * TN:(n + 1) * TN]))
            acc = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.psum)
            for k in nl.affine_range(K // TK):
                nisa.nc_matmul(dst=acc, stationary=columns[k], moving=rows[k])
            out = nl.ndarray((TM, TN), dtype=result.dtype, buffer=nl.sbuf)
            nisa.tensor_copy(dst=out, src=acc)
            nisa.dma_copy(dst=result[m * TM:(m + 1) * TM, n * TN:(n + 1) * TN], src=out)
    return result


@nki.jit
def matmul_list_blocked(lhsT, rhs, BM=2, BN=2):
    """Blocks of BM x BN output tiles; the operands in lists of lists ([block tile][k]), each filled in loops."""
    K, M = lhsT.shape
    _, N = rhs.shape
    TM, TK, TN = nl.tile_size.gemm_stationary_fmax, nl.tile_size.pmax, nl.tile_size.gemm_moving_fmax
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    for m in nl.affine_range(M // (TM * BM)):
        left = []
        for bm in nl.affine_range(BM):
            inner = []
            for k in nl.affine_range(K // TK):
                t = nl.load(lhsT[k * TK:(k + 1) * TK, (m * BM + bm) * TM:(m * BM + bm + 1) * TM])
                inner.append(t)
            left.append(inner)
        for n in nl.affine_range(N // (TN * BN)):
            right = []
            for bn in nl.affine_range(BN):
                inner = []
                for k in nl.affine_range(K // TK):
                    inner.append(nl.load(rhs[k * TK:(k + 1) * TK, (n * BN + bn) * TN:(n * BN + bn + 1) * TN]))
                right.append(inner)
            for bm in nl.affine_range(BM):
                for bn in nl.affine_range(BN):
                    acc = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.psum)
                    for k in nl.affine_range(K // TK):
                        nisa.nc_matmul(dst=acc, stationary=left[bm][k], moving=right[bn][k])
                    out = nl.copy(acc, dtype=result.dtype)
                    nl.store(result[(m * BM + bm) * TM:(m * BM + bm + 1) * TM,
                                    (n * BN + bn) * TN:(n * BN + bn + 1) * TN], value=out)
    return result


@nki.jit
def matmul_python_lists(lhsT, rhs, KB=2):
    """Accumulators and operand rows in lists built by Python loops (unrolled), indexed by loop indices; the sums
    are kept in SBUF across the blocks of K, and a [TM, NB, TN] accumulator is stored through a reshape."""
    K, M = lhsT.shape
    _, N = rhs.shape
    TM, TK, TN = nl.tile_size.gemm_stationary_fmax, nl.tile_size.pmax, nl.tile_size.gemm_moving_fmax
    NB = N // TN
    result = nl.ndarray((M, N), dtype=lhsT.dtype, buffer=nl.shared_hbm)
    sums = []
    for mi in range(M // TM):
        s = nl.ndarray((TM, NB, TN), dtype=nl.float32, buffer=nl.sbuf)
        nisa.memset(dst=s, value=0.0)
        sums.append(s)
    for kb in nl.sequential_range(K // (TK * KB)):
        rows = []
        for j in range(KB):
            r = nl.ndarray((TK, N), dtype=rhs.dtype, buffer=nl.sbuf)
            nisa.dma_copy(dst=r, src=rhs[(kb * KB + j) * TK:(kb * KB + j + 1) * TK, :])
            rows.append(r)
        for m in nl.affine_range(M // TM):
            cols = []
            for j in nl.affine_range(KB):
                cols.append(nl.load(lhsT[(kb * KB + j) * TK:(kb * KB + j + 1) * TK, m * TM:(m + 1) * TM]))
            for n in nl.affine_range(NB):
                acc = nl.ndarray((TM, TN), dtype=nl.float32, buffer=nl.psum)
                for j in nl.affine_range(KB):
                    nisa.nc_matmul(dst=acc, stationary=cols[j], moving=rows[j][:, n * TN:(n + 1) * TN])
                nisa.tensor_tensor(dst=sums[m][:, n, :], data1=sums[m][:, n, :], data2=acc, op=nl.add)
    for m in nl.affine_range(M // TM):
        flat = sums[m].reshape((TM, N))
        nisa.dma_copy(dst=result[m * TM:(m + 1) * TM, :], src=flat)
    return result
