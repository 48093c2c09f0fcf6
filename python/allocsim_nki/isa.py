"""nki.isa (nisa) as the tracer implements it, in the form that returns its result (neuronxcc.nki.isa).

`nki.isa` (the newer spelling, destination first) wraps the same functions: see nki/isa.py.
"""

from . import trace as _t
from .trace import KernelError
from . import language as nl


def _loc():
    return _t.user_location()


def _func_name(op, what):
    for attr in ("_act", "_alu", "_cmp"):
        v = getattr(op, attr, None)
        if v is not None:
            return v
    if isinstance(op, str):
        return op
    if what == "activation" and (type(op).__name__ == "ufunc" or
                                 (getattr(op, "__module__", None) or "").split(".")[0] == "numpy"):
        # numpy's functions where NKI takes an activation (np.copy, np.exp, np.tanh, ...): the nl one of that name
        f = getattr(nl, {"copy": "copy", "absolute": "abs", "abs": "abs"}.get(op.__name__, op.__name__), None)
        if getattr(f, "_act", None) is not None:
            return f._act
    raise KernelError("%s %r is not an NKI operation" % (what, op))


def _alu(op):
    if op is nl.bypass:
        _t.unsupported("nl.bypass here (it skips a stage of tensor_scalar)", _loc())
    a = getattr(op, "_alu", None)
    if a is None:
        # nl.max / nl.min / nl.sum as a reduction op
        a = {id(nl.max): "max", id(nl.min): "min", id(nl.sum): "add", id(nl.add): "add"}.get(id(op))
    if a is None and type(op).__name__ == "ufunc":
        # numpy's ufuncs, which kernels pass as ops too (op0=np.multiply)
        a = {"add": "add", "subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div",
             "maximum": "max", "minimum": "min", "bitwise_and": "and", "bitwise_or": "or", "bitwise_xor": "xor",
             "left_shift": "shl", "right_shift": "shr", "equal": "eq", "not_equal": "ne", "less": "lt",
             "less_equal": "le", "greater": "gt", "greater_equal": "ge"}.get(op.__name__)
    if a is None and callable(op) and (getattr(op, "__module__", None) or "").split(".")[0] == "numpy":
        # numpy's reductions as a reduction op (nisa.tensor_reduce(np.max, ...))
        a = {"amax": "max", "max": "max", "amin": "min", "min": "min", "sum": "add"}.get(op.__name__)
    if a is None:
        raise KernelError("%r is not an ALU operation (nl.add, nl.multiply, nl.maximum, ...)" % (op,))
    return a


engine = type("engine", (), {"unknown": None, "tensor": "pe", "vector": "dve", "scalar": "act", "gpsimd": "pool"})
# The engine an instruction runs on is the program's (by opcode): an `engine=` argument is accepted and not used.
unknown_engine, tensor_engine, vector_engine, scalar_engine, gpsimd_engine = None, "pe", "dve", "act", "pool"
# How an instruction's fused reduction treats the engine's accumulator registers (one f32 per partition, per engine):
# docs/nki.md "Accumulating reductions".
# Which DMA engine moves the data (software or hardware descriptor generation): accepted, the program's DMA is one.
dge_mode = type("dge_mode", (), {"unknown": 0, "swdge": 1, "hwdge": 2, "none": 3})
reduce_cmd = type("reduce_cmd", (), {"idle": "idle", "reset": "reset", "reduce": "reduce",
                                     "reset_reduce": "reset_reduce", "load_reduce": "load_reduce"})


def _per_reduce_cmd(cmd, call, dst, data, dtype, loc):
    """reduce_cmd given as `x if i == 0 else y` (a trace.Choice): the instruction once per case, each in its `if`
    blocks, into one destination; the commands that reset the accumulator are traced first."""
    tr = _t.tracer()
    out = dst if dst is not None else tr.temp(data.shape, _t._result_dtype(data, dtype=dtype), "sbuf", loc)
    options = sorted(cmd.options, key=lambda o: _reduce_cmd(o[1], loc) in ("reduce", "idle"))
    for case, c in options:
        with tr._branch(case, loc):
            call(c, out)
    return out


def _reduce_cmd(cmd, loc):
    """The command's name (an nisa.reduce_cmd member, or an enum of NKI's own with such a name); None for none."""
    if cmd is None:
        return None
    name = getattr(cmd, "name", cmd)
    if name not in ("idle", "reset", "reduce", "reset_reduce", "load_reduce"):
        raise KernelError("reduce_cmd %r is not an nisa.reduce_cmd" % (cmd,), loc)
    return name


