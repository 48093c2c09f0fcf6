"""One-dimensional loads (a column of a matrix), numpy ufuncs as ops, and a zero-filled tile array, for allocsim's
tests."""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def scaled_column_sums(x, w):
    """out[:, j] = x * w[:, j] summed over the column tiles of x: x [P*T, N], w [P*T, J]; a tile array of
    accumulators, one per row tile."""
    R, N = x.shape
    J = w.shape[1]
    P = nl.tile_size.pmax
    T = R // P
    out = nl.ndarray((R, J * N), dtype=x.dtype, buffer=nl.shared_hbm)
    acc = nl.zeros((T, nl.par_dim(P), J * N), dtype=nl.float32)
    for t in nl.affine_range(T):
        xt = nl.load(x[t * P:(t + 1) * P, :])
        for j in nl.affine_range(J):
            col = nl.load(w[t * P:(t + 1) * P, j])
            prod = nisa.tensor_scalar(xt, np.multiply, col)
            acc[t, :, j * N:(j + 1) * N] = nisa.tensor_tensor(acc[t, :, j * N:(j + 1) * N], prod, op=np.add)
        nl.store(out[t * P:(t + 1) * P, :], value=acc[t])
    return out
