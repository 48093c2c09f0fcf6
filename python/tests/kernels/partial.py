"""Reductions over some of the free axes, and explicit access patterns, for allocsim's tests."""
import nki
import nki.isa as nisa
import nki.language as nl


@nki.jit
def window_max_and_mean(x, k=2):
    """x [C, H, W]: the max and the mean of each k x k window, windows read through nl.mgrid indices."""
    C, H, W = x.shape
    mx = nl.ndarray((C, H // k, W // k), dtype=x.dtype, buffer=nl.shared_hbm)
    mn = nl.ndarray((C, H // k, W // k), dtype=x.dtype, buffer=nl.shared_hbm)
    c, oh, dh, ow, dw = nl.mgrid[0:C, 0:H // k, 0:k, 0:W // k, 0:k]
    t = nl.load(x)
    win = t[c, oh * k + dh, ow * k + dw]
    nl.store(mx, value=nl.max(win, axis=[2, 4]))
    nl.store(mn, value=nl.mean(win, axis=(2, 4)))
    return mx, mn


@nki.jit
def row_group_sums(x, G=4):
    """x [P, N]: sums of each group of G consecutive elements of a row, through an access pattern, kept as
    [P, N/G, 1] (keepdims), then scaled by a [P, 1] column."""
    P, N = x.shape
    out = nl.ndarray((P, N // G), dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((P, N), dtype=x.dtype, buffer=nl.sbuf)
    nisa.dma_copy(dst=t, src=x)
    groups = t.ap([[N, P], [G, N // G], [1, G]])
    s = nl.ndarray((P, N // G, 1), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_reduce(dst=s, op=nl.add, data=groups, axis=2, keepdims=True)
    first = nl.ndarray((P, 1), dtype=x.dtype, buffer=nl.sbuf)
    nisa.tensor_copy(dst=first, src=t[:, 0:1])
    nl.store(out, value=nl.multiply(s.reshape((P, N // G)), first))
    return out


@nki.jit
def interleave_halves(x):
    """x [P, 2N] -> out [P, 2N] with out[:, 2j + h] = x[:, h*N + j]: a copy whose destination's free axes are not
    one run (looped over one of them)."""
    P, N2 = x.shape
    N = N2 // 2
    out = nl.ndarray(x.shape, dtype=x.dtype, buffer=nl.shared_hbm)
    t = nl.load(x)
    i_p = nl.arange(P)[:, None, None]
    i_h = nl.arange(2)[None, :, None]
    i_j = nl.arange(N)[None, None, :]
    u = nl.ndarray((P, N2), dtype=x.dtype, buffer=nl.sbuf)
    u[i_p, i_j * 2 + i_h] = nl.copy(t[i_p, i_h * N + i_j])
    nl.store(out, value=u)
    return out