def nc_matmul(stationary, moving, is_stationary_onezero=False, is_moving_onezero=False, is_transpose=False,
              mask=None, dst=None, accumulate=None, perf_mode=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    if is_transpose:
        return nc_transpose(stationary, dst=dst)
    mode = getattr(perf_mode, "value", perf_mode)
    if mode not in (None, "none"):
        if not str(mode).startswith("double_row"):
            raise KernelError("perf_mode %r is not an nisa.matmul_perf_mode" % (perf_mode,), loc)
        return _double_row(stationary, moving, dst, accumulate, loc)
    return _t.matmul(stationary, moving, loc, dst=dst, accumulate=dst is not None and accumulate is not False)


def _double_row(stationary, moving, dst, accumulate, loc):
    """perf_mode=double_row: stationary [K, 2, M] and moving [K, 2, N], both rows of each partition contracted
    (`c[m, n] = sum over k, r of stationary[k, r, m] * moving[k, r, n]`): a matmul per row accumulating into one
    PSUM tile as one accumulation group, row 0 first (the engine's own order of the two products is not
    published)."""
    for v, what in ((stationary, "stationary"), (moving, "moving")):
        if not isinstance(v, _t.View) or len(v.shape) != 3 or v.shape[1] != 2:
            raise KernelError("perf_mode=double_row takes a %s tile of shape [K, 2, F], not %s"
                              % (what, getattr(v, "shape", v)), loc)
    tr = _t.tracer()
    M, N = stationary.shape[2], moving.shape[2]
    out = dst if dst is not None else tr.temp((M, N), nl.float32, "psum", loc)
    for r in range(2):
        _t.matmul(stationary[:, r, :], moving[:, r, :], loc, dst=out, accumulate=True)
    return out


def nc_transpose(data, mask=None, dtype=None, engine=None, dst=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    return _t.transpose(data, loc=loc, dst=dst)


def activation(op, data, bias=None, scale=1.0, reduce_op=None, reduce_res=None, reduce_cmd=None, mask=None,
               dtype=None, dst=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    if isinstance(reduce_cmd, _t.Choice):
        return _per_reduce_cmd(reduce_cmd, lambda c, out: activation(
            op, data, bias, scale, reduce_op, reduce_res, c, dtype=dtype, dst=out), dst, data, dtype, loc)
    cmd = _reduce_cmd(reduce_cmd, loc)
    red = _alu(reduce_op) if reduce_op is not None else None
    func = _func_name(op, "activation")
    if cmd is None:
        return _t.activation_fn(func, data, dtype, bias=bias, scale=scale, loc=loc, dst=dst, reduce_op=red,
                                reduce_res=reduce_res)
    return _t.engine_reduction(
        "act", cmd, lambda rop, rdst: _t.activation_fn(func, data, dtype, bias=bias, scale=scale, loc=loc, dst=dst,
                                                       reduce_op=rop, reduce_res=rdst),
        data, red, reduce_res, None, loc)


def activation_reduce(op, data, reduce_op, reduce_res, bias=None, scale=1.0, mask=None, dtype=None, dst=None, **kw):
    return activation(op, data, bias, scale, reduce_op, reduce_res, mask=mask, dtype=dtype, dst=dst)


def tensor_tensor(data1, data2, op, dtype=None, mask=None, dst=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    if not (isinstance(data1, _t.View) and isinstance(data2, _t.View) and _t._flat(data1) == _t._flat(data2)):
        raise KernelError("tensor_tensor takes two tiles of one shape", loc)
    return _t.binary(_alu(op), data1, data2, dtype, loc, dst=dst)


def tensor_scalar(data, op0, operand0, reverse0=False, op1=None, operand1=None, reverse1=False, dtype=None,
                  mask=None, dst=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    _t._on_chip(data, "tensor_scalar", loc)
    if op0 is nl.bypass:  # the first stage skipped: the second alone
        op0, operand0, reverse0, op1, operand1, reverse1 = op1, operand1, reverse1, None, None, False
    if op1 is nl.bypass:
        op1 = None
    if op0 is None or op0 is nl.bypass:
        return tensor_copy(data, dtype=dtype, dst=dst)
    steps = [[_alu(op0), _t._scalar_operand(operand0, loc, data.dtype), reverse0]]
    if op1 is not None:
        steps.append([_alu(op1), _t._scalar_operand(operand1, loc, data.dtype), reverse1])
    for st in steps:
        if st[2] and st[0] in _t._CMP_SWAP:  # s < x is x > s
            st[0], st[2] = _t._CMP_SWAP[st[0]], False
        elif st[2] and st[0] in _t.COMMUTATIVE:
            st[2] = False
        elif st[2] and st[0] != "sub":
            _t.unsupported("tensor_scalar with reverse=True for %s" % st[0], loc)
    out = dst if dst is not None else tr.temp(data.shape, _t._result_dtype(data, dtype=dtype), "sbuf", loc)
    if not any(st[2] for st in steps):
        parts = [out, data]
        for a, s, _ in steps:
            parts += [s, a]
        return _t._made(out, tr.emit("ts", *parts, loc=loc))
    # s - x (reverse with subtract) is (x * -1) + s: exact (the negation is exact, then the one rounded add). With
    # two ops one of them reversed, the first op goes into an f32 tile (the engine computes in f32), the second after.
    neg = -1.0 if data.dtype.is_float else -1
    src = data
    for k, (a, s, rev) in enumerate(steps):
        last = k == len(steps) - 1
        dest = out if last else tr.temp(data.shape, _t.float32 if data.dtype.is_float else data.dtype, "sbuf", loc)
        ins = tr.emit("ts", dest, src, neg, "mul", s, "add", loc=loc) if rev else tr.emit("ts", dest, src, s, a,
                                                                                         loc=loc)
        src = dest
    return _t._made(out, ins)


def scalar_tensor_tensor(data, op0, operand0, op1, operand1, reverse0=False, reverse1=False, dtype=None, mask=None,
                         dst=None, **kw):
    """(data op0 operand0) op1 operand1, operand0 a number or a [P, 1] tile, operand1 a tile of data's shape: `ts`
    into an f32 tile (the engine computes in f32), then `tt` into the result."""
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    _t._on_chip(data, "scalar_tensor_tensor", loc)
    a0, a1 = _alu(op0), _alu(op1)
    for rev, a in ((reverse0, a0), (reverse1, a1)):
        if rev and a not in _t.COMMUTATIVE:
            _t.unsupported("scalar_tensor_tensor with reverse=True for %s" % a, loc)
    if not (isinstance(operand1, _t.View) and _t._flat(operand1) == _t._flat(data)):
        raise KernelError("scalar_tensor_tensor's operand1 is a tile of data's shape", loc)
    mid = tr.temp(data.shape, _t.float32 if data.dtype.is_float else data.dtype, "sbuf", loc)
    tr.emit("ts", mid, data, _t._scalar_operand(operand0, loc, data.dtype), a0, loc=loc)
    return _t.binary(a1, mid, operand1, _t._result_dtype(data, operand1, dtype=dtype), loc, dst=dst)


def tensor_scalar_reduce(data, op0, operand0, reduce_op, reduce_res=None, reverse0=False, dtype=None, mask=None,
                         dst=None, reduce_cmd=None, reduce_init=None, **kw):
    """`ts DST, data, operand0, op0, reduce=reduce_op -> reduce_res`; with reduce_cmd, through the Vector Engine's
    accumulator (trace.engine_reduction)."""
    loc = _loc()
    _t.check_mask(mask, loc)
    if isinstance(reduce_cmd, _t.Choice):
        return _per_reduce_cmd(reduce_cmd, lambda c, out: tensor_scalar_reduce(
            data, op0, operand0, reduce_op, reduce_res, reverse0, dtype=dtype, dst=out, reduce_cmd=c,
            reduce_init=reduce_init), dst, data, dtype, loc)
    cmd = _reduce_cmd(reduce_cmd, loc)
    tr = _t.tracer()
    _t._on_chip(data, "tensor_scalar_reduce", loc)
    a0 = _alu(op0)
    if reverse0 and a0 not in _t.COMMUTATIVE:
        _t.unsupported("tensor_scalar_reduce with reverse0=True for %s" % a0, loc)
    if reduce_res is not None and (not isinstance(reduce_res, _t.View) or not _t._is_col(reduce_res) or
                                   _t._flat(reduce_res)[0] != _t._flat(data)[0]):
        raise KernelError("tensor_scalar_reduce's reduce_res is a [P, 1] tile of the data's partitions", loc)
    if reduce_init is not None and cmd != "load_reduce":
        raise KernelError("reduce_init is for reduce_cmd=load_reduce", loc)
    red = _alu(reduce_op)
    out = dst if dst is not None else tr.temp(data.shape, _t._result_dtype(data, dtype=dtype), "sbuf", loc)
    operand = _t._scalar_operand(operand0, loc, data.dtype)

    def compute(rop, rdst):
        parts = [out, data, operand, a0]
        if rop is not None:
            parts.append(("reduce=%s -> " % rop, rdst))
        return _t._made(out, tr.emit("ts", *parts, loc=loc))
    if cmd is None:
        if reduce_res is None:
            raise KernelError("tensor_scalar_reduce needs reduce_res (or a reduce_cmd)", loc)
        return compute(red, reduce_res)  # a fresh reduction
    return _t.engine_reduction("dve", cmd, compute, data, red, reduce_res, reduce_init, loc)


def tensor_reduce(op, data, axis, mask=None, dtype=None, negate=False, keepdims=False, dst=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    return _t.reduce_fn(_alu(op), data, axis, dtype, keepdims, negate, loc=loc, dst=dst)


def tensor_copy(src, mask=None, dtype=None, engine=None, dst=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    _t._on_chip(src, "tensor_copy", loc)
    out = dst if dst is not None else tr.temp(src.shape, dtype or src.dtype, "sbuf", loc)
    _t._same_shape(out, src, "tensor_copy", loc)
    return _t._made(out, tr.emit("copy", out, src, loc=loc))


def memset(dst=None, value=0, shape=None, dtype=None, mask=None, **kw):
    loc = _loc()
    tr = _t.tracer()
    if dst is None:
        dst = tr.temp(shape, dtype, "sbuf", loc)
    v = float(value) if dst.dtype.is_float else int(value)
    return _t._made(dst, tr.emit("memset", dst, v, loc=loc))


oob_mode = type("oob_mode", (), {"error": "error", "skip": "skip"})


def dma_copy(dst, src, mask=None, oob_mode=None, dst_rmw_op=None, **kw):
    """A DMA (tracer.move). A view whose rows an index tile selects: trace.indirect_rows, with oob_mode=skip leaving
    out the rows whose index is out of the tensor and dst_rmw_op combining the source into the rows."""
    loc = _loc()
    _t.check_mask(mask, loc)
    if isinstance(src, _t.Constant):
        return src.build(dst, loc)
    _t._same_shape(dst, src, "dma_copy", loc)
    mode = getattr(oob_mode, "name", oob_mode)
    if mode not in (None, "error", "skip"):
        raise KernelError("oob_mode %r is not an nisa.oob_mode" % (oob_mode,), loc)
    if dst.indirect or src.indirect:
        return _t.indirect_rows(dst, src, loc, skip=mode == "skip",
                                rmw=_alu(dst_rmw_op) if dst_rmw_op is not None else None)
    if dst_rmw_op is not None:
        _t.unsupported("dst_rmw_op on a DMA without an index tile", loc)
    return _t.tracer().move(dst, src, loc)


def _pattern_step(pattern, what, loc):
    """The step per flattened free element of NKI's [[step, num], ...] pattern (steps must nest: outer = inner*num)."""
    B, inner = None, 1
    for step, num in reversed(list(pattern)):
        if B is None:
            B = step
        elif step != B * inner:
            _t.unsupported("%s that is not affine in the flattened free index" % what, loc)
        inner *= num
    return B or 0


def affine_select(pred=None, on_true_tile=None, on_false_value=None, mask=None, dtype=None, dst=None, pattern=None,
                  channel_multiplier=0, cmp_op=None, offset=0, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    src = on_true_tile
    _t._on_chip(src, "affine_select", loc)
    if pattern is not None:
        # [[step, num], ...] over the flattened free index
        B = _pattern_step(pattern, "an affine_select pattern", loc)
        A, C = channel_multiplier, offset
        cmp = _func_name(cmp_op or nl.equal, "cmp_op")
    else:
        A, B, C, cmp = _t.select_args(pred, src.shape, loc)
    out = dst if dst is not None else tr.temp(src.shape, dtype or src.dtype, "sbuf", loc)
    return _t.affine_select(out, src, A, B, C, cmp, on_false_value, loc)


def iota(expr=None, dtype=None, mask=None, dst=None, pattern=None, offset=0, channel_multiplier=0, **kw):
    """nisa.iota(expr over nl.arange, dtype) or the pattern form: `iota DST, p=A, e=B, c=C`."""
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    if not _t.has_op("iota"):
        _t.unsupported("nisa.iota (the program format has no iota instruction yet)", loc)
    if pattern is not None:
        if dst is None:
            raise KernelError("the pattern form of nisa.iota writes dst", loc)
        return _t.iota(dst, channel_multiplier, _pattern_step(pattern, "an iota pattern", loc), offset, loc)
    e = _t.IExpr.of(expr)
    shape = e.shape if len(e.shape) >= 2 else (1,) * (2 - len(e.shape)) + e.shape
    A, B, C = _t.flat_free_coefs(e, shape, "an iota expression", loc)
    out = dst if dst is not None else tr.temp(shape, dtype or nl.int32, "sbuf", loc)
    return _t.iota(out, A, B, C, loc)


def tensor_tensor_scan(data0, data1, initial, op0, op1, reverse0=False, reverse1=False, dtype=None, mask=None,
                       dst=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    if reverse0 or reverse1:
        _t.unsupported("tensor_tensor_scan with reverse0/reverse1", loc)
    tr = _t.tracer()
    out = dst if dst is not None else tr.temp(data0.shape, _t._result_dtype(data0, data1, dtype=dtype), "sbuf", loc)
    return _t.tt_scan(out, data0, data1, initial, _alu(op0), _alu(op1), loc)


def _bn(op, columns):
    def f(data, dtype=None, mask=None, dst=None, **kw):
        loc = _loc()
        _t.check_mask(mask, loc)
        tr = _t.tracer()
        out = dst if dst is not None else tr.temp((_t._flat(data)[0], columns), dtype or nl.float32, "sbuf", loc)
        return _t.bn(op, out, data, loc)
    f.__name__ = op
    return f


bn_stats = _bn("bn_stats", 6)   # per partition (count, mean, m2) of the even and of the odd elements
bn_aggr = _bn("bn_aggr", 2)     # per partition (mean, variance) from bn_stats tuples


def tensor_copy_predicated(src=None, dst=None, predicate=None, reverse_pred=False, mask=None, **kw):
    """dst = src where predicate is nonzero (zero with reverse_pred), dst unchanged elsewhere: nl.where on the
    predicate's values (`keep` of each side, then an add: every value exactly) written into dst."""
    loc = _loc()
    _t.check_mask(mask, loc)
    if not isinstance(dst, _t.View) or not isinstance(predicate, _t.View):
        raise KernelError("tensor_copy_predicated takes dst= and predicate= tiles", loc)
    _t._on_chip(dst, "tensor_copy_predicated", loc)
    _t._same_shape(dst, predicate, "tensor_copy_predicated", loc)
    x, y = (dst, src) if reverse_pred else (src, dst)
    return nl._where_values(predicate, x, y, dst.dtype, loc, out=dst)


def select_reduce(dst=None, predicate=None, on_true=None, on_false=None, reduce_res=None, reduce_cmd=None,
                  reduce_op=None, reverse_pred=False, mask=None, **kw):
    """dst = where(predicate, on_true, on_false) (on_false a number or a [P, 1] tile), then with reduce_res the
    row maximum of dst through the Vector Engine's accumulator (reduce_cmd as for tensor_scalar_reduce)."""
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    if not all(isinstance(v, _t.View) for v in (dst, predicate, on_true)):
        raise KernelError("select_reduce takes dst=, predicate= and on_true= tiles", loc)
    _t._same_shape(dst, on_true, "select_reduce", loc)
    if isinstance(on_false, _t.View):
        if not (_t._is_col(on_false) and _t._flat(on_false)[0] == _t._flat(on_true)[0]):
            raise KernelError("select_reduce's on_false is a number or a [P, 1] tile", loc)
        # the column along the free axis: -0.0 + v is v for every v
        full = tr.temp(on_true.shape, dst.dtype, "sbuf", loc)
        tr.emit("memset", full, -0.0 if dst.dtype.is_float else 0, loc=loc)
        on_false = _t.binary("add", full, on_false, loc=loc, dst=full)
    x, y = (on_false, on_true) if reverse_pred else (on_true, on_false)
    cmd = _reduce_cmd(reduce_cmd, loc) if reduce_cmd is not None else None
    if cmd in (None, "idle") and reduce_res is None:
        return nl._where_values(predicate, x, y, dst.dtype, loc, out=dst)
    red = _alu(reduce_op) if reduce_op is not None else "max"

    def compute(rop, rdst):
        out = nl._where_values(predicate, x, y, dst.dtype, loc, out=dst)
        if rop is not None:
            tr.emit("reduce", rdst, dst, rop, loc=loc)
        return out
    if cmd is None:
        out = compute(red, reduce_res)
        return out
    return _t.engine_reduction("dve", cmd, compute, dst, red, reduce_res, None, loc)


def tensor_partition_reduce(op, data, dtype=None, mask=None, dst=None, **kw):
    """data [P, f1, ...] reduced over its partitions into [1, f1, ...]: per block of at most P free elements a PE
    transpose into PSUM, a `reduce` along the free axis (partition 0 first) into a column, a transpose of the column
    back into a row and a `copy` into the result."""
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    red = _alu(op)
    if red not in ("add", "max", "min"):
        _t.unsupported("tensor_partition_reduce with %s (add, max, min)" % red, loc)
    _t._on_chip(data, "tensor_partition_reduce", loc)
    P, F = _t._flat(data)
    flat = data if len(data.shape) == 2 else data.reshape((P, F))
    out = dst if dst is not None else tr.temp((1,) + tuple(data.shape[1:]), dtype or data.dtype, "sbuf", loc)
    row = out if len(out.shape) == 2 else out.reshape((1, F))
    if data.tensor.space != "sbuf":
        staged = tr.temp((P, F), data.dtype, "sbuf", loc)
        tr.emit("copy", staged, flat, loc=loc)
        flat = staged
    for c0 in range(0, F, tr.partitions):
        f = min(tr.partitions, F - c0)
        across = _t.transpose(flat[:, c0:c0 + f], loc=loc)
        col = tr.temp((f, 1), _t.float32, "sbuf", loc)
        tr.emit("reduce", col, across, red, loc=loc)
        back = _t.transpose(col, loc=loc)
        tr.emit("copy", row[:, c0:c0 + f], back, loc=loc)
    return out


def dma_transpose(src, axes=None, dtype=None, dst=None, mask=None, **kw):
    """A transposing load of a 2-D HBM view (nl.load_transpose2d); the result written into dst when given."""
    loc = _loc()
    _t.check_mask(mask, loc)
    if axes not in (None, (1, 0), [1, 0]):
        _t.unsupported("dma_transpose with axes=%r (2-D transposes)" % (axes,), loc)
    out = _t.transposing_load(src, _t.as_dtype(dtype) if dtype is not None else None, loc)
    if dst is not None:
        _t._same_shape(dst, out, "dma_transpose", loc)
        _t._made(dst, _t.tracer().emit("copy", dst, out, loc=loc))
        return dst
    return out


_CUMULATIVE_START = {"add": 0.0, "sub": 0.0, "mul": 1.0, "max": float("-inf"), "min": float("inf")}


def tensor_scalar_cumulative(src=None, dst=None, op0=None, op1=None, imm0=None, imm1=None,
                             reduce_cmd=reduce_cmd.reset_reduce, reverse0=False, mask=None, **kw):
    """reg = op1(op0(src[i], imm0), reg); dst[i] = reg along the free axis, reg the Vector Engine's accumulator:
    `ts T, src, imm0, op0` into an f32 tile, then `tt_scan R, T, Z, INIT, op1, add` with Z all -0.0 (v + -0.0 is v)
    and INIT the starting register (op1's identity for reset_reduce, imm1 for load_reduce, the accumulator for
    reduce); the accumulator then holds the last column."""
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    if not all(isinstance(v, _t.View) for v in (src, dst)):
        raise KernelError("tensor_scalar_cumulative takes src= and dst= tiles", loc)
    _t._on_chip(src, "tensor_scalar_cumulative", loc)
    _t._same_shape(dst, src, "tensor_scalar_cumulative", loc)
    a1 = _alu(op1)
    if a1 not in _CUMULATIVE_START:
        raise KernelError("tensor_scalar_cumulative's op1 is add, subtract, multiply, maximum or minimum", loc)
    if len(dst.shape) != 2:
        _t.unsupported("tensor_scalar_cumulative on a tile of %d axes (a [P, F] tile)" % len(dst.shape), loc)
    cmd = _reduce_cmd(reduce_cmd, loc)
    if cmd not in ("reset_reduce", "load_reduce", "reduce"):
        raise KernelError("tensor_scalar_cumulative's reduce_cmd is reset_reduce, load_reduce or reduce", loc)
    P, F = _t._flat(src)
    t = tensor_scalar(src, op0, imm0, reverse0=reverse0, dtype=nl.float32)
    acc = tr.accumulators.get("dve")
    if acc is None:
        acc = tr.accumulators["dve"] = [tr.tensor((tr.partitions, 1), _t.float32, "sbuf", loc,
                                                  name="dve_accumulator"), False]
    regs = acc[0][0:P, 0:1]
    if cmd == "reset_reduce":
        init = _CUMULATIVE_START[a1]
    elif cmd == "load_reduce":
        if imm1 is None:
            raise KernelError("reduce_cmd=load_reduce takes the starting value in imm1", loc)
        init = imm1
    else:
        if not acc[1]:
            raise KernelError("reduce_cmd=reduce reads the DVE engine's accumulator before any instruction reset it "
                              "(reduce_cmd=reset_reduce or load_reduce)", loc)
        init = regs
    zero = tr.temp(src.shape, _t.float32, "sbuf", loc)
    tr.emit("memset", zero, -0.0, loc=loc)
    out = dst if dst.dtype == _t.float32 else tr.temp(src.shape, _t.float32, "sbuf", loc)
    _t.tt_scan(out, t, zero, init, a1, "add", loc)
    tr.emit("copy", regs, out[:, F - 1:F], loc=loc)
    acc[1] = True
    if out is not dst:
        _t._made(dst, tr.emit("copy", dst, out, loc=loc))
    return dst


def _no_mask(mask, what, loc):
    if mask is not None and not (isinstance(mask, _t.Pred) and mask.always_true()):
        _t.unsupported("%s with a mask" % what, loc)


def _mask_box(mask, P, F, what, loc):
    """A mask over a [P, F] tile that bounds each axis by numbers (`(i_p < 64) & (i_f < 256)`): the rows and the
    columns where it holds, (p0, p1, f0, f1); the whole tile without a mask. Other masks are refused."""
    box = [0, P, 0, F]
    if mask is None or (isinstance(mask, _t.Pred) and mask.always_true()):
        return box
    if not isinstance(mask, _t.Pred):
        raise KernelError("a mask is a comparison of indices (i_p < n)", loc)
    for p in mask._list():
        e = p.expr
        terms = [(d, c) for d, c in e.terms.items() if c != 0]
        if len(terms) != 1 or not isinstance(e.base, int) or len(e.shape) != 2 or p.op not in ("lt", "le", "ge",
                                                                                              "gt"):
            _t.unsupported("%s with a mask other than bounds on the partition and the free axis" % what, loc)
        (d, c), b = terms[0], e.base
        # c*i + b OP 0 over i in the axis: the indices where it holds form one run
        n = P if d == 0 else F
        held = [i for i in range(n) if {"lt": c * i + b < 0, "le": c * i + b <= 0, "gt": c * i + b > 0,
                                        "ge": c * i + b >= 0}[p.op]]
        lo, hi = (held[0], held[-1] + 1) if held else (0, 0)
        box[2 * d] = max(box[2 * d], lo)
        box[2 * d + 1] = min(box[2 * d + 1], hi)
    if box[0] >= box[1] or box[2] >= box[3]:
        _t.unsupported("%s with a mask that holds nowhere" % what, loc)
    return box


def _fresh_zero(out, loc):
    """A fresh tile written only in part under a mask: 0 first (the program's tiles are defined before read)."""
    if not out.tensor.written:
        _t.tracer().emit("memset", out, 0.0 if out.dtype.is_float else 0, loc=loc)


def _as_rows(v, what, loc):
    """A tile as [P, F] (its free axes one run)."""
    _t._on_chip(v, what, loc)
    P, F = _t._flat(v)
    return v if len(v.shape) == 2 else v.reshape((P, F))


class _Search:
    """Positions of values in each partition of a tile, each position found at most once: an f32 copy of the tile
    (`work`, where a found position is overwritten) and the f32 positions 0, 1, ... (`iota`). first(v) is the
    smallest position holding v: `ts eq` against the [P, 1] column, positions where it holds and F elsewhere
    (nl.where), `reduce min`; F means none."""

    def __init__(self, data, what, loc, mask=None):
        tr = _t.tracer()
        data = _as_rows(data, what, loc)
        self.box = _mask_box(mask, *_t._flat(data), what, loc)
        p0, p1, f0, f1 = self.box
        if f0 and what != "nisa.max8":
            _t.unsupported("%s with a mask that leaves out the first columns (whether positions count from the "
                           "tile's first column or the mask's is not specified)" % what, loc)
        data = data[p0:p1, f0:f1]
        self.P, self.F = _t._flat(data)
        if not 8 <= self.F <= 16384:
            raise KernelError("%s reads 8 to 16384 elements per partition, not %d" % (what, self.F), loc)
        self.loc = loc
        self.work = tr.temp((self.P, self.F), _t.float32, "sbuf", loc, name="search")
        tr.emit("copy", self.work, data, loc=loc)
        self.pos = tr.temp((self.P, self.F), _t.float32, "sbuf", loc, name="position")
        _t.iota(self.pos, 0, 1, 0, loc)

    def first(self, v):
        tr, loc = _t.tracer(), self.loc
        eq = _t.binary("eq", self.work, v, loc=loc)
        cand = nl._where_values(eq, self.pos, float(self.F), _t.float32, loc)
        m = tr.temp((self.P, 1), _t.float32, "sbuf", loc, name="found")
        tr.emit("reduce", m, cand, "min", loc=loc)
        return m

    def take(self, m, value):
        """The position m ([P, 1]) overwritten with value in work; returns the 1 / 0 tile of that position."""
        sel = _t.binary("eq", self.pos, m, loc=self.loc)
        nl._where_values(sel, value, self.work, _t.float32, self.loc, out=self.work)
        return sel


def _index_into(col, m, F, loc):
    """A found position (f32, F for none) into an integer column: the position, all ones for none."""
    tr = _t.tracer()
    if col.dtype.is_float:
        raise KernelError("an index destination is uint32 or uint16, not %s" % col.dtype.name, loc)
    none = _t.binary("eq", m, float(F), loc=loc)
    mi = tr.temp((_t._flat(m)[0], 1), col.dtype, "sbuf", loc, name="index")
    tr.emit("copy", mi, m, loc=loc)
    nl._where_values(none, (1 << (8 * col.dtype.size)) - 1, mi, col.dtype, loc, out=col)


def max8(src=None, dtype=None, mask=None, dst=None, **kw):
    """The 8 largest values of each partition, largest first (duplicates kept): 8 times a `reduce max` of an f32
    copy, then the first position holding that maximum overwritten with -inf."""
    loc = _loc()
    tr = _t.tracer()
    s = _Search(src, "nisa.max8", loc, mask)
    P = _t._flat(src)[0]
    out = dst if dst is not None else tr.temp((P, 8), _t.as_dtype(dtype) if dtype is not None else src.dtype,
                                              "sbuf", loc)
    rows = _as_rows(out, "nisa.max8", loc)
    if _t._flat(rows) != (P, 8):
        raise KernelError("nisa.max8 writes [%d, 8], not %s" % (P, out.shape), loc)
    if s.P != P:  # a mask over the rows: the others are left as they are
        _fresh_zero(out, loc)
        rows = rows[s.box[0]:s.box[1], :]
    for i in range(8):
        m = tr.temp((s.P, 1), _t.float32, "sbuf", loc, name="largest")
        tr.emit("reduce", m, s.work, "max", loc=loc)
        s.take(s.first(m), float("-inf"))
        ins = tr.emit("copy", rows[:, i:i + 1], m, loc=loc)
    return _t._made(out, ins)


def _eight_values(vals, P, what, loc):
    vals = _as_rows(vals, what, loc)
    if _t._flat(vals) != (P, 8):
        raise KernelError("%s takes vals of 8 values per partition ([%d, 8]), not %s" % (what, P, vals.shape), loc)
    return vals


def nc_find_index8(data=None, vals=None, dtype=None, mask=None, dst=None, **kw):
    """For each of the 8 values (in order), the first position of data holding it that no earlier value took;
    all ones where none does."""
    loc = _loc()
    tr = _t.tracer()
    s = _Search(data, "nisa.nc_find_index8", loc, mask)
    P = _t._flat(data)[0]
    vals = _eight_values(vals, P, "nisa.nc_find_index8", loc)[s.box[0]:s.box[1], :]
    out = dst if dst is not None else tr.temp((P, 8), _t.as_dtype(dtype) if dtype is not None else _t.uint32,
                                              "sbuf", loc)
    rows = _as_rows(out, "nisa.nc_find_index8", loc)
    if s.P != P:
        _fresh_zero(out, loc)
        rows = rows[s.box[0]:s.box[1], :]
    for i in range(8):
        m = s.first(vals[:, i:i + 1])
        s.take(m, float("nan"))  # a NaN equals nothing: the position is not found again
        _index_into(rows[:, i:i + 1], m, s.F, loc)
    return out


def nc_match_replace8(data=None, vals=None, imm=None, dst_idx=None, dtype=None, mask=None, dst=None, **kw):
    """Each of the 8 values, last first, matched with the first position of data holding it that no other value
    took; matched positions become imm in the result, their positions go to dst_idx (all ones for none)."""
    loc = _loc()
    tr = _t.tracer()
    if not _t._is_number(imm):
        raise KernelError("nisa.nc_match_replace8's imm is a number", loc)
    s = _Search(data, "nisa.nc_match_replace8", loc, mask)
    P = _t._flat(data)[0]
    p0, p1, f0, f1 = s.box
    vals = _eight_values(vals, P, "nisa.nc_match_replace8", loc)[p0:p1, :]
    idx = _as_rows(dst_idx, "nisa.nc_match_replace8", loc) if dst_idx is not None else None
    if idx is not None and _t._flat(idx) != (P, 8):
        raise KernelError("nisa.nc_match_replace8's dst_idx is [%d, 8], not %s" % (P, dst_idx.shape), loc)
    if idx is not None and s.P != P:
        _fresh_zero(idx, loc)
        idx = idx[p0:p1, :]
    hit = tr.temp((s.P, s.F), _t.float32, "sbuf", loc, name="matched")
    tr.emit("memset", hit, 0.0, loc=loc)
    for i in reversed(range(8)):
        m = s.first(vals[:, i:i + 1])
        _t.binary("add", hit, s.take(m, float("nan")), loc=loc, dst=hit)
        if idx is not None:
            _index_into(idx[:, i:i + 1], m, s.F, loc)
    out = dst if dst is not None else tr.temp(data.shape, _t.as_dtype(dtype) if dtype is not None else data.dtype,
                                              "sbuf", loc)
    _t._same_shape(out, data, "nisa.nc_match_replace8", loc)
    rows = _as_rows(out, "nisa.nc_match_replace8", loc)
    if (s.P, s.F) != _t._flat(data):  # a mask: the elements outside it are left as they are
        _fresh_zero(out, loc)
    nl._where_values(hit, float(imm), _as_rows(data, "nisa.nc_match_replace8", loc)[p0:p1, f0:f1], out.dtype, loc,
                     out=rows[p0:p1, f0:f1])
    return out


def nc_stream_shuffle(src=None, dst=None, shuffle_mask=None, mask=None, **kw):
    """Partition i of each quadrant of 32 partitions of dst gets partition shuffle_mask[i] of the same quadrant of
    src (255: unchanged): a DMA per run of partitions whose sources are consecutive too (through a copy of src when
    src and dst are one tensor)."""
    loc = _loc()
    _no_mask(mask, "nisa.nc_stream_shuffle", loc)
    tr = _t.tracer()
    if not (isinstance(shuffle_mask, (list, tuple)) and len(shuffle_mask) == 32 and
            all(isinstance(x, int) and (0 <= x < 32 or x == 255) for x in shuffle_mask)):
        raise KernelError("nisa.nc_stream_shuffle's shuffle_mask is 32 Python integers in 0..31 or 255", loc)
    a, b = _as_rows(src, "nisa.nc_stream_shuffle", loc), _as_rows(dst, "nisa.nc_stream_shuffle", loc)
    (ps, fs), (pd, fd) = _t._flat(a), _t._flat(b)
    if fs != fd or a.dtype != b.dtype:
        raise KernelError("nisa.nc_stream_shuffle's src and dst have one dtype and as many elements per partition "
                          "(%s %s, %s %s)" % (a.dtype.name, src.shape, b.dtype.name, dst.shape), loc)
    if a.tensor is b.tensor:
        staged = tr.temp((ps, fs), a.dtype, "sbuf", loc, name="shuffled")
        tr.emit("copy", staged, a, loc=loc)
        a = staged
    pairs = []
    for d in range(pd):
        k = shuffle_mask[d % 32]
        if k == 255:
            continue
        sp = d - d % 32 + k
        if sp >= ps:
            raise KernelError("nisa.nc_stream_shuffle: partition %d of dst reads partition %d of src, which has %d"
                              % (d, sp, ps), loc)
        if pairs and pairs[-1][0] + pairs[-1][2] == d and pairs[-1][1] + pairs[-1][2] == sp:
            pairs[-1][2] += 1
        else:
            pairs.append([d, sp, 1])
    for d, sp, n in pairs:
        ins = tr.emit("dma", b[d:d + n, :], a[sp:sp + n, :], loc=loc)
    if pairs:
        _t._made(dst, ins)
    return dst


def range_select(on_true_tile=None, comp_op0=None, comp_op1=None, bound0=None, bound1=None, reduce_cmd=None,
                 reduce_res=None, reduce_op=None, range_start=0, on_false_value=None, dtype=None, mask=None,
                 dst=None, **kw):
    """dst = on_true_tile where comp_op0(i, bound0) and comp_op1(i, bound1) hold for the element's position
    i = range_start + e (f32), else on_false_value; with a reduction of dst (max by default) through the Vector
    Engine's accumulator, as select_reduce: `iota` of the positions, two `ts` comparisons against the bounds'
    columns, their product, nl.where on it."""
    loc = _loc()
    _no_mask(mask, "nisa.range_select", loc)
    tr = _t.tracer()
    data = _as_rows(on_true_tile, "nisa.range_select", loc)
    P, F = _t._flat(data)
    for b in (bound0, bound1):
        if not (isinstance(b, _t.View) and _t._is_col(b) and _t._flat(b)[0] == P):
            raise KernelError("nisa.range_select's bounds are [%d, 1] tiles" % P, loc)
    if on_false_value is None or not _t._is_number(on_false_value):
        raise KernelError("nisa.range_select's on_false_value is a number", loc)
    pos = tr.temp((P, F), _t.float32, "sbuf", loc, name="position")
    _t.iota(pos, 0, 1, range_start, loc)
    m0 = _t.binary(_alu(comp_op0), pos, bound0, loc=loc)
    m1 = _t.binary(_alu(comp_op1), pos, bound1, loc=loc)
    cond = _t.binary("mul", m0, m1, loc=loc, dst=m0)
    out = dst if dst is not None else tr.temp(on_true_tile.shape, _t._result_dtype(on_true_tile, dtype=dtype),
                                              "sbuf", loc)
    rows = _as_rows(out, "nisa.range_select", loc)
    cmd = _reduce_cmd(reduce_cmd, loc) if reduce_cmd is not None else "reset_reduce"
    red = _alu(reduce_op) if reduce_op is not None else "max"

    def compute(rop, rdst):
        nl._where_values(cond, data, float(on_false_value), out.dtype, loc, out=rows)
        if rop is not None:
            tr.emit("reduce", rdst, rows, rop, loc=loc)
        return out
    return _t.engine_reduction("dve", cmd, compute, rows, red, reduce_res, None, loc)


def dropout(data, prob, mask=None, dtype=None, dst=None, **kw):
    """nl.dropout: each element kept where a random value in [0, 1) is at least prob, else 0."""
    out = nl.dropout(data, prob, dtype=dtype, mask=mask)
    if dst is not None:
        loc = _loc()
        _t._same_shape(dst, out, "nisa.dropout", loc)
        _t._made(dst, _t.tracer().emit("copy", dst, out, loc=loc))
        return dst
    return out


def sequence_bounds(segment_ids=None, dtype=None, mask=None, dst=None, **kw):
    """Per element of each partition's segment ids [P, n], the start and the end (one past the last) of the run of
    equal ids it lies in: [P, 2, n], starts in the first row, ends in the second; an id of 0 (padding) gets n and -1.
    The starts are a running maximum (`tt_scan`) of the positions where the id changes; the ends a running minimum
    of the positions after a change, taken over the elements in reverse order (a copy through a backwards view)."""
    loc = _loc()
    _no_mask(mask, "nisa.sequence_bounds", loc)
    tr = _t.tracer()
    ids = _as_rows(segment_ids, "nisa.sequence_bounds", loc)
    P, n = _t._flat(ids)
    f32 = _t.float32

    def tile(name):
        return tr.temp((P, n), f32, "sbuf", loc, name=name)
    s, pos, zero = tile("ids"), tile("position"), tile("zero")
    tr.emit("copy", s, ids, loc=loc)
    _t.iota(pos, 0, 1, 0, loc)
    tr.emit("memset", zero, -0.0, loc=loc)
    pad = _t.binary("eq", s, 0.0, loc=loc)

    def bounds(first):
        """The positions where a run starts (first: true) or ends, scanned in order or in reverse."""
        change = tile("change")
        if n > 1:
            a, b = (s[:, 1:n], s[:, 0:n - 1]) if first else (s[:, 0:n - 1], s[:, 1:n])
            tr.emit("tt", change[:, 1:n] if first else change[:, 0:n - 1], a, b, "ne", loc=loc)
        tr.emit("memset", change[:, 0:1] if first else change[:, n - 1:n], 1.0, loc=loc)
        if first:
            at = _t.binary("mul", change, pos, loc=loc)  # a start's position, 0 elsewhere (never above the start)
            r = tile("start")
            _t.tt_scan(r, at, zero, 0.0, "max", "add", loc)
            return r
        after = _t.binary("add", pos, 1.0, loc=loc)
        at = nl._where_values(change, after, float(n), f32, loc)  # an end's position, n elsewhere
        rev = tile("reversed")
        ip, jf = nl.arange(P)[:, None], nl.arange(n)[None, :]
        tr.emit("copy", rev, at[ip, n - 1 - jf], loc=loc)
        scanned = tile("end_reversed")
        _t.tt_scan(scanned, rev, zero, float(n), "min", "add", loc)
        r = tile("end")
        tr.emit("copy", r, scanned[ip, n - 1 - jf], loc=loc)
        return r
    out = dst if dst is not None else tr.temp((P, 2, n), _t.as_dtype(dtype) if dtype is not None else ids.dtype,
                                              "sbuf", loc)
    if _t._flat(out) != (P, 2 * n):
        raise KernelError("nisa.sequence_bounds writes [%d, 2, %d], not %s" % (P, n, out.shape), loc)
    rows = _as_rows(out, "nisa.sequence_bounds", loc)
    for k, (first, padded) in enumerate(((True, float(n)), (False, -1.0))):
        v = nl._where_values(pad, padded, bounds(first), f32, loc)
        ins = tr.emit("copy", rows[:, k * n:(k + 1) * n], v, loc=loc)
    return _t._made(out, ins)


def constants_module(parent):
    """`from nki.isa.constants import dge_mode` (and neuronxcc.nki.isa.constants): the enumerations as a submodule
    of the module named parent."""
    import sys
    import types
    m = types.ModuleType(parent + ".constants")
    for n in ("engine", "dge_mode", "oob_mode", "reduce_cmd"):
        setattr(m, n, globals()[n])
    sys.modules[m.__name__] = m
    return m


matmul_perf_mode = type("matmul_perf_mode", (), {"none": "none", "double_row": "double_row"})
nc_version = type("nc_version", (), {"gen2": 2, "gen3": 3, "gen4": 4})
dma_engine = type("dma_engine", (), {"dma": 1, "gpsimd_dma": 2})  # accepted: the program's DMA is one kind


def get_nc_version():
    """The NeuronCore generation of the machine traced for (--arch): gen3 for gen3, gen2 otherwise."""
    return nc_version.gen3 if _t.tracer().arch == "gen3" else nc_version.gen2


def get_nc_sub_version():
    return 0


class NkiValidationError(Exception):
    pass


class NkiInstruction:
    pass


class VirtualRegister:
    pass


_UNSUPPORTED_WHY = {
    "register_alloc": "scalar registers of the kernel's own (a register's value is not known when tracing)",
    "register_move": "scalar registers of the kernel's own", "register_load": "scalar registers of the kernel's own",
    "register_store": "scalar registers of the kernel's own",
    "nc_matmul_mx": "the mx formats' scaling and accumulation are not published precisely enough",
    "quantize_mx": "the mx formats' scaling and rounding are not published precisely enough",
    "set_rng_seed": "the random-number state (nl.rand's values are a fixed function of the element)",
    "rand_set_state": "the random-number state (nl.rand's values are a fixed function of the element)",
    "rand_get_state": "the random-number state (nl.rand's values are a fixed function of the element)",
    "rng": "the random-number generator's bits", "rand2": "the random-number generator's state",
    "core_barrier": "several NeuronCores (the program is one core's)",
    "sendrecv": "several NeuronCores (the program is one core's)",
    "dma_compute": "a DMA that computes (the program's DMA copies)",
    "local_gather": "a gather by index values (the program's views are affine in loop indices)",
    "nc_n_gather": "a gather by index values (the program's views are affine in loop indices)",
}
for _n, _why in _UNSUPPORTED_WHY.items():
    globals()[_n] = (lambda n, why: (lambda *a, **k: _t.unsupported("nisa.%s: %s" % (n, why), _loc())))(_n, _why)


for _n in ("exponential", "activate2", "topk", "nonzero_with_count"):
    globals()[_n] = (lambda n: (lambda *a, **k: _t.unsupported("nisa.%s" % n)))(_n)


def reciprocal(data, dtype=None, mask=None, dst=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    return _t.activation_fn("reciprocal", data, dtype, loc=loc, dst=dst)
