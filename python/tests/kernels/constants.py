"""HBM constants built on chip, fused scalar reductions and negated reductions assigned into tiles, for allocsim's
tests."""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def transpose_by_identity(x):
    """x [P, P]: returns x^T (a matmul by an identity constant), 2x, minus the row maxima (a negated reduction
    assigned into a tile) and the row sums of 2x (fused into the multiply)."""
    P = x.shape[0]
    t_out = nl.ndarray((P, P), dtype=x.dtype, buffer=nl.shared_hbm)
    twice = nl.ndarray((P, P), dtype=x.dtype, buffer=nl.shared_hbm)
    negmax = nl.ndarray((P, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    sums = nl.ndarray((P, 1), dtype=x.dtype, buffer=nl.shared_hbm)
    ident = nl.shared_constant(np.identity(P, dtype=np.int8), dtype=nl.float32)
    ident_sb = nl.ndarray((P, P), dtype=nl.float32, buffer=nl.sbuf)
    ident_sb[...] = nl.load(ident)
    xs = nl.load(x)
    xt = nisa.nc_matmul(xs, ident_sb)  # stationary x: (x^T) @ I
    nl.store(t_out, value=nl.copy(xt))
    m = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    m[:, :] = nisa.tensor_reduce(op=nl.max, data=xs, axis=1, negate=True)
    nl.store(negmax, value=m)
    s = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    d = nisa.tensor_scalar_reduce(data=xs, op0=nl.multiply, operand0=2.0, reduce_op=nl.add, reduce_res=s)
    nl.store(twice, value=d)
    nl.store(sums, value=s)
    return t_out, twice, negmax, sums
