"""nki.language (nl) as the tracer implements it: see docs/nki.md for what each call becomes."""

import os
from . import trace as _t
from .trace import (KernelError, arange, mgrid, ds, par_dim, sbuf, psum, hbm, shared_hbm, private_hbm,  # noqa: F401
                    float32, bfloat16, int32, uint32, uint16, float16, int8, uint8, int16, float8_e4m3, float8_e5m2,
                    float8_e4m3fn, tfloat32, bool_, float8_e8m0fnu, float8_e4m3fn_x4, float8_e5m2_x4,
                    float4_e2m1fn_x4, View as tile)

fp32 = float32


class _TileSize:
    @property
    def pmax(self):
        """The partitions: the partition dimension's limit for every engine and for PSUM."""
        return _t.ARCHS[_arch()][0]

    @property
    def psum_fmax(self):
        """The f32 elements of a PSUM bank: the free dimension's limit of a PSUM tile and of matmul's moving side."""
        return _t.ARCHS[_arch()][1] // 4

    bn_stats_fmax = 512  # the elements of one bn_stats (the format's limit too)
    gemm_stationary_fmax = pmax
    psum_partition_dim_max = pmax
    gemm_moving_fmax = psum_fmax

    @property
    def total_available_sbuf_size(self):
        return {"gen2": 196608, "gen1": 196608, "gen3": 229376, "tiny": 4096}[_arch()]


def _arch():
    return _t._T.arch if _t._T is not None else "gen2"


tile_size = _TileSize()


def _loc():
    return _t.user_location()


# ---- tensors ----

def _buffer(buffer, loc):
    if isinstance(buffer, _t.Buffer):
        return buffer.space, None
    if isinstance(buffer, _t.Placement):
        return buffer.space, buffer
    raise KernelError("unknown buffer %r" % (buffer,), loc)


def _shape(shape, loc):
    if isinstance(shape, int):
        shape = (shape,)
    pdim, dims = 0, []
    for i, s in enumerate(shape):
        if isinstance(s, par_dim):
            pdim = i
        if isinstance(s, _t.Aff):
            _t.unsupported("a shape that depends on a loop index", loc)
        dims.append(int(s))
    return tuple(dims), pdim


