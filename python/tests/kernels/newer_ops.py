"""Kernels that use NKI's iota, tensor_tensor_scan, bn_stats / bn_aggr, the PE transpose, a partition broadcast and
nl.log, written for allocsim's tests."""
import nki
import nki.isa as nisa
import nki.language as nl
import neuronxcc.nki.isa as nisa_v1


@nki.jit
def positions(a):
    """out[p, f] = a[p, f] + (64*p + f) for a [8, 64] tile: iota's global element index."""
    P, N = a.shape
    out = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:P, 0:N]
    idx = nisa_v1.iota(i_p * N + i_f, dtype=nl.float32)
    nl.store(out, value=nl.add(nl.load(a), idx))
    return out


@nki.jit
def scan_decay(decay, x):
    """h[i] = decay[i] * h[i-1] + x[i] along each row: the recurrence of mamba's selective scan."""
    P, N = x.shape
    out = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.shared_hbm)
    h = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf)
    nisa.tensor_tensor_scan(dst=h, data0=nl.load(decay), data1=nl.load(x), initial=0.0, op0=nl.multiply,
                            op1=nl.add)
    nl.store(out, value=h)
    return out


@nki.jit
def layernorm_bn(x, gamma):
    """Layer normalization with bn_stats / bn_aggr (NKI's layernorm v2), gamma broadcast along partitions."""
    R, N = x.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((R, N), dtype=nl.float32, buffer=nl.shared_hbm)
    g_row = nl.load(gamma)                          # [1, N]
    for i in nl.affine_range(R // P):
        t = nl.load(x[i * P:(i + 1) * P, :])
        stats = nisa_v1.bn_stats(t)
        mv = nisa_v1.bn_aggr(stats)
        rstd = nl.rsqrt(nl.add(mv[:, 1:2], 1e-5))
        y = nl.multiply(nl.subtract(t, mv[:, 0:1]), rstd)
        nl.store(out[i * P:(i + 1) * P, :], value=nl.multiply(y, g_row.broadcast_to((P, N))))
    return out


@nki.jit
def log_transpose(a):
    """out = log(a)^T for a square tile of positive values."""
    P, N = a.shape
    out = nl.ndarray((N, P), dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.log(nl.load(a))
    nl.store(out, value=nisa_v1.nc_transpose(t))
    return out
