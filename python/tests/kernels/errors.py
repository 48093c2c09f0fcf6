"""Kernels that the tracer must refuse, each at the line marked `# refused here`, for allocsim's tests."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
import neuronxcc.nki.compiler as ncc


@nki.jit
def uses_tan(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a[0:8, :])
    u = nl.tan(t)  # refused here
    nl.store(out[0:8, :], value=u)
    return out


@nki.jit
def rebinds_in_branch_on_loop_index(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(2):
        t = nl.load(a[i * 8:(i + 1) * 8, :])
        if i == 0:
            t = nl.exp(t)
        nl.store(out[i * 8:(i + 1) * 8, :], t)  # refused here
    return out


@nki.jit
def tile_of_list_used_after_loop(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    tiles = []
    for i in nl.affine_range(2):
        t = nl.load(a[i * 8:(i + 1) * 8, :])
        tiles.append(t)
    for i in nl.affine_range(2):
        nl.store(out[i * 8:(i + 1) * 8, :], value=tiles[i])
    nl.store(out[0:8, :], t)  # refused here
    return out


@nki.jit
def same_tile_appended_each_iteration(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((8, 64), dtype=a.dtype, buffer=nl.sbuf)
    tiles = []
    for i in nl.affine_range(2):
        t[...] = nl.load(a[i * 8:(i + 1) * 8, :])
        tiles.append(t)
    for i in nl.affine_range(2):
        nl.store(out[i * 8:(i + 1) * 8, :], value=tiles[i])  # refused here
    return out


@nki.jit
def list_of_numbers_indexed_by_loop(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    scale = [1.0, 2.0]
    for i in nl.affine_range(2):
        t = nl.load(a[i * 8:(i + 1) * 8, :])
        nl.store(out[i * 8:(i + 1) * 8, :], value=nl.multiply(t, scale[i]))  # refused here
    return out


@nki.jit
def mask_relating_two_axes(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:8, 0:64]
    t = nl.load(a[i_p, i_f])
    nl.store(out[i_p, i_f], value=t, mask=(i_f >= i_p))  # refused here
    return out


@nki.jit
def masked_index_out_of_range(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    i_p, i_f = nl.mgrid[0:8, 0:64]
    for i in nl.affine_range(3):
        t = nl.load(a[i * 8 + i_p, i_f], mask=(i * 8 + i_p < 20))  # refused here
        nl.store(out[i * 8 + i_p, i_f], value=t, mask=(i * 8 + i_p < 20))
    return out


@nki.jit
def reads_unwritten_tile(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((8, 64), dtype=nl.float32, buffer=nl.sbuf)
    nl.store(out[0:8, :], value=t)  # refused here
    nl.store(out[8:16, :], value=t)
    return out


@nki.jit
def out_of_bounds(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(3):
        t = nl.load(a[i * 8:(i + 1) * 8, :])  # refused here
        nl.store(out[i * 8:(i + 1) * 8, :], value=t)
    return out


@nki.jit
def uses_tfloat32_tile(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.load(a[0:8, :], dtype=nl.tfloat32)  # refused here
    nl.store(out[0:8, :], value=t)
    return out


@nki.jit
def slice_across_rotating_blocks(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    t = nl.ndarray((4, nl.par_dim(8), 64), dtype=a.dtype, buffer=ncc.sbuf.mod_alloc(base_addr=0, num_free_tiles=(2,)))
    for i in nl.affine_range(2):
        t[i] = nl.load(a[i * 8:(i + 1) * 8, :])
    u = nl.add(t[1:3], 1.0)  # refused here
    nl.store(out[0:8, :], value=u)
    return out
