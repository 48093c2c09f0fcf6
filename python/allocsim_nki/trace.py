"""The tracer: runs an NKI kernel once on symbolic tensors and records the program it describes.

A kernel is ordinary Python. Its parameters are HBM tensors (or plain Python values), its loops over
`affine_range`/`sequential_range` run their body once with a loop register for the index, and every NKI call
appends instructions of the program format (docs/format.md) to the current loop body. What the format cannot say
is an error at the kernel's file and line (`KernelError`), never an approximation.
"""

import os
import re
import sys

_PACKAGE_DIRS = None


def _package_dirs():
    global _PACKAGE_DIRS
    if _PACKAGE_DIRS is None:
        here = os.path.dirname(os.path.abspath(__file__))
        root = os.path.dirname(here)
        _PACKAGE_DIRS = tuple(os.path.join(root, d) + os.sep for d in ("allocsim_nki", "nki", "neuronxcc"))
    return _PACKAGE_DIRS


def user_location():
    """(file, line) of the innermost frame outside this package: the kernel's line being traced."""
    f = sys._getframe(1)
    dirs = _package_dirs()
    while f is not None:
        fn = os.path.abspath(f.f_code.co_filename)
        if not fn.startswith(dirs):
            return (f.f_code.co_filename, f.f_lineno)
        f = f.f_back
    return ("<unknown>", 0)


class KernelError(Exception):
    """Bad or unsupported kernel code, located at the kernel's file and line."""

    def __init__(self, message, loc=None):
        self.loc = loc or user_location()
        self.message = message
        super().__init__(self.format())

    def format(self):
        return "%s:%d: %s" % (shown_path(self.loc[0]), self.loc[1], self.message)


# The kernel file as the user named it (a relative path stays relative in messages and line notes).
_SHOWN = {}


def show_path_as(path):
    _SHOWN[os.path.abspath(path)] = path


def shown_path(path):
    return _SHOWN.get(os.path.abspath(path), path) if path and not path.startswith("<") else path


def unsupported(what, loc=None):
    raise KernelError("unsupported: " + what, loc)


# ---- dtypes ---------------------------------------------------------------------------------------------------

class DType:
    def __init__(self, name, fmt, size, is_float):
        self.name, self.fmt, self.size, self.is_float = name, fmt, size, is_float

    def __repr__(self):
        return self.name

    @property
    def max(self):
        """The largest finite value (numpy's finfo / iinfo max), as kernels write `nl.fp32.min` for -inf-like fills."""
        if not self.is_float:
            return 1 if self.name == "bool" else (1 << (8 * self.size - (self.fmt[0] == "i"))) - 1
        e, m, ieee = _FLOAT_BITS.get(self.fmt, (None, None, None))
        if e is None:
            raise KernelError("unsupported: dtype %s (outside the program format)" % self.name, user_location())
        bias = (1 << (e - 1)) - 1
        if ieee:  # the all-ones exponent holds infinities and NaNs
            return (2.0 - 2.0 ** -m) * 2.0 ** ((1 << e) - 2 - bias)
        return (2.0 - 2.0 ** (1 - m)) * 2.0 ** ((1 << e) - 1 - bias)  # only the all-ones mantissa is NaN

    @property
    def dtype(self):
        """numpy's dtype of the same name (`np.zeros(n, dtype=nl.float32)`, `x.astype(nl.int8)` in a kernel's test),
        for the dtypes numpy has. bfloat16 and the fp8 formats, which numpy lacks, are float32 tagged with the
        format's name (`np.ones(n, dtype=nl.float8_e5m2)`): such an array holds float32 values, rounded to the
        format when it is passed to a kernel."""
        import numpy as np
        if self.name in ("float32", "float16", "int32", "uint32", "int16", "uint16", "int8", "uint8", "bool"):
            return np.dtype(self.name)
        if self.fmt in ("bf16", "f8e4m3", "f8e5m2", "f8e4m3fn"):
            return np.dtype(np.float32, metadata={NUMPY_TAG: self.name})
        raise AttributeError("numpy has no %s dtype" % self.name)

    @property
    def min(self):
        if not self.is_float:
            return 0 if self.name == "bool" or self.fmt[0] == "u" else -(1 << (8 * self.size - 1))
        return -self.max

    def __eq__(self, other):
        return isinstance(other, DType) and other.name == self.name

    def __hash__(self):
        return hash(self.name)


NUMPY_TAG = "nki_dtype"  # the metadata key of a float32 numpy dtype standing for bfloat16 or an fp8 format

# exponent bits, mantissa bits, whether the all-ones exponent is infinities and NaNs only
_FLOAT_BITS = {"f32": (8, 23, True), "bf16": (8, 7, True), "f16": (5, 10, True), "f8e4m3": (4, 3, True),
               "f8e5m2": (5, 2, True), "f8e4m3fn": (4, 3, False)}

float32 = DType("float32", "f32", 4, True)
bfloat16 = DType("bfloat16", "bf16", 2, True)
int32 = DType("int32", "i32", 4, False)
uint32 = DType("uint32", "u32", 4, False)
uint16 = DType("uint16", "u16", 2, False)
float16 = DType("float16", "f16", 2, True)
int8 = DType("int8", "i8", 1, False)
uint8 = DType("uint8", "u8", 1, False)
int16 = DType("int16", "i16", 2, False)
float8_e4m3 = DType("float8_e4m3", "f8e4m3", 1, True)
float8_e5m2 = DType("float8_e5m2", "f8e5m2", 1, True)
float8_e4m3fn = DType("float8_e4m3fn", "f8e4m3fn", 1, True)
bool_ = DType("bool", "u8", 1, False)  # NKI stores a boolean as uint8
# Named so that kernels that mention them load; using one is an error (the format has no such dtype).
tfloat32 = DType("tfloat32", None, 4, True)
float8_e8m0fnu = DType("float8_e8m0fnu", None, 1, True)
float8_e4m3fn_x4 = DType("float8_e4m3fn_x4", None, 4, True)
float8_e5m2_x4 = DType("float8_e5m2_x4", None, 4, True)
float4_e2m1fn_x4 = DType("float4_e2m1fn_x4", None, 2, True)

_DTYPES = {d.name: d for d in (float32, bfloat16, int32, uint32, uint16, float16, int8, uint8, int16,
                                float8_e4m3, float8_e5m2, float8_e4m3fn, tfloat32, bool_, float8_e8m0fnu,
                                float8_e4m3fn_x4, float8_e5m2_x4, float4_e2m1fn_x4)}
_DTYPES.update({d.fmt: d for d in (float32, bfloat16, int32, uint32, uint16, float16, int8, uint8, int16,
                                   float8_e4m3, float8_e5m2, float8_e4m3fn)})
_DTYPES.update({"fp32": float32, "float": float32, "bool_": bool_})
FORMAT_DTYPES = "f32, bf16, f16, f8e4m3, f8e5m2, f8e4m3fn, i32, u32, i16, u16, i8 and u8"


def as_dtype(d, what="dtype"):
    if d is None:
        return None
    if isinstance(d, DType):
        dt = d
    else:
        name = getattr(d, "name", None) if not isinstance(d, str) else d
        if name is None and isinstance(d, type):
            name = d.__name__
        dt = _DTYPES.get(str(name))
        if dt is None:
            raise KernelError("unknown %s %r" % (what, d))
    if dt.fmt is None:
        unsupported("dtype %s (the program format has %s)" % (dt.name, FORMAT_DTYPES))
    return dt


# ---- affine index expressions over loop registers -------------------------------------------------------------

class _Comparisons:
    """Comparisons of an index make a predicate (its `_cmp`), not a bool; identity stays the hash."""

    __slots__ = ()

    def __ge__(self, o):
        return self._cmp(o, "ge")

    def __gt__(self, o):
        return self._cmp(o, "gt")

    def __le__(self, o):
        return self._cmp(o, "le")

    def __lt__(self, o):
        return self._cmp(o, "lt")

    def __eq__(self, o):
        return self._cmp(o, "eq")

    def __ne__(self, o):
        return self._cmp(o, "ne")

    __hash__ = object.__hash__


