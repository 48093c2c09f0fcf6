"""RMS normalization and 2x2 average pooling in the forms of NKI's rmsnorm and average_pool2d tutorials, written
for allocsim's tests."""
import nki
import nki.language as nl


@nki.jit
def rmsnorm(a_tensor, g_tensor):
    R, N = a_tensor.shape
    P = nl.tile_size.pmax
    out_tensor = nl.ndarray((R, N), dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    g_bcast = nl.ndarray((P, N), dtype=g_tensor.dtype, buffer=nl.sbuf)
    for p in nl.affine_range(P):
        g_bcast[p, :] = nl.load(g_tensor[0, :])
    for i in nl.affine_range(R // P):
        a_tile = nl.load(a_tensor[i * P:(i + 1) * P, :])
        in_square = nl.square(a_tile)
        square_sum = nl.sum(in_square, axis=[1])
        mean = square_sum / N
        rms_reciprocal = nl.rsqrt(mean)
        out_tile = nl.multiply(a_tile, rms_reciprocal)
        out_tile[...] = nl.multiply(out_tile, g_bcast)
        nl.store(out_tensor[i * P:(i + 1) * P, :], value=out_tile)
    return out_tensor


@nki.jit
def avgpool2x2(in_tensor):
    C, H, W = in_tensor.shape
    out_tensor = nl.ndarray((C, H // 2, W // 2), dtype=in_tensor.dtype, buffer=nl.shared_hbm)
    in_tile = nl.load(in_tensor)
    h = nl.add(in_tile[:, :, 0::2], in_tile[:, :, 1::2], dtype=nl.float32)   # horizontal pairs
    v = nl.add(h[:, 0::2, :], h[:, 1::2, :])                                 # vertical pairs
    out_tile = nl.divide(v, 4.0, dtype=in_tensor.dtype)
    nl.store(out_tensor, value=out_tile)
    return out_tensor
