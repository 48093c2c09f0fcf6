"""nki.isa in its destination-first form: nisa.nc_matmul(dst, stationary, moving), nisa.tensor_copy(dst=, src=)."""
from allocsim_nki import isa as _i
from allocsim_nki.isa import engine, KernelError  # noqa: F401
from allocsim_nki import language as _nl  # noqa: F401


def nc_matmul(dst, stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False,
              accumulate=None, **kw):
    return _i.nc_matmul(stationary, moving, is_transpose=is_transpose, dst=dst, accumulate=accumulate,
                        perf_mode=kw.get("perf_mode"))


def nc_transpose(dst, data, engine=None, **kw):
    return _i.nc_transpose(data, dst=dst)


def activation(dst, op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=None, **kw):
    return _i.activation(op, data, bias, scale, reduce_op, reduce_res, reduce_cmd=reduce_cmd, dst=dst)


def activation_reduce(dst, op, data, reduce_op, reduce_res, bias=None, scale=1.0, **kw):
    return _i.activation(op, data, bias, scale, reduce_op, reduce_res, dst=dst)


def tensor_tensor(dst, data1, data2, op, engine=None, **kw):
    return _i.tensor_tensor(data1, data2, op, dst=dst)


def tensor_scalar(dst, data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False, engine=None,
                  **kw):
    return _i.tensor_scalar(data, op0, operand0, reverse0, op1, operand1, reverse1, dst=dst)


def scalar_tensor_tensor(dst, data, op0, operand0, op1, operand1, reverse0=False, reverse1=False, engine=None, **kw):
    return _i.scalar_tensor_tensor(data, op0, operand0, op1, operand1, reverse0, reverse1, dst=dst)


def tensor_scalar_reduce(dst, data, op0, operand0, reduce_op, reduce_res=None, reverse0=False, reduce_cmd=None,
                         reduce_init=None, **kw):
    return _i.tensor_scalar_reduce(data, op0, operand0, reduce_op, reduce_res, reverse0, reduce_cmd=reduce_cmd,
                                   reduce_init=reduce_init, dst=dst)


def tensor_reduce(dst, op, data, axis, negate=False, keepdims=False, **kw):
    return _i.tensor_reduce(op, data, axis, negate=negate, keepdims=keepdims, dst=dst)


def tensor_copy(dst, src, engine=None, **kw):
    return _i.tensor_copy(src, dst=dst)


def memset(dst, value, engine=None, **kw):
    return _i.memset(dst, value)


def dma_copy(dst, src, oob_mode=None, dst_rmw_op=None, **kw):
    return _i.dma_copy(dst, src, oob_mode=oob_mode, dst_rmw_op=dst_rmw_op)


def affine_select(dst, pattern, channel_multiplier, on_true_tile, on_false_value, cmp_op=None, offset=0, **kw):
    return _i.affine_select(on_true_tile=on_true_tile, on_false_value=on_false_value, dst=dst, pattern=pattern,
                            channel_multiplier=channel_multiplier, cmp_op=cmp_op or _nl.equal, offset=offset)


def reciprocal(dst, data, **kw):
    return _i.reciprocal(data, dst=dst)


def iota(dst, pattern, offset=0, channel_multiplier=0, **kw):
    return _i.iota(dst=dst, pattern=pattern, offset=offset, channel_multiplier=channel_multiplier)


def tensor_tensor_scan(dst, data0, data1, initial, op0, op1, reverse0=False, reverse1=False, **kw):
    return _i.tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0, reverse1, dst=dst)


def bn_stats(dst, data, **kw):
    return _i.bn_stats(data, dst=dst)


def bn_aggr(dst, data, **kw):
    return _i.bn_aggr(data, dst=dst)


def tensor_copy_predicated(dst, src, predicate, reverse_pred=False, **kw):
    return _i.tensor_copy_predicated(src=src, dst=dst, predicate=predicate, reverse_pred=reverse_pred)


def select_reduce(dst, predicate, on_true, on_false, reduce_res=None, reduce_cmd=None, reduce_op=None,
                  reverse_pred=False, **kw):
    return _i.select_reduce(dst=dst, predicate=predicate, on_true=on_true, on_false=on_false, reduce_res=reduce_res,
                            reduce_cmd=reduce_cmd, reduce_op=reduce_op, reverse_pred=reverse_pred)


def tensor_scalar_cumulative(dst, src, op0, op1, imm0, imm1=None, reduce_cmd=None, **kw):
    return _i.tensor_scalar_cumulative(src=src, dst=dst, op0=op0, op1=op1, imm0=imm0, imm1=imm1,
                                       reduce_cmd=reduce_cmd if reduce_cmd is not None else _i.reduce_cmd.reset_reduce,
                                       reverse0=kw.get("reverse0", False))


def dma_transpose(dst, src, axes=None, **kw):
    return _i.dma_transpose(src, axes=axes, dst=dst)


def max8(dst, src, **kw):
    return _i.max8(src=src, dst=dst)


def nc_find_index8(dst, data, vals, **kw):
    return _i.nc_find_index8(data=data, vals=vals, dst=dst)


def nc_match_replace8(dst, data, vals, imm, dst_idx=None, **kw):
    return _i.nc_match_replace8(data=data, vals=vals, imm=imm, dst_idx=dst_idx, dst=dst)


def nc_stream_shuffle(dst, src, shuffle_mask, **kw):
    return _i.nc_stream_shuffle(src=src, dst=dst, shuffle_mask=shuffle_mask)


def range_select(dst, on_true_tile, comp_op0, comp_op1, bound0, bound1, reduce_cmd=None, reduce_res=None,
                 reduce_op=None, range_start=0, on_false_value=None, **kw):
    return _i.range_select(on_true_tile=on_true_tile, comp_op0=comp_op0, comp_op1=comp_op1, bound0=bound0,
                           bound1=bound1, reduce_cmd=reduce_cmd, reduce_res=reduce_res, reduce_op=reduce_op,
                           range_start=range_start, on_false_value=on_false_value, dst=dst)


def dropout(dst, data, prob, **kw):
    return _i.dropout(data, prob, dst=dst)


def sequence_bounds(dst, segment_ids, **kw):
    return _i.sequence_bounds(segment_ids=segment_ids, dst=dst)


def __getattr__(name):
    return getattr(_i, name)


constants = _i.constants_module(__name__)