class Aff(_Comparisons):
    """const + sum(coef * register): an index that depends on loop registers."""

    __slots__ = ("const", "terms")

    def __init__(self, const=0, terms=None):
        self.const = const
        self.terms = dict(terms or {})

    @staticmethod
    def of(x):
        if isinstance(x, Aff):
            return x
        if isinstance(x, bool):
            raise KernelError("a boolean is not an index")
        if isinstance(x, int):
            return Aff(x)
        if hasattr(x, "__index__") and not isinstance(x, float):
            return Aff(int(x.__index__()))
        if isinstance(x, (View, Tensor)):
            # an index read from a tile at run time (an indirect DMA, a gather): the program's views are affine in
            # loop registers
            unsupported("an index taken from a tile's values (indirect addressing): the program format's views are "
                        "affine in loop indices")
        raise KernelError("index %r is not an integer or an affine expression of loop indices" % (x,))

    def simplify(self):
        self.terms = {r: c for r, c in self.terms.items() if c != 0}
        return self.const if not self.terms else self

    def __add__(self, o):
        if isinstance(o, IExpr):
            return o.__radd__(self)
        o = Aff.of(o)
        t = dict(self.terms)
        for r, c in o.terms.items():
            t[r] = t.get(r, 0) + c
        return Aff(self.const + o.const, t).simplify()

    __radd__ = __add__

    def __neg__(self):
        return Aff(-self.const, {r: -c for r, c in self.terms.items()})

    def __sub__(self, o):
        if isinstance(o, IExpr):
            return (-o).__radd__(self)
        return self + (-Aff.of(o))

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if isinstance(o, (Aff, IExpr)) and not isinstance(o, int):
            if isinstance(o, IExpr):
                return o.__mul__(self)
            raise KernelError("a product of two loop indices is not affine")
        if not isinstance(o, int) or isinstance(o, bool):
            raise KernelError("a loop index can be multiplied by an integer only, not %r" % (o,))
        return Aff(self.const * o, {r: c * o for r, c in self.terms.items()}).simplify()

    __rmul__ = __mul__

    def _single(self):
        """(key, coef) of an expression that is one register term and no constant, else None."""
        if self.const == 0 and len(self.terms) == 1:
            return next(iter(self.terms.items()))
        return None

    def values_range(self):
        """(smallest, largest) value over the loops' iterations (each term at its own extremes)."""
        lo = hi = self.const
        for k, c in self.terms.items():
            a, b = k.values_range()
            lo += min(a * c, b * c)
            hi += max(a * c, b * c)
        return lo, hi

    def _divisor(self, o, what):
        if not isinstance(o, int) or isinstance(o, bool) or o <= 0:
            unsupported("%s of a loop index by anything but a positive Python integer" % what)

    def __floordiv__(self, o):
        self._divisor(o, "floor division")
        lo, hi = self.values_range()
        if lo // o == hi // o:
            return lo // o  # every value in one period: the quotient is a number
        if not has_op("index_divmod"):
            unsupported("floor division of a loop index (the program format has no such index yet)")
        one = self._single()
        if one is not None and one[1] % o == 0:
            return Aff(0, {one[0]: one[1] // o})
        if one is not None and one[1] == 1 and not (isinstance(one[0], DivMod) and one[0].mod):
            k = one[0]
            return Aff(0, {DivMod(k.reg, k.div * o, 0) if isinstance(k, DivMod) else DivMod(k, o, 0): 1})
        # sum(a*k) + c = o*sum(a*(k//o)) + sum(a*(k%o)) + c: the second part's quotient is piecewise
        whole, rest = Aff(0), Aff(self.const)
        for k, c in self.terms.items():
            q, r = _split_term(k, o, "floor division")
            whole = whole + q * c
            rest = rest + r * c
        out = whole + Piecewise.of(rest, o, quotient=True)
        return out.simplify() if isinstance(out, Aff) else out

    def __mod__(self, o):
        self._divisor(o, "%")
        lo, hi = self.values_range()
        if lo // o == hi // o:
            return (self - (lo // o) * o).simplify()  # every value in one period: x % M is x - k*M
        # (a*i + c) % M is ((a % M)*i + c % M) % M
        terms = {k: c % o for k, c in self.terms.items() if c % o}
        const = self.const % o
        if not terms:
            return const
        if not has_op("index_divmod"):
            unsupported("% of a loop index (the program format has no such index yet)")
        if len(terms) == 1:
            (k, c), = terms.items()
            base = k
            if isinstance(k, DivMod) and k.mod:
                # (i % M1) % M is i % M when M divides M1
                base = None if k.mod % o else DivMod(k.reg, k.div, 0) if k.div != 1 else k.reg
            if c == 1 and base is not None:
                mod = DivMod(base.reg, base.div, o) if isinstance(base, DivMod) else DivMod(base, 1, o)
                if const == 0:
                    return Aff(0, {mod: 1})
                if o == 2:
                    return Aff(1, {mod: -1})  # (i + 1) % 2 is 1 - i % 2
        # (sum(a*k) + c) % M is (sum(a*(k%M)) + c) % M: piecewise over the quotient
        rest = Aff(const)
        for k, c in terms.items():
            rest = rest + _split_term(k, o, "%")[1] * c
        return Piecewise.of(rest, o, quotient=False)

    def __rfloordiv__(self, o):
        unsupported("a number divided by a loop index")

    def __rmod__(self, o):
        unsupported("a number modulo a loop index")

    def __index__(self):
        raise KernelError("loop index used as a Python integer (a list index, a range bound, a shape): the traced "
                          "program keeps the loop a loop; index a tile array such as "
                          "nl.ndarray((n, nl.par_dim(p), f), ...) with it, or use nl.static_range to unroll")

    def __bool__(self):
        unsupported("Python control flow on a loop index here (a `while`, or an `if`, `and`, `or`, `not` or "
                    "conditional expression in a helper function); those of the kernel function itself become "
                    "conditional blocks, except `while`")

    def _cmp(self, o, op):
        return Pred(IExpr.of(self) - IExpr.of(o), op)

    def __float__(self):
        raise KernelError("a loop index used as a number")

    def text(self, reg_order):
        parts = []
        order = {r: i for i, r in enumerate(reg_order)}

        def rank(k):
            return (order.get(k.reg, -1), k.div, k.mod) if isinstance(k, DivMod) else (order.get(k, -1), 0, 0)
        for r in sorted(self.terms, key=rank):
            c = self.terms[r]
            if c == 0:
                continue
            parts.append(r.name if c == 1 else "%s*%d" % (r.name, c))
        s = "+".join(parts)
        if self.const or not s:
            s = (s + ("%+d" % self.const)) if s else str(self.const)
        return s.replace("+-", "-")


MAX_INDEX_TERMS = 8  # the format's register terms per index


def aff_text(x, reg_order):
    return Aff.of(x).text(reg_order) if isinstance(x, Aff) else str(x)


def _split_term(k, o, what):
    """(k // o, k % o) of a register term k as index terms."""
    if isinstance(k, Piecewise):
        unsupported("%s of an index that is already piecewise (a // or % of a sum of loop indices)" % what)
    if isinstance(k, DivMod):
        if k.mod:
            if k.mod % o:
                unsupported("%s by %d of a loop index term %s" % (what, o, k.name))
            return Aff(0, {DivMod(k.reg, k.div * o, k.mod // o): 1}), Aff(0, {DivMod(k.reg, k.div, o): 1})
        return Aff(0, {DivMod(k.reg, k.div * o, 0): 1}), Aff(0, {DivMod(k.reg, k.div, o): 1})
    return Aff(0, {DivMod(k, o, 0): 1}), Aff(0, {DivMod(k, 1, o): 1})


class Piecewise:
    """`s // M` or `s % M` of an index s (terms `i % M`, small values) that the format cannot write as one term:
    `(i + 1) % 3`, `(i + j) % 2`, `(i + 1) // 3`. It is a register term of an index until an instruction or a
    condition uses it; there each case `q*M <= s < (q+1)*M` becomes `if` blocks in which the term is q (a quotient)
    or s - q*M (a remainder)."""

    def __init__(self, s, m, quotient, cases):
        self.s, self.m, self.quotient, self.cases = s, m, quotient, cases  # cases: [(preds, Aff or int)]
        self.name = "(%s)%s%d" % (s.text([]) if isinstance(s, Aff) else s, "//" if quotient else "%", m)

    @staticmethod
    def of(s, m, quotient):
        if not has_op("if"):
            unsupported("%s of a sum of loop indices (the program format has no conditional block yet)"
                        % ("//" if quotient else "%"))
        lo, hi = s.values_range() if isinstance(s, Aff) else (s, s)
        cases = []
        for q in range(lo // m, hi // m + 1):
            below = IExpr.of(s) - q * m        # s - q*M >= 0
            above = IExpr.of(s) - (q + 1) * m  # s - (q+1)*M < 0
            preds = [p for p in (Pred(below, "ge"), Pred(above, "lt")) if not p.always_true()]
            value = q if quotient else (s - q * m)
            value = value.simplify() if isinstance(value, Aff) else value
            if _simplify([preds]):
                cases.append((preds, value))
        if len(cases) == 1:
            return cases[0][1]
        if len(cases) > MAX_CASES:
            unsupported("a // or % of loop indices with more than %d cases" % MAX_CASES)
        return Aff(0, {Piecewise(s, m, quotient, cases): 1})

    def values_range(self):
        lo, hi = self.s.values_range() if isinstance(self.s, Aff) else (self.s, self.s)
        if self.quotient:
            return lo // self.m, hi // self.m
        regs = []
        for k in self.s.terms:
            if k.reg not in regs:
                regs.append(k.reg)
        ranges = [range(r.start, r.stop, r.step) for r in regs]
        if _prod(len(x) for x in ranges) > 4096:
            return 0, self.m - 1
        import itertools
        vals = [_aff_value(self.s, dict(zip(regs, v))) % self.m for v in itertools.product(*ranges)]
        return min(vals), max(vals)


def _piecewise_in(x, found):
    """Collects the Piecewise terms of an index (an int, an Aff, an IExpr) into found."""
    if isinstance(x, IExpr):
        x = x.base
    if isinstance(x, Aff):
        for k in x.terms:
            if isinstance(k, Piecewise) and k not in found:
                found.append(k)
    return found


def _substitute(x, pw, value):
    """x with the term pw replaced by value (an int or an Aff)."""
    if isinstance(x, IExpr):
        return IExpr(_substitute(x.base, pw, value), x.terms, x.shape)
    if not isinstance(x, Aff) or pw not in x.terms:
        return x
    terms = dict(x.terms)
    c = terms.pop(pw)
    out = Aff(x.const, terms) + Aff.of(value) * c
    return out.simplify() if isinstance(out, Aff) else out


class DivMod:
    """`reg // div % mod` (mod 0: none), a register term of an index (the format's `n//D%M`)."""

    def __init__(self, reg, div, mod):
        self.reg, self.div, self.mod = reg, div, mod

    def __eq__(self, o):
        return isinstance(o, DivMod) and (o.reg, o.div, o.mod) == (self.reg, self.div, self.mod)

    def __hash__(self):
        return hash((id(self.reg), self.div, self.mod))

    @property
    def name(self):
        return self.reg.name + ("//%d" % self.div if self.div != 1 else "") + ("%%%d" % self.mod if self.mod else "")

    def values_range(self):
        vals = range(self.reg.start, self.reg.stop, self.reg.step)
        if len(vals) <= 1 << 16:
            got = [(v // self.div) % self.mod if self.mod else v // self.div for v in vals] or [0]
            return min(got), max(got)
        lo, hi = self.reg.values_range()
        return (0, self.mod - 1) if self.mod else (lo // self.div, hi // self.div)


class LoopReg:
    def __init__(self, name, start, stop, step, depth):
        self.name, self.start, self.stop, self.step, self.depth = name, start, stop, step, depth

    def values_range(self):
        n = len(range(self.start, self.stop, self.step))
        return (self.start, self.start + (n - 1) * self.step) if n else (self.start, self.start)


# ---- index expressions over nl.arange axes --------------------------------------------------------------------

class IExpr(_Comparisons):
    """An index with tile axes: base (int or Aff) + sum(coef * axis value), over a broadcast shape.

    `terms` maps a dimension of `shape` to its coefficient; each dimension runs 0..shape[d]-1.
    """

    __array_priority__ = 1000

    def __init__(self, base, terms, shape):
        self.base, self.terms, self.shape = base, dict(terms), tuple(shape)

    @staticmethod
    def of(x):
        if isinstance(x, IExpr):
            return x
        return IExpr(Aff.of(x).simplify() if isinstance(x, Aff) else Aff.of(x).const, {}, ())

    def _aligned(self, ndim):
        pad = ndim - len(self.shape)
        return IExpr(self.base, {d + pad: c for d, c in self.terms.items()}, (1,) * pad + self.shape)

    def __add__(self, o):
        o = IExpr.of(o)
        nd = max(len(self.shape), len(o.shape))
        a, b = self._aligned(nd), o._aligned(nd)
        shape = []
        for x, y in zip(a.shape, b.shape):
            if x != y and x != 1 and y != 1:
                raise KernelError("index shapes %s and %s do not broadcast" % (self.shape, o.shape))
            shape.append(max(x, y))
        terms = dict(a.terms)
        for d, c in b.terms.items():
            terms[d] = terms.get(d, 0) + c
        base = Aff.of(a.base) + b.base
        return IExpr(base, {d: c for d, c in terms.items() if c}, shape)

    __radd__ = __add__

    def __neg__(self):
        return IExpr(-Aff.of(self.base) if isinstance(self.base, Aff) else -self.base,
                     {d: -c for d, c in self.terms.items()}, self.shape)

    def __sub__(self, o):
        return self + (-IExpr.of(o))

    def __rsub__(self, o):
        return (-self) + o

    def __mul__(self, o):
        if isinstance(o, (IExpr, Aff)) or not isinstance(o, int) or isinstance(o, bool):
            raise KernelError("an index over nl.arange can be multiplied by an integer only")
        return IExpr(Aff.of(self.base) * o if isinstance(self.base, Aff) else self.base * o,
                     {d: c * o for d, c in self.terms.items()}, self.shape)

    __rmul__ = __mul__

    def __floordiv__(self, o):
        unsupported("floor division of an nl.arange index")

    def __mod__(self, o):
        unsupported("% of an nl.arange index")

    def __getitem__(self, key):
        # arange(n)[:, None] / [None, :]: place the 1-D index in a 2-D shape.
        if not isinstance(key, tuple):
            key = (key,)
        if len(self.shape) != 1:
            raise KernelError("only a one-dimensional nl.arange can be expanded with [:, None] / [None, :]")
        shape, terms, seen = [], {}, False
        for k in key:
            if k is None:
                shape.append(1)
            elif isinstance(k, slice) and k == slice(None):
                if seen:
                    raise KernelError("an nl.arange expansion names its axis once")
                seen = True
                if 0 in self.terms:
                    terms[len(shape)] = self.terms[0]
                shape.append(self.shape[0])
            else:
                raise KernelError("nl.arange is expanded with [:, None] or [None, :] only")
        return IExpr(self.base, terms, shape)

    def __bool__(self):
        unsupported("Python control flow on an nl.arange index")

    def _cmp(self, o, op):
        return Pred(self - IExpr.of(o), op)

    def bounds(self):
        """(min, max) over every axis value and every loop register value."""
        lo = hi = Aff.of(self.base).const
        for r, c in Aff.of(self.base).terms.items():
            a, b = r.values_range()
            lo += min(a * c, b * c)
            hi += max(a * c, b * c)
        for d, c in self.terms.items():
            n = self.shape[d] - 1
            lo += min(0, n * c)
            hi += max(0, n * c)
        return lo, hi


def _values_after_memset(op, parts):
    """The values of an on-chip tile that only memsets of numbers at fixed places wrote (nl.zeros, then
    `idx[i, j] = 5` in Python loops), after this memset: a numpy [P, F] array, or None when they are not known."""
    if op != "memset" or not isinstance(parts[0], View) or not _is_number(parts[1]):
        return None
    v = parts[0]
    t = v.tensor
    if t.space == "dram" or not isinstance(v.base_p, int) or not isinstance(v.base_f, int) or t.P * t.F > 1 << 16:
        return None
    import numpy as np
    if _whole(v):
        return np.full((t.P, t.F), parts[1], dtype=np.float64)
    prev = getattr(t, "values", None)
    if prev is None or _prod(a[0] for a in v.axes) > 1 << 16:
        return None
    ps, fs = np.array([v.base_p]), np.array([v.base_f])
    for n, dp, df in v.axes:
        i = np.arange(n)
        ps, fs = (ps[:, None] + i * dp).ravel(), (fs[:, None] + i * df).ravel()
    new = prev.copy()
    new[ps, fs] = parts[1]
    return new


def _known_index(v):
    """An index tile whose values the tracer knows: written whole by an `iota` with constant terms and by nothing
    since, so that partition p of the view holds A*p + B*e + C. As an index it is that affine expression over the
    view's partitions (a [P, 1] nl.arange form); other index tiles are refused."""
    known = getattr(v.tensor, "known", None)
    P, F = _flat(v)
    if known is None or F != 1 or not isinstance(v.base_p, int) or not isinstance(v.base_f, int):
        unsupported("an index taken from a tile's values (indirect addressing) that the tracer cannot know: the "
                    "program format's views are affine in loop indices, so only an index tile written whole by "
                    "nisa.iota is followed")
    A, B, C = known
    v.tensor.index_loops = list(getattr(v.tensor, "index_loops", None) or []) + list(tracer().loops)
    part = [a for a in v.axes if a[1] != 0 and a[0] > 1]
    return IExpr(A * v.base_p + B * v.base_f + C, {0: A * part[0][1]} if part else {}, (P, 1))


class Pred:
    """`expr CMP 0` (an affine_select predicate or a mask), or a conjunction of them."""

    def __init__(self, expr, op, parts=None):
        self.expr, self.op, self.parts = expr, op, parts

    def __and__(self, o):
        return Pred(None, "and", self._list() + o._list())

    __rand__ = __and__

    def _list(self):
        return self.parts if self.op == "and" else [self]

    def __bool__(self):
        if self.always_true():
            return True
        if self.always_false():
            return False
        unsupported("Python control flow on a comparison of loop indices here (a `while`, or an `if`, `and`, `or`, "
                    "`not` or conditional expression in a helper function); those of the kernel function itself "
                    "become conditional blocks, except `while`")

    def always_false(self):
        return any(p._never() for p in self._list())

    def _never(self):
        lo, hi = self.expr.bounds()
        return {"ge": hi < 0, "gt": hi <= 0, "le": lo > 0, "lt": lo >= 0, "eq": lo > 0 or hi < 0,
                "ne": lo == hi == 0}.get(self.op, False)

    def always_true(self):
        for p in self._list():
            lo, hi = p.expr.bounds()
            ok = {"ge": lo >= 0, "gt": lo > 0, "le": hi <= 0, "lt": hi < 0, "eq": lo == hi == 0,
                  "ne": lo > 0 or hi < 0}.get(p.op, False)
            if not ok:
                return False
        return True


def arange(start, stop=None, step=1):
    if stop is None:
        start, stop = 0, start
    for v in (start, stop, step):
        if not isinstance(v, int) or isinstance(v, bool):
            unsupported("nl.arange with bounds that are not Python integers")
    n = len(range(start, stop, step))
    if n <= 0:
        raise KernelError("nl.arange(%d, %d, %d) is empty" % (start, stop, step))
    return IExpr(start, {0: step}, (n,))


class _MGrid:
    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        out = []
        nd = len(key)
        for i, s in enumerate(key):
            if not isinstance(s, slice) or s.stop is None:
                raise KernelError("nl.mgrid takes slices with a stop: nl.mgrid[0:128, 0:512]")
            a = arange(s.start or 0, s.stop, s.step or 1)
            shape = [1] * nd
            shape[i] = a.shape[0]
            out.append(IExpr(a.base, {i: a.terms[0]}, shape))
        return _Grid(out)


class _Grid(tuple):
    def __new__(cls, items):
        return tuple.__new__(cls, items)

    @property
    def p(self):
        return self[0]

    @property
    def x(self):
        return self[1]

    @property
    def y(self):
        return self[2]

    @property
    def z(self):
        return self[3]


mgrid = _MGrid()


class DSlice:
    def __init__(self, start, size):
        if not isinstance(size, int) or isinstance(size, bool) or size <= 0:
            raise KernelError("nl.ds size must be a positive Python integer")
        self.start, self.size = start, size


def ds(start, size):
    return DSlice(start, size)


class par_dim:
    """nl.par_dim(n): marks the partition dimension of an on-chip tensor's shape."""

    def __init__(self, n):
        self.n = n

    def __index__(self):
        return self.n

    def __int__(self):
        return self.n

    def __eq__(self, o):
        return int(o) == self.n if isinstance(o, (int, par_dim)) else NotImplemented

    def __hash__(self):
        return hash(self.n)


# ---- machines -------------------------------------------------------------------------------------------------

ARCHS = {
    # partitions, PSUM bank bytes, PSUM banks, SP registers (ir/arch.cpp's presets)
    "gen2": (128, 2048, 8, 64),
    "gen1": (64, 2048, 4, 64),
    "gen3": (128, 2048, 8, 64),
    "tiny": (8, 256, 4, 4),
}

RESERVED = set("arch dram sbuf psum reg loop start stop input output pinned inf nan".split()) | set(
    "dma matmul copy act tt ts reduce memset affine_select li addi add mov reg_load reg_store iota tt_scan "
    "bn_stats bn_aggr transpose broadcast".split())

_T = None  # the tracer of the kernel being traced


def tracer():
    if _T is None:
        raise KernelError("NKI calls run only inside a kernel being traced (allocsim nki / allocsim_nki.trace)")
    return _T


class Buffer:
    def __init__(self, space, name):
        self.space, self.name = space, name

    def __repr__(self):
        return "nl." + self.name


sbuf = Buffer("sbuf", "sbuf")
psum = Buffer("psum", "psum")
hbm = Buffer("dram", "hbm")
shared_hbm = Buffer("dram", "shared_hbm")
private_hbm = Buffer("dram", "private_hbm")


class Placement:
    """A hand placement (direct allocation): SBUF partition and byte offset, or a PSUM bank."""

    def __init__(self, space, partition=0, offset=0, bank=None, func=None):
        self.space, self.partition, self.offset, self.bank, self.func = space, partition, offset, bank, func
        self.counts = None    # of a modulo allocation (mod_alloc): the tiles per block dimension


# ---- tensors and views ----------------------------------------------------------------------------------------

def _slice_text(k):
    if isinstance(k, DSlice):
        return "nl.ds(%s, %s)" % (aff_text(k.start, []), k.size)
    return "%s:%s" % ("" if k.start is None else aff_text(k.start, []), "" if k.stop is None else aff_text(k.stop, []))


def _prod(xs):
    n = 1
    for x in xs:
        n *= x
    return n


def _add(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a + b
    r = Aff.of(a) + b
    return r


def _mul(a, k):
    if isinstance(a, int):
        return a * k
    return Aff.of(a) * k


class View:
    """A tile: part of a tensor, its axes each (count, partition stride, free stride).

    For DRAM tensors everything is in the free (linear, row-major element) address.
    """

    __array_priority__ = 1000
    oob = None  # [(index expression, axis length, message)]: indices out of range that a mask must exclude
    indirect = None  # (index expression, rows) of an HBM view whose rows an index tile selects (indirect_rows)

    def __init__(self, tensor, base_p, base_f, axes):
        self._tensor, self.base_p, self._base_f, self.axes = tensor, base_p, base_f, list(axes)

    # A tensor that became one block of a tile list (`Tracer.tile_list`) is an alias: its views resolve to the
    # list's tensor, their free offset moved to the block.
    @property
    def tensor(self):
        t = self._tensor
        while t.alias is not None:
            t = t.alias[0]
        return t

    @property
    def base_f(self):
        b, t = self._base_f, self._tensor
        while t.alias is not None:
            b = _add(b, t.alias[1])
            t = t.alias[0]
        return b

    @property
    def shape(self):
        return tuple(a[0] for a in self.axes)

    @property
    def dtype(self):
        return self.tensor.dtype

    @property
    def buffer(self):
        return self.tensor.space

    def __len__(self):
        return self.axes[0][0]

    def __iter__(self):
        raise KernelError("a tile cannot be iterated in Python")

    def __bool__(self):
        if self.tensor.space == "dram" and self.tensor.param:
            # `x = nl.load(t) if t else None` of an optional HBM parameter: the handle is there, as in Python
            return True
        unsupported("Python control flow on a tile's values")

    def __getitem__(self, key):
        if not isinstance(key, tuple):
            key = (key,)
        nd = len(self.axes)
        if any(k is Ellipsis for k in key):
            at = [i for i, k in enumerate(key) if k is Ellipsis]
            if len(at) > 1:
                raise KernelError("a tile index has at most one ...")
            fill = nd - (len(key) - 1)
            key = key[:at[0]] + (slice(None),) * max(fill, 0) + key[at[0] + 1:]
        if len(key) > nd:
            raise KernelError("index %s has %d indices for a tile of shape %s" % (key, len(key), self.shape))
        key = tuple(key) + (slice(None),) * (nd - len(key))
        indirect = [d for d, k in enumerate(key) if isinstance(k, View)]
        if indirect:
            key = tuple(_known_index(k) if isinstance(k, View) else k for k in key)
        if self.mods:
            key = self._rotated_key(key)
        base_p, base_f = self.base_p, self.base_f
        if self.oob:
            raise KernelError(self.oob[0][2])
        oob = []
        if any(isinstance(k, IExpr) for k in key):
            exprs = []
            for k in key:
                if isinstance(k, (slice, DSlice)):
                    if isinstance(k, slice) and k == slice(None):
                        exprs.append(None)
                        continue
                    unsupported("a slice mixed with nl.arange indices in one subscript")
                exprs.append(IExpr.of(k))
            # a bare ':' among arange indices: the whole axis, as an arange of its own at the end
            shape = IExpr(0, {}, ())
            for e in exprs:
                if e is not None:
                    shape = shape + IExpr(0, {}, e.shape)
            nd_out = len(shape.shape)
            axes = []
            full = [d for d, e in enumerate(exprs) if e is None]
            out_shape = list(shape.shape) + [self.axes[d][0] for d in full]
            for r in range(len(out_shape)):
                axes.append([out_shape[r], 0, 0])
            for d, e in enumerate(exprs):
                cnt, ps, fs = self.axes[d]
                if e is None:
                    r = nd_out + full.index(d)
                    axes[r][1] += ps
                    axes[r][2] += fs
                    continue
                e = e._aligned(nd_out)
                lo, hi = e.bounds()
                if lo < 0 or hi >= cnt:
                    # an error unless a mask keeps the access inside (checked where the view is used)
                    oob.append((e, cnt, "index of axis %d runs from %d to %d; the tile's axis has %d elements"
                                % (d, lo, hi, cnt)))
                base_p = _add(base_p, _mul(e.base, ps))
                base_f = _add(base_f, _mul(e.base, fs))
                for r, c in e.terms.items():
                    axes[r][1] += c * ps
                    axes[r][2] += c * fs
            v = View(self.tensor, base_p, base_f, [tuple(a) for a in axes])
            v.oob = oob or None
            if indirect:
                if self.tensor.space != "dram" or len(indirect) > 1 or exprs[indirect[0]].shape[-1] != 1:
                    unsupported("an index tile other than one column selecting rows of an HBM tensor")
                v.indirect = (exprs[indirect[0]], self.axes[indirect[0]][0])
            return v
        axes = []
        for d, k in enumerate(key):
            cnt, ps, fs = self.axes[d]
            if isinstance(k, DSlice):
                k = slice(k.start, _add(k.start, k.size), None)
            if isinstance(k, slice):
                step = 1 if k.step is None else k.step
                if not isinstance(step, int) or step <= 0:
                    unsupported("a slice step that is not a positive Python integer")
                start = 0 if k.start is None else k.start
                stop = cnt if k.stop is None else k.stop
                n = _add(stop, -Aff.of(start) if isinstance(start, Aff) else -start)
                if not isinstance(n, int):
                    raise KernelError("a slice's length must not depend on a loop index (start %s, stop %s)"
                                      % (aff_text(start, []), aff_text(stop, [])))
                count = max(0, -(-n // step))
                if count == 0:
                    raise KernelError("empty slice of an axis of %d elements" % cnt)
                lo, hi = IExpr.of(start).bounds()
                if lo < 0 or hi + (count - 1) * step >= cnt:
                    raise KernelError("slice runs from %d to %d; the axis has %d elements"
                                      % (lo, hi + (count - 1) * step, cnt))
                base_p = _add(base_p, _mul(start, ps))
                base_f = _add(base_f, _mul(start, fs))
                axes.append((count, ps * step, fs * step))
            else:
                if isinstance(k, float) or isinstance(k, bool) or k is None:
                    raise KernelError("index %r is not an integer" % (k,))
                k = k if isinstance(k, Aff) else Aff.of(k).const
                lo, hi = IExpr.of(k).bounds()
                if lo < 0 or hi >= cnt:
                    raise KernelError("index runs from %d to %d; the axis has %d elements" % (lo, hi, cnt))
                base_p = _add(base_p, _mul(k, ps))
                base_f = _add(base_f, _mul(k, fs))
        if not axes:
            axes = [(1, 0, 0)]
        return View(self.tensor, base_p, base_f, axes)

    mods = None  # of a modulo-allocated tile array: {block axis: (tiles, blocks)}; its axes hold the tiles

    def _rotated_key(self, key):
        """The subscript of a modulo-allocated tile array with each block index taken modulo the tiles of its axis
        (checked against the kernel's block count first)."""
        out = list(key)
        for d, (n, b) in self.mods.items():
            k = key[d]
            if isinstance(k, IExpr):
                unsupported("an nl.arange index over the blocks of a modulo allocation")
            if isinstance(k, (slice, DSlice)):
                if isinstance(k, DSlice):
                    start, stop, step = k.start, _add(k.start, k.size), 1
                else:
                    start, stop, step = k.start or 0, b if k.stop is None else k.stop, k.step or 1
                if not all(isinstance(x, int) for x in (start, stop, step)) or step != 1 or start < 0 or stop > b \
                        or stop <= start or start // n != (stop - 1) // n:
                    unsupported("a slice over several blocks of a modulo allocation that do not lie side by side "
                                "(blocks %s of %d placed on %d tiles)" % (_slice_text(k), b, n))
                out[d] = slice(start % n, start % n + (stop - start))
                continue
            if isinstance(k, float) or isinstance(k, bool) or k is None:
                raise KernelError("index %r is not an integer" % (k,))
            lo, hi = IExpr.of(k).bounds()
            if lo < 0 or hi >= b:
                raise KernelError("index runs from %d to %d; the axis has %d elements" % (lo, hi, b))
            out[d] = k % n if isinstance(k, int) else Aff.of(k) % n
        return tuple(out)

    def __setitem__(self, key, value):
        dst = self[key]
        if isinstance(value, View) and getattr(value, "_accumulated", False) and value.tensor is self.tensor:
            value._accumulated = False  # `t[...] += x`: the accumulation is already in the program
            return
        if isinstance(value, LoopReduce):
            value.into(dst)
            return
        tracer().assign(dst, value)

    def __iadd__(self, o):
        tracer().accumulate(self, o)
        self._accumulated = True
        return self

    # elementwise operators (nl.add and friends)
    def __add__(self, o):
        return binary("add", self, o)

    def __radd__(self, o):
        return binary("add", o, self)

    def __sub__(self, o):
        return binary("sub", self, o)

    def __rsub__(self, o):
        return binary("sub", o, self)

    def __mul__(self, o):
        return binary("mul", self, o)

    def __rmul__(self, o):
        return binary("mul", o, self)

    def __truediv__(self, o):
        return binary("div", self, o)

    def __rtruediv__(self, o):
        return binary("div", o, self)

    def __neg__(self):
        return activation_fn("neg", self)

    def __and__(self, o):
        return binary("and", self, o)

    def __or__(self, o):
        return binary("or", self, o)

    def __xor__(self, o):
        return binary("xor", self, o)

    def __lshift__(self, o):
        return binary("shl", self, o)

    def __rshift__(self, o):
        return binary("shr", self, o)

    # elementwise comparisons (1 where they hold, 0 elsewhere); `==` and `!=` keep Python's identity: nl.equal
    def __lt__(self, o):
        return binary("lt", self, o)

    def __le__(self, o):
        return binary("le", self, o)

    def __gt__(self, o):
        return binary("gt", self, o)

    def __ge__(self, o):
        return binary("ge", self, o)

    def __pow__(self, o):
        unsupported("** on a tile")

    def broadcast_to(self, shape):
        shape = tuple(int(s) for s in shape)
        if tuple(self.shape) == shape:
            return self
        if len(shape) == 2 and len(self.shape) == 2 and self.shape[0] == shape[0] and self.shape[1] == 1:
            return View(self.tensor, self.base_p, self.base_f, [self.axes[0], (shape[1], 0, 0)])
        if has_op("broadcast") and len(shape) == 2 and _flat(self)[0] == 1 and _flat(self)[1] == shape[1]:
            return partition_broadcast(self, shape[0])
        unsupported("broadcast_to from %s to %s (along partitions the format has no broadcast yet)"
                    % (self.shape, shape))

    def ap(self, pattern=None, offset=None, dtype=None, scalar_offset=None, vector_offset=None, indirect_dim=0,
           **kw):
        """An explicit access pattern: [[stride, count], ...] in elements of the row-major tensor; on chip the first
        pair is the partitions (stride: the tensor's elements per partition)."""
        loc = user_location()
        if scalar_offset is not None or vector_offset is not None:
            unsupported("an access pattern with an indirect (dynamic) offset", loc)
        if dtype is not None and as_dtype(dtype) != self.dtype:
            unsupported("an access pattern that reinterprets the dtype", loc)
        if not isinstance(pattern, (list, tuple)) or not pattern or not all(
                isinstance(q, (list, tuple)) and len(q) == 2 and all(isinstance(v, int) for v in q) for q in pattern):
            raise KernelError(".ap(pattern=[[stride, count], ...]) takes pairs of integers", loc)
        if any(c <= 0 or st < 0 for st, c in pattern):
            raise KernelError(".ap pattern %s: counts must be positive and strides non-negative" % (pattern,), loc)
        t = self.tensor
        base_f = self._base_f if offset is None else _add(self._base_f, offset)
        if t.space == "dram":
            axes = [(c, 0, st) for st, c in pattern]
            base_p = self.base_p
        else:
            (pst, pc), rest = pattern[0], pattern[1:]
            if pc > 1 and pst != t.F:
                unsupported(".ap with a partition stride of %d elements (a tile's partitions are %d elements apart)"
                            % (pst, t.F), loc)
            base_p = self.base_p
            if offset is not None and not isinstance(offset, int):
                unsupported(".ap with an offset that is not a Python integer", loc)
            if offset:
                base_p, base_f = _add(base_p, offset // t.F), _add(self._base_f, offset % t.F)
            axes = [(pc, 1, 0)] + [(c, 0, st) for st, c in rest]
        v = View(self._tensor, base_p, base_f, axes)
        lo_hi = [IExpr.of(v.base_p).bounds(), IExpr.of(v.base_f).bounds()]
        span = sum((c - 1) * (st if i or t.space == "dram" else 0) for i, (st, c) in enumerate(pattern))
        if t.space == "dram":
            if lo_hi[1][0] < 0 or lo_hi[1][1] + span >= t.F:
                raise KernelError(".ap pattern %s runs past the end of '%s'" % (pattern, t.name), loc)
        elif lo_hi[0][0] < 0 or lo_hi[0][1] + pattern[0][1] > t.P or lo_hi[1][0] < 0 or lo_hi[1][1] + span >= t.F:
            raise KernelError(".ap pattern %s runs past the end of '%s' [%d, %d]" % (pattern, t.name, t.P, t.F), loc)
        return v

    def view(self, dtype):
        """The same bytes as another dtype: of the tensor's own dtype, the tensor itself (`a.view(nl.float8_e5m2)` of
        an fp8 parameter); a reinterpretation is refused."""
        if as_dtype(dtype) != self.dtype:
            unsupported("a view that reinterprets %s data as %s" % (self.dtype.name, as_dtype(dtype).name),
                        user_location())
        return self

    def reshape(self, shape):
        """The same elements under another shape: the partition axis stays, the free elements (one contiguous run)
        are relabelled row-major."""
        loc = user_location()
        if isinstance(shape, int):
            shape = (shape,)
        shape = tuple(int(s) for s in shape)
        if not shape or any(s <= 0 for s in shape) or _prod(shape) != _prod(self.shape):
            raise KernelError("cannot reshape a tile of shape %s to %s" % (self.shape, shape), loc)
        axes = [a for a in self.axes if a[0] > 1]
        dram = self.tensor.space == "dram"
        if dram:
            lead, free, rest = [], axes, shape
        else:
            part = [a for a in axes if a[1] != 0]
            P = part[0][0] if part else 1
            if part and part[0] is not axes[0]:
                unsupported("reshape of a tile whose partition axis is not its first axis", loc)
            if shape[0] != P:
                unsupported("reshape of a tile that changes its partition axis (%d to %d partitions)"
                            % (P, shape[0]), loc)
            lead, free, rest = [part[0] if part else (1, 0, 0)], [a for a in axes if a[1] == 0], shape[1:]
        merged = _merge_axes((c, s) for c, _, s in free)
        if len(merged) > 1 or (merged and merged[0][1] != 1):
            unsupported("reshape of a tile whose elements are not one contiguous run", loc)
        new, stride = [], 1
        for n in reversed(rest):
            new.append((n, 0, stride))
            stride *= n
        new.reverse()
        return View(self._tensor, self.base_p, self._base_f, lead + new)

    @property
    def T(self):
        return transpose(self)


class Tensor(View):
    def __init__(self, tr, name, space, dtype, shape, loc, pdim=0, placement=None, param=False, zeroed=False):
        shape = tuple(int(s) for s in shape)
        if not shape or any(s <= 0 for s in shape):
            raise KernelError("tensor shape %s must have positive dimensions" % (shape,), loc)
        self.name, self.space, self._dtype, self.nki_shape = name, space, dtype, shape
        self.loc, self.pdim, self.placement, self.param = loc, pdim, placement, param
        self.alias = None         # (tile list tensor, free offset) once this tensor is a block of a tile list
        self.family = None        # of a tile list tensor: the lists' layout and the tensors that are its blocks
        self.decl_loops = list(tr.loops)
        self.read = self.written = False
        self.producer = None      # the instruction that made this temporary, while nothing has read it
        self.dead = False         # a temporary whose producer now writes elsewhere: not declared
        self.decl_depth = tr.depth
        self.groups = {}          # open matmul accumulation groups: key -> [instructions]
        self.pending_memset = None
        self.zeroed = zeroed
        self.has_data = False
        if space == "dram":
            strides, s = [], 1
            for n in reversed(shape):
                strides.append(s)
                s *= n
            strides.reverse()
            axes = [(n, 0, st) for n, st in zip(shape, strides)]
            self.P, self.F = 1, _prod(shape)
        else:
            if len(shape) == 1:
                shape = shape + (1,)
                self.nki_shape = shape
            self.P = shape[pdim]
            free = [d for d in range(len(shape)) if d != pdim]
            self.F = _prod(shape[d] for d in free)
            strides, s = {}, 1
            for d in reversed(free):
                strides[d] = s
                s *= shape[d]
            axes = [(shape[d], 1 if d == pdim else 0, 0 if d == pdim else strides[d]) for d in range(len(shape))]
            if pdim != 0:
                # block dimensions first (a tile array): a tile of the array is t[i]; partition axis stays first
                # among the remaining axes once the block indices are fixed
                pass
        View.__init__(self, self, 0, 0, axes)

    @property
    def dtype(self):
        return self._dtype

    @property
    def shape(self):
        return self.nki_shape

    def rotate_blocks(self, mods):
        """Makes this tensor (the tiles of a modulo allocation) the kernel's tile array: block axis d has mods[d] =
        (tiles, blocks), the kernel's block index is taken modulo the tiles (View._rotated_key)."""
        self.mods = dict(mods)
        shape = list(self.nki_shape)
        for d, (_, b) in mods.items():
            shape[d] = b
        self.nki_shape = tuple(shape)


# ---- instructions ---------------------------------------------------------------------------------------------

class Instr:
    def __init__(self, op, parts, loc, loops):
        self.op, self.parts, self.loc, self.loops = op, list(parts), loc, list(loops)
        self.flags = []

    @property
    def depth(self):
        return len(self.loops)


class Loop:
    def __init__(self, reg, loc, loops):
        self.reg, self.loc, self.body, self.loops = reg, loc, [], list(loops)


_CMP_TEXT = {"ge": ">=", "gt": ">", "eq": "==", "ne": "!=", "le": "<=", "lt": "<"}
_CMP_NOT = {"ge": "lt", "gt": "le", "eq": "ne", "ne": "eq", "le": "gt", "lt": "ge"}


class IfBlock:
    """`if EXPR CMP 0 { ... }`: a condition on loop registers (the format's conditional block)."""

    def __init__(self, expr, op, loc, loops):
        self.expr, self.op, self.loc, self.body, self.loops = expr, op, loc, [], list(loops)


def _fmt_num(x):
    if isinstance(x, bool):
        raise KernelError("a boolean is not a number here")
    if isinstance(x, int):
        return str(x)
    x = float(x)
    if x != x:
        return "nan"
    if x in (float("inf"), float("-inf")):
        return "inf" if x > 0 else "-inf"
    r = repr(x)
    if "e" in r and "." not in r.split("e")[0]:
        m, e = r.split("e")
        r = m + ".0e" + e
    return r


def _is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) or type(x).__name__ in (
        "float32", "float64", "int32", "int64", "uint32")


# ---- the tracer -----------------------------------------------------------------------------------------------

import linecache

_PLAIN_ASSIGN_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*=(?!=)")
_NAME_RE = re.compile(r"^\s*([A-Za-z_]\w*)\s*(?:\[[^=]*\])?\s*(?:\+)?=(?!=)")
_FOR_RE = re.compile(r"^\s*for\s+([A-Za-z_]\w*)\s+in\b")


def _source_name(loc, pattern=_NAME_RE):
    line = linecache.getline(loc[0], loc[1])
    m = pattern.match(line)
    return m.group(1) if m else None


class Tracer:
    def __init__(self, arch="gen2"):
        if arch not in ARCHS:
            raise KernelError("unknown arch '%s' (gen2, gen1, gen3, tiny)" % arch, ("<command line>", 0))
        self.arch = arch
        self.partitions, self.bank_bytes, self.banks, self.sp_registers = ARCHS[arch]
        self.tensors, self.regs, self.names = [], [], set()
        self.top = []
        self.prelude = []   # identity matrices, made once at the start
        self.body = self.top
        self.loops = []
        self.idents = {}
        self.mask = None    # (mask, kernel line, frame of the NKI call it belongs to)
        self.grid = []      # (size, loop index) per axis of an SPMD launch grid
        self.accumulators = {}  # engine -> [tensor, whether a reset was traced]: engine_reduction

    @property
    def depth(self):
        return len(self.loops)

    def unique(self, hint):
        base = re.sub(r"[^A-Za-z0-9_]", "_", hint or "t")
        if not re.match(r"[A-Za-z_]", base):
            base = "t_" + base
        if base in RESERVED:
            base += "_"
        name, n = base, 1
        while name in self.names:
            name = "%s_%d" % (base, n)
            n += 1
        self.names.add(name)
        return name

    # -- declarations --

    def tensor(self, shape, dtype, space, loc=None, name=None, pdim=0, placement=None, param=False, zeroed=False):
        loc = loc or user_location()
        dtype = as_dtype(dtype)
        if space == "psum" and dtype.size != 4:
            if dtype.is_float:
                dtype = float32  # PSUM holds 4-byte values: a bf16 / f16 / fp8 PSUM tile accumulates in f32
            else:
                unsupported("a PSUM tensor of %s (PSUM holds f32, i32 or u32)" % dtype.name, loc)
        t = Tensor(self, self.unique(name or _source_name(loc) or space), space, dtype, shape, loc, pdim, placement,
                   param, zeroed)
        if space != "dram" and t.P > self.partitions:
            raise KernelError("%s tensor '%s' has %d partitions; the %s machine has %d"
                              % (space, t.name, t.P, self.arch, self.partitions), loc)
        self.tensors.append(t)
        return t

    def temp(self, shape, dtype, space="sbuf", loc=None, name=None):
        loc = loc or user_location()
        return self.tensor(shape, dtype, space, loc, name or _source_name(loc) or "tmp_%d" % loc[1])

    # -- loops --

    def loop(self, start, stop, step, kind):
        loc = user_location()
        for v in (start, stop, step):
            if isinstance(v, (Aff, IExpr)):
                unsupported("%s with a bound that depends on a loop index" % kind, loc)
            if not isinstance(v, int) or isinstance(v, bool):
                raise KernelError("%s bounds must be Python integers, not %r" % (kind, v), loc)
        if step <= 0:
            unsupported("%s with a step <= 0" % kind, loc)
        if len(range(start, stop, step)) == 0:
            return iter(())
        return self._loop(start, stop, step, loc)

    def _loop(self, start, stop, step, loc, name=None):
        name = self.unique(name or _source_name(loc, _FOR_RE) or "i")
        reg = LoopReg(name, start, stop, step, self.depth + 1)
        reg.loc = loc
        self.regs.append(reg)
        lp = Loop(reg, loc, self.loops)
        self.body.append(lp)
        outer = self.body
        self.loops.append(lp)
        self.body = lp.body
        try:
            yield Aff(0, {reg: 1})
        finally:
            self.loops.pop()
            self.body = outer

    def generated_loops(self, counts, loc):
        """A context of nested loops 0..n-1 of the program that the kernel does not write (e.g. around one
        instruction per kept element of a partial reduction); yields their indices."""
        import contextlib

        @contextlib.contextmanager
        def ctx():
            gens, regs = [], []
            try:
                for n in counts:
                    g = self._loop(0, n, 1, loc, name="e")
                    parent = self.body
                    regs.append(next(g))
                    self.loops[-1].generated, self.loops[-1].parent_body = True, parent
                    gens.append(g)
                yield regs
            finally:
                for g in reversed(gens):
                    g.close()
        return ctx()

    # -- conditional blocks --

    def _branch(self, parts, loc):
        """A context in which traced instructions go into nested `if` blocks, one per comparison of loop indices in
        parts (a conjunction: trace.condition_cases)."""
        import contextlib

        @contextlib.contextmanager
        def ctx():
            outer = self.body
            for p in parts:
                blk = IfBlock(p.expr.base, p.op, loc, self.loops)
                self.body.append(blk)
                self.body = blk.body
            try:
                yield
            finally:
                if parts and not self.body and outer and isinstance(outer[-1], IfBlock):
                    outer.pop()  # nothing was traced inside: no blocks
                self.body = outer
        return ctx()

    # -- instructions --

    def emit(self, op, *parts, loc=None):
        dst_had_data = isinstance(parts[0], View) and parts[0].tensor.written if parts else False
        pws = []
        for p in parts:
            v = p[1] if isinstance(p, tuple) else p
            if isinstance(v, View):
                _piecewise_in(v.base_p, pws)
                _piecewise_in(v._base_f, pws)
            else:
                _piecewise_in(v, pws)
        if pws:  # an index term `(i + 1) % 3`: the instruction once per case, in `if` blocks
            pw, last = pws[0], None
            for preds, value in pw.cases:
                sub = []
                for p in parts:
                    v = p[1] if isinstance(p, tuple) else p
                    if isinstance(v, View):
                        w = View(v._tensor, _substitute(v.base_p, pw, value), _substitute(v._base_f, pw, value),
                                 v.axes)
                        w.oob = v.oob
                        v = w
                    else:
                        v = _substitute(v, pw, value)
                    sub.append((p[0], v) if isinstance(p, tuple) else v)
                with self._branch(preds, loc or user_location()):
                    last = self.emit(op, *sub, loc=loc)
            return last
        mask = self._active_mask()
        dst = parts[0] if parts and isinstance(parts[0], View) else None
        if mask is not None and dst is not None and not dst_had_data and dst.tensor.space in ("sbuf", "psum") and \
                op not in ("matmul", "memset") and not any(len(p.expr.terms) > 1 for p in mask[0]._list()):
            # a fresh tile written under a mask: NKI leaves its other elements undefined, and kernels compute on the
            # whole tile, then store under the mask again (a partial row tile). The program defines them: 0 first.
            self._memset_before_generated_loops(dst.tensor, loc)
        ins = Instr(op, parts, loc or user_location(), self.loops)
        # values followed at the kernel's top level only (not in a loop of the program or an `if` block)
        values = _values_after_memset(op, parts) if mask is None and self.body is self.top else None
        for p in parts:
            v = p[1] if isinstance(p, tuple) else p
            if isinstance(v, View):
                self.touch(v, write=(p is parts[0] and op not in ("reduce_res",)))
        if values is not None:
            dst.tensor.values = values
        if mask is not None:
            if any(len(p.expr.terms) > 1 for p in mask[0]._list()):
                return self._emit_related_mask(ins, mask[0], mask[1], dst_had_data)
            return self._emit_masked(ins, *mask)
        _check_in_range(parts, ins.loc)
        split = self._split_axis(ins)
        if split is not None:
            return self._emit_split(ins, split)
        self.body.append(ins)
        return ins

    ELEMENTWISE = {"dma", "copy", "act", "tt", "ts", "memset", "affine_select"}

    def _split_axis(self, ins):
        """For an elementwise instruction with a view the format cannot write (free axes that are not one run, or one
        run repeated at a step), the free axis to loop over: the outermost one of more than one element that every
        full-shape view has; None when every view can be written."""
        views = [p for p in ins.parts if isinstance(p, View)]
        if ins.op not in self.ELEMENTWISE or all(_expressible(v) for v in views):
            return None
        full = [v for v in views if not _is_col(v) or len(v.axes) == len(views[0].axes)]
        nd = len(views[0].axes)
        if any(len(v.axes) != nd for v in full):
            return None
        for d in range(1, nd):
            counts = {v.axes[d][0] for v in full}
            if len(counts) == 1 and counts.pop() > 1 and all(v.axes[d][1] == 0 for v in full):
                return d
        return None

    def _append_split(self, ins, body):
        """Appends `ins` to `body`, in loops over free axes when a view of it cannot be written (`_split_axis`)."""
        split = self._split_axis(ins)
        if split is None:
            body.append(ins)
            return ins
        outer, self.body = self.body, body
        try:
            return self._emit_split(ins, split)
        finally:
            self.body = outer

    def _emit_split(self, ins, d):
        n = ins.parts[0].axes[d][0]
        last = None
        with self.generated_loops([n], ins.loc) as (r,):
            parts = []
            for p in ins.parts:
                if isinstance(p, View) and len(p.axes) > d and p.axes[d][0] == n:
                    cnt, ps, fs = p.axes[d]
                    p = View(p._tensor, _add(p.base_p, _mul(r, ps)), _add(p._base_f, _mul(r, fs)),
                             p.axes[:d] + [(1, 0, 0)] + p.axes[d + 1:])
                parts.append(p)
            sub = Instr(ins.op, parts, ins.loc, self.loops)
            sub.flags = list(ins.flags)
            split = self._split_axis(sub)
            last = self._emit_split(sub, split) if split is not None else sub
            if split is None:
                self.body.append(sub)
        return last

    def _memset_before_generated_loops(self, tensor, loc):
        """`memset tensor, 0` unmasked, before the loops the tracer opened around the instruction being traced (a
        partial reduction's loop over kept elements), so that it runs once where the kernel's call does."""
        gen = next((i for i, lp in enumerate(self.loops) if getattr(lp, "generated", False)), None)
        saved_mask, self.mask = self.mask, None
        saved_body, saved_loops = self.body, self.loops
        zero = 0.0 if tensor.dtype.is_float else 0
        try:
            if gen is None:
                self.emit("memset", tensor, zero, loc=loc)
                return
            lp = self.loops[gen]
            parent = lp.parent_body
            self.body, self.loops = parent, saved_loops[:gen]
            n0 = len(parent)
            self.emit("memset", tensor, zero, loc=loc)
            new = parent[n0:]
            del parent[n0:]
            at = next(i for i, x in enumerate(parent) if x is lp)
            parent[at:at] = new
        finally:
            self.mask = saved_mask
            self.body, self.loops = saved_body, saved_loops

    def _active_mask(self):
        if self.mask is None:
            return None
        f = sys._getframe(2)
        while f is not None and f is not self.mask[2]:
            f = f.f_back
        if f is None:
            self.mask = None
            return None
        return self.mask[:2]

    def _emit_related_mask(self, ins, mask, loc, dst_had_data):
        """`ins` under a mask that relates two tile axes (`i_f <= i_p`): the instruction on the whole tile into a
        temporary T, then affine_select. A destination that held data keeps it outside the mask: T selected under
        the comparison and the destination under its opposite, each against -0.0 (integers 0), then added (exact:
        v + -0.0 is v). A destination written for the first time gets -0.0 (0) outside the mask."""
        parts = mask._list()
        dst = ins.parts[0]
        if ins.op not in ("copy", "act", "tt", "ts", "memset") or any(isinstance(x, tuple) for x in ins.parts) or \
                any(len(p.expr.terms) <= 1 for p in parts):
            unsupported("a mask that relates two tile axes here (it is taken by an elementwise instruction without "
                        "a fused reduction, alone in its mask; use affine_select / nl.where)", loc)
        if dst_had_data and len(parts) > 1:
            unsupported("a conjunction of masks that relate two tile axes, into a tile that holds data", loc)
        saved, self.mask = self.mask, None
        try:
            t = self.temp(dst.shape, dst.dtype, "sbuf", loc, name="masked")
            self.emit(ins.op, t, *ins.parts[1:], loc=ins.loc)
            res = self.select_into(dst, t, parts, dst_had_data, loc)
            if not dst_had_data and _whole(dst):
                dst.tensor.related_mask = parts  # an assignment of this result is masked too (Tracer.assign)
            return res
        finally:
            self.mask = saved

    def select_into(self, dst, t, parts, dst_had_data, loc):
        """dst where the comparisons (each relating two tile axes) hold becomes t; elsewhere dst keeps its data, or
        gets -0.0 (integers 0) when it holds none."""
        zero = -0.0 if dst.dtype.is_float else 0
        if dst_had_data:
            if len(parts) > 1:
                unsupported("a conjunction of masks that relate two tile axes, into a tile that holds data", loc)
            p = parts[0]
            u = self.temp(dst.shape, dst.dtype, "sbuf", loc, name="kept")
            affine_select(u, dst, *select_args(Pred(p.expr, _CMP_NOT[p.op]), dst.shape, loc), zero, loc)
            affine_select(t, t, *select_args(p, dst.shape, loc), zero, loc)
            return self.emit("tt", dst, t, u, "add", loc=loc)
        src = t
        for p in parts:
            affine_select(dst, src, *select_args(p, dst.shape, loc), zero, loc)
            src = dst
        return self.body[-1]

    def _emit_masked(self, ins, mask, loc):
        """`ins` restricted to where `mask` holds: each conjunct bounds one tile axis (or is a condition on loop
        indices alone). Bounds that depend on a loop index give one sub-view per run of iterations with the same
        bounds, each in an `if` block on that index."""
        ndim = 0
        regs_only, bounds, regs = [], [], set()
        for p in mask._list():
            e = p.expr
            ndim = max(ndim, len(e.shape))
            if not e.terms:
                if isinstance(e.base, int):
                    if not _holds(e.base, p.op):
                        return ins  # false everywhere: the call does nothing
                    continue
                regs_only.append(p)
                continue
            if len(e.terms) > 1:
                unsupported("a mask that relates two tile axes (use affine_select / nl.where)", loc)
            (d, c), = e.terms.items()
            base = Aff.of(e.base)
            for k in base.terms:
                if isinstance(k, (DivMod, Piecewise)):
                    unsupported("a mask bound with // or % of a loop index", loc)
                regs.add(k)
            if len(base.terms) > 1:
                unsupported("a mask bound on one tile axis that depends on two loop indices", loc)
            bounds.append((len(e.shape) - d, c, base, p.op))  # axis counted from the right
        shape = [1] * ndim
        for p in mask._list():
            for i, n in enumerate(p.expr.shape):
                shape[ndim - len(p.expr.shape) + i] = max(shape[ndim - len(p.expr.shape) + i], n)

        def box(group, v):
            lo = [0] * ndim
            hi = [n - 1 for n in shape]
            for back, c, base, op in group:
                b = base.const + sum(cc * v for cc in base.terms.values())
                d = ndim - back
                held = [a for a in range(shape[d]) if _holds(c * a + b, op)]
                if held and len(held) != held[-1] - held[0] + 1:
                    unsupported("a mask that holds on more than one run of a tile axis", loc)
                lo[d] = max(lo[d], held[0] if held else shape[d])
                hi[d] = min(hi[d], held[-1] if held else -1)
            return tuple(lo), tuple(hi)
        # per loop index, the runs of its iterations with the same bounds; the box of a combination of runs is the
        # intersection of their bounds
        per_reg = []
        static = [b for b in bounds if not b[2].terms]
        for reg in sorted(regs, key=lambda r: r.depth):
            values = list(range(reg.start, reg.stop, reg.step))
            if len(values) > 4096:
                unsupported("a mask bound by a loop of more than 4096 iterations", loc)
            group = [b for b in bounds if reg in b[2].terms]
            runs = []
            for v in values:
                bx = box(group, v)
                if runs and runs[-1][2] == bx:
                    runs[-1][1] = v
                else:
                    runs.append([v, v, bx])
            per_reg.append((reg, values, runs))
        combos = [([], box(static, 0), {})]
        for reg, values, runs in per_reg:
            nxt = []
            for conds, (lo, hi), vals in combos:
                for first_v, last_v, (lo2, hi2) in runs:
                    c2 = list(conds)
                    if first_v != values[0]:
                        c2.append((Aff(-first_v, {reg: 1}), "ge"))
                    if last_v != values[-1]:
                        c2.append((Aff(-last_v, {reg: 1}), "le"))
                    v2 = dict(vals)
                    v2[reg] = (first_v, last_v)
                    nxt.append((c2, (tuple(map(max, lo, lo2)), tuple(map(min, hi, hi2))), v2))
            combos = nxt
        last = None
        outer = self.body
        for p in regs_only:
            blk = IfBlock(p.expr.base, p.op, loc, self.loops)
            self.body.append(blk)
            self.body = blk.body
        try:
            for conds, (lo, hi), vals in combos:
                if any(h < l_ for l_, h in zip(lo, hi)):
                    continue  # nothing of the tile in these iterations
                sub = Instr(ins.op, [self._masked_part(x, lo, hi, shape, loc, vals) for x in ins.parts], ins.loc,
                            ins.loops)
                sub.flags = list(ins.flags)
                target = self.body
                for expr, op in conds:
                    blk = IfBlock(expr, op, loc, self.loops)
                    target.append(blk)
                    target = blk.body
                last = self._append_split(sub, target)
        finally:
            self.body = outer
        return last if last is not None else ins

    def _masked_part(self, x, lo, hi, shape, loc, vals):
        if isinstance(x, tuple):
            return (x[0], self._masked_part(x[1], lo, hi, shape, loc, vals))
        if not isinstance(x, View):
            return x
        nd = len(shape)
        for e, cnt, message in x.oob or ():
            # the index over the masked box, and the run's values of the mask's loop indices
            ea = e._aligned(nd)
            b = Aff.of(ea.base)
            mn = mx = b.const
            for r, c in b.terms.items():
                a_, z = vals[r] if r in vals else r.values_range()
                mn += min(a_ * c, z * c)
                mx += max(a_ * c, z * c)
            for d, c in ea.terms.items():
                mn += min(lo[d] * c, hi[d] * c)
                mx += max(lo[d] * c, hi[d] * c)
            if mn < 0 or mx >= cnt:
                raise KernelError(message + " where the mask holds", loc)
        axes = list(x.axes)
        if len(axes) < nd:
            axes = [(1, 0, 0)] * (nd - len(axes)) + axes
        elif len(axes) > nd:
            unsupported("a mask of %d axes on a tile of shape %s" % (nd, x.shape), loc)
        base_p, base_f = x.base_p, x._base_f
        for d in range(nd):
            cnt, ps, fs = axes[d]
            if lo[d] == 0 and hi[d] == shape[d] - 1:
                continue
            if cnt == 1:
                continue  # broadcast along this axis
            if cnt != shape[d]:
                unsupported("a mask of shape %s on a tile of shape %s" % (tuple(shape), x.shape), loc)
            base_p, base_f = _add(base_p, lo[d] * ps), _add(base_f, lo[d] * fs)
            axes[d] = (hi[d] - lo[d] + 1, ps, fs)
        return View(x._tensor, base_p, base_f, axes)

    def touch(self, v, write):
        t = v.tensor
        if write:
            t.known = None  # values an index may take (trace._known_index): gone once anything writes the tile
            t.values = None  # the tile's values when only memsets of numbers wrote it (_values_after_memset)
            if getattr(t, "index_loops", None) and any(lp in self.loops for lp in t.index_loops):
                # the next iteration's index would read what this writes
                unsupported("a write into tile '%s', which an index of this loop's body reads before (its values "
                            "change from one iteration to the next)" % t.name, user_location())
        if t.groups:
            self.close_groups(t, self.loops)
        if t.pending_memset is not None:
            t.pending_memset = None
        if write:
            t.written = True
            t.has_data = True
        else:
            t.read = True
            t.producer = None

    def close_groups(self, t, close_loops, at_end=False):
        base = t.decl_depth if at_end else len(close_loops)
        for key, group in list(t.groups.items()):
            first, last = group[0], group[-1]
            for ins in (first, last):
                d = ins.depth - base
                if not at_end and ins.loops[:base] != close_loops[:base]:
                    unsupported("a matmul accumulation that a read in another loop closes", ins.loc)
                if d < 0:
                    unsupported("a matmul accumulation closed inside its loop", ins.loc)
            if t.zeroed and base > t.decl_depth:
                unsupported("accumulating into a PSUM tile made by nl.zeros outside the loop that reads it "
                            "(the sum would carry over between iterations)", first.loc)
            if first.depth - base <= 1 and last.depth - base <= 1:
                first.flags.append("start@first" if first.depth > base else "start")
                last.flags.append("stop@last" if last.depth > base else "stop")
            else:
                self._deep_group(first, last, base)
        t.groups = {}
        t.has_data = True

    def _deep_group(self, first, last, base):
        """An accumulation whose matmuls sit two or more loops below where it is read: start@first / stop@last name
        the innermost loop, so the loops between are folded into one index, `lin`, 0 on their first iterations and
        its largest value on their last; the matmul is written once per case in `if` blocks on `lin`."""
        for ins in {id(first): first, id(last): last}.values():
            outer = [lp.reg for lp in ins.loops[base:-1]]
            lin, stride = Aff(0), 1
            for r in reversed(outer):
                span = r.values_range()[1] - r.start
                lin = lin + Aff(-r.start * stride, {r: stride})
                stride *= span + 1
            top = stride - 1
            inner = "@first", "@last"
            cases = []  # (conditions on lin, start?, stop?)
            is_first, is_last = ins is first, ins is last
            if top == 0:
                cases.append(([], is_first, is_last))
            elif is_first and is_last:
                cases += [([("eq", 0)], True, False), ([("eq", top)], False, True)]
                if top > 1:
                    cases.append(([("gt", 0), ("lt", top)], False, False))
            elif is_first:
                cases += [([("eq", 0)], True, False), ([("gt", 0)], False, False)]
            else:
                cases += [([("eq", top)], False, True), ([("lt", top)], False, False)]
            if ins.depth == base:
                cases = [([], is_first, is_last)]
                inner = "", ""
            body = self._containing_body(ins)
            at = next(i for i, x in enumerate(body) if x is ins)
            blocks = []
            for conds, start, stop in cases:
                copy_ = Instr(ins.op, ins.parts, ins.loc, ins.loops)
                copy_.flags = [f for f in ins.flags if f not in ("start", "stop")] + \
                    (["start" + inner[0]] if start else []) + (["stop" + inner[1]] if stop else [])
                node = copy_
                for op, v in reversed(conds):
                    blk = IfBlock(Aff.of(lin - v).simplify() if isinstance(lin, Aff) else lin - v, op, ins.loc,
                                  ins.loops)
                    blk.body.append(node)
                    node = blk
                blocks.append(node)
            body[at:at + 1] = blocks

    def _containing_body(self, ins):
        def find(body):
            for x in body:
                if x is ins:
                    return body
                if isinstance(x, (Loop, IfBlock)):
                    got = find(x.body)
                    if got is not None:
                        return got
            return None
        return find(self.top) or find(self.prelude)

    def finish_groups(self):
        for t in self.tensors:
            if t.groups:
                self.close_groups(t, [], at_end=True)

    def matmul_into(self, dst, stat, mov, loc, accumulate):
        if dst.tensor.space != "psum":
            raise KernelError("a matmul writes PSUM; '%s' is in %s" % (dst.tensor.name, dst.tensor.space), loc)
        self.touch(stat, False)
        self.touch(mov, False)
        t = dst.tensor
        for v in (dst, stat, mov):
            if _piecewise_in(v.base_p, []) or _piecewise_in(v._base_f, []):
                unsupported("a matmul operand indexed by a // or % of a sum of loop indices", loc)
        _check_in_range((dst, stat, mov), loc)
        ins = Instr("matmul", [dst, stat, mov], loc, self.loops)
        key = (aff_text(dst.base_p, self.regs), aff_text(dst.base_f, self.regs), dst.shape)
        if not accumulate:
            if t.groups:
                self.close_groups(t, self.loops)
            ins.flags = ["start", "stop"]
            t.written = t.has_data = True
            self.body.append(ins)
            return ins
        if key not in t.groups:
            if t.pending_memset is not None:
                ms, body = t.pending_memset
                if _whole(dst) and ms in body:
                    body.remove(ms)
                t.pending_memset = None
            elif t.has_data and t.zeroed:
                unsupported("accumulating into a PSUM tile after it was read (the format's accumulation group "
                            "starts from zero)", loc)
            t.groups[key] = []
        t.groups[key].append(ins)
        t.written = True
        self.body.append(ins)
        return ins

    def identity(self, n, dtype, loc):
        key = (n, dtype.name)
        if key not in self.idents:
            t = self.tensor((n, n), dtype, "sbuf", loc, name="identity_%s_%d" % (dtype.fmt, n))
            body, self.body, loops, self.loops = self.body, self.prelude, self.loops, []
            self.emit("memset", t, 1.0, loc=loc)
            self.emit("affine_select", t, t, "p=1", "e=-1", "c=0", "eq", 0.0, loc=loc)
            self.body, self.loops = body, loops
            self.idents[key] = t
        return self.idents[key]

    # -- assignment --

    def assign(self, dst, value, loc=None):
        loc = loc or user_location()
        if _is_number(value):
            return self.emit("memset", dst, value, loc=loc)
        if not isinstance(value, View):
            raise KernelError("cannot assign %r to a tile" % (value,), loc)
        _same_shape(dst, value, "assignment", loc)
        src_t = value.tensor
        if getattr(src_t, "related_mask", None) and _whole(value) and dst.tensor.space != "dram":
            # the value of a call with a mask relating two tile axes: the assignment writes where the mask holds
            parts, src_t.related_mask = src_t.related_mask, None
            t = self.temp(dst.shape, dst.dtype, "sbuf", loc, name="masked")
            self.emit("copy", t, value, loc=loc)
            return self.select_into(dst, t, parts, dst.tensor.written, loc)
        prod = src_t.producer
        if prod is not None and self.body and self.body[-1] is prod and _whole(value) and not src_t.param:
            ok = {"matmul": dst.tensor.space == "psum", "transpose": dst.tensor.space == "psum",
                  "broadcast": dst.tensor.space == "psum",
                  "dma": dst.tensor.space != "dram" or prod.parts[1].tensor.space != "dram"}.get(
                prod.op, dst.tensor.space != "dram")
            if prod.op == "dma" and dst.tensor.space != "dram" and prod.parts[1].dtype != dst.dtype and not (
                    {prod.parts[1].dtype.fmt, dst.dtype.fmt} == {"f32", "bf16"}):
                ok = False
            for part in prod.parts[1:]:
                s = part[1] if isinstance(part, tuple) else part
                if isinstance(s, View) and s.tensor is dst.tensor and not _same_view(s, dst):
                    ok = False  # writing one part of a tensor from another part: keep NKI's compute-then-copy
                if isinstance(s, View) and s.tensor is src_t:
                    ok = False  # the producer also reads the value (reduce then negate in place): it stays
            if ok and not _expressible(dst):
                ok = False  # written through a copy that loops over a free axis (Tracer._split_axis)
            if ok and (_piecewise_in(dst.base_p, []) or _piecewise_in(dst._base_f, [])):
                ok = False  # a piecewise index: the copy is written once per piece (Tracer.emit)
            if ok:
                prod.parts[0] = dst
                src_t.dead = True
                src_t.producer = None
                self.touch(dst, True)
                return prod
        return self.move(dst, value, loc)

    def move(self, dst, value, loc):
        if getattr(dst, "indirect", None) or getattr(value, "indirect", None):
            return indirect_rows(dst, value, loc)
        ds_, ss = dst.tensor.space, value.tensor.space
        if ds_ == "dram" or ss == "dram":
            if ds_ == "dram" and ss == "dram":
                # the format's DMA has one on-chip side: staged through an SBUF tile of the view's rows
                P, F = _flat(value)
                if P > self.partitions:
                    if len(value.shape) < 2 or _flat(dst)[0] != P:
                        unsupported("a DRAM to DRAM copy of %d rows (more than the %d partitions a staging tile "
                                    "has) between views of different rows" % (P, self.partitions), loc)
                    for r0 in range(0, P, self.partitions):  # a staged copy per block of rows
                        n = min(self.partitions, P - r0)
                        ins = self.move(dst[r0:r0 + n], value[r0:r0 + n], loc)
                    return ins
                t = self.temp((P, F), value.dtype, "sbuf", loc, name="staged")
                self.emit("dma", t, value, loc=loc)
                value = t
                if t.dtype == dst.dtype or {t.dtype.fmt, dst.dtype.fmt} == {"f32", "bf16"}:
                    return self.emit("dma", dst, t, loc=loc)
                ss = "sbuf"
            if ss == "psum" or (value.dtype != dst.dtype and {value.dtype.fmt, dst.dtype.fmt} != {"f32", "bf16"}):
                if ss == "dram":
                    t = self.temp(value.shape, value.dtype, "sbuf", loc, name="staged")
                    self.emit("dma", t, value, loc=loc)
                    return self.emit("copy", dst, t, loc=loc)
                t = self.temp(value.shape, dst.dtype if ss == "psum" and value.dtype.size == dst.dtype.size
                              else dst.dtype, "sbuf", loc, name="staged")
                self.emit("copy", t, value, loc=loc)
                value = t
            return self.emit("dma", dst, value, loc=loc)
        return self.emit("copy", dst, value, loc=loc)

    def accumulate(self, dst, value, loc=None):
        loc = loc or user_location()
        if isinstance(value, View) and value.tensor.producer is not None and value.tensor.producer.op == "matmul" \
                and self.body and self.body[-1] is value.tensor.producer and dst.tensor.space == "psum":
            prod = value.tensor.producer
            _same_shape(dst, value, "+=", loc)
            self.body.pop()
            value.tensor.dead = True
            value.tensor.producer = None
            return self.matmul_into(dst, prod.parts[1], prod.parts[2], prod.loc, accumulate=True)
        res = binary("add", dst, value, loc=loc)
        return self.assign(dst, res, loc)

    # -- Python lists of tiles indexed by loop indices --

    def tile_list(self, root, idx, loc):
        """`root[i][j]...` with loop indices among the subscripts: the tiles of the (nested) list become blocks of one
        tensor, and the subscripts pick a block of it.

        A list level with several elements was filled by Python (a `range` loop, unrolled); a level with one element
        indexed by a loop index was filled once per iteration of a loop the tracer kept (`lst.append(tile)` in an
        `affine_range`): its element stands for one tile per iteration of the loop that allocates it. A block's
        position is the row-major position of its subscripts.
        """
        sizes, leaves, level = [], [], [root]
        for depth in range(len(idx)):
            n = None
            nxt = []
            for lst in level:
                if not isinstance(lst, (list, tuple)) or not lst:
                    raise KernelError("subscript %d of a list of tiles indexes %r, not a list" % (depth + 1, lst), loc)
                if n is not None and len(lst) != n:
                    unsupported("a list of tiles of uneven lengths indexed by a loop index", loc)
                n = len(lst)
                nxt.extend(lst)
            sizes.append(n)
            level = nxt
        leaves = level
        for x in leaves:
            if isinstance(x, (list, tuple)):
                raise KernelError("a list of lists indexed by a loop index needs one subscript per level", loc)
            if not isinstance(x, View):
                unsupported("a list of %s indexed by a loop index (only lists of tiles become tile arrays)"
                            % type(x).__name__, loc)
        # which levels stand for the iterations of a loop
        per_loop = [n == 1 and isinstance(i, Aff) and IExpr.of(i).bounds() != (0, 0) for n, i in zip(sizes, idx)]
        nloop = sum(per_loop)
        first = leaves[0]
        trips, starts = [], []
        for t in leaves:
            if not isinstance(t, Tensor) or t._tensor is not t:
                unsupported("a list of tile views (slices) indexed by a loop index: append whole tiles", loc)
            if t.space == "dram":
                unsupported("a list of HBM tensors indexed by a loop index", loc)
        loops_of = []
        for t in leaves:
            lps = t.decl_loops[len(t.decl_loops) - nloop:] if nloop else []
            if len(lps) < nloop:
                unsupported("tile '%s' (line %d) is in a list indexed by a loop index as one tile per iteration, but "
                            "it is allocated outside %s loop" % (t.name, t.loc[1], "that" if nloop == 1 else "those"),
                            loc)
            for lp in lps:
                if lp in self.loops:
                    unsupported("a list of tiles indexed by a loop index inside the loop that allocates its tiles "
                                "(line %d)" % lp.loc[1], loc)
            loops_of.append(lps)
        trips = [len(range(lp.reg.start, lp.reg.stop, lp.reg.step)) for lp in loops_of[0]]
        for lps in loops_of[1:]:
            if [len(range(lp.reg.start, lp.reg.stop, lp.reg.step)) for lp in lps] != trips:
                unsupported("a list of tiles allocated in loops of different trip counts", loc)
        counts, it = [], iter(trips)
        for n, pl in zip(sizes, per_loop):
            counts.append(next(it) if pl else n)
        strides, s_ = [], 1
        for n in reversed(counts):
            strides.append(s_)
            s_ *= n
        strides.reverse()
        blocks = s_
        for i, (x, n) in enumerate(zip(idx, counts)):
            lo, hi = IExpr.of(x).bounds()
            if lo < 0 or hi >= n:
                raise KernelError("subscript %d of the list runs from %d to %d; the list holds %d %s" % (
                    i + 1, lo, hi, n, "tiles" if i == len(idx) - 1 else "lists"), loc)
        layout = (tuple(counts), tuple(per_loop), tuple(id(t) for t in leaves))
        M = first.alias[0] if first.alias is not None else None
        if M is None:
            M = self._tile_list_tensor(leaves, loops_of, counts, strides, per_loop, blocks, layout, loc)
        elif M.family != layout or any(t.alias is None or t.alias[0] is not M for t in leaves):
            unsupported("tiles of this list are already blocks of another list indexed by a loop index", loc)
        block = 0
        for x, st in zip(idx, strides):
            block = _add(block, _mul(x if isinstance(x, Aff) else int(x), st))
        return View(M, 0, _mul(block, first.F), first.axes)

    def _tile_list_tensor(self, leaves, loops_of, counts, strides, per_loop, blocks, layout, loc):
        first = leaves[0]
        seen = set()
        for t in leaves:
            if id(t) in seen:
                unsupported("tile '%s' appears twice in a list indexed by a loop index" % t.name, loc)
            seen.add(id(t))
            if (t.space, t.dtype, t.nki_shape, t.pdim) != (first.space, first.dtype, first.nki_shape, first.pdim):
                unsupported("a list of tiles of different shapes, dtypes or buffers indexed by a loop index ('%s' "
                            "and '%s')" % (first.name, t.name), loc)
            if t.alias is not None:
                unsupported("tile '%s' is already a block of another list indexed by a loop index" % t.name, loc)
            if t.placement is not None:
                unsupported("a list of hand-placed tiles indexed by a loop index", loc)
            if t.groups or t.dead:
                unsupported("a list of tiles indexed by a loop index while '%s' has an open accumulation" % t.name,
                            loc)
        shape = (blocks,) + tuple(first.nki_shape)
        M = Tensor(self, first.name, first.space, first.dtype, shape, first.loc, first.pdim + 1)
        if M.P > self.partitions:
            raise KernelError("tile list '%s' has %d partitions" % (M.name, M.P), loc)
        M.decl_loops = []
        M.decl_depth = min(t.decl_depth for t in leaves)
        for a in ("read", "written", "has_data", "zeroed"):
            setattr(M, a, any(getattr(t, a) for t in leaves))
        M.family = layout
        F = first.F
        for pos, t in enumerate(leaves):
            # the leaf's position in the lists: Python levels by its place, loop levels by its loop's iteration
            off, rest, lps = 0, pos, iter(loops_of[pos])
            for n_at, (c, st, pl) in enumerate(zip(counts, strides, per_loop)):
                below = _prod(1 if p2 else c2 for c2, p2 in zip(counts[n_at + 1:], per_loop[n_at + 1:]))
                if pl:
                    r = next(lps).reg
                    if (st * F) % r.step:
                        unsupported("a list of tiles allocated in a loop of step %d" % r.step, loc)
                    off = _add(off, Aff(-r.start * st * F // r.step, {r: st * F // r.step}))
                else:
                    off = _add(off, (rest // below) * st * F)
                    rest %= below
            t.alias = (M, off)
            t.producer = None
        self.tensors.insert(self.tensors.index(first), M)
        return M

    # -- output --

    def render(self):
        self.finish_groups()
        from .psum_fold import fold_psum_arrays
        fold_psum_arrays(self, self.prelude + self.top)
        dram_rows = self._dram_rows()
        out = ["arch %s" % self.arch]
        hand = [t for t in self.tensors if t.space != "dram" and not t.dead and t.alias is None]
        allocated = bool(hand) and all(t.placement is not None for t in hand)
        self.allocated = allocated
        for t in self.tensors:
            if t.dead or t.alias is not None:
                continue
            if t.space == "dram":
                R = dram_rows[t]
                line = "dram %s [%d, %d] %s" % (t.name, t.F // R, R, t.dtype.fmt)
                if t.param and (t.read or not t.written):
                    line += " input"
                if t.written:
                    line += " output"
            else:
                line = "%s %s [%d, %d] %s" % (t.space, t.name, t.P, t.F, t.dtype.fmt)
                if t.placement is not None:
                    line += " pinned " + self._placement_text(t)
            out.append(line + "  # %s:%d" % (shown_path(t.loc[0]), t.loc[1]))
        if allocated and len(self.regs) > self.sp_registers:
            raise KernelError("the kernel places its tensors by hand and has %d loops; the %s machine has %d SP "
                              "registers" % (len(self.regs), self.arch, self.sp_registers), self.regs[-1] and
                              ("<kernel>", 0))
        for i, r in enumerate(self.regs):
            out.append("reg %s%s" % (r.name, " @r%d" % i if allocated else ""))
        out.append("")
        self._render_body(self.prelude + self.top, 0, out, dram_rows)
        return "\n".join(out) + "\n"

    def _check_scope(self, ins):
        """Every loop index in an instruction's views belongs to a loop around it (a tile allocated in a loop is one
        tile per iteration: after the loop, only a list of them indexed by a loop index names one)."""
        inside = {lp.reg for lp in ins.loops}
        for p in ins.parts:
            v = p[1] if isinstance(p, tuple) else p
            if not isinstance(v, View):
                continue
            for b in (v.base_p, v.base_f):
                for k in (Aff.of(b).terms if isinstance(b, Aff) else ()):
                    if isinstance(k, Piecewise):
                        unsupported("an index %s (a // or %% of a sum of loop indices) in this instruction" % k.name,
                                    ins.loc)
                    r = k.reg if isinstance(k, DivMod) else k
                    if r not in inside:
                        raise KernelError("tile '%s' is one tile per iteration of loop '%s' (line %d); here it is "
                                          "used outside that loop (keep the tiles in a list and index it)"
                                          % (v.tensor.name, r.name, r.loc[1]), ins.loc)

    def _placement_text(self, t):
        pl = t.placement
        if t.space == "psum":
            return "@bank%d" % pl.bank
        return "@p%d+%d" % (pl.partition, pl.offset)

    def _render_body(self, body, depth, out, rows):
        ind = "  " * depth
        for item in body:
            if isinstance(item, IfBlock):
                inside = {lp.reg for lp in item.loops}
                for k in (Aff.of(item.expr).terms if isinstance(item.expr, Aff) else ()):
                    r = k.reg if isinstance(k, DivMod) else k
                    if r not in inside:
                        raise KernelError("an `if` on loop index '%s' outside its loop" % r.name, item.loc)
                out.append("%sif %s %s 0 {  # %s:%d" % (ind, aff_text(item.expr, self.regs), _CMP_TEXT[item.op],
                                                        shown_path(item.loc[0]), item.loc[1]))
                self._render_body(item.body, depth + 1, out, rows)
                out.append(ind + "}")
                continue
            if isinstance(item, Loop):
                r = item.reg
                out.append("%sloop %s = %d, %d, %d {  # %s:%d" % (ind, r.name, r.start, r.stop, r.step,
                                                                  shown_path(item.loc[0]), item.loc[1]))
                self._render_body(item.body, depth + 1, out, rows)
                out.append(ind + "}")
                continue
            self._check_scope(item)
            parts = []
            for p in item.parts:
                if isinstance(p, View):
                    parts.append(self.view_text(p, rows, item.loc))
                elif isinstance(p, tuple):
                    k, v = p
                    parts.append(k + (self.view_text(v, rows, item.loc) if isinstance(v, View) else
                                      aff_text(v, self.regs) if isinstance(v, Aff) else
                                      v if isinstance(v, str) else _fmt_num(v)))
                elif isinstance(p, str):
                    parts.append(p)
                else:
                    parts.append(_fmt_num(p))
            parts += item.flags
            out.append("%s%s %s  # %s:%d" % (ind, item.op, ", ".join(parts), shown_path(item.loc[0]), item.loc[1]))

    def _dram_rows(self):
        rows = {}
        strides = {}
        spans = {}  # per tensor, the longest free span of an access over one partition
        for ins in _walk(self.prelude + self.top):
            for p in ins.parts:
                v = p[1] if isinstance(p, tuple) else p
                if isinstance(v, View) and v.tensor.space == "dram" and not (len(v.axes) > 1 and v.axes[0][0] > 1):
                    free = v.axes[1:] if len(v.axes) > 1 else v.axes
                    span = 1 + sum((c - 1) * fs for c, ps, fs in free if c > 1 and isinstance(fs, int) and fs > 0)
                    spans[v.tensor] = max(spans.get(v.tensor, 0), span)
                if isinstance(v, View) and v.tensor.space == "dram" and len(v.axes) > 1 and v.axes[0][0] > 1:
                    s = v.axes[0][2]
                    prev = strides.setdefault(v.tensor, (s, ins.loc))
                    if prev[0] != s:
                        unsupported("DRAM tensor '%s' is accessed with rows of %d elements here and of %d at line "
                                    "%d (a DRAM tensor of the program has one row length)"
                                    % (v.tensor.name, s, prev[0], prev[1][1]), ins.loc)
        for t in self.tensors:
            if t.space != "dram":
                continue
            if t in strides:
                R = strides[t][0]
                if R <= 0 or t.F % R:
                    unsupported("DRAM tensor '%s' accessed with a partition stride of %d elements" % (t.name, R),
                                strides[t][1])
            else:
                # never accessed over several partitions: rows of the last axis, or a row per index of the first
                # axis when an access of one partition spans more (`b[0:1, 0:32, 0:4]` of a [1, 32, 4] tensor)
                R = t.nki_shape[-1]
                if len(t.nki_shape) > 2 and spans.get(t, 0) > R:
                    R = _prod(t.nki_shape[1:])
            rows[t] = R
        return rows

    def view_text(self, v, rows, loc):
        t = v.tensor
        regs = self.regs

        def aff_text(x, regs):
            if isinstance(x, Aff) and sum(1 for c in x.terms.values() if c) > MAX_INDEX_TERMS:
                unsupported("an index over more than %d loop indices (%s; the loops the tracer adds for views the "
                            "format cannot write count too)" % (MAX_INDEX_TERMS, globals()["aff_text"](x, regs)), loc)
            return globals()["aff_text"](x, regs)
        axes = list(v.axes)
        if t.space == "dram":
            R = rows[t]
            P = axes[0][0] if len(axes) > 1 else 1
            free = [(c, fs) for c, ps, fs in (axes[1:] if len(axes) > 1 else axes) if c > 1]
            C, STEP, C2 = _free_pattern(free, loc)
            base = Aff.of(v.base_f)
            start = Aff(base.const // R)
            off = Aff(base.const % R)
            for r, c in base.terms.items():
                if c % R == 0:
                    start = start + Aff(0, {r: c // R})
                else:
                    off = off + Aff(0, {r: c})
            start, off = Aff.of(start).simplify(), Aff.of(off).simplify()
            extent = C if C2 == 1 else (C2 - 1) * STEP + C
            if isinstance(off, int) and off + extent > R:
                unsupported("a DRAM access of %d elements from element %d of a row of %d (the format's DRAM "
                            "view stays in its rows)" % (extent, off, R), loc)
            if extent > R:
                unsupported("a DRAM access that spans rows in its free dimension", loc)
            rows_total = t.F // R
            ptxt = ":" if (_zero(start) and P == rows_total) else "%s:%d" % (aff_text(start, regs), P)
            ftxt = ":" if (_zero(off) and C == R and C2 == 1) else "%s:%d" % (aff_text(off, regs), C)
            if ptxt == ":" and ftxt == ":":
                return t.name
            return "%s[%s, %s%s]" % (t.name, ptxt, ftxt, ", %d:%d" % (STEP, C2) if C2 > 1 else "")
        # on chip
        nontrivial = [a for a in axes if a[0] > 1]
        part = [a for a in nontrivial if a[1] != 0]
        if len(part) > 1:
            unsupported("a tile with two partition axes", loc)
        if part:
            if part[0] is not nontrivial[0] or part[0][1] != 1 or part[0][2] != 0:
                unsupported("a tile whose partition axis is not its first axis (a transposed view; use a transpose)",
                            loc)
            P = part[0][0]
            rest = nontrivial[1:]
        else:
            P = 1
            rest = nontrivial
        free = [(c, fs) for c, ps, fs in rest]
        C, STEP, C2 = _free_pattern(free, loc)
        ptxt = ":" if (_zero(v.base_p) and P == t.P) else "%s:%d" % (aff_text(v.base_p, regs), P)
        ftxt = ":" if (_zero(v.base_f) and C == t.F and C2 == 1) else "%s:%d" % (aff_text(v.base_f, regs), C)
        if ptxt == ":" and ftxt == ":":
            return t.name
        return "%s[%s, %s%s]" % (t.name, ptxt, ftxt, ", %d:%d" % (STEP, C2) if C2 > 1 else "")


def _walk(body):
    for item in body:
        if isinstance(item, (Loop, IfBlock)):
            yield from _walk(item.body)
        else:
            yield item


def _merge_axes(free):
    """(count, stride) axes, outermost first, with each axis that steps over exactly the next one merged into it."""
    merged = []
    for c, s in free:
        if merged and merged[-1][1] == c * s:
            merged[-1] = (merged[-1][0] * c, s)
        else:
            merged.append((c, s))
    return merged


def _free_pattern(free, loc):
    merged = _merge_axes(free)
    if not merged:
        return 1, 0, 1
    if len(merged) == 1:
        c, s = merged[0]
        return (c, 0, 1) if s == 1 else (1, s, c)
    if len(merged) == 2 and merged[1][1] == 1:
        return merged[1][0], merged[0][1], merged[0][0]
    unsupported("a tile whose free axes (%s) are not one contiguous run repeated at a step"
                % ", ".join("%d elements at stride %d" % m for m in merged), loc)


def _expressible(v):
    """Whether the format can write the view: its partition axis first, its free axes one run or one run repeated
    at a step."""
    axes = [a for a in v.axes if a[0] > 1]
    if v.tensor.space == "dram":
        rows = len(v.axes) > 1 and v.axes[0][0] > 1
        free = axes[1:] if rows else axes
        # rows of the partition stride: free elements reaching past it span rows (`in[i_h + i_kh, i_w]`), which the
        # format's DRAM view cannot; a loop over the outer free axis keeps each view in its rows
        if rows and len(free) > 1 and sum((c - 1) * s for c, _, s in free) >= v.axes[0][2] > 0:
            return False
    else:
        part = [a for a in axes if a[1] != 0]
        if len(part) > 1 or (part and (part[0] is not axes[0] or part[0][1] != 1 or part[0][2] != 0)):
            return True  # refused where it is rendered, with its own message
        free = [a for a in axes if a[1] == 0]
    merged = _merge_axes((c, s) for c, _, s in free)
    if any(s < 0 for _, s in merged):
        return False  # the format's steps are not negative: an axis that runs backwards becomes a loop
    return len(merged) <= 1 or (len(merged) == 2 and merged[1][1] == 1)


def _same_view(a, b):
    return a.tensor is b.tensor and aff_text(a.base_p, []) == aff_text(b.base_p, []) and \
        aff_text(a.base_f, []) == aff_text(b.base_f, []) and list(a.axes) == list(b.axes)


def _zero(x):
    return isinstance(x, int) and x == 0


def _whole(v):
    t = v.tensor
    return _zero(v.base_p) and _zero(v.base_f) and _prod(a[0] for a in v.axes) == t.P * t.F


def _flat(v):
    """A tile's [partitions, elements] in the program (the format's view shape)."""
    if v.tensor.space == "dram":
        s = v.shape
        return (s[0], _prod(s[1:])) if len(s) > 1 else (1, s[0])
    P = _prod(a[0] for a in v.axes if a[1] != 0)
    return P, _prod(a[0] for a in v.axes if a[1] == 0)


def _same_shape(a, b, what, loc):
    if _flat(a) != _flat(b):
        raise KernelError("%s: shapes %s and %s differ" % (what, a.shape, b.shape), loc)


# ---- operations -----------------------------------------------------------------------------------------------

COMMUTATIVE = {"add", "mul", "max", "min", "and", "or", "xor", "eq", "ne"}
COMPARISONS = {"eq", "ne", "lt", "le", "gt", "ge"}
_CMP_SWAP = {"lt": "gt", "le": "ge", "gt": "lt", "ge": "le"}  # s < x is x > s


def _result_dtype(*xs, dtype=None):
    if dtype is not None:
        return as_dtype(dtype)
    ds = [x.dtype for x in xs if isinstance(x, View)]
    if any(d == float32 for d in ds):
        return float32
    return ds[0]


def _on_chip(v, what, loc):
    if not isinstance(v, View):
        raise KernelError("%s needs a tile, not %r" % (what, v), loc)
    if v.tensor.space == "dram":
        raise KernelError("%s reads '%s' in HBM; load it into SBUF first (nl.load)" % (what, v.tensor.name), loc)
    return v


def _is_col(v):
    """A [P, 1] tile: one value per partition (a ts scalar, an act bias)."""
    s = _flat(v)
    return s[1] == 1


def _scalar_operand(x, loc, dtype=float32):
    """A ts / act scalar: a [P, 1] tile or a number (a float for a float tile, as NKI takes a Python int there)."""
    if isinstance(x, View):
        _on_chip(x, "a scalar operand", loc)
        return x
    if _is_number(x):
        return float(x) if dtype.is_float else x
    raise KernelError("operand %r is neither a number nor a tile" % (x,), loc)


def binary(op, x, y, dtype=None, loc=None, dst=None):
    """x op y elementwise: tt for two tiles, ts for a tile and a number or a [P, 1] tile."""
    tr = tracer()
    loc = loc or user_location()
    if isinstance(x, Choice) or isinstance(y, Choice):
        # an operand `a if i == 0 else b`: the operation once per case, each in its `if` blocks, into one tile
        full = x if isinstance(x, View) else y
        if not isinstance(full, View):
            raise KernelError("%s needs a tile on one side" % op, loc)
        out = dst if dst is not None else tr.temp(full.shape, _result_dtype(x, y, dtype=dtype), "sbuf", loc)
        for case, (vx, vy) in each_choice([x, y], loc):
            with tr._branch(case, loc):
                binary(op, vx, vy, dtype, loc, dst=out)
        return out
    xv, yv = isinstance(x, View), isinstance(y, View)
    if not xv and not yv:
        raise KernelError("%s of two numbers is Python's, not a tile operation" % op, loc)
    if op in COMPARISONS and not has_op("alu_compare"):
        unsupported("an elementwise comparison (the program format has no comparison ALU operation yet)", loc)
    if xv:
        _on_chip(x, "nl." + op, loc)
    if yv:
        _on_chip(y, "nl." + op, loc)
    if xv and yv and _flat(x) == _flat(y):
        out = dst if dst is not None else tr.temp(x.shape, _result_dtype(x, y, dtype=dtype), "sbuf", loc)
        ins = tr.emit("tt", out, x, y, op, loc=loc)
        return _made(out, ins)
    # a one-partition side with a side of P partitions: broadcast along partitions first (on the PE, into PSUM):
    # [1, N] with [P, N] or [P, 1] (the result [P, N]), [1, 1] with [P, F] (then a [P, 1] column)
    fx, fy = (_flat(x), _flat(y)) if xv and yv else (None, None)
    if fx and has_op("broadcast") and 1 in (fx[0], fy[0]) and fx[0] != fy[0] and \
            (fx[1] == fy[1] or 1 in (fx[1], fy[1])):
        if fx[0] == 1:
            x = partition_broadcast(x, fy[0], loc)
        else:
            y = partition_broadcast(y, fx[0], loc)
        return binary(op, x, y, dtype, loc, dst)
    # one side a tile of the full shape, the other a number or a [P, 1] tile
    if xv and (not yv or (_is_col(y) and _flat(y)[0] == _flat(x)[0])):
        full, other, reverse = x, y, False
    elif yv and (not xv or (_is_col(x) and _flat(x)[0] == _flat(y)[0])):
        full, other, reverse = y, x, True
    else:
        unsupported("%s of tiles of shapes %s and %s (broadcast along partitions)"
                    % (op, x.shape if xv else "()", y.shape if yv else "()"), loc)
    out = dst if dst is not None else tr.temp(full.shape, _result_dtype(x, y, dtype=dtype), "sbuf", loc)
    other = _scalar_operand(other, loc, full.dtype)
    if not full.dtype.is_float and _is_number(other) and isinstance(other, float):
        unsupported("a float operand with an integer tile", loc)
    if reverse and op in _CMP_SWAP:
        op = _CMP_SWAP[op]
    if reverse and op not in COMMUTATIVE:
        if op == "sub":
            # s - x = (x * -1) + s: exact (negation is exact, then one rounded add)
            ins = tr.emit("ts", out, full, -1.0 if full.dtype.is_float else -1, "mul", other, "add", loc=loc)
            return _made(out, ins)
        unsupported("%s with the tile as its second operand (the format's ts computes tile %s scalar)" % (op, op),
                    loc)
    ins = tr.emit("ts", out, full, other, op, loc=loc)
    return _made(out, ins)


class LoopReduce:
    """The value of `nl.loop_reduce(x, op)`: `dst = dst op x` into the tile it is assigned to, which is op's other
    operand (`t[...] = nl.loop_reduce(x, ...)`, or `t = nl.loop_reduce(x, ...)` with `t` a tile already)."""

    def __init__(self, x, op, dtype, loc):
        self.x, self.op, self.dtype, self.loc = x, op, dtype, loc
        self.done = False

    def into(self, dst):
        if self.done:
            raise KernelError("nl.loop_reduce's result is assigned once, to the tile it accumulates into", self.loc)
        self.done = True
        if not isinstance(self.x, View):
            raise KernelError("nl.loop_reduce reduces a tile, not %r" % (self.x,), self.loc)
        _same_shape(dst, self.x, "nl.loop_reduce", self.loc)
        if dst.tensor.space == "dram":
            raise KernelError("nl.loop_reduce accumulates into a tile on chip, not '%s' in HBM" % dst.tensor.name,
                              self.loc)
        return binary(self.op, dst, self.x, loc=self.loc, dst=dst)

    def _unassigned(self, *a, **k):
        raise KernelError("nl.loop_reduce's result is the tile it accumulates into: assign it to that tile "
                          "(t[...] = nl.loop_reduce(x, op=..., loop_indices=[...]))", self.loc)

    __getattr__ = __getitem__ = __add__ = __radd__ = __mul__ = __rmul__ = __sub__ = __rsub__ = _unassigned


def _made(out, ins):
    if out.tensor.producer is None and not out.tensor.read and _whole(out) and ins.parts[0] is out:
        out.tensor.producer = ins
    return out


ACT_FUNCS = {"identity", "relu", "neg", "abs", "square", "exp", "tanh", "sigmoid", "silu", "gelu", "sqrt", "rsqrt",
             "reciprocal"}


# Each feature below is in the program format once the allocsim binary accepts its probe program.
_PROBE_HEAD = "arch tiny\nsbuf a [2, 4] f32\nsbuf s [2, 6] f32\nsbuf m [2, 2] f32\nsbuf r [1, 2] f32\n" \
    "psum b [2, 2] f32\nsbuf q [2, 2] i32\nreg i\n\nmemset a, 1.0\nmemset s, 1.0\nmemset m, 1.0\nmemset r, 1.0\n"
_PROBES = {
    "transpose": "transpose b, m",
    "broadcast": "broadcast b, r",
    "iota": "iota q, p=1, e=1, c=0",
    "tt_scan": "tt_scan m, m, m, 0.0, mul, add",
    "bn_stats": "bn_stats s, a",
    "bn_aggr": "bn_aggr m, s",
    "index_divmod": "loop i = 0, 2, 1 {\n  memset a[:, i%2*2:2], 0.0\n}",
    "if": "loop i = 0, 2, 1 {\n  if i == 0 {\n    memset a, 0.0\n  }\n}",
    "alu_compare": "tt m, m, m, gt",
    "alu_keep": "tt m, m, m, keep",
}
_ACT_PROBED = ("log", "sin", "cos", "erf", "softplus", "gelu_apprx_tanh", "sign", "arctan", "mish")
_FEATURES = None


def _features():
    """The probed features the allocsim binary's format has ($ALLOCSIM_BINARY, else the package's binary())."""
    global _FEATURES
    if _FEATURES is None:
        import subprocess
        _FEATURES = set()
        binary = os.environ.get("ALLOCSIM_BINARY")
        if not binary:
            try:
                from . import binary as find_binary
                binary = find_binary()
            except (RuntimeError, ImportError):
                return _FEATURES
        probes = dict(_PROBES)
        probes.update({"act:" + f: "act m, m, " + f for f in _ACT_PROBED})
        for name, body in probes.items():
            try:
                p = subprocess.run([binary, "fmt", "-"], input=_PROBE_HEAD + body + "\n", text=True,
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=30)
            except (OSError, subprocess.SubprocessError):
                continue
            if p.returncode == 0:
                _FEATURES.add(name)
    return _FEATURES


def act_available(func):
    return func in ACT_FUNCS or "act:" + func in _features()
def has_op(op):
    """Whether the format has a probed instruction or index form (transpose, broadcast, iota, tt_scan, bn_stats,
    bn_aggr, index_divmod); a kernel that needs one the binary lacks is refused at its line."""
    return op in _features()


def activation_fn(func, x, dtype=None, bias=None, scale=None, loc=None, dst=None, reduce_op=None, reduce_res=None):
    tr = tracer()
    loc = loc or user_location()
    _on_chip(x, "activation " + func, loc)
    if not act_available(func):
        unsupported("activation function %s (the program format has %s)" % (func, ", ".join(sorted(ACT_FUNCS))),
                    loc)
    out = dst if dst is not None else tr.temp(x.shape, _result_dtype(x, dtype=dtype), "sbuf", loc)
    parts = [out, x, func]
    if scale is not None and not (_is_number(scale) and float(scale) == 1.0):
        parts.append(("scale=", _scalar_operand(scale, loc)))
    if bias is not None:
        parts.append(("bias=", _scalar_operand(bias, loc)))
    if reduce_op is not None:
        if reduce_res is None:
            raise KernelError("reduce_op needs reduce_res", loc)
        parts.append(("reduce=%s -> " % reduce_op, reduce_res))
    if (scale is not None or bias is not None or reduce_op is not None) and func in ("identity",) and False:
        pass
    if func == "identity" and len(parts) == 3:
        ins = tr.emit("copy", out, x, loc=loc)
    else:
        ins = tr.emit("act", *parts, loc=loc)
    return _made(out, ins)


_REDUCE_IDENTITY = {"add": 0.0, "max": float("-inf"), "min": float("inf")}


def engine_reduction(engine, cmd, compute, data, reduce_op, reduce_res, init, loc):
    """An instruction's fused reduction through its engine's accumulator registers (NKI's reduce_cmd): one f32 per
    partition, kept in the program as a [P, 1] f32 tile per engine. `compute(op, dst)` emits the instruction, with
    its fused reduction into dst when op is not None.

    - reset: the accumulator becomes 0 (the Vector Engine's: the identity of reduce_op) and the instruction reduces
      nothing; reset_reduce: the accumulator becomes the instruction's reduction;
    - reduce: the instruction's reduction into a [P, 1] tile, then `tt ACC, ACC, it, OP`; load_reduce: the
      accumulator is first set from init (a number or a [P, 1] tile);
    - idle: the instruction reduces nothing and the accumulator keeps its value;
    - with reduce_res, the accumulator is then copied into it (converted to its dtype)."""
    tr = tracer()
    P = _flat(data)[0]
    if cmd in ("reduce", "reset_reduce", "load_reduce") and reduce_op is None:
        raise KernelError("reduce_cmd=%s needs reduce_op" % cmd, loc)
    if reduce_op is not None and reduce_op not in _REDUCE_IDENTITY:
        unsupported("an accumulated reduction with %s (add, max and min accumulate)" % reduce_op, loc)
    acc = tr.accumulators.get(engine)
    if acc is None:
        acc = tr.accumulators[engine] = [tr.tensor((tr.partitions, 1), float32, "sbuf", loc,
                                                   name=engine + "_accumulator"), False]
    regs = acc[0][0:P, 0:1]
    if cmd in ("reduce", "idle") and not acc[1] and (cmd == "reduce" or reduce_res is not None):
        raise KernelError("reduce_cmd=%s reads the %s engine's accumulator before any instruction reset it "
                          "(reduce_cmd=reset, reset_reduce or load_reduce)" % (cmd, engine.upper()), loc)
    if cmd == "reset":
        out = compute(None, None)
        tr.emit("memset", regs, _REDUCE_IDENTITY[reduce_op] if engine == "dve" and reduce_op else 0.0, loc=loc)
    elif cmd == "reset_reduce":
        out = compute(reduce_op, regs)
    elif cmd in ("reduce", "load_reduce"):
        if cmd == "load_reduce":
            if init is None:
                raise KernelError("reduce_cmd=load_reduce needs reduce_init", loc)
            if isinstance(init, View):
                if _flat(init) != (P, 1):
                    raise KernelError("reduce_init is a [P, 1] tile of the data's partitions", loc)
                tr.emit("copy", regs, _on_chip(init, "reduce_init", loc), loc=loc)
            elif _is_number(init):
                tr.emit("memset", regs, float(init), loc=loc)
            else:
                raise KernelError("reduce_init %r is neither a number nor a tile" % (init,), loc)
        part = tr.temp((P, 1), float32, "sbuf", loc, name=engine + "_partial")
        out = compute(reduce_op, part)
        tr.emit("tt", regs, regs, part, reduce_op, loc=loc)
    else:
        out = compute(None, None)
    acc[1] = acc[1] or cmd != "idle"
    if reduce_res is not None:
        if not isinstance(reduce_res, View) or _flat(reduce_res) != (P, 1):
            raise KernelError("reduce_res is a [P, 1] tile of the data's partitions", loc)
        tr.emit("copy", _on_chip(reduce_res, "reduce_res", loc), regs, loc=loc)
    return out


def _axes_free(x, axis, loc):
    """The free axes a reduction keeps (axes of x after the partition axis), sorted; refuses the partition axis."""
    if axis is None:
        unsupported("a reduction over every axis (reduce the free axes, then across partitions with a matmul)", loc)
    axes = axis if isinstance(axis, (list, tuple)) else (axis,)
    nd = len(x.shape)
    for a in axes:
        if not isinstance(a, int) or isinstance(a, bool) or not -nd <= a < nd:
            raise KernelError("reduction axis %r of a tile of shape %s" % (a, x.shape), loc)
    axes = sorted(set(a % nd for a in axes))
    if 0 in axes:
        unsupported("a reduction along the partition axis", loc)
    return [d for d in range(1, nd) if d not in axes]


def reduce_fn(op, x, axis, dtype=None, keepdims=False, negate=False, loc=None, dst=None):
    """`reduce` over the given free axes. Kept free axes (a partial reduction, e.g. axes [2, 4] of a pooling
    window) become loops of the program around one `reduce` per kept element."""
    tr = tracer()
    loc = loc or user_location()
    _on_chip(x, "a reduction", loc)
    kept = [d for d in _axes_free(x, axis, loc) if x.axes[d][0] > 1]
    P = _flat(x)[0]
    if not kept:
        out = dst if dst is not None else tr.temp((P, 1), _result_dtype(x, dtype=dtype), "sbuf", loc)
        ins = tr.emit("reduce", out, x, op, loc=loc)
        if negate:
            ins = tr.emit("ts", out, out, -1.0 if out.dtype.is_float else -1, "mul", loc=loc)
        return _made(out, ins)
    shape = (x.shape[0],) + tuple(x.shape[d] if d in kept or keepdims else 1
                                  for d in range(1, len(x.shape)) if d in kept or keepdims)
    out = dst if dst is not None else tr.temp(shape, _result_dtype(x, dtype=dtype), "sbuf", loc)
    if _flat(out) != (P, _prod(x.axes[d][0] for d in kept)):
        raise KernelError("reduction destination %s must hold %s" % (out.shape, shape), loc)
    part = [a for a in x.axes if a[1] != 0 and a[0] > 1]
    out_kept = [a for a in out.axes if a[1] == 0 and a[0] > 1]
    if len(out_kept) != len(kept) or any(a[0] != x.axes[d][0] for a, d in zip(out_kept, kept)):
        unsupported("a partial reduction into a destination whose free axes are not the kept axes", loc)
    red = [a for d, a in enumerate(x.axes) if d > 0 and d not in kept and a[1] == 0]
    with tr.generated_loops([x.axes[d][0] for d in kept], loc) as regs:
        src_f, dst_f = x._base_f, out._base_f
        for r, d, oa in zip(regs, kept, out_kept):
            src_f = _add(src_f, _mul(r, x.axes[d][2]))
            dst_f = _add(dst_f, _mul(r, oa[2]))
        src = View(x._tensor, x.base_p, src_f, part[:1] + red)
        one = View(out._tensor, out.base_p, dst_f, [a for a in out.axes if a[1] != 0 and a[0] > 1][:1])
        ins = tr.emit("reduce", one, src, op, loc=loc)
        if negate:
            tr.emit("ts", one, one, -1.0 if out.dtype.is_float else -1, "mul", loc=loc)
    return _made(out, ins)


def transpose(x, dtype=None, loc=None, dst=None):
    """[P, F] in SBUF -> [F, P] in PSUM on the PE: a matmul by the identity (how the PE transposes)."""
    tr = tracer()
    loc = loc or user_location()
    _on_chip(x, "a transpose", loc)
    P, F = _flat(x)
    if len(x.shape) != 2:
        unsupported("a transpose of a tile of more than two axes", loc)
    if x.tensor.space != "sbuf":
        unsupported("a transpose of a PSUM tile (copy it to SBUF first)", loc)
    if not x.dtype.is_float:
        unsupported("a transpose of an integer tile", loc)
    out = dst if dst is not None else tr.temp((F, P), float32, "psum", loc)
    if has_op("transpose"):
        if P > 128 or F > 128:
            raise KernelError("the PE transposes at most 128 x 128; the tile is %s" % (x.shape,), loc)
        return _made(out, tr.emit("transpose", out, x, loc=loc))
    ident = tr.identity(P, x.dtype, loc)
    return _made(out, tr.matmul_into(out, x, ident, loc, accumulate=False))


def matmul(stationary, moving, loc=None, dst=None, accumulate=False):
    """psum[M, N] = stationary[K, M]^T @ moving[K, N]."""
    tr = tracer()
    loc = loc or user_location()
    for v, what in ((stationary, "stationary"), (moving, "moving")):
        _on_chip(v, "matmul " + what, loc)
        if v.tensor.space != "sbuf":
            raise KernelError("matmul %s '%s' must be in SBUF" % (what, v.tensor.name), loc)
    K, M = _flat(stationary)
    K2, N = _flat(moving)
    if K != K2:
        raise KernelError("matmul contraction sizes differ: stationary %s, moving %s"
                          % (stationary.shape, moving.shape), loc)
    if dst is None:
        out = tr.temp((M, N), float32, "psum", loc)
        ins = tr.matmul_into(out, stationary, moving, loc, accumulate=False)
        return _made(out, ins)
    if _flat(dst) != (M, N):
        raise KernelError("matmul destination %s must be [%d, %d]" % (dst.shape, M, N), loc)
    tr.matmul_into(dst, stationary, moving, loc, accumulate=accumulate)
    return dst


class Constant:
    """nl.shared_constant / nl.shared_identity_matrix: an HBM constant. The program has no constant data, so a load
    of it builds the values on chip: a `memset` for one value everywhere, a `memset` of 1 and an `affine_select` of
    the diagonal for an identity matrix; other constants are refused."""

    def __init__(self, values, dtype, loc):
        self.shape = tuple(int(n) for n in values.shape)
        self.dtype, self.loc = dtype, loc
        flat = values.reshape(-1)
        self.fill = flat[0].item() if flat.size and (flat == flat[0]).all() else None
        eye = len(self.shape) == 2 and self.shape[0] == self.shape[1] and all(
            values[i, j] == (1 if i == j else 0) for i in range(self.shape[0]) for j in range(self.shape[1]))
        self.identity = eye and self.fill is None
        if self.fill is None and not self.identity:
            unsupported("nl.shared_constant holding values other than one value everywhere or an identity matrix "
                        "(the program format has no constant data)", loc)

    def __getitem__(self, key):
        unsupported("a part of an nl.shared_constant (load it whole)")

    def build(self, out, loc):
        tr = tracer()
        if out.tensor.space == "dram":
            unsupported("a copy of a constant into HBM", loc)
        if _flat(out) != (self.shape[0], _prod(self.shape[1:])):
            raise KernelError("a constant of shape %s into a tile of shape %s" % (self.shape, out.shape), loc)
        num = (lambda v: float(v) if out.dtype.is_float else int(v))
        if self.fill is not None:
            return _made(out, tr.emit("memset", out, num(self.fill), loc=loc))
        tr.emit("memset", out, num(1), loc=loc)
        return _made(out, tr.emit("affine_select", out, out, "p=1", "e=-1", ("c=", 0), "eq", num(0), loc=loc))


def indirect_rows(dst, src, loc, skip=False, rmw=None):
    """A DMA whose HBM side selects its rows by an index tile of known values (trace._known_index): a loop of the
    program over the partitions, one row each (the HBM tensor keeps the row layout of its other accesses). An index
    out of the tensor's rows is an error, or with skip (NKI's oob_mode.skip) the partitions whose index is out are
    left out. With rmw (an ALU operation: NKI's dst_rmw_op) each HBM row is read, combined with the source row and
    written back, in partition order."""
    tr = tracer()
    hbm = dst if getattr(dst, "indirect", None) else src
    e, rows = hbm.indirect
    P = _flat(dst)[0]
    if _flat(src)[0] != P:
        raise KernelError("an indirect DMA of %d rows into %d" % (_flat(src)[0], P), loc)
    lo, hi = 0, P
    if hbm.oob:
        if not skip:
            raise KernelError(hbm.oob[0][2], loc)
        base = e.base
        coef = e.terms.get(0, 0)
        if not isinstance(base, int):
            unsupported("oob_mode=skip with an index that depends on a loop index", loc)
        inside = [i for i in range(P) if 0 <= base + coef * i < rows]
        if not inside:
            return None
        lo, hi = inside[0], inside[-1] + 1
    if rmw is not None and (hbm is not dst or src.tensor.space == "dram"):
        raise KernelError("dst_rmw_op combines an on-chip source into the HBM rows the index selects", loc)
    out = hbm.tensor
    if hbm is dst and not out.param and not out.written:
        # the rows the index leaves out hold what NKI leaves undefined; the program's outputs are written whole:
        # 0 first, per block of as many rows as a tile has partitions
        for r0 in range(0, out.shape[0], tr.partitions):
            store(out[r0:min(out.shape[0], r0 + tr.partitions)], 0, None, loc)

    def row(v, i):
        c, ps, fs = v.axes[0]
        w = View(v._tensor, _add(v.base_p, _mul(i, ps)), _add(v._base_f, _mul(i, fs)), [(1, ps, fs)] + v.axes[1:])
        w.oob = None
        return w
    ins = None
    with tr.generated_loops([hi - lo], loc) as (r,):
        i = _add(r, lo)
        d, s_ = row(dst, i), row(src, i)
        if rmw is None:
            ins = tr.move(d, s_, loc) if d.tensor.space == "dram" else tr.emit("dma", d, s_, loc=loc)
        else:
            t = tr.temp((1, _flat(d)[1]), d.dtype, "sbuf", loc, name="rmw")
            tr.emit("dma", t, d, loc=loc)
            binary(rmw, t, s_, loc=loc, dst=t)
            ins = tr.emit("dma", d, t, loc=loc)
    return ins


def load(src, dtype=None, mask=None, loc=None):
    tr = tracer()
    loc = loc or user_location()
    check_mask(mask, loc)
    if isinstance(src, Constant):
        out = tr.temp(src.shape, as_dtype(dtype) if dtype is not None else src.dtype, "sbuf", loc)
        return src.build(out, loc)
    if not isinstance(src, View):
        raise KernelError("nl.load needs an HBM tensor", loc)
    if src.tensor.space != "dram":
        raise KernelError("nl.load reads HBM; '%s' is in %s" % (src.tensor.name, src.tensor.space), loc)
    dt = as_dtype(dtype) if dtype is not None else src.dtype
    if len(src.axes) == 1 and src.axes[0][0] > 1 and src.axes[0][2] != 1 and src.axes[0][0] <= tr.partitions:
        # a one-dimensional tile is a column: its axis is the partition axis (A[c0:c0 + P, j])
        src = View(src._tensor, src.base_p, src._base_f, [src.axes[0], (1, 0, 1)])
    out = tr.temp(src.shape if len(src.shape) > 1 else (1,) + src.shape, dt, "sbuf", loc)
    if getattr(src, "indirect", None):
        if dt != src.dtype:
            unsupported("an indirect load that converts the dtype", loc)
        indirect_rows(out, src, loc)
        return out
    if dt != src.dtype and {dt.fmt, src.dtype.fmt} != {"f32", "bf16"}:
        staged = tr.temp(out.shape, src.dtype, "sbuf", loc, name="staged")
        tr.emit("dma", staged, src, loc=loc)
        return _made(out, tr.emit("copy", out, staged, loc=loc))
    return _made(out, tr.emit("dma", out, src, loc=loc))


def store(dst, value, mask=None, loc=None):
    tr = tracer()
    loc = loc or user_location()
    check_mask(mask, loc)
    if not isinstance(dst, View) or dst.tensor.space != "dram":
        raise KernelError("nl.store writes an HBM tensor", loc)
    if _is_number(value):
        # a number stored into HBM (NKI: effectively a memset): a memset tile of the view's rows, then the DMA
        P, F = _flat(dst)
        if P > tr.partitions:
            unsupported("nl.store of a number into %d rows (more than the %d partitions of a tile)" % (P, tr.partitions),
                        loc)
        t = tr.temp((P, F), dst.dtype, "sbuf", loc, name="filled")
        tr.emit("memset", t, float(value) if dst.dtype.is_float else int(value), loc=loc)
        value = t
    if not isinstance(value, View):
        raise KernelError("nl.store stores a tile, not %r" % (value,), loc)
    _same_shape(dst, value, "nl.store", loc)
    return tr.move(dst, value, loc)


def _check_in_range(parts, loc):
    for p in parts:
        v = p[1] if isinstance(p, tuple) else p
        if isinstance(v, View) and v.oob:
            raise KernelError(v.oob[0][2], loc)


def _holds(val, op):
    return {"ge": val >= 0, "gt": val > 0, "le": val <= 0, "lt": val < 0, "eq": val == 0, "ne": val != 0}[op]


def check_mask(mask, loc):
    """A call's `mask=`: the instructions the call emits cover only the elements where it holds (Tracer.emit)."""
    if mask is None:
        return
    if not isinstance(mask, Pred):
        raise KernelError("a mask is a comparison of indices (i_p < n)", loc)
    if mask.always_true():
        return
    # the mask lasts while the NKI function called from the kernel runs (its frame is on the stack)
    f, dirs = sys._getframe(1), _package_dirs()
    while f.f_back is not None and os.path.abspath(f.f_back.f_code.co_filename).startswith(dirs):
        f = f.f_back
    tracer().mask = (mask, loc, f)


def select_args(pred, tile_shape, loc):
    """An affine_select predicate over a tile: p=A, e=B, c=C, CMP."""
    if not isinstance(pred, Pred) or pred.op == "and":
        raise KernelError("affine_select needs one comparison of indices (i_p*A + i_f*B + C >= 0)", loc)
    A, B, C = flat_free_coefs(pred.expr, tuple(tile_shape), "an affine_select predicate", loc)
    return A, B, C, pred.op


def affine_select(dst, src, A, B, C, cmp, fill, loc):
    tr = tracer()
    _on_chip(src, "affine_select", loc)
    _same_shape(dst, src, "affine_select", loc)
    ins = tr.emit("affine_select", dst, src, "p=%d" % A, "e=%d" % B, ("c=", C if isinstance(C, Aff) else int(C)),
                  cmp, float(fill) if dst.dtype.is_float else int(fill), loc=loc)
    return _made(dst, ins)


def transposing_load(src, dtype, loc):
    """HBM [N, M] -> SBUF [M, N] (nl.load_transpose2d, nisa.dma_transpose): per block of at most P rows, a load, a
    PE transpose into PSUM and a copy into that block's columns of the result. An SBUF source (nisa.dma_transpose
    of a tile) is transposed as it is."""
    tr = tracer()
    if not isinstance(src, View) or src.tensor.space == "psum":
        raise KernelError("a transposing load reads an HBM tensor or an SBUF tile", loc)
    if len(src.shape) != 2:
        unsupported("a transposing load of a %d-D view (2-D views)" % len(src.shape), loc)
    N, M = src.shape
    if M > tr.partitions:
        unsupported("a transposing load of %d columns (the result has one partition per column: at most %d)"
                    % (M, tr.partitions), loc)
    out = tr.temp((M, N), dtype or src.dtype, "sbuf", loc)
    for r0 in range(0, N, tr.partitions):
        n = min(tr.partitions, N - r0)
        block = src[r0:r0 + n, :]
        t = transpose(load(block, None, None, loc) if src.tensor.space == "dram" else block, loc=loc)
        tr.emit("copy", out[:, r0:r0 + n], t, loc=loc)
    return out


def partition_broadcast(x, M, loc=None):
    """[1, N] in SBUF -> [M, N] in PSUM (the PE's partition broadcast)."""
    tr = tracer()
    loc = loc or user_location()
    _on_chip(x, "a partition broadcast", loc)
    if x.tensor.space != "sbuf":
        unsupported("a partition broadcast of a PSUM tile (copy it to SBUF first)", loc)
    N = _flat(x)[1]
    out = tr.temp((M, N), float32 if x.dtype.is_float else int32, "psum", loc)
    return _made(out, tr.emit("broadcast", out, x, loc=loc))


def flat_free_coefs(e, shape, what, loc):
    """(A, B, C) of an index expression over a tile: A per partition, B per flattened free element, C the base."""
    e = e._aligned(len(shape))
    A = e.terms.get(0, 0)
    nd = len(shape)
    B = e.terms.get(nd - 1, 0) if nd > 1 else 0
    inner = 1
    for d in range(nd - 1, 0, -1):
        if e.terms.get(d, 0) != B * inner:
            unsupported("%s that is not affine in the flattened free index" % what, loc)
        inner *= shape[d]
    return A, B, e.base


def iota(dst, A, B, C, loc):
    tr = tracer()
    if not has_op("iota"):
        unsupported("nisa.iota (the program format has no iota instruction yet)", loc)
    _on_chip(dst, "iota", loc)
    out = _made(dst, tr.emit("iota", dst, "p=%d" % A, "e=%d" % B, ("c=", C if isinstance(C, Aff) else int(C)),
                             loc=loc))
    P, F = _flat(dst)
    lo, hi = min(0, A * (P - 1)) + min(0, B * (F - 1)), max(0, A * (P - 1)) + max(0, B * (F - 1))
    exact = (1 << 31) if dst.dtype.fmt in ("i32", "u32") else (1 << 24) if dst.dtype.fmt == "f32" else 0
    if _whole(dst) and not isinstance(C, Aff) and lo + C >= (0 if dst.dtype.fmt == "u32" else -exact) and \
            hi + C < exact and len(dst.shape) == 2:
        dst.tensor.known = (A, B, int(C))  # every value exact in the dtype
    return out


def tt_scan(dst, a, b, initial, op0, op1, loc):
    tr = tracer()
    if not has_op("tt_scan"):
        unsupported("nisa.tensor_tensor_scan (the program format has no tt_scan instruction yet)", loc)
    for v in (a, b):
        _on_chip(v, "tensor_tensor_scan", loc)
    _same_shape(a, b, "tensor_tensor_scan", loc)
    _same_shape(dst, a, "tensor_tensor_scan", loc)
    return _made(dst, tr.emit("tt_scan", dst, a, b, _scalar_operand(initial, loc, a.dtype), op0, op1, loc=loc))


def bn(op, dst, data, loc):
    tr = tracer()
    if not has_op(op):
        unsupported("nisa.%s (the program format has no %s instruction yet)" % (op, op), loc)
    _on_chip(data, "nisa." + op, loc)
    return _made(dst, tr.emit(op, dst, data, loc=loc))


# ---- subscripts of the kernel's own source ----------------------------------------------------------------------

class TileListSel:
    """`lst[i]` of a list of lists with a loop index `i`: waits for the subscripts down to a tile."""

    def __init__(self, root, idx, loc):
        self.root, self.idx, self.loc = root, idx, loc

    def select(self, key):
        idx = self.idx + [key]
        x = self.root
        for _ in idx:
            if not isinstance(x, (list, tuple)) or not x:
                raise KernelError("too many subscripts for this list of tiles")
            x = x[0]
        if isinstance(x, (list, tuple)):
            return TileListSel(self.root, idx, self.loc)
        return tracer().tile_list(self.root, idx, user_location())

    def _partial(self, *a, **k):
        unsupported("a list of lists selected by a loop index used as a list (subscript it down to a tile)")

    __len__ = __iter__ = __getattr__ = _partial


def subscript(obj, key):
    """`obj[key]` in a kernel: a list or tuple of tiles subscripted by a loop index becomes a tile array."""
    if isinstance(obj, TileListSel):
        return obj.select(key)
    if isinstance(key, Aff) and isinstance(obj, (list, tuple)) and not isinstance(obj, _Grid):
        return TileListSel(obj, [], None).select(key)
    return obj[key]


class _Refusing:
    """A value the kernel may hold but not use: every use calls _refuse (which raises the refusal)."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        self._refuse()

    def _use(self, *a, **k):
        self._refuse()

    __bool__ = __index__ = __int__ = __float__ = __iter__ = __len__ = __getitem__ = __call__ = _use
    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _use
    __floordiv__ = __mod__ = __neg__ = __lt__ = __le__ = __gt__ = __ge__ = __iadd__ = _use


class Poisoned(_Refusing):
    """A name the kernel assigned inside an `if` on a loop index: both branches were traced, so after the block the
    name has no single value."""

    def __init__(self, name, line):
        self._name, self._line = name, line

    def _refuse(self, *a, **k):
        unsupported("'%s' was assigned inside an `if` on a loop index (line %d); after the block it has no single "
                    "value (assign into a tile declared before the `if`: t[...] = ...)" % (self._name, self._line))

    def __repr__(self):
        return "'%s' (assigned inside the `if` on a loop index at line %d)" % (self._name, self._line)


# ---- Python's boolean operators and conditional expressions on loop indices ----------------------------------

MAX_CASES = 64  # disjoint conjunctions one condition may become


class AnyOf:
    """A condition on loop indices that holds where one of its cases does: each case a list of comparisons that all
    hold (`i == 0 or j > 2`, `not (i == 0 and j == 0)`). An `if` on it traces its body once per case, the cases made
    disjoint first."""

    def __init__(self, cases):
        self.cases = cases

    def __bool__(self):
        unsupported("Python control flow on a condition of loop indices here (a `while`, or an `if`, `and`, `or`, "
                    "`not` or conditional expression in a helper function); those of the kernel function itself "
                    "become conditional blocks, except `while`")

    def __and__(self, o):
        return _cond([a + b for a in _dnf(self) for b in _dnf(o)])

    __rand__ = __and__


def _pred_key(p):
    base = Aff.of(p.expr.base)
    return (base.const, frozenset(base.terms.items()), frozenset(p.expr.terms.items()))


def _aff_value(a, env):
    a = Aff.of(a)
    v = a.const
    for k, c in a.terms.items():
        x = env[k.reg if isinstance(k, DivMod) else k]
        if isinstance(k, DivMod):
            x = x // k.div % k.mod if k.mod else x // k.div
        v += c * x
    return v


def _possible(case, implied=None):
    """Whether the comparisons of a case can all hold (with `implied`: whether they cannot hold without it): by
    trying every value of their loop registers when there are at most 4096 combinations, else True (False)."""
    if implied is not None:
        return not _possible(case + [Pred(implied.expr, _CMP_NOT[implied.op])])
    regs = []
    for p in case:
        if p.expr.terms:
            return True
        for k in Aff.of(p.expr.base).terms:
            if isinstance(k, Piecewise):
                return True
            r = k.reg if isinstance(k, DivMod) else k
            if r not in regs:
                regs.append(r)
    ranges = [range(r.start, r.stop, r.step) for r in regs]
    if _prod(len(x) for x in ranges) > 4096:
        return True
    import itertools
    for vals in itertools.product(*ranges):
        env = dict(zip(regs, vals))
        if all(_holds(_aff_value(p.expr.base, env), p.op) for p in case):
            return True
    return False


def _simplify(cases):
    """Cases without repeated comparisons, and without those that cannot hold."""
    out = []
    for case in cases:
        seen, kept = set(), []
        for p in case:
            key = (_pred_key(p), p.op)
            if key not in seen:
                seen.add(key)
                kept.append(p)
        if any(p._never() for p in kept) or not _possible(kept):
            continue
        for p in list(kept):  # drop a comparison the others imply (`i != 0 and i == 3` is `i == 3`)
            rest = [q for q in kept if q is not p]
            if rest and _possible(rest, implied=p):
                kept = rest
        out.append(kept)
    return out


def _is_cond(v):
    """Whether v is a condition on loop indices that is not the same for every iteration."""
    if isinstance(v, Aff):
        v = v != 0
    if isinstance(v, Pred):
        return not v.always_true() and not v.always_false()
    return isinstance(v, AnyOf)


def _dnf(v):
    """v (a Pred, a conjunction, an AnyOf or an Aff) as a list of cases, each a list of single comparisons; cases
    that can never hold are left out."""
    if isinstance(v, Aff):
        v = v != 0
    cases = v.cases if isinstance(v, AnyOf) else [v._list()]
    out = []
    for case in cases:  # a comparison of a piecewise index: one case per piece
        pending = [case]
        while pending:
            c = pending.pop()
            pws = []
            for p in c:
                _piecewise_in(p.expr, pws)
            if not pws:
                out.append(c)
                continue
            pw = pws[0]
            for preds, value in pw.cases:
                pending.append(preds + [Pred(_substitute(p.expr, pw, value), p.op) for p in c])
    return _simplify(out)


def _cond(cases):
    if len(cases) > MAX_CASES:
        unsupported("a condition of loop indices with more than %d cases" % MAX_CASES)
    cases = _simplify(cases)
    if len(cases) == 1:
        return Pred(None, "and", cases[0]) if len(cases[0]) > 1 else cases[0][0]
    return AnyOf(cases)


def _negate(cases):
    """not (C1 or C2 ...) = (not C1) and (not C2) ..., each `not C` the disjoint cases `not a`, `a and not b`, ..."""
    out = [[]]
    for case in cases:
        neg = [case[:k] + [Pred(p.expr, _CMP_NOT[p.op])] for k, p in enumerate(case)]
        out = _simplify([a + b for a in out for b in neg])
        if len(out) > MAX_CASES:
            unsupported("a condition of loop indices with more than %d cases" % MAX_CASES)
    return out


def condition_cases(cond, taken=True):
    """Disjoint conjunctions whose union is where cond holds (taken) or where it does not."""
    cases = _dnf(cond)
    if not taken:
        return _negate(cases)
    out, before = [], []
    for case in cases:  # C1, (not C1) and C2, ...
        out += _simplify([prefix + case for prefix in (_negate(before) if before else [[]])])
        before.append(case)
        if len(out) > MAX_CASES:
            unsupported("a condition of loop indices with more than %d cases" % MAX_CASES)
    return out


def block_cases(cond, taken, loc):
    """condition_cases of a condition that `if` blocks test: comparisons of loop indices only."""
    if not has_op("if"):
        unsupported("Python control flow on a loop index (the program format has no conditional block yet)", loc)
    cases = condition_cases(cond, taken)
    for case in cases:
        for p in case:
            if p.expr.terms:
                unsupported("Python control flow on an nl.arange index (use a mask, affine_select or nl.where)", loc)
    return cases


def bool_and(*thunks):
    """`a and b and ...` in the kernel: Python's where every operand is an ordinary value; a comparison of loop
    indices among them makes the conjunction a condition (the operands after it are evaluated too)."""
    cond, value = None, True
    for th in thunks:
        v = th()
        if _is_cond(v):
            cond = v if cond is None else _cond([a + b for a in _dnf(cond) for b in _dnf(v)])
            continue
        if isinstance(v, Pred):
            v = v.always_true()
        if not v:
            return False if cond is not None else v
        value = v
    return cond if cond is not None else value


def bool_or(*thunks):
    """`a or b or ...` in the kernel: Python's where every operand is an ordinary value; comparisons of loop indices
    among them make a condition that holds where one of them does."""
    cases, value = None, False
    for th in thunks:
        v = th()
        if _is_cond(v):
            cases = (cases or []) + _dnf(v)
            continue
        if isinstance(v, Pred):
            v = v.always_true()
        if v:
            return True if cases is not None else v
        value = v
    return _cond(cases) if cases is not None else value


def bool_not(v):
    if _is_cond(v):
        return _cond(_negate(_dnf(v)))
    if isinstance(v, Pred):
        return not v.always_true()
    return not v


class Choice(_Refusing):
    """The value of `x if c else y` with c a condition on loop indices and x, y not tiles: where it is used, the
    instruction is written once per case in `if` blocks (a reduce_cmd, an operand of an elementwise operation)."""

    def __init__(self, options, loc):
        self.options, self.loc = options, loc  # [(case, value)]

    def _refuse(self, *a, **k):
        unsupported("a conditional expression on loop indices (line %d) whose values are not tiles, used here "
                    "(tiles, reduce_cmd and the operands of elementwise operations can be)" % self.loc[1])


def each_choice(values, loc):
    """For arguments that may be Choices: [(case or None, values with each Choice resolved)] — the cases of every
    Choice combined; one entry with case None when there is none."""
    out = [([], list(values))]
    for k, v in enumerate(values):
        if isinstance(v, Choice):
            out = [(c + case, vals[:k] + [val] + vals[k + 1:]) for c, vals in out for case, val in v.options
                   if _simplify([c + case])]
    if len(out) > MAX_CASES:
        unsupported("conditional expressions on loop indices with more than %d cases together" % MAX_CASES, loc)
    return out


def if_exp(test, then, orelse):
    """`x if test else y` in the kernel: Python's unless test is a condition on loop indices. Then each side is
    evaluated inside `if` blocks where it applies: tiles are copied into one tile that is the expression's value;
    other values make a Choice."""
    if not _is_cond(test):
        return then() if test else orelse()
    tr = tracer()
    loc = user_location()
    options, out, pending = [], None, []
    for taken, th in ((True, then), (False, orelse)):
        for case in block_cases(test, taken, loc):
            with tr._branch(case, loc):
                v = th()
                options.append((case, v))
                if isinstance(v, View):
                    if out is None:
                        out = tr.temp(v.shape, v.dtype, "sbuf", loc)
                    elif _flat(v) != _flat(out):
                        raise KernelError("the two values of a conditional expression on loop indices are tiles of "
                                          "shapes %s and %s" % (out.shape, v.shape), loc)
                    tr.assign(out, v, loc)
                elif out is not None and _is_number(v):
                    tr.assign(out, v, loc)
                else:
                    pending.append((case, v))
    if out is None:
        return Choice(options, loc)
    for case, v in pending:  # numbers traced before the first tile
        if not _is_number(v):
            unsupported("a conditional expression on loop indices with a tile on one side and %r on the other"
                        % (v,), loc)
        with tr._branch(case, loc):
            tr.assign(out, v, loc)
    return out


class Hooks:
    """What the recompiled kernel function calls (kernel.traced_function): subscripts, `if` statements, `and`, `or`,
    `not` and conditional expressions."""

    subscript = staticmethod(subscript)
    bool_and = staticmethod(bool_and)
    bool_or = staticmethod(bool_or)
    bool_not = staticmethod(bool_not)
    if_exp = staticmethod(if_exp)

    @staticmethod
    def traced_if(test):
        """The condition of an `if` on loop indices that the trace keeps as conditional blocks, else None (Python
        decides the `if`: an ordinary value, or a comparison known for every iteration)."""
        return test if _is_cond(test) else None

    @staticmethod
    def branches(cond, taken):
        """One context per disjoint case of cond (taken) or of its negation: the body is traced in each."""
        tr = tracer()
        loc = user_location()
        for case in block_cases(cond, taken, loc):
            yield tr._branch(case, loc)

    poison = Poisoned
