"""Folding PSUM tile arrays onto fewer tiles, so that a kernel's PSUM tensors fit the machine's banks.

NKI allocates each tile of a PSUM tile array (`nl.ndarray((n, m, nl.par_dim(P), F), buffer=nl.psum)`) on its own:
a tile needs a bank only from its write to its last read. The program format places a tile array as one tensor
(docs/format.md, *Tile arrays*), which the allocators keep whole, so a kernel that declares more PSUM tiles than the
machine holds at once (a score tile per query and key tile, each consumed right after it is written) does not fit.

When the PSUM tensors of a traced kernel need more banks than the machine has, a tile array is folded onto `k` tiles
(block `b` of the kernel is tile `b % k` of the program: the index term `%k`, as a modulo allocation places it) if
that changes no value: the kernel's accesses are run in program order, loops and `if` blocks with their iterations'
register values, and every read of block `b` must find its tile last written by block `b` (or not yet written). The
smallest `k` from 2 up that passes is taken (two tiles keep a write of the next block from waiting for the read of
the current one), for every array that can be folded (the allocators need room beyond the bare sum of the banks).
Arrays placed by hand, tile lists and arrays with a view over more than one block are left as they are.
"""

from . import trace as _t

# Accesses of one tile array replayed at most this many times (loops unrolled); beyond, the array is left whole.
MAX_REPLAY = 1 << 18


def _banks(t, bank_bytes):
    return -(-t.F * t.dtype.size // bank_bytes)


def _value(x, env):
    if isinstance(x, int):
        return x
    v = x.const
    for k, c in x.terms.items():
        if isinstance(k, _t.DivMod):
            r = env[k.reg] // k.div
            v += c * (r % k.mod if k.mod else r)
        else:
            v += c * env[k]
    return v


def _operands(ins):
    """(part position, view, read, written) of each view of an instruction; `read` of a matmul's accumulator is True
    without `start` (it adds to the group) and "first" with `start@first` (it starts on the first iteration only)."""
    out = []
    for i, p in enumerate(ins.parts):
        key, v = p if isinstance(p, tuple) else (None, p)
        if not isinstance(v, _t.View):
            continue
        if key is not None:
            fused = key.startswith("reduce=")
            out.append((i, v, not fused, fused))
        elif i == 0:
            read = False
            if ins.op == "matmul":
                read = False if "start" in ins.flags else "first" if "start@first" in ins.flags else True
            out.append((i, v, read, True))
        else:
            out.append((i, v, True, False))
    return out


def _touches(body, t, memo):
    """Whether an instruction of body names t (memo: id of a loop or block -> the answer for its body)."""
    for item in body:
        if isinstance(item, (_t.Loop, _t.IfBlock)):
            if id(item) not in memo:
                memo[id(item)] = _touches(item.body, t, memo)
            if memo[id(item)]:
                return True
        elif any(v._tensor is t for _, v, _, _ in _operands(item)):
            return True
    return False


class _Refused(Exception):
    pass


def _blocks(t, Fb, body):
    """Per access of t: (instruction, part, view, block index Aff, inner offset); raises _Refused for a view that is
    not inside one block."""
    out = []
    for ins in _t._walk(body):
        for i, v, rd, wr in _operands(ins):
            if v.tensor is not t:
                continue
            if v._tensor is not t:
                raise _Refused()
            ext = sum((c - 1) * fs for c, ps, fs in v.axes if ps == 0 and c > 1)
            if any(fs < 0 for _, _, fs in v.axes):
                raise _Refused()
            b = _t.Aff.of(v._base_f)
            if any(c % Fb for c in b.terms.values()):
                raise _Refused()
            inner = b.const % Fb
            if inner + ext >= Fb:
                raise _Refused()
            block = _t.Aff(b.const // Fb, {k: c // Fb for k, c in b.terms.items()}).simplify()
            out.append((ins, i, v, block, inner))
    return out


def _replay_ok(t, body, blocks, k):
    """Whether block b -> tile b % k keeps every value: each read of a block finds its tile last written by it."""
    where = {(id(ins), i): blk for ins, i, _, blk, _ in blocks}
    owner = {}
    steps = [0]
    memo = {}

    def run(items, env):
        for item in items:
            if isinstance(item, _t.Loop):
                if not _touches(item.body, t, memo):
                    continue
                r = item.reg
                for val in range(r.start, r.stop, r.step):
                    env[r] = val
                    run(item.body, env)
                env.pop(r, None)
            elif isinstance(item, _t.IfBlock):
                if _touches(item.body, t, memo) and _t._holds(_value(_t.Aff.of(item.expr), env), item.op):
                    run(item.body, env)
            else:
                for i, v, rd, wr in _operands(item):
                    key = (id(item), i)
                    if key not in where:
                        continue
                    steps[0] += 1
                    if steps[0] > MAX_REPLAY:
                        raise _Refused()
                    b = _value(where[key], env)
                    if rd == "first":
                        inner = item.loops[-1].reg if item.loops else None
                        rd = inner is None or env[inner] != inner.start
                    if rd and owner.get(b % k, b) != b:
                        raise _Refused()
                    if wr:
                        owner[b % k] = b
    try:
        run(body, {})
    except (_Refused, KeyError):
        return False
    return True


def fold_psum_arrays(tr, body):
    psum = [t for t in tr.tensors if t.space == "psum" and not t.dead and t.alias is None]
    if sum(_banks(t, tr.bank_bytes) for t in psum) <= tr.banks:
        return
    for t in psum:
        if t.placement is not None or t.pdim == 0 or t.family is not None or t.mods:
            continue
        n = _t._prod(t.nki_shape[:t.pdim])
        Fb = t.F // n
        if n < 3:
            continue
        try:
            blocks = _blocks(t, Fb, body)
        except _Refused:
            continue
        for k in range(2, n):
            if _replay_ok(t, body, blocks, k):
                break
        else:
            continue
        try:
            new = [(ins, i, v, _t._add(_t._mul(_t.Aff.of(blk) % k if not isinstance(blk, int) else blk % k, Fb),
                                       inner)) for ins, i, v, blk, inner in blocks]
        except _t.KernelError:
            continue  # a block index whose remainder the format cannot write
        for ins, i, v, base_f in new:
            nv = _t.View(t, v.base_p, base_f, v.axes)
            p = ins.parts[i]
            ins.parts[i] = (p[0], nv) if isinstance(p, tuple) else nv
        t.F = k * Fb
