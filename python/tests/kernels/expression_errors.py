"""Expressions the tracer must refuse, each at the line marked `# refused here`, for allocsim's tests."""
import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl


@nki.jit
def accumulates_before_reset(a):
    out = nl.ndarray((8, 1), dtype=a.dtype, buffer=nl.shared_hbm)
    res = nl.ndarray((8, 1), dtype=nl.float32, buffer=nl.sbuf)
    t = nl.load(a[0:8, :])
    cmd = nisa.reduce_cmd.reduce
    nisa.activation(op=nl.exp, data=t, reduce_op=nl.add, reduce_res=res, reduce_cmd=cmd)  # refused here
    nl.store(out, value=res)
    return out


@nki.jit
def loop_reduce_not_assigned_to_a_tile(a):
    out = nl.ndarray((8, 64), dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(2):
        t = nl.load(a[i * 8:(i + 1) * 8, :])
        acc = nl.loop_reduce(t, op=nl.add, loop_indices=[i])  # refused here
        nl.store(out, value=acc)
    return out


@nki.jit
def while_on_loop_index(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(2):
        t = nl.load(a[i * 8:(i + 1) * 8, :])
        while i < 1:  # refused here
            t = nl.exp(t)
        nl.store(out[i * 8:(i + 1) * 8, :], value=t)
    return out


@nki.jit
def conditional_number_as_index(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(2):
        k = 0 if i == 0 else 1
        t = nl.load(a[k * 8:(k + 1) * 8, :])  # refused here
        nl.store(out[i * 8:(i + 1) * 8, :], value=t)
    return out