def ndarray(shape, dtype, buffer=sbuf, name="", address=None, **kw):
    loc = _loc()
    tr = _t.tracer()
    space, placement = _buffer(buffer, loc)
    dims, pdim = _shape(shape, loc)
    if address is not None:
        if space == "dram":
            raise KernelError("address= places on-chip tensors only", loc)
        p, off = address
        if space == "psum":
            if off % tr.bank_bytes:
                raise KernelError("a PSUM address must start a bank (a multiple of %d bytes)" % tr.bank_bytes, loc)
            placement = _t.Placement("psum", bank=off // tr.bank_bytes)
        else:
            placement = _t.Placement("sbuf", partition=int(p), offset=int(off))
    if os.environ.get("ALLOCSIM_NKI_UNPLACED") == "1":
        placement = None  # the kernel as written, without its hand placements (allocsim verify compares the two)
    mods = None
    if placement is not None and placement.func is not None and placement.counts is None and pdim > 0:
        placement = _counts_of_func(placement, dims, pdim, dtype, loc)
    if placement is not None and placement.counts is not None and pdim > 0:
        placement, dims, mods = _modulo_blocks(placement, dims, pdim, loc)
    if placement is not None:
        placement = _resolve_placement(placement, dims, pdim, dtype, loc, tr)
    t = tr.tensor(dims, dtype, space, loc, name or None, pdim, placement)
    if mods:
        t.rotate_blocks(mods)
    return t


def _counts_of_func(pl, dims, pdim, dtype, loc):
    """An allocation function (ncc.sbuf.alloc(func), ncc.psum.alloc(func)) that places block (i0, i1, ...) where it
    places (i0 % n0, i1 % n1, ...) for some counts n: the same placement as a modulo allocation with those counts
    (checked on every block; _resolve_placement then checks that the tiles lie side by side)."""
    import itertools
    blocks = dims[:pdim]
    if _t._prod(blocks) > 1 << 16:
        _t.unsupported("an allocation function over more than 65536 blocks", loc)
    fbytes = _t._prod(dims[pdim + 1:]) * _t.as_dtype(dtype).size

    def probe(idx):
        return tuple(pl.func(tuple(idx), dims[pdim], fbytes))
    counts = []
    for d, b in enumerate(blocks):
        base = [0] * len(blocks)
        n = b
        for j in range(1, b):
            base[d] = j
            if probe(base) == probe([0] * len(blocks)):
                n = j
                break
        counts.append(n)
    for idx in itertools.product(*[range(b) for b in blocks]):
        if probe(idx) != probe(tuple(i % n for i, n in zip(idx, counts))):
            return pl  # not a modulo placement: _resolve_placement checks it block by block
    out = _t.Placement(pl.space, func=pl.func)
    out.counts = tuple(counts)
    return out


def _modulo_blocks(pl, dims, pdim, loc):
    """A tile array placed by a modulo allocation (mod_alloc): block (i0, i1, ...) is at tile (i0 % n0, i1 % n1, ...)
    of the allocation, so blocks whose indices agree modulo the counts share their bytes (NKI's rotating buffers,
    block dimensions beyond the counts given sharing one tile). The tensor holds the tiles; a block index of the
    kernel is taken modulo its count. -> (placement, the tensor's dimensions, {block dimension: (count, blocks)})"""
    blocks = dims[:pdim]
    counts = tuple(pl.counts)[:len(blocks)] + (1,) * (len(blocks) - len(pl.counts[:len(blocks)]))
    phys, mods = [], {}
    for d, (b, n) in enumerate(zip(blocks, counts)):
        if n > b and any(x > 1 for x in phys):
            _t.unsupported("a modulo allocation with more tiles (%d) than blocks (%d) in an inner block dimension of "
                           "'%s' (the blocks would not be side by side)" % (n, b, dims), loc)
        phys.append(b if b < n else n)
        if n < b:
            mods[d] = (n, b)
    if not mods:
        return pl, dims, None
    return pl, tuple(phys) + tuple(dims[pdim:]), mods


def _resolve_placement(pl, dims, pdim, dtype, loc, tr):
    if pl.func is None:
        return pl
    # ncc.sbuf.alloc(func): func(block index, partitions, bytes per partition) -> (partition, byte address)
    blocks = dims[:pdim]
    dt = _t.as_dtype(dtype)
    free = 1
    for d in dims[pdim + 1:]:
        free *= d
    fbytes = free * dt.size
    first = pl.func(tuple(0 for _ in blocks), dims[pdim], fbytes)
    n = 1
    for b in blocks:
        n *= b
    import itertools
    for k, idx in enumerate(itertools.product(*[range(b) for b in blocks])):
        got = pl.func(tuple(idx), dims[pdim], fbytes)
        want = (first[0], first[1] + k * fbytes) if pl.space == "sbuf" else (first[0], first[1] + k)
        if tuple(got) != tuple(want):
            _t.unsupported("an allocation function that does not place the blocks of '%s' side by side "
                           "(block %s at %s, expected %s)" % (dims, idx, got, want), loc)
    if pl.space == "psum":
        return _t.Placement("psum", bank=int(first[1]))
    return _t.Placement("sbuf", partition=int(first[0]), offset=int(first[1]))


def zeros(shape, dtype, buffer=sbuf, name="", **kw):
    return full(shape, 0, dtype, buffer, name, _zero=True, **kw)


def ones(shape, dtype, buffer=sbuf, name="", **kw):
    return full(shape, 1, dtype, buffer, name, **kw)


def full(shape, fill_value, dtype, buffer=sbuf, name="", _zero=False, **kw):
    loc = _loc()
    tr = _t.tracer()
    t = ndarray(shape, dtype, buffer, name, **kw)
    if t.space == "dram":
        _t.unsupported("an HBM tensor filled by the kernel", loc)
    val = float(fill_value) if t.dtype.is_float else int(fill_value)
    if t.pdim != 0 and t.space == "psum":
        _t.unsupported("nl.zeros/full of a PSUM tile array (fill each tile)", loc)
    # a tile array: every tile at once
    ins = tr.emit("memset", _t.View(t, 0, 0, [(t.P, 1, 0), (t.F, 0, 1)]) if t.pdim else t, val, loc=loc)
    if _zero and t.space == "psum":
        t.zeroed = True
        t.pending_memset = (ins, tr.body)
    t.has_data = False
    return t


def zeros_like(x, dtype=None, buffer=None, name=""):
    return zeros(x.shape, dtype or x.dtype, buffer or _t.Buffer(x.tensor.space, x.tensor.space), name)


def empty_like(x, dtype=None, buffer=None, name=""):
    return ndarray(x.shape, dtype or x.dtype, buffer or _t.Buffer(x.tensor.space, x.tensor.space), name)


def shared_constant(constant, dtype=None, **k):
    import numpy as np
    values = np.asarray(constant)
    return _t.Constant(values, _t.as_dtype(dtype) if dtype is not None else _t.as_dtype(str(values.dtype)), _loc())


def shared_identity_matrix(n, dtype=bfloat16, **k):
    import numpy as np
    return _t.Constant(np.identity(int(n)), _t.as_dtype(dtype), _loc())


# ---- loops ----

def affine_range(start, stop=None, step=1, **kw):
    if stop is None:
        start, stop = 0, start
    return _t.tracer().loop(start, stop, step, "affine_range")


def sequential_range(start, stop=None, step=1, **kw):
    if stop is None:
        start, stop = 0, start
    return _t.tracer().loop(start, stop, step, "sequential_range")


def static_range(start, stop=None, step=1, **kw):
    # NKI unrolls a static_range: so does the tracer (the index is a Python integer).
    if stop is None:
        start, stop = 0, start
    return range(start, stop, step)


def program_id(axis=0):
    """The kernel instance's index along `axis` of its launch grid (`kernel[gx, gy]`): the register of the loop the
    tracer puts around the kernel for that axis."""
    grid = _t.tracer().grid
    if not grid:
        raise KernelError("nl.program_id in a kernel traced without a launch grid: give it one (--grid 2x2 on the "
                          "command line, kernel[2, 2] from Python)")
    if not isinstance(axis, int) or not 0 <= axis < len(grid):
        raise KernelError("nl.program_id(%r) of a launch grid of %d axes" % (axis, len(grid)))
    return grid[axis][1]


class _SpmdDim:
    """A launch grid axis: `nl.nc(2)` (the instances over two NeuronCores), `nl.spmd_dim(nl.nc(2), 2)`,
    `nl.nc(2) * 2`. Its size is the product of its parts; the cores do not change what an instance computes."""
    spmd_size = True

    def __init__(self, size):
        self.size = size

    def __mul__(self, other):
        return spmd_dim(self, other)

    __rmul__ = __mul__

    def __repr__(self):
        return "spmd_dim(%d)" % self.size


def nc(n):
    if not isinstance(n, int) or isinstance(n, bool) or n <= 0:
        raise KernelError("nl.nc takes a positive Python integer, not %r" % (n,), _loc())
    return _SpmdDim(n)


def spmd_dim(*dims):
    size = 1
    for d in dims:
        if isinstance(d, _SpmdDim):
            size *= d.size
        elif isinstance(d, int) and not isinstance(d, bool) and d > 0:
            size *= d
        else:
            raise KernelError("nl.spmd_dim takes positive Python integers and nl.nc(n), not %r" % (d,), _loc())
    return _SpmdDim(size)


def program_ndim():
    """The axes of the launch grid (0 without one)."""
    return len(_t.tracer().grid)


def dynamic_range(start, stop=None, step=1, **kw):
    """A loop NKI runs with bounds known on the device only: with Python integer bounds, a loop like
    sequential_range (a bound held in a register is refused)."""
    if stop is None:
        start, stop = 0, start
    for v in (start, stop):
        if not isinstance(v, int) and not isinstance(v, _t.Aff):
            _t.unsupported("nl.dynamic_range with a bound of %s (a register's value is not known when tracing)"
                           % type(v).__name__, _loc())
    return _t.tracer().loop(start, stop, step, "dynamic_range")


def fori_loop(lower, upper, body_fun, step=1, **kw):
    """body_fun(i) for i from lower to upper: one loop of the program (dynamic_range), its body traced once."""
    for i in dynamic_range(lower, upper, step):
        body_fun(i)


def while_loop(*a, **k):
    _t.unsupported("nl.while_loop (a loop on a register's value at run time; the program's loops have bounds known "
                   "when tracing)", _loc())


def _space_of(buffer):
    if isinstance(buffer, _t.View):
        return buffer.tensor.space
    return getattr(buffer, "space", getattr(buffer, "value", buffer))


def is_hbm(buffer):
    return _space_of(buffer) in ("dram", "shared_hbm", "private_hbm", "hbm")


def is_on_chip(buffer):
    return _space_of(buffer) in ("sbuf", "psum")


def is_psum(buffer):
    return _space_of(buffer) == "psum"


def is_sbuf(buffer):
    return _space_of(buffer) == "sbuf"


MemoryRegion = type("MemoryRegion", (), {"sbuf": sbuf, "psum": psum, "private_hbm": private_hbm,
                                         "shared_hbm": shared_hbm})
NKIObject = object
NkiTensor = tile
DType = _t.DType


class _Bypass:
    """nl.bypass: tensor_scalar's op0 / op1 that skips its stage."""

    def __repr__(self):
        return "nl.bypass"


bypass = _Bypass()


def num_programs(axes=0):
    grid = _t.tracer().grid
    if not grid:
        raise KernelError("nl.num_programs in a kernel traced without a launch grid: give it one (--grid 2x2 on "
                          "the command line, kernel[2, 2] from Python)")
    if isinstance(axes, (tuple, list)):
        n = 1
        for a in axes:
            n *= grid[a][0]
        return n
    return grid[axes][0]


# ---- memory ----

def load(src, dtype=None, mask=None, **kw):
    return _t.load(src, dtype, mask, _loc())


def store(dst, value, mask=None, **kw):
    _t.store(dst, value, mask, _loc())


def load_transpose2d(src, dtype=None, mask=None, **kw):
    """An HBM [N, M] -> an SBUF [M, N] tile: per block of rows a load, a PE transpose into PSUM and a copy into the
    tile's columns (the format's DMA keeps the HBM tensor's row layout)."""
    loc = _loc()
    _t.check_mask(mask, loc)
    return _t.transposing_load(src, _t.as_dtype(dtype) if dtype is not None else None, loc)


def copy(x, dtype=None, mask=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    _t._on_chip(x, "nl.copy", loc)
    out = tr.temp(x.shape, dtype or x.dtype, "sbuf", loc)
    return _t._made(out, tr.emit("copy", out, x, loc=loc))


# ---- elementwise ----

def _binary(op):
    def f(x, y, dtype=None, mask=None, **kw):
        loc = _loc()
        _t.check_mask(mask, loc)
        return _t.binary(op, x, y, dtype, loc)
    f.__name__ = op
    f._alu = op
    return f


add = _binary("add")
subtract = _binary("sub")
multiply = _binary("mul")
divide = _binary("div")
maximum = _binary("max")
minimum = _binary("min")
bitwise_and = _binary("and")
bitwise_or = _binary("or")
bitwise_xor = _binary("xor")
left_shift = _binary("shl")
right_shift = _binary("shr")


def _act(func):
    def f(x, dtype=None, mask=None, **kw):
        loc = _loc()
        _t.check_mask(mask, loc)
        return _t.activation_fn(func, x, dtype, loc=loc)
    f.__name__ = func
    f._act = func
    return f


exp = _act("exp")
log = _act("log")
tanh = _act("tanh")
sigmoid = _act("sigmoid")
relu = _act("relu")
gelu = _act("gelu")
silu = _act("silu")
sqrt = _act("sqrt")
rsqrt = _act("rsqrt")
reciprocal = _act("reciprocal")
square = _act("square")
abs = _act("abs")
negative = _act("neg")
identity = _act("identity")
copy._act = "identity"


def _unsupported_fn(name):
    def f(*a, **k):
        _t.unsupported("nl.%s (the program format has no such operation)" % name)
    f.__name__ = name
    return f


# Functions the format gains with its newer activation table: refused until the tracer lists them as available.
for _n in ("sin", "cos", "arctan", "sign", "erf", "softplus", "mish", "gelu_apprx_tanh"):
    globals()[_n] = _act(_n)

for _n in ("tan", "ceil", "floor", "trunc", "gelu_apprx_sigmoid", "gelu_dx", "silu_dx", "erf_dx", "power", "fmod", "mod",
           "gelu_apprx_sigmoid_dx", "average", "prelu",
           "abs_max", "abs_min", "invert", "prod",
           "var", "all", "softmax", "rms_norm", "random_seed",
           "expand_dims"):
    globals()[_n] = _unsupported_fn(_n)


def _random(P, F, loc):
    """A [P, F] f32 tile of values in [0, 1) (see rand)."""
    tr = _t.tracer()
    calls = getattr(tr, "rand_calls", 0)
    tr.rand_calls = calls + 1
    x = tr.temp((P, F), uint32, "sbuf", loc, name="random_bits")
    _t.iota(x, F, 1, (calls << 24) & 0x7FFFFFFF, loc)
    t = tr.temp((P, F), uint32, "sbuf", loc, name="random_shift")
    for shift, mult in ((16, 0x7FEB352D), (15, 0x846CA68B), (16, None)):
        tr.emit("ts", t, x, shift, "shr", loc=loc)
        tr.emit("tt", x, x, t, "xor", loc=loc)
        if mult is not None:
            tr.emit("ts", x, x, mult, "mul", loc=loc)
    tr.emit("ts", x, x, 8, "shr", loc=loc)
    u = tr.temp((P, F), float32, "sbuf", loc, name="random")
    tr.emit("copy", u, x, loc=loc)  # below 2^24: exact
    tr.emit("ts", u, u, 2.0 ** -24, "mul", loc=loc)
    return u


def rand(shape, dtype=float32, buffer=sbuf, name="", **kw):
    """Values in [0, 1): NKI specifies only their distribution (uniform), so the tracer's are a fixed function of
    the element and of the call: the element's number (call * 2^24 + p * F + e, `iota` into u32) through an integer
    hash (xor-shifts and multiplications, wrapping), its top 24 bits times 2^-24. Deterministic: the same kernel
    gives the same values on every run."""
    loc = _loc()
    tr = _t.tracer()
    dims, pdim = _shape(shape, loc)
    if pdim:
        _t.unsupported("nl.rand of a tile array", loc)
    space, _ = _buffer(buffer, loc)
    if space != "sbuf":
        _t.unsupported("nl.rand into %s (an SBUF tile)" % space, loc)
    dt = _t.as_dtype(dtype)
    if not dt.is_float:
        raise KernelError("nl.rand makes floats in [0, 1), not %s" % dt.name, loc)
    P, F = dims[0], _t._prod(dims[1:])
    u = _random(P, F, loc)
    out = tr.tensor(dims, dt, "sbuf", loc, name or _t._source_name(loc) or "rand")
    flat = out if len(dims) == 2 else out.reshape((P, F))
    return _t._made(out, tr.emit("copy", flat, u, loc=loc))


def dropout(x, rate, dtype=None, mask=None, **kw):
    """Each element of x kept where a value of rand (one per element) is at least rate (a number or a [P, 1] tile),
    0 elsewhere (not rescaled): `ts ge` against rate, nl.where."""
    loc = _loc()
    _t.check_mask(mask, loc)
    _t._on_chip(x, "dropout", loc)
    P, F = _t._flat(x)
    flat = x if len(x.shape) == 2 else x.reshape((P, F))
    u = _random(P, F, loc)
    keep = _t.binary("ge", u, _t._scalar_operand(rate, loc), loc=loc)
    out_dt = _t.as_dtype(dtype) if dtype is not None else x.dtype
    return _where_values(keep, flat, 0.0 if out_dt.is_float else 0, out_dt, loc)


def gather_flattened(data, indices, axis=0, dtype=None, mask=None, **kw):
    """result[p, j] = data[p, indices[p, j]] over data's flattened free axis, for indices whose values the tracer
    knows (a tile only memsets of numbers wrote: nl.zeros, then element assignments in Python loops): a `copy` of
    one column per result column (per run of partitions that take the same column). Other indices are refused."""
    import numpy as np
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    _t._on_chip(data, "nl.gather_flattened", loc)
    _t._on_chip(indices, "nl.gather_flattened", loc)
    vals = getattr(indices.tensor, "values", None)
    if vals is None or not _t._whole(indices):
        _t.unsupported("nl.gather_flattened with indices the tracer does not know (a gather by a tile's values; only "
                       "indices written by memsets of numbers are followed)", loc)
    P, F = _t._flat(data)
    if vals.shape[0] != P:
        raise KernelError("nl.gather_flattened: data has %d partitions, indices %d" % (P, vals.shape[0]), loc)
    if (vals < 0).any() or (vals >= F).any() or (vals != np.floor(vals)).any():
        raise KernelError("nl.gather_flattened: an index is not one of data's %d elements per partition" % F, loc)
    flat = data if len(data.shape) == 2 else data.reshape((P, F))
    out = tr.temp(indices.shape, _t.as_dtype(dtype) if dtype is not None else data.dtype, "sbuf", loc)
    rows = out if len(out.shape) == 2 else out.reshape(_t._flat(out))
    runs = []
    for j in range(vals.shape[1]):
        p0 = 0
        for p in range(1, P + 1):
            if p == P or vals[p, j] != vals[p0, j]:
                runs.append((j, p0, p, int(vals[p0, j])))
                p0 = p
    if len(runs) > 4096:
        _t.unsupported("nl.gather_flattened needing more than 4096 copies", loc)
    for j, p0, p1, e in runs:
        ins = tr.emit("copy", rows[p0:p1, j:j + 1], flat[p0:p1, e:e + 1], loc=loc)
    return _t._made(out, ins)


def device_print(prefix, tensor=None, **kw):
    """Accepted: printing is the simulator's side effect, not part of what the kernel computes."""
    return None


def _cmp(op):
    """An elementwise comparison (1 where it holds, 0 elsewhere, in the result's dtype); also a cmp_op of
    affine_select."""
    cmp = {"greater_equal": "ge", "greater": "gt", "equal": "eq", "not_equal": "ne", "less_equal": "le",
           "less": "lt"}[op]

    def f(x, y, dtype=None, mask=None, **kw):
        loc = _loc()
        _t.check_mask(mask, loc)
        return _t.binary(cmp, x, y, dtype, loc)
    f._cmp = f._alu = cmp
    f.__name__ = op
    return f


def _truth(v, loc):
    """1 where v is nonzero, 0 elsewhere (a tile), or Python's truth of a number as 1 / 0."""
    if isinstance(v, _t.View):
        return _t.binary("ne", v, 0.0 if v.dtype.is_float else 0, loc=loc)
    return 1 if v else 0


def _logical(name, combine):
    """logical_and / or / xor of two tiles: each side's truth (`ne 0`), then mul / max / ne of the two."""
    def f(x, y, dtype=None, mask=None, **kw):
        loc = _loc()
        _t.check_mask(mask, loc)
        return _t.binary(combine, _truth(x, loc), _truth(y, loc), dtype, loc)
    f.__name__ = name
    return f


logical_and = _logical("logical_and", "mul")
logical_or = _logical("logical_or", "max")
logical_xor = _logical("logical_xor", "ne")


def logical_not(x, dtype=None, mask=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    if not isinstance(x, _t.View):
        raise KernelError("nl.logical_not takes a tile", loc)
    return _t.binary("eq", x, 0.0 if x.dtype.is_float else 0, dtype, loc)


greater_equal = _cmp("greater_equal")
greater = _cmp("greater")
equal = _cmp("equal")
not_equal = _cmp("not_equal")
less_equal = _cmp("less_equal")
less = _cmp("less")


# ---- reductions, matmul, transpose ----

def loop_reduce(x, op, loop_indices=None, dtype=None, mask=None, **kw):
    """`t = op(t, x)` for the tile t the result is assigned to: `t[...] = nl.loop_reduce(x, op=np.add,
    loop_indices=[k])` becomes `tt t, t, x, OP` at the assignment. `t = nl.loop_reduce(...)` names the tile by the
    name it is assigned to."""
    import sys
    loc = _loc()
    _t.check_mask(mask, loc)
    from .isa import _alu
    red = _t.LoopReduce(x, _alu(op), dtype, loc)
    name = _t._source_name(loc, _t._PLAIN_ASSIGN_RE)
    if name is not None:
        prev = sys._getframe(1).f_locals.get(name)
        if not isinstance(prev, _t.View):
            raise KernelError("nl.loop_reduce accumulates into the tile it is assigned to; '%s' is not a tile yet "
                              "(declare it first: %s = nl.zeros(...))" % (name, name), loc)
        red.into(prev)
        return prev
    return red


def _reduce(op):
    def f(x, axis, dtype=None, keepdims=False, mask=None, **kw):
        loc = _loc()
        _t.check_mask(mask, loc)
        return _t.reduce_fn(op, x, axis, dtype, keepdims, loc=loc)
    return f


sum = _reduce("add")
max = _reduce("max")
min = _reduce("min")


def mean(x, axis, dtype=None, keepdims=False, mask=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    s = _t.reduce_fn("add", x, axis, dtype or (float32 if not x.dtype.is_float else x.dtype), keepdims, loc=loc)
    n = 1
    for d in range(1, len(x.shape)):
        if d not in _t._axes_free(x, axis, loc):
            n *= x.shape[d]
    return _t.binary("div", s, float(n), loc=loc, dst=s) if s.dtype.is_float else _t.unsupported("an integer mean")


def _to_sbuf(v, loc):
    if isinstance(v, _t.View) and v.tensor.space == "psum":
        t = _t.tracer().temp(v.shape, v.dtype, "sbuf", loc, name="from_psum")
        return _t._made(t, _t.tracer().emit("copy", t, v, loc=loc))
    return v


def matmul(x, y, transpose_x=False, mask=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    tr = _t.tracer()
    x, y = (_to_sbuf(v, loc) for v in (x, y))  # the PE reads SBUF: a PSUM operand is copied there first
    if transpose_x:
        return _t.matmul(x, y, loc)
    # x is [M, K]: the PE needs it as [K, M]
    xt_psum = _t.transpose(x, loc=loc)
    xt = tr.temp(xt_psum.shape, x.dtype, "sbuf", loc, name="x_t")
    tr.emit("copy", xt, xt_psum, loc=loc)
    return _t.matmul(xt, y, loc)


def transpose(x, dtype=None, mask=None, **kw):
    loc = _loc()
    _t.check_mask(mask, loc)
    return _t.transpose(x, loc=loc)


def broadcast_to(x, shape, **kw):
    return x.broadcast_to(shape)


def no_reorder():
    import contextlib
    return contextlib.nullcontext()


def _where_values(cond, x, y, dtype, loc, out=None):
    """nl.where on a tile of values (nonzero: take x): `keep` each side under the condition and its opposite, then
    add: `x keep c` is x where c is nonzero and -0.0 (integers: 0) elsewhere, and x + -0.0 is x, so every value
    comes through exactly. A number on either side is first a tile (memset)."""
    if not _t.has_op("alu_keep"):
        _t.unsupported("nl.where on a tile of values (the program format has no keep ALU operation yet)", loc)
    tr = _t.tracer()
    _t._on_chip(cond, "nl.where", loc)
    out_dt = _t.as_dtype(dtype) if dtype is not None else _t._result_dtype(x, y) if isinstance(x, _t.View) or \
        isinstance(y, _t.View) else cond.dtype
    sides = []
    for v, holds in ((x, "ne"), (y, "eq")):
        if _t._is_number(v):
            t = tr.temp(cond.shape, out_dt, "sbuf", loc)
            tr.emit("memset", t, float(v) if out_dt.is_float else v, loc=loc)
            v = t
        if not isinstance(v, _t.View):
            raise KernelError("nl.where takes tiles or numbers, not %r" % (v,), loc)
        _t._same_shape(v, cond, "nl.where", loc)
        m = _t.binary(holds, cond, 0.0 if cond.dtype.is_float else 0, loc=loc)
        if m.dtype.is_float != v.dtype.is_float:  # keep's sources are both float or both integer: convert the 1 / 0
            m2 = tr.temp(cond.shape, v.dtype, "sbuf", loc)
            tr.emit("copy", m2, m, loc=loc)
            m = m2
        sides.append(_t.binary("keep", v, m, loc=loc, dst=m))
    if out is None:
        out = tr.temp(cond.shape, out_dt, "sbuf", loc)
    return _t.binary("add", sides[0], sides[1], loc=loc, dst=out)


def where(condition, x, y, dtype=None, mask=None, **kw):
    """nl.where on a comparison of tile indices (i_p >= i_f, with loop indices in the constant): affine_select.
    A tile and a number: one affine_select per comparison; two tiles: each selected against -0.0 (or 0), then
    added, which gives every value exactly (x + -0.0 is x). A condition that is a tile of values: _where_values."""
    loc = _loc()
    _t.check_mask(mask, loc)
    if isinstance(condition, _t.View):
        return _where_values(condition, x, y, dtype, loc)
    if not isinstance(condition, _t.Pred):
        raise KernelError("nl.where's condition is a tile or a comparison of indices, not %r" % (condition,), loc)
    tr = _t.tracer()
    xv, yv = isinstance(x, _t.View), isinstance(y, _t.View)
    parts = condition._list()
    if not xv and not yv:
        raise KernelError("nl.where needs a tile on one side", loc)
    if xv and yv:
        _t._same_shape(x, y, "nl.where", loc)
        if len(parts) != 1:
            _t.unsupported("nl.where of two tiles on a conjunction of comparisons", loc)
        zero = -0.0 if x.dtype.is_float else 0
        a = where(condition, x, zero, dtype=dtype)
        p = parts[0]
        b = where(_t.Pred(p.expr, _t._CMP_NOT[p.op]), y, zero, dtype=dtype)
        return _t.binary("add", a, b, loc=loc, dst=a)
    if yv:
        if len(parts) != 1:
            _t.unsupported("nl.where(condition, number, tile) on a conjunction of comparisons", loc)
        p = parts[0]
        return where(_t.Pred(p.expr, _t._CMP_NOT[p.op]), y, x, dtype=dtype)
    _t._on_chip(x, "nl.where", loc)
    out = tr.temp(x.shape, dtype or x.dtype, "sbuf", loc)
    src = x
    for p in parts:
        A, B, C, cmp = _t.select_args(p, x.shape, loc)
        _t.affine_select(out, src, A, B, C, cmp, y, loc)
        src = out
    return out
