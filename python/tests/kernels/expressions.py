"""Kernels with NKI expressions beyond plain arithmetic: loop reductions, accumulating reduce commands, elementwise
comparisons, selections on values and Python's boolean operators on loop indices, for allocsim's tests."""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def loop_reduce_max_and_sum(a):
    """Over the row tiles of a: the elementwise max (into a view of a tile, np.maximum) and sum (rebinding the
    tile's name, nl.add), each a loop reduction."""
    P = nl.tile_size.pmax
    n, F = a.shape[0] // P, a.shape[1]
    hi = nl.full((P, F), -np.inf, dtype=nl.float32, buffer=nl.sbuf)
    total = nl.zeros((P, F), dtype=nl.float32, buffer=nl.sbuf)
    for i in nl.affine_range(n):
        t = nl.load(a[i * P:(i + 1) * P, :])
        hi[:, :] = nl.loop_reduce(t, op=np.maximum, loop_indices=[i], dtype=nl.float32)
        total = nl.loop_reduce(t, op=nl.add, loop_indices=[i], dtype=nl.float32)
    out_max = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    out_sum = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out_max, value=hi)
    nl.store(out_sum, value=total)
    return out_max, out_sum


@nki.jit
def accumulated_row_sums(a):
    """Row sums of squares over the column tiles of a: the Scalar Engine's accumulator reset by the first tile's
    activation, accumulated by the others, read out after each."""
    P, F = nl.tile_size.pmax, 16
    R, C = a.shape
    sq = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    sums = nl.ndarray((R, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    for r in nl.affine_range(R // P):
        res = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
        t = nl.load(a[r * P:(r + 1) * P, 0:F])
        s = nisa.activation(op=nl.square, data=t, reduce_op=nl.add, reduce_res=res,
                            reduce_cmd=nisa.reduce_cmd.reset_reduce)
        nl.store(sq[r * P:(r + 1) * P, 0:F], value=s)
        for c in nl.affine_range(1, C // F):
            t2 = nl.load(a[r * P:(r + 1) * P, c * F:(c + 1) * F])
            s2 = nisa.activation(op=nl.square, data=t2, reduce_op=nl.add, reduce_res=res,
                                 reduce_cmd=nisa.reduce_cmd.reduce)
            nl.store(sq[r * P:(r + 1) * P, c * F:(c + 1) * F], value=s2)
        nl.store(sums[r * P:(r + 1) * P, :], value=res)
    return sq, sums


@nki.jit
def running_max_from_init(a, init):
    """Per row: the max of init and of 2*a over the column tiles, on the Vector Engine's accumulator (loaded from
    init, then accumulated; read out once by an idle instruction); and per row the max of a alone (reset to -inf,
    then accumulated)."""
    P, F = nl.tile_size.pmax, 16
    C = a.shape[1]
    m = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    m2 = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    i0 = nl.load(init[0:P, :])
    t = nl.load(a[0:P, 0:F])
    nisa.tensor_scalar_reduce(data=t, op0=nl.multiply, operand0=2.0, reduce_op=nl.maximum,
                              reduce_cmd=nisa.reduce_cmd.load_reduce, reduce_init=i0)
    for c in nl.affine_range(1, C // F):
        t2 = nl.load(a[0:P, c * F:(c + 1) * F])
        nisa.tensor_scalar_reduce(data=t2, op0=nl.multiply, operand0=2.0, reduce_op=nl.maximum,
                                  reduce_cmd=nisa.reduce_cmd.reduce)
    nisa.tensor_scalar_reduce(data=t, op0=nl.multiply, operand0=1.0, reduce_op=nl.maximum, reduce_res=m,
                              reduce_cmd=nisa.reduce_cmd.idle)
    nisa.tensor_scalar_reduce(data=t, op0=nl.add, operand0=0.0, reduce_op=nl.maximum,
                              reduce_cmd=nisa.reduce_cmd.reset)
    for c in nl.affine_range(C // F):
        t3 = nl.load(a[0:P, c * F:(c + 1) * F])
        nisa.tensor_scalar_reduce(data=t3, op0=nl.add, operand0=0.0, reduce_op=nl.maximum, reduce_res=m2,
                                  reduce_cmd=nisa.reduce_cmd.reduce)
    out = nl.ndarray((P, 2), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out[:, 0:1], value=m)
    nl.store(out[:, 1:2], value=m2)
    return out


@nki.jit
def boolean_conditions(a):
    """Row tiles (i, j) of a 4x2 grid of tiles: `or` adds 1 to the corner tiles, `not (... and ...)` doubles every
    tile but (1, 0), and a conditional expression scales by 3 on even rows of tiles and by 0.5 on odd ones."""
    P = nl.tile_size.pmax
    F = a.shape[1] // 2
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(4):
        for j in nl.affine_range(2):
            t = nl.load(a[i * P:(i + 1) * P, j * F:(j + 1) * F])
            u = nl.ndarray(t.shape, dtype=t.dtype, buffer=nl.sbuf)
            u[...] = nl.multiply(t, 3.0 if i % 2 == 0 else 0.5)
            if (i == 0 or i == 3) and j == 1:
                u[...] = nl.add(u, 1.0)
            if not (i == 1 and j == 0):
                u[...] = nl.multiply(u, 2.0)
            else:
                u[...] = nl.subtract(u, 1.0)
            nl.store(out[i * P:(i + 1) * P, j * F:(j + 1) * F], value=u)
    return out


@nki.jit
def conditional_tiles(a):
    """Per row tile: exp of the tile on the first two tiles and zeros on the others (a tile or a number), plus the
    tile itself or its square (two tiles)."""
    P = nl.tile_size.pmax
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(a.shape[0] // P):
        t = nl.load(a[i * P:(i + 1) * P, :])
        e = nl.exp(t) if i < 2 else 0.0
        s = t if i % 2 == 0 else nl.multiply(t, t)
        nl.store(out[i * P:(i + 1) * P, :], value=nl.add(e, s))
    return out


@nki.jit
def reduce_cmd_by_iteration(a):
    """Row sums of a over its column tiles, the accumulator reset on the first tile and accumulated on the others by
    a reduce_cmd chosen with a conditional expression, read out on the last."""
    P, F = nl.tile_size.pmax, 16
    n = a.shape[1] // F
    res = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.sbuf)
    for c in nl.affine_range(n):
        t = nl.load(a[0:P, c * F:(c + 1) * F])
        nisa.activation(op=nl.copy, data=t, reduce_op=nl.add, reduce_res=res,
                        reduce_cmd=nisa.reduce_cmd.reduce if c > 0 else nisa.reduce_cmd.reset_reduce)
    out = nl.ndarray((P, 1), dtype=nl.float32, buffer=nl.shared_hbm)
    nl.store(out, value=res)
    return out


@nki.jit
def compare_and_select(a, b):
    """Elementwise comparisons of two tiles and of a tile and a number (1 / 0), logical operations on them, and
    nl.where on the resulting tile of values (tiles and a number)."""
    P, F = a.shape
    x = nl.load(a)
    y = nl.load(b)
    gt = nl.greater(x, y)
    le = x <= 0.25
    ge_rev = 0.25 >= x  # a number on the left: the comparison mirrored
    both = nl.logical_and(gt, le)
    either = nl.logical_or(gt, le)
    neither = nl.logical_not(either)
    picked = nl.where(gt, x, y)
    floor = nl.where(le, -1.0, x)
    out = nl.ndarray((P, 7 * F), dtype=a.dtype, buffer=nl.shared_hbm)
    for k, v in enumerate((gt, ge_rev, both, either, neither, picked, floor)):
        nl.store(out[:, k * F:(k + 1) * F], value=v)
    return out


@nki.jit
def integer_where(a, b, c):
    """nl.where on int32 tiles with an int32 condition (nonzero: take a), and nl.equal of two int32 tiles."""
    x, y, cond = nl.load(a), nl.load(b), nl.load(c)
    out = nl.ndarray((a.shape[0], 2 * a.shape[1]), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out[:, 0:a.shape[1]], value=nl.where(cond, x, y))
    nl.store(out[:, a.shape[1]:2 * a.shape[1]], value=nl.equal(x, y))
    return out


@nki.jit
def piecewise_indices(a):
    """out tile (i, j) of a 3x2 grid: row tile (i + 1) % 3 of a plus row tile (i + j) % 2, or minus it where
    (i + j) % 2 == 0; column 0 of its first row scaled by (2*i + j + 1) // 3."""
    P, F = nl.tile_size.pmax, a.shape[1]
    out = nl.ndarray((6 * P, F), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(3):
        for j in nl.affine_range(2):
            k = (i + 1) % 3
            m = (i + j) % 2
            q = (2 * i + j + 1) // 3
            t = nl.load(a[k * P:(k + 1) * P, :])
            u = nl.load(a[m * P:(m + 1) * P, :])
            v = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.sbuf)
            if (i + j) % 2 == 1:
                v[...] = nl.add(t, u)
            else:
                v[...] = nl.subtract(t, u)
            w = nl.ndarray((P, 3), dtype=a.dtype, buffer=nl.sbuf)
            w[...] = 0.0
            w[0:1, q:q + 1] = nl.copy(v[0:1, 0:1])
            o = (i * 2 + j) * P
            nl.store(out[o:o + P, :], value=v)
            nl.store(out[o:o + 1, 0:3], value=w[0:1, :])
    return out


@nki.jit
def triangular_masks(a):
    """A mask relating the two tile axes: 2*a on and below the diagonal of a fresh tile; exp of a strictly above the
    first superdiagonal written into a tile that holds a copy of a (kept elsewhere)."""
    P, F = a.shape
    i_p, i_f = nl.mgrid[0:P, 0:F]
    x = nl.load(a)
    lower = nl.multiply(x, 2.0, mask=(i_f <= i_p))
    z = nl.ndarray((P, F), dtype=a.dtype, buffer=nl.sbuf)
    z[...] = nl.copy(x)
    z[...] = nl.exp(x, mask=(i_f > i_p + 1))
    out = nl.ndarray((P, 2 * F), dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out[:, 0:F], value=lower)
    nl.store(out[:, F:2 * F], value=z)
    return out
