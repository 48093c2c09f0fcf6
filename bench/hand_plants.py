#!/usr/bin/env python3
"""Hand-allocation bugs planted in real kernels: does `allocsim verify` catch every real one, and flag no benign one?

A user who places tensors by hand (SBUF partition and byte offset, PSUM bank, register) makes placement mistakes;
this campaign makes them on purpose. It takes correctly placed real kernels (the tiny corpus and nki-samples kernels
placed by `allocsim alloc -O2`, written out as placements, and the hand-allocated programs of corpus/allocated/),
mutates one placement at a time in systematic ways (overlaps by one byte or one partition at either end, a partition
off by one, an offset computed with half another's element size, a PSUM tensor moved into another's bank, a tensor
onto one tile of a multi-buffered tile array, past the SBUF's capacity, misaligned, a register onto another's lane, a
spill slot onto another), and decides for each
mutant, independently of allocsim's verifier, whether it is a real bug:

  rule     it breaks a documented placement rule (docs/verification.md, Oracle 3: bounds, sbuf-align, the
           partition quantum, PSUM bank count, register lanes);
  clobber  run on physical storage, some read of an original instruction (or a final output) finds bytes that
           another tensor or register wrote since the value it expects was written (the run here is this script's
           own: it resolves every view and tracks, per physical byte and register lane, which write last stored it);
  in-place an instruction writes its result over bytes of a different tensor it is reading (the documented
           rule: a result is never written over a source it is still reading; the engines stream);
  benign   none of these: the overlapped bytes are never live together.

Then it runs `allocsim verify` on the mutant (caught: exit 1, or exit 2 with a `file:line:col:` message for a
placement the format forbids) and counts, per mutation class, real mutants caught / missed and benign mutants flagged (false
alarms). Every mutant is run twice: on the kernel's machine (tiny: 4-byte alignment, 4-partition quantum) and on
the same machine with `sbuf-align=1 sbuf-partition-quantum=1`, where a one-byte or one-partition overlap breaks no
alignment rule and only liveness decides.

  python3 bench/hand_plants.py [--allocsim build/allocsim] [--per-class N] [--kernels FILE ...] [--python]
                               [--samples NKI_SAMPLES] [--no-corpus] [--classes CLASS ...] [--list] [--keep DIR]
    --per-class N  mutants per class, kernel and machine (default 3; chosen with a fixed seed)
    --python       also the hand-placed NKI kernels of python/tests/kernels (PY_KERNELS), mutated in their source
                   (py_mutants: a modulo allocation one tile short, an address one word or half a word off or
                   computed with the wrong element size, a tile one partition down or past the partition's end, a
                   PSUM base bank one off or onto another tile array's); `allocsim verify KERNEL.py` judges them
    --samples NKI_SAMPLES  also the hand-allocated kernels of nki-samples (SAMPLE_KERNELS; a checkout or a git
                   directory), mutated the same way
    --no-corpus    only those
    --classes ...  only these classes of the corpus's mutants
    --max-ops N    an NKI mutant whose physical run here takes more element accesses is left undecided (default
                   30,000,000; the nki-samples kernels take minutes each at that)
    --list         print every miss and false alarm with its mutant's declaration change
    --keep DIR     write each miss and false alarm there (its .nki.txt and the correct program it came from)
"""
import argparse
import glob
import json
import os
import random
import re
import subprocess
import sys
import tempfile

DTYPE_SIZE = {"u32": 4, "i32": 4, "f32": 4, "bf16": 2, "f16": 2, "u16": 2, "i16": 2, "u8": 1, "i8": 1,
              "f8e4m3": 1, "f8e5m2": 1, "f8e4m3fn": 1}
PRESETS = {  # ir/arch.cpp: partitions, bytes, align, quantum, banks, bank bytes, registers, dram-limit
    "gen2": dict(P=128, B=196608, align=4, quantum=32, banks=8, bank_bytes=2048, regs=64, dram=1 << 30),
    "gen1": dict(P=64, B=196608, align=4, quantum=32, banks=4, bank_bytes=2048, regs=64, dram=1 << 30),
    "gen3": dict(P=128, B=229376, align=4, quantum=32, banks=8, bank_bytes=2048, regs=64, dram=1 << 30),
    "tiny": dict(P=8, B=4096, align=4, quantum=4, banks=4, bank_bytes=256, regs=4, dram=1 << 24),
}
ARCH_KEYS = {"sbuf-partitions": "P", "sbuf-bytes": "B", "sbuf-align": "align", "sbuf-partition-quantum": "quantum",
             "psum-banks": "banks", "psum-bank-bytes": "bank_bytes", "sp-registers": "regs", "dram-limit": "dram"}


class Unsupported(Exception):
    pass


# ---------------------------------------------------------------------------------------------------------------
# The program text (docs/format.md), as far as this campaign needs it.

class Tensor:
    def __init__(self, name, space, tiles, parts, elems, dtype, flags, placement, origin, origin_of, line):
        self.name, self.space, self.tiles, self.parts, self.tile_elems = name, space, tiles, parts, elems
        self.elems = tiles * elems
        self.size = DTYPE_SIZE[dtype]
        self.input, self.output, self.pinned = "input" in flags, "output" in flags, "pinned" in flags
        self.placement, self.origin, self.origin_of, self.line = placement, origin, origin_of, line

    def bytes_per_partition(self):
        return self.elems * self.size


class Register:
    def __init__(self, name, lanes, phys, origin, origin_of, line):
        self.name, self.lanes, self.phys, self.origin, self.origin_of, self.line = \
            name, lanes, phys, origin, origin_of, line


class Stmt:
    def __init__(self, op, args, origin, line, body=None):
        self.op, self.args, self.origin, self.line, self.body = op, args, origin, line, body


def split_top(s, sep=","):
    out, depth, cur = [], 0, ""
    for ch in s:
        if ch in "[{(":
            depth += 1
        elif ch in "]})":
            depth -= 1
        if ch == sep and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


DECL = re.compile(r"^(dram|sbuf|psum)\s+([A-Za-z_][\w.]*)\s*(?:\[(\d+)\]\s*)?\[\s*(\d+)\s*,\s*(\d+)\s*\]\s+(\w+)(.*)$")
REG = re.compile(r"^reg\s+([A-Za-z_][\w.]*)(?:\s+(32|64))?(?:\s+@r(\d+))?(?:\s+!(\w+)(?:\((\w[\w.]*)\))?)?\s*$")
ORIGIN = re.compile(r"\s!(\w+)(?:\(([\w.]+)\))?\s*$")


def parse_placement(space, text):
    if text is None:
        return None
    if space == "sbuf":
        m = re.match(r"p(\d+)\+(\d+)$", text)
        return (int(m.group(1)), int(m.group(2)))
    if space == "psum":
        return int(re.match(r"bank(\d+)$", text).group(1))
    return int(text, 0)


class Program:
    def __init__(self, text):
        self.lines = text.split("\n")
        self.arch = dict(PRESETS["gen2"])
        self.arch_name = "gen2"
        self.tensors, self.regs, self.body = {}, {}, []
        stack = [self.body]
        for no, raw in enumerate(self.lines, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("arch"):
                words = line.split()
                self.arch_name = words[1] if len(words) > 1 else "gen2"
                self.arch = dict(PRESETS[self.arch_name])
                for kv in words[2:]:
                    k, v = kv.split("=")
                    if k in ARCH_KEYS:
                        self.arch[ARCH_KEYS[k]] = int(v, 0)
                continue
            m = DECL.match(line)
            if m:
                rest = m.group(7)
                origin, origin_of = None, None
                om = ORIGIN.search(" " + rest)
                if om:
                    origin, origin_of = om.group(1), om.group(2)
                    rest = (" " + rest)[:om.start()]
                pm = re.search(r"@(\S+)", rest)
                flags = rest.split()
                t = Tensor(m.group(2), m.group(1), int(m.group(3) or 1), int(m.group(4)), int(m.group(5)),
                           m.group(6), flags, parse_placement(m.group(1), pm.group(1) if pm else None), origin,
                           origin_of, no)
                self.tensors[t.name] = t
                continue
            m = REG.match(line)
            if m:
                self.regs[m.group(1)] = Register(m.group(1), 2 if m.group(2) == "64" else 1,
                                                 int(m.group(3)) if m.group(3) else None, m.group(4), m.group(5), no)
                continue
            if line == "}":
                stack.pop()
                continue
            origin = None
            om = ORIGIN.search(" " + line.rstrip("{").rstrip())
            if om:
                origin = om.group(1)
                line = (" " + line)[:om.start()].strip() + (" {" if line.endswith("{") else "")
            if line.endswith("{"):
                head = line[:-1].strip()
                op = head.split()[0]
                st = Stmt(op, head[len(op):].strip(), origin, no, [])
                stack[-1].append(st)
                stack.append(st.body)
                continue
            op = line.split()[0]
            stack[-1].append(Stmt(op, line[len(op):].strip(), origin, no))


# ---------------------------------------------------------------------------------------------------------------
# Index expressions: Python's + - * // % on integers, registers read as unsigned values.

TOK = re.compile(r"\s*(0x[0-9a-fA-F]+|\d+|[A-Za-z_][\w.]*|//|[-+*%()])")


class Expr:
    def __init__(self, text):
        self.toks = TOK.findall(text)
        if "".join(self.toks).replace(" ", "") != text.replace(" ", ""):
            raise Unsupported("index " + text)
        self.regs = [t for t in self.toks if re.match(r"[A-Za-z_]", t)]

    def eval(self, env):
        self.i = 0
        v = self._sum(env)
        return v

    def _peek(self):
        return self.toks[self.i] if self.i < len(self.toks) else None

    def _sum(self, env):
        v = self._prod(env)
        while self._peek() in ("+", "-"):
            op = self.toks[self.i]
            self.i += 1
            w = self._prod(env)
            v = v + w if op == "+" else v - w
        return v

    def _prod(self, env):
        v = self._unary(env)
        while self._peek() in ("*", "//", "%"):
            op = self.toks[self.i]
            self.i += 1
            w = self._unary(env)
            v = v * w if op == "*" else v // w if op == "//" else v % w
        return v

    def _unary(self, env):
        t = self.toks[self.i]
        self.i += 1
        if t == "-":
            return -self._unary(env)
        if t == "(":
            v = self._sum(env)
            self.i += 1
            return v
        if re.match(r"[A-Za-z_]", t):
            return env[t]
        return int(t, 0)


VIEW = re.compile(r"^([A-Za-z_][\w.]*)(?:\{(.*?)\})?(?:\[(.*)\])?$")


class View:
    """A view of a tensor: its partitions and elements, given the registers' values."""

    def __init__(self, prog, text):
        m = VIEW.match(text.strip())
        if not m or m.group(1) not in prog.tensors:
            raise Unsupported("view " + text)
        self.t = prog.tensors[m.group(1)]
        self.tile = Expr(m.group(2)) if m.group(2) is not None else None
        parts = split_top(m.group(3)) if m.group(3) is not None else []
        self.ps = self._slice(parts[0]) if len(parts) > 0 else None
        self.fs = self._slice(parts[1]) if len(parts) > 1 else None
        self.s2 = tuple(Expr(x) for x in parts[2].split(":")) if len(parts) > 2 else None
        self.regs = set()
        for e in [self.tile] + list(self.ps or ()) + list(self.fs or ()) + list(self.s2 or ()):
            if e is not None:
                self.regs.update(e.regs)

    @staticmethod
    def _slice(s):
        s = s.strip()
        if s == ":":
            return None
        a, b = s.split(":")
        return (Expr(a), Expr(b))

    def elements(self, env):
        """[(partition, element)] of the tensor, in view order."""
        t = self.t
        base, width = 0, t.elems
        if self.tile is not None:
            base, width = self.tile.eval(env) * t.tile_elems, t.tile_elems
        p0, pc = (0, t.parts) if self.ps is None else (self.ps[0].eval(env), self.ps[1].eval(env))
        f0, fc = (0, width) if self.fs is None else (self.fs[0].eval(env), self.fs[1].eval(env))
        step, c2 = (0, 1) if self.s2 is None else (self.s2[0].eval(env), self.s2[1].eval(env))
        out = []
        for p in range(p0, p0 + pc):
            for j in range(c2):
                for i in range(fc):
                    out.append((p, base + f0 + j * step + i))
        return out


# ---------------------------------------------------------------------------------------------------------------
# Operand roles: which operands an instruction reads and which it writes.

KEYED = re.compile(r"^(scale|bias|p|e|c)=(.*)$")


class Access:
    def __init__(self, prog, st):
        self.reads, self.writes, self.reg_reads, self.reg_writes = [], [], set(), []
        self.exprs = []  # index expressions outside views (c=, loop bounds, if)
        self.accumulate = None  # matmul: 'always' (no start), 'first' (start@first), None (start)
        args = split_top(st.args)
        op = st.op
        names = prog.tensors

        def operand(a, write=False):
            a = a.strip()
            km = KEYED.match(a)
            if km:
                a = km.group(2).strip()
            if "->" in a:
                left, right = a.split("->")
                self.writes.append(View(prog, right.strip()))
                return
            head = re.match(r"^[A-Za-z_][\w.]*", a)
            if head and head.group(0) in names:
                v = View(prog, a)
                (self.writes if write else self.reads).append(v)
                self.reg_reads.update(v.regs)
            elif head and head.group(0) in prog.regs:
                if write:
                    self.reg_writes.append(head.group(0))
                else:
                    self.reg_reads.add(head.group(0))
            elif km and km.group(1) in ("p", "e", "c"):
                ex = Expr(a)
                self.exprs.append(ex)
                self.reg_reads.update(ex.regs)

        if op in ("li", "addi", "add", "mov"):
            self.reg_writes.append(args[0])
            for a in args[1:]:
                if a in prog.regs:
                    self.reg_reads.add(a)
        elif op == "reg_load":
            self.reg_writes.append(args[0])
            operand(args[1])
        elif op == "reg_store":
            operand(args[0], write=True)
            self.reg_reads.add(args[1])
        elif op == "matmul":
            operand(args[0], write=True)
            operand(args[1])
            operand(args[2])
            flags = [a.strip() for a in args[3:]]
            self.accumulate = None if "start" in flags else "first" if "start@first" in flags else "always"
        else:
            operand(args[0], write=True)
            for a in args[1:]:
                operand(a)


# ---------------------------------------------------------------------------------------------------------------
# The physical run: every byte (and register lane) remembers which value last went there; every original read
# must find the value the unallocated program reads.

class Bug(Exception):
    def __init__(self, kind, line, what):
        super().__init__(what)
        self.kind, self.line, self.what = kind, line, what


class Run:
    def __init__(self, prog, max_ops=30_000_000):
        self.p = prog
        self.a = prog.arch
        self.phys = {}   # location -> value id
        self.ref = {}    # (origin tensor, partition, element) -> value id the unallocated program holds
        self.lanes = {}  # physical lane (or ('reg', name) unplaced) -> value id
        self.ref_reg = {}
        self.regval = {}  # register name -> integer value
        self.mem_regval = {}  # (tensor origin, p, e) -> register value stored by reg_store (for reg_load)
        self.next_id = 1
        self.ops = 0
        self.max_ops = max_ops
        self.access = {}

    def origin(self, name):
        t = self.p.tensors[name]
        seen = set()
        while t.origin_of and t.origin_of in self.p.tensors and t.name not in seen:
            seen.add(t.name)
            t = self.p.tensors[t.origin_of]
        return t.name

    def reg_origin(self, name):
        r = self.p.regs[name]
        while r.origin_of and r.origin_of in self.p.regs:
            r = self.p.regs[r.origin_of]
        return r.name

    def locs(self, t, p, e):
        """The physical locations (one per byte) of element e of partition p of tensor t."""
        s = t.size
        if t.placement is None:
            b = (p * t.elems + e) * s
            return [("T", t.name, b + i) for i in range(s)]
        if t.space == "sbuf":
            part, off = t.placement
            return [("S", part + p, off + e * s + i) for i in range(s)]
        if t.space == "psum":
            b = t.placement * self.a["bank_bytes"] + e * s
            return [("P", p, b + i) for i in range(s)]
        b = t.placement + (p * t.elems + e) * s
        return [("D", b + i) for i in range(s)]

    def reg_locs(self, name):
        r = self.p.regs[name]
        if r.phys is None:
            return [("R", name, i) for i in range(r.lanes)]
        return [("L", r.phys + i) for i in range(r.lanes)]

    def fresh(self):
        self.next_id += 1
        return self.next_id

    def tick(self, n):
        self.ops += n
        if self.ops > self.max_ops:
            raise Unsupported("too many element accesses for this script")

    # -- registers
    def write_reg(self, name, value, vid=None):
        r = self.p.regs[name]
        self.regval[name] = value % (1 << (32 * r.lanes))
        vid = vid if vid is not None else self.fresh()
        for loc in self.reg_locs(name):
            self.phys[loc] = vid
        return vid

    def check_reg(self, name, st, original):
        if not original:
            return
        want = self.ref_reg.get(self.reg_origin(name))
        for loc in self.reg_locs(name):
            if self.phys.get(loc) != want:
                raise Bug("clobber", st.line, "register '%s' read on line %d holds another value" % (name, st.line))

    def ref_write_reg(self, name, vid):
        self.ref_reg[self.reg_origin(name)] = vid

    # -- the run
    def run(self):
        for t in self.p.tensors.values():
            if t.input:
                o = t.name
                for p in range(t.parts):
                    for e in range(t.elems):
                        vid = self.fresh()
                        self.ref[(o, p, e)] = vid
                        for loc in self.locs(t, p, e):
                            self.phys[loc] = vid
        self.block(self.p.body, [])
        for t in self.p.tensors.values():
            if t.output:
                for p in range(t.parts):
                    for e in range(t.elems):
                        want = self.ref.get((self.origin(t.name), p, e))
                        if want is None:
                            continue
                        for loc in self.locs(t, p, e):
                            if self.phys.get(loc) != want:
                                raise Bug("clobber", t.line, "output '%s' element [%d, %d] is overwritten before "
                                          "the end" % (t.name, p, e))

    def block(self, body, loops):
        for st in body:
            if st.op == "loop":
                self.loop(st, loops)
            elif st.op == "if":
                m = re.match(r"^(.*?)\s*(==|!=|<=|>=|<|>)\s*(.*)$", st.args)
                lhs, cmp_, rhs = Expr(m.group(1)), m.group(2), Expr(m.group(3))
                for r in set(lhs.regs + rhs.regs):
                    self.check_reg(r, st, st.origin is None)
                a, b = lhs.eval(self.regval), rhs.eval(self.regval)
                if {"==": a == b, "!=": a != b, "<=": a <= b, ">=": a >= b, "<": a < b, ">": a > b}[cmp_]:
                    self.block(st.body, loops)
            else:
                self.inst(st, loops)

    def loop(self, st, loops):
        m = re.match(r"^([\w.]+)\s*=\s*(.*)$", st.args)
        reg = m.group(1)
        lo, hi, step = [Expr(x) for x in split_top(m.group(2))]
        original = st.origin is None
        for e in (lo, hi, step):
            for r in e.regs:
                self.check_reg(r, st, original)
        lo_v, hi_v, step_v = lo.eval(self.regval), hi.eval(self.regval), step.eval(self.regval)
        vid = self.write_reg(reg, lo_v)
        if original:
            self.ref_write_reg(reg, vid)
        v = lo_v
        first = True
        while True:
            if not first:
                self.check_reg(reg, st, original)
                v += step_v
                vid = self.write_reg(reg, v)
                if original:
                    self.ref_write_reg(reg, vid)
            if v >= hi_v:
                break
            loops.append((reg, first))
            self.block(st.body, loops)
            loops.pop()
            first = False
            self.tick(1)

    def inst(self, st, loops):
        acc = self.access.get(id(st))
        if acc is None:
            acc = self.access[id(st)] = Access(self.p, st)
        original = st.origin is None
        env = self.regval
        for r in sorted(acc.reg_reads):
            self.check_reg(r, st, original)
        reads = [(v, v.elements(env)) for v in acc.reads]
        writes = [(v, v.elements(env)) for v in acc.writes]
        if st.op == "matmul" and (acc.accumulate == "always" or (acc.accumulate == "first" and loops
                                                                   and not loops[-1][1])):
            reads.append(writes[0])
        # the values read, checked against the unallocated program's
        read_ids = []
        read_locs = {}
        for v, els in reads:
            o = self.origin(v.t.name)
            self.tick(len(els) * v.t.size)
            ids = []
            for (p, e) in els:
                locs = self.locs(v.t, p, e)
                got = [self.phys.get(loc) for loc in locs]
                if original:
                    want = self.ref.get((o, p, e))
                    if any(g != want for g in got):
                        raise Bug("clobber", st.line, "line %d reads '%s' element [%d, %d], whose bytes another "
                                  "item overwrote" % (st.line, v.t.name, p, e))
                for loc in locs:
                    read_locs[loc] = v.t.name
                ids.append(got)
            read_ids.append(ids)
        # a result written over a different tensor it is still reading
        if original:
            for v, els in writes:
                for (p, e) in els:
                    for loc in self.locs(v.t, p, e):
                        src = read_locs.get(loc)
                        if src is not None and self.origin(src) != self.origin(v.t.name):
                            raise Bug("in-place", st.line, "line %d writes '%s' over '%s', which it reads"
                                      % (st.line, v.t.name, src))
        # registers
        if st.op in ("li", "addi", "add", "mov", "reg_load"):
            args = split_top(st.args)
            if st.op == "li":
                val = int(args[1], 0)
            elif st.op == "addi":
                val = env[args[1]] + int(args[2], 0)
            elif st.op == "add":
                val = env[args[1]] + env[args[2]]
            elif st.op == "mov":
                val = env[args[1]]
            else:
                v, els = reads[0]
                val = self.mem_regval.get((self.origin(v.t.name), els[0][0], els[0][1]))
                if val is None:
                    raise Unsupported("reg_load of a value not stored by reg_store")
            if original:
                vid = self.write_reg(args[0], val)
                self.ref_write_reg(args[0], vid)
            else:  # an inserted move carries the value it copies
                src_ids = read_ids[0][0] if st.op == "reg_load" else [self.phys.get(loc) for loc in
                                                                      self.reg_locs(args[1])]
                self.write_reg(args[0], val, src_ids[0])
            return
        if st.op == "reg_store":
            name = split_top(st.args)[1]
            v, els = writes[0]
            src = [self.phys.get(loc) for loc in self.reg_locs(name)]
            vid = self.fresh()
            for k, (p, e) in enumerate(els):
                self.mem_regval[(self.origin(v.t.name), p, e)] = (self.regval[name] >> (32 * k)) & 0xffffffff
                for loc in self.locs(v.t, p, e):
                    self.phys[loc] = src[k % len(src)] if not original else vid
                if original:
                    self.ref[(self.origin(v.t.name), p, e)] = vid
            return
        # tensor writes
        if not original and st.op in ("dma", "copy") and len(reads) == 1 and len(writes) == 1:
            (v, els), ids = writes[0], read_ids[0]
            self.tick(len(els) * v.t.size)
            for k, (p, e) in enumerate(els):
                locs = self.locs(v.t, p, e)
                src = ids[k]
                for i, loc in enumerate(locs):
                    self.phys[loc] = src[i % len(src)]
            return
        for v, els in writes:
            o = self.origin(v.t.name)
            self.tick(len(els) * v.t.size)
            for (p, e) in els:
                vid = self.fresh()
                if original:
                    self.ref[(o, p, e)] = vid
                for loc in self.locs(v.t, p, e):
                    self.phys[loc] = vid


def rule_violations(prog):
    """The documented placement rules (docs/verification.md, Oracle 3), checked here from the declarations."""
    a = prog.arch
    out = []
    for t in prog.tensors.values():
        pl = t.placement
        if pl is None:
            continue
        if t.space == "sbuf":
            part, off = pl
            if part + t.parts > a["P"] or off + t.bytes_per_partition() > a["B"]:
                out.append("'%s' outside the SBUF" % t.name)
            if off % a["align"]:
                out.append("'%s' byte offset %d not a multiple of %d" % (t.name, off, a["align"]))
            if part % a["quantum"]:
                out.append("'%s' partition %d not a multiple of %d" % (t.name, part, a["quantum"]))
        elif t.space == "psum":
            banks = -(-t.bytes_per_partition() // a["bank_bytes"])
            if pl + banks > a["banks"] or t.parts > a["P"]:
                out.append("'%s' outside the PSUM" % t.name)
        else:
            if pl + t.parts * t.bytes_per_partition() > a["dram"]:
                out.append("'%s' outside the DRAM" % t.name)
    for r in prog.regs.values():
        if r.phys is not None and r.phys + r.lanes > a["regs"]:
            out.append("register '%s' past the last lane" % r.name)
    return out


def ground_truth(text, max_ops=30_000_000):
    """-> (kind, what): kind is 'rule', 'clobber', 'in-place' or 'benign'."""
    prog = Program(text)
    rules = rule_violations(prog)
    if rules:
        return "rule", rules[0]
    try:
        Run(prog, max_ops).run()
    except Bug as b:
        return b.kind, b.what
    return "benign", ""


# ---------------------------------------------------------------------------------------------------------------
# Mutations: each rewrites one declaration's placement.

def set_placement(prog, text_lines, name, new):
    """The program text with item `name` placed at `new` (sbuf (p, off), psum bank, dram offset, register lane)."""
    if name in prog.tensors:
        t = prog.tensors[name]
        no = t.line
        repl = ("@p%d+%d" % new) if t.space == "sbuf" else ("@bank%d" % new) if t.space == "psum" else "@%d" % new
    else:
        no = prog.regs[name].line
        repl = "@r%d" % new
    lines = list(text_lines)
    lines[no - 1] = re.sub(r"@\S+", repl, lines[no - 1], count=1)
    return "\n".join(lines), lines[no - 1].split("#")[0].strip()


def mutants(prog, rng, per_class, classes=None):
    """-> [(class, item, new placement)]"""
    a = prog.arch
    sb = [t for t in prog.tensors.values() if t.space == "sbuf" and t.placement is not None]
    ps = [t for t in prog.tensors.values() if t.space == "psum" and t.placement is not None]
    dr = [t for t in prog.tensors.values() if t.space == "dram" and t.placement is not None]
    regs = [r for r in prog.regs.values() if r.phys is not None]
    out = {}

    def add(cls, name, new):
        out.setdefault(cls, []).append((name, new))

    for x in sb:
        xb = x.bytes_per_partition()
        px, ox = x.placement
        for y in sb:
            if y is x:
                continue
            py, oy = y.placement
            yb = y.bytes_per_partition()
            part = min(py, a["P"] - x.parts)
            add("byte-overlap-end", x.name, (part, oy + yb - 1))
            add("byte-overlap-start", x.name, (part, max(0, oy - xb + 1)))
            add("aligned-overlap-end", x.name, (part, oy + yb - a["align"]))
            add("aligned-overlap-start", x.name, (part, max(0, oy - xb + a["align"])))
            if py + y.parts - 1 + x.parts <= a["P"]:
                add("partition-overlap-end", x.name, (py + y.parts - 1, oy))
            if py - x.parts + 1 >= 0:
                add("partition-overlap-start", x.name, (py - x.parts + 1, oy))
            if y.size > 1:  # x's offset computed with y's element size halved: x starts inside y's second half
                add("dtype-size-offset", x.name, (part, oy + yb // 2))
            if y.tiles > 1:
                for k in range(y.tiles):
                    add("onto-one-tile", x.name, (part, oy + k * y.tile_elems * y.size))
        for d in (-1, 1):
            if 0 <= px + d and px + d + x.parts <= a["P"]:
                add("partition-off-by-one", x.name, (px + d, ox))
        add("past-byte-capacity", x.name, (px, a["B"] - xb + a["align"]))
        add("past-partition-capacity", x.name, (a["P"] - x.parts + a["quantum"], ox))
        if a["align"] > 1:
            add("misaligned", x.name, (px, ox + a["align"] // 2))

    def onto_others(items, where, same, off_by_one):  # PSUM banks, register lanes: on another's, one off its own
        for x in items:
            for y in items:
                if y is not x:
                    add(same, x.name, where(y))
            for d in (-1, 1):
                if where(x) + d >= 0:
                    add(off_by_one, x.name, where(x) + d)

    onto_others(ps, lambda t: t.placement, "psum-same-bank", "psum-bank-off-by-one")
    onto_others(regs, lambda r: r.phys, "register-same-lane", "register-off-by-one")
    for x in dr:
        for y in dr:
            if y is not x:
                ybytes = y.parts * y.bytes_per_partition()
                add("spill-slot-overlap", x.name, max(0, y.placement + ybytes - x.size))
                add("spill-slot-overlap", x.name, y.placement)
    result = []
    for cls in sorted(c for c in out if not classes or c in classes):
        cands = sorted(set(out[cls]), key=str)
        rng.shuffle(cands)
        result.extend((cls, name, new) for name, new in cands[:per_class])
    return result


def place_spill_slots(text):
    """The program with each unplaced DRAM spill slot placed, one after another from DRAM byte 0 (as a user who
    spills by hand places them), so that spill slots can be mutated too."""
    out, offset = [], 0
    for line in text.split("\n"):
        m = DECL.match(line.split("#")[0].strip())
        if m and m.group(1) == "dram" and "!spill" in line and "@" not in line.split("#")[0]:
            size = int(m.group(3) or 1) * int(m.group(4)) * int(m.group(5)) * DTYPE_SIZE[m.group(6)]
            line = line.replace(" !spill", " @%d !spill" % offset, 1)
            offset += size
        out.append(line)
    return "\n".join(out)


def relax(text):
    """The same program on its machine with 1-byte alignment and a 1-partition quantum."""
    lines = text.split("\n")
    for i, l in enumerate(lines):
        if l.startswith("arch"):
            words = [w for w in l.split("#")[0].split() if not w.startswith(("sbuf-align=", "sbuf-partition-quantum="))]
            lines[i] = " ".join(words + ["sbuf-align=1", "sbuf-partition-quantum=1"])
            return "\n".join(lines)
    return "arch gen2 sbuf-align=1 sbuf-partition-quantum=1\n" + text


# Hand-placed NKI kernels: (file, kernel, --arg values). Their placements are mutated in the Python source, where a
# modulo allocation's tile count is part of the placement: `num_free_tiles=(1,)` for a buffer that holds the next
# block while the current one is still read is a placement mistake the traced program carries in its instructions.
PY_KERNELS = [
    ("python/tests/kernels/rotating.py", "pipelined_matmul", ["aT=8x32:float32", "w=8x16:float32"]),
    ("python/tests/kernels/placed.py", "placed_add_matmul", ["aT=8x16:float32", "bT=8x16:float32",
                                                             "w=8x32:float32"]),
    ("python/tests/kernels/storage.py", "placed_in_loop", ["aT=8x64:float32", "w=8x32:float32"]),
    ("python/tests/kernels/placed.py", "placed_transpose", ["a=8x8:float32"]),
]
# Hand-allocated kernels of nki-samples (--samples): (path in that repository, kernel, --arg values, machine). The
# fused RMSNorm + QKV kernel is no longer at the repository's head: it is read from the newest commit that has it.
SAMPLE_KERNELS = [
    ("src/nki_samples/tutorials/attention_fwd_performance/attention_kernels.py", "attn_fwd_v9",
     ["q=128x512:bfloat16", "k=128x512:bfloat16", "v=128x512:bfloat16"], "gen2"),
    ("src/nki_samples/tutorials/attention_fwd_performance/attention_kernels.py", "attn_fwd_v10",
     ["q=128x512:bfloat16", "k=128x512:bfloat16", "v=128x512:bfloat16"], "gen2"),
    ("src/nki_samples/reference/allocated_fused_linear.py", "allocated_fused_rms_norm_qkv",
     ["hidden=1x128x512:bfloat16", "weights=512x128:bfloat16"], "gen2"),
]


def py_mutants(src, arch):
    """-> [(class, description, mutated source)]: the placement mistakes people make in a kernel's source.

    nki-rotation-one-short    a modulo allocation (num_free_tiles, num_bank_tiles, an allocator's num_buffers) one
                              tile short: the next block's load lands in a tile still read
    nki-address-one-word-off  a base address or address= one 4-byte word off
    nki-address-half-word-off the same by 2 bytes: half an f32 element, one bf16 element
    nki-dtype-size            an address computed with the wrong element size (a `* 4` as `* 2` or the reverse in a
                              base address, an allocator's size of a dtype)
    nki-partition-offset      a tile moved one partition down (address=, base_partition)
    nki-past-partition-end    a tile placed so that it runs past the end of the partition
    nki-bank-off-by-one       a PSUM base bank one off
    nki-psum-same-bank        a PSUM tile array onto another's base bank (accumulation groups sharing a bank)"""
    out = []

    def sub(cls, m, text, desc=None):
        out.append((cls, desc or (m.group(0) + " -> " + text), src[:m.start()] + text + src[m.end():]))

    for m in re.finditer(r"num_(free|bank)_tiles=\((\d+),\s*\)", src):
        n = int(m.group(2))
        if n > 1:
            sub("nki-rotation-one-short", m, "num_%s_tiles=(%d,)" % (m.group(1), n - 1))
    for m in re.finditer(r"num_buffers=(\d+)", src):
        n = int(m.group(1))
        if n > 1:
            sub("nki-rotation-one-short", m, "num_buffers=%d" % (n - 1))
    for m in re.finditer(r"base_addr=([^,)]+(?:\([^)]*\)[^,)]*)*)", src):
        for d in (4, -4):
            sub("nki-address-one-word-off", m, "base_addr=(%s)%+d" % (m.group(1), d))
        for d in (2, -2):
            sub("nki-address-half-word-off", m, "base_addr=(%s)%+d" % (m.group(1), d))
        sub("nki-past-partition-end", m, "base_addr=%d" % (arch["B"] - 4))
        sub("nki-partition-offset", m, "base_partition=1, base_addr=%s" % m.group(1))
        for f in re.finditer(r"\*\s*([24])\b", m.group(1)):
            other = "2" if f.group(1) == "4" else "4"
            expr = m.group(1)[:f.start()] + "*" + other + m.group(1)[f.end():]
            sub("nki-dtype-size", m, "base_addr=" + expr)
    for m in re.finditer(r"address=\((\d+), (\d+)\)", src):
        for d in (4, -4):
            sub("nki-address-one-word-off", m, "address=(%s, %d)" % (m.group(1), int(m.group(2)) + d))
        for d in (2, -2):
            sub("nki-address-half-word-off", m, "address=(%s, %d)" % (m.group(1), int(m.group(2)) + d))
        sub("nki-partition-offset", m, "address=(%d, %s)" % (int(m.group(1)) + 1, m.group(2)))
        sub("nki-past-partition-end", m, "address=(%s, %d)" % (m.group(1), arch["B"] - 4))
    for m in re.finditer(r"def \w*dtype_size\w*\(.*?(?=\n\S|\n    def )", src, re.S):
        for r in re.finditer(r"return ([24])\b", m.group(0)):
            a = m.start() + r.start()
            text = "return " + ("2" if r.group(1) == "4" else "4")
            out.append(("nki-dtype-size", r.group(0) + " -> " + text, src[:a] + text + src[a + len(r.group(0)):]))
    banks = [m for m in re.finditer(r"base_bank=(\d+)", src)]
    for m in banks:
        b = int(m.group(1))
        for d in (1, -1):
            if b + d >= 0:
                sub("nki-bank-off-by-one", m, "base_bank=%d" % (b + d))
        for o in sorted({int(x.group(1)) for x in banks} - {b}):
            sub("nki-psum-same-bank", m, "base_bank=%d" % o)
    return out


def sample_kernels(samples, tmp):
    """The hand-allocated kernels of nki-samples (SAMPLE_KERNELS), written out of `samples` (a checkout or a git
    directory: each file as of the newest commit that has it) into tmp."""
    out = []
    for rel, kernel, kargs, arch in SAMPLE_KERNELS:
        dest = os.path.join(tmp, "sample_" + os.path.basename(rel))
        if not os.path.exists(dest):
            if os.path.exists(os.path.join(samples, rel)):
                with open(os.path.join(samples, rel)) as f:
                    text = f.read()
            else:
                commit = subprocess.run(["git", "--git-dir", samples, "log", "--all", "-1", "--format=%H", "--", rel],
                                        capture_output=True, text=True).stdout.strip()
                show = subprocess.run(["git", "--git-dir", samples, "show", "%s:%s" % (commit, rel)],
                                      capture_output=True, text=True)
                if show.returncode != 0:  # the newest commit that touches it removed it
                    show = subprocess.run(["git", "--git-dir", samples, "show", "%s^:%s" % (commit, rel)],
                                          capture_output=True, text=True)
                if show.returncode != 0:
                    print("%s: not in %s" % (rel, samples), file=sys.stderr)
                    continue
                text = show.stdout
            with open(dest, "w") as f:
                f.write(text)
        out.append((dest, kernel, kargs, arch))
    return out


def py_campaign(allocsim, tmp, stats, problems, kernels, rng, per_class, max_ops):
    """The NKI kernels' mutants (at most per_class of each class per kernel, chosen with rng). Truth: a placement
    rule broken in the traced program (or the trace refused with its kernel line), a clobbered read in this script's
    physical run of it, or outputs (`allocsim interp`, three input seeds) that differ from those of the same kernel
    traced with its placements left out (ALLOCSIM_NKI_UNPLACED=1). A mutant whose physical run here would take more
    than max_ops element accesses is left undecided (reported, not counted)."""
    n = 0
    for path, kernel, kargs, arch in kernels:
        with open(path) as f:
            src = f.read()
        flags = ["--kernel", kernel, "--arch", arch] + [x for a in kargs for x in ("--arg", a)]
        by_class = {}
        for m in py_mutants(src, PRESETS[arch]):
            by_class.setdefault(m[0], []).append(m)
        chosen = []
        for cls in sorted(by_class):
            ms = by_class[cls]
            rng.shuffle(ms)
            chosen.extend(ms[:per_class])
        for cls, desc, msrc in chosen:
            n += 1
            mpath = os.path.join(tmp, "k%03d_%s" % (n, os.path.basename(path)))
            with open(mpath, "w") as f:
                f.write(msrc)
            placed = subprocess.run([allocsim, "nki", mpath] + flags, capture_output=True, text=True)
            env = dict(os.environ, ALLOCSIM_NKI_UNPLACED="1")
            unplaced = subprocess.run([allocsim, "nki", mpath] + flags, capture_output=True, text=True, env=env)
            if placed.returncode != 0 or unplaced.returncode != 0:
                kind, what = "rule", (placed.stderr or unplaced.stderr).strip().split("\n")[0]
            else:
                try:
                    kind, what = ground_truth(placed.stdout, max_ops)
                except Unsupported as e:  # the outputs cannot see an overlap (interp gives each tensor its storage)
                    print("%s:%s %s: undecided (%s)" % (path, kernel, desc, e), file=sys.stderr)
                    continue
                if kind == "benign":
                    for seed in ("1", "2", "3"):
                        outs = []
                        for text in (placed.stdout, unplaced.stdout):
                            tp = os.path.join(tmp, "k%03d.trace.nki.txt" % n)
                            with open(tp, "w") as f:
                                f.write(text)
                            r = subprocess.run([allocsim, "interp", tp, "--quiet", "--seed", seed],
                                               capture_output=True, text=True)
                            outs.append(r.stdout.replace(tp, ""))
                        if outs[0] != outs[1]:
                            kind, what = "output", "the outputs differ from the kernel's without its placements"
                            break
            r = subprocess.run([allocsim, "verify", mpath, "--quiet", "--poison-seed", "7"] + flags,
                               capture_output=True, text=True)
            first = (r.stdout if r.returncode == 1 else r.stderr).strip().split("\n")[0]
            flagged = r.returncode == 1 or (r.returncode == 2 and re.match(r"\S+:\d+:(\d+:)? ", first) is not None)
            s = stats.setdefault(cls, [0, 0, 0, 0])
            real = kind != "benign"
            s[0 if real else 2] += 1
            s[1 if real else 3] += flagged
            if real != flagged:
                problems.append(("MISS" if real else "FALSE ALARM", cls, path + ":" + kernel, arch, desc, kind,
                                 what, "", first, msrc, src))


def verify(allocsim, path):
    r = subprocess.run([allocsim, "verify", path, "--json", "--quiet", "--poison-seed", "7"], capture_output=True,
                       text=True, timeout=600)
    oracles = set()
    first = ""
    if r.returncode == 1:
        try:
            d = json.loads(r.stdout)
            for f in d.get("findings", []):
                oracles.add(f.get("oracle", "?"))
                if not first:
                    first = "%s:%s %s" % (f.get("line", "?"), f.get("kind", "?"), f.get("message", ""))
        except ValueError:
            first = r.stdout.strip().split("\n")[0]
    elif r.returncode == 2:
        first = r.stderr.strip().split("\n")[0]
        oracles.add("ill-formed")
    return r.returncode, sorted(oracles), first


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--allocsim", default="build/allocsim")
    ap.add_argument("--per-class", type=int, default=3)
    ap.add_argument("--kernels", nargs="*")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--keep")
    ap.add_argument("--python", action="store_true")
    ap.add_argument("--no-corpus", action="store_true")
    ap.add_argument("--samples")
    ap.add_argument("--classes", nargs="*")
    ap.add_argument("--max-ops", type=int, default=30_000_000)
    args = ap.parse_args()
    os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    kernels = args.kernels or (sorted(glob.glob("corpus/kernels/*_tiny.nki.txt")) +
                               sorted(glob.glob("corpus/nki_samples/*_tiny.nki.txt")) +
                               sorted(glob.glob("corpus/allocated/*.nki.txt")))
    tmp = tempfile.mkdtemp(prefix="hand_plants.")
    rng = random.Random(20261206)
    stats = {}   # class -> [real, caught, benign, false alarms]
    problems = []
    n = 0
    for k in ([] if args.no_corpus else kernels):
        base = os.path.basename(k).replace(".nki.txt", "")
        placed = os.path.join(tmp, base + ".placed.nki.txt")
        with open(k) as f:
            src = f.read()
        if any(re.match(r"^(sbuf|psum|reg)\s.*@", l.split("#")[0]) for l in src.split("\n")):
            text = src  # already allocated by hand
        else:
            r = subprocess.run([args.allocsim, "alloc", k, "-O2", "-o", placed], capture_output=True, text=True)
            if r.returncode != 0:
                print("%s: alloc failed: %s" % (k, r.stderr.strip()[:200]), file=sys.stderr)
                continue
            with open(placed) as f:
                text = f.read()
        text = place_spill_slots(text)
        for machine, correct in (("kernel's", text), ("relaxed", relax(text))):
            try:
                prog = Program(correct)
                truth = ground_truth(correct)
            except Unsupported as e:
                print("%s: skipped (%s)" % (k, e), file=sys.stderr)
                break
            if truth[0] != "benign":
                print("%s (%s machine): the correct program is not benign here: %s" % (k, machine, truth),
                      file=sys.stderr)
                continue
            lines = correct.split("\n")
            for cls, name, new in mutants(prog, rng, args.per_class, args.classes):
                mtext, decl = set_placement(prog, lines, name, new)
                if mtext == correct:
                    continue
                n += 1
                path = os.path.join(tmp, "m%05d.nki.txt" % n)
                with open(path, "w") as f:
                    f.write(mtext)
                try:
                    kind, what = ground_truth(mtext)
                except Unsupported as e:
                    continue
                rc, oracles, first = verify(args.allocsim, path)
                # a refusal counts when it says where: FILE:LINE:COL: message
                flagged = rc == 1 or (rc == 2 and re.match(re.escape(path) + r":\d+:\d+: ", first) is not None)
                s = stats.setdefault(cls, [0, 0, 0, 0])
                real = kind != "benign"
                if real:
                    s[0] += 1
                    s[1] += flagged
                else:
                    s[2] += 1
                    s[3] += flagged
                if real != flagged:
                    label = "MISS" if real else "FALSE ALARM"
                    problems.append((label, cls, k, machine, decl, kind, what, ",".join(oracles), first, mtext,
                                     correct))
    if args.python or args.samples:
        pk = [(p, k, a, "tiny") for p, k, a in PY_KERNELS] if args.python else []
        if args.samples:
            pk += sample_kernels(args.samples, tmp)
        py_campaign(args.allocsim, tmp, stats, problems, pk, rng, args.per_class, args.max_ops)
    print("%-24s %6s %6s %6s %8s %6s" % ("class", "real", "caught", "missed", "benign", "false"))
    tot = [0, 0, 0, 0]
    for cls in sorted(stats):
        s = stats[cls]
        print("%-24s %6d %6d %6d %8d %6d" % (cls, s[0], s[1], s[0] - s[1], s[2], s[3]))
        tot = [a + b for a, b in zip(tot, s)]
    print("%-24s %6d %6d %6d %8d %6d" % ("total", tot[0], tot[1], tot[0] - tot[1], tot[2], tot[3]))
    if args.list:
        for p in problems:
            print("%s %s %s (%s machine): %s\n    truth: %s %s\n    verify: %s %s" % p[:9])
    if args.keep:
        os.makedirs(args.keep, exist_ok=True)
        for i, p in enumerate(problems):
            stem = os.path.join(args.keep, "%02d_%s_%s" % (i, p[0].replace(" ", "_").lower(), p[1]))
            with open(stem + ".nki.txt", "w") as f:
                f.write("# %s %s from %s (%s machine): %s\n# truth: %s %s\n" % (p[0], p[1], p[2], p[3], p[4], p[5],
                                                                              p[6]) + p[9])
            with open(stem + ".correct.nki.txt", "w") as f:
                f.write(p[10])
    return 0


if __name__ == "__main__":
    sys.exit(main())
