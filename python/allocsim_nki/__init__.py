"""allocsim's NKI front end: trace NKI kernels into programs, simulate and verify them.

    import allocsim_nki
    r = allocsim_nki.simulate(my_kernel, a, b)     # numpy arrays in, numpy arrays out
    r.outputs["result"], r.cycles, r.stalls

Kernels are written against `nki.language` / `nki.isa` (or `neuronxcc.nki.*`), which this directory provides as
tracing implementations. Values come from allocsim's bit-exact interpreter, cycles and stalls from its simulator,
findings from its three oracles; all through the `allocsim` binary ($ALLOCSIM_BINARY, else `allocsim` on PATH,
else build/allocsim of the source tree this package sits in).
"""

import json
import os
import re
import shutil
import subprocess
import tempfile

from . import floats
from .trace import KernelError, NUMPY_TAG  # noqa: F401
from .kernel import Kernel, TensorArg, trace_kernel, jit  # noqa: F401

__all__ = ["simulate", "verify", "program", "KernelError", "Kernel", "TensorArg", "binary"]


def binary():
    b = os.environ.get("ALLOCSIM_BINARY")
    if b:
        return b
    b = shutil.which("allocsim")
    if b:
        return b
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    for cand in (os.path.join(here, "build", "allocsim"),):
        if os.path.exists(cand):
            return cand
    raise RuntimeError("cannot find the allocsim binary: set ALLOCSIM_BINARY or put allocsim on PATH")


_NP_DTYPES = {"float32": "float32", "int32": "int32", "uint32": "uint32", "uint16": "uint16", "float16": "float16",
              "int16": "int16", "int8": "int8", "uint8": "uint8", "bool": "bool"}
_NP_OF_FMT = {"f32": "float32", "i32": "int32", "u32": "uint32", "u16": "uint16", "f16": "float16", "i16": "int16",
              "i8": "int8", "u8": "uint8"}


def _arg_of(x, dtype=None, param=None, func=None):
    import inspect
    import numpy as np
    # a parameter's dtype is refused at the kernel's definition, naming the parameter
    loc = (inspect.getsourcefile(func) or "<kernel>", func.__code__.co_firstlineno) if func else ("<arguments>", 0)
    if isinstance(x, np.ndarray):
        if dtype is None:
            dtype = (x.dtype.metadata or {}).get(NUMPY_TAG)  # np.ones(n, dtype=nl.bfloat16): float32 data
        if dtype is not None:
            try:
                return TensorArg(x.shape, dtype)
            except KernelError as e:
                raise KernelError("parameter '%s': %s" % (param, e.message), loc)
        name = _NP_DTYPES.get(x.dtype.name)
        if name is None:
            raise KernelError("unsupported: parameter '%s' is a numpy array of %s: the program format has f32, f16, "
                              "i32, u32, i16, u16, i8, u8, and bf16 and the fp8 formats (pass dtypes={'%s': "
                              "'bfloat16'} or 'float8_e4m3' ... with float32 data)" % (param, x.dtype.name, param), loc)
        return TensorArg(x.shape, name)
    return x


def _to_bytes(x, dtype):
    import numpy as np
    if dtype.fmt == "bf16":
        f = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32)
        # round to nearest even, as the format converts f32 -> bf16 (NaN keeps a quiet NaN)
        r = ((f + 0x7FFF + ((f >> 16) & 1)) >> 16).astype(np.uint16)
        nan = (f & 0x7FFFFFFF) > 0x7F800000
        r[nan] = ((f[nan] >> 16) | 0x40).astype(np.uint16)
        return r.tobytes()
    if dtype.fmt in floats.FORMATS:
        return floats.encode(np.asarray(x, dtype=np.float32), dtype.fmt).tobytes()
    return np.ascontiguousarray(x, dtype=_NP_OF_FMT[dtype.fmt]).tobytes()


def _from_bytes(b, dtype, shape):
    import numpy as np
    if dtype.fmt == "bf16":
        return (np.frombuffer(b, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32).reshape(shape)
    if dtype.fmt in floats.FORMATS:
        return floats.decode(np.frombuffer(b, dtype=np.uint8), dtype.fmt).reshape(shape)
    return np.frombuffer(b, dtype=_NP_OF_FMT[dtype.fmt]).reshape(shape).copy()


class Traced:
    """A kernel traced with concrete arguments: the program text and its HBM tensors."""

    def __init__(self, kernel, args, kwargs, arch, dtypes):
        func = kernel.func if isinstance(kernel, Kernel) else kernel
        import inspect
        names = [n for n, p in inspect.signature(func).parameters.items()
                 if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        if len(args) > len(names):
            raise TypeError("kernel '%s' takes %d parameters, %d given" % (func.__name__, len(names), len(args)))
        given = dict(zip(names, args))
        given.update(kwargs)
        dtypes = dtypes or {}
        self.values = given
        self.text, self.tracer = trace_kernel(kernel, {n: _arg_of(v, dtypes.get(n), n, func) for n, v in given.items()},
                                              arch)
        # by parameter name for parameters, by tensor name for the HBM tensors the kernel allocates
        self.dram = {getattr(t, "param_name", t.name): t for t in self.tracer.tensors
                     if t.space == "dram" and not t.dead}

    def write(self, d):
        path = os.path.join(d, "kernel.nki.txt")
        with open(path, "w") as f:
            f.write(self.text)
        flags = []
        for name, t in self.dram.items():
            if t.param and (t.read or not t.written):
                p = os.path.join(d, t.name + ".in.bin")
                with open(p, "wb") as f:
                    f.write(_to_bytes(self.values[name], t.dtype))
                flags += ["--input", "%s=%s" % (t.name, p)]
        return path, flags


def _run(args, program=None):
    """Runs the binary; a diagnostic about a line of `program` (the traced text) moves to the kernel line noted at
    the end of that line, as the command line shows it."""
    p = subprocess.run([binary()] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    err = p.stderr
    if program is not None:
        lines = program.splitlines()

        def locate(m):
            n = int(m.group(2))
            note = lines[n - 1].rsplit("  # ", 1) if 0 < n <= len(lines) else []
            if len(note) == 2:
                return "%s: %s (traced program line %s:%s)" % (note[1], m.group(4), m.group(2), m.group(3))
            return m.group(0)
        err = re.sub(r"(?m)^(.*?kernel\.nki\.txt):(\d+):(\d+): (.*)$", locate, err)
    return p.returncode, p.stdout, err


class SimResult:
    """outputs: name -> numpy array (every HBM tensor the kernel writes); returned: the kernel's return value(s);
    cycles, stalls (cycles by cause), top_stalls (the run report's worst stalls, each with the kernel lines of the
    waiting instruction and of the one it waited for: consumer_kernel_line, producer_kernel_line), run (the whole
    `allocsim run --json` report), program (the traced text)."""

    def __repr__(self):
        return "SimResult(outputs=%s, cycles=%d, stalls=%s)" % (sorted(self.outputs), self.cycles, self.stalls)


def simulate(kernel, *args, optlevel=2, arch="gen2", dtypes=None, timing=True, **kwargs):
    """Runs `kernel` on numpy arrays (HBM inputs) and Python values: outputs by allocsim's interpreter, cycles and
    stalls by its simulator on the allocation at `optlevel` (which it checks against the interpreter).

    `dtypes` gives a parameter a dtype numpy lacks: {"x": "bfloat16"} passes float32 data rounded to bf16.
    """
    tr = Traced(kernel, args, kwargs, arch, dtypes)
    res = SimResult()
    res.program = tr.text
    with tempfile.TemporaryDirectory(prefix="allocsim_nki_") as d:
        path, flags = tr.write(d)
        rc, out, err = _run(["interp", path, "--quiet", "--outputs-dir", d] + flags, tr.text)
        if rc != 0:
            raise RuntimeError("allocsim interp failed (%d):\n%s" % (rc, err))
        res.outputs = {}
        for name, t in tr.dram.items():
            if t.written:
                with open(os.path.join(d, t.name + ".bin"), "rb") as f:
                    res.outputs[name] = _from_bytes(f.read(), t.dtype, t.nki_shape)
        by_tensor = {t.name: key for key, t in tr.dram.items()}
        ret = [res.outputs[by_tensor[n]] for n in tr.tracer.returned]
        res.returned = None if not ret else ret[0] if len(ret) == 1 else tuple(ret)
        res.cycles, res.stalls, res.run, res.top_stalls = None, None, None, []
        if timing:
            run_args = ["run", path, "--json", "--quiet"] + flags
            if optlevel is not None and not tr.tracer.allocated:
                run_args += ["-O", str(optlevel)]
            rc, out, err = _run(run_args, tr.text)
            if rc != 0:
                raise RuntimeError("allocsim run failed (%d):\n%s%s" % (rc, out, err))
            res.run = json.loads(out)
            stats = res.run.get("stats", res.run)
            res.cycles = stats["cycles"]
            res.stalls = stats["stall_cycles"]
            res.top_stalls = [_with_kernel_lines(t, tr.text) for t in stats.get("top_stalls", [])]
    return res


def _with_kernel_lines(stall, text):
    """A top_stalls entry of the run report with the kernel lines (FILE:LINE) of its consumer and producer."""
    lines = text.splitlines()
    out = dict(stall)
    for role in ("consumer", "producer"):
        m = re.match(r"line (\d+) ", out.get(role) or "")
        note = re.search(r"#\s*(\S+:\d+)\s*$", lines[int(m.group(1)) - 1]) if m and int(m.group(1)) <= len(lines) \
            else None
        out[role + "_kernel_line"] = note.group(1) if note else None
    return out


def simulate_kernel(kernel, *args, **kwargs):
    """NKI's simulate_kernel: the kernel's return value; HBM arguments it writes are updated in place."""
    import numpy as np
    r = simulate(kernel, *args, timing=False, **kwargs)
    tr_names = list(r.outputs)
    func = kernel.func if isinstance(kernel, Kernel) else kernel
    import inspect
    names = list(inspect.signature(func).parameters)
    for n, a in zip(names, args):
        if n in tr_names and isinstance(a, np.ndarray):
            np.copyto(a, r.outputs[n].astype(a.dtype))
    return r.returned


class VerifyResult:
    """ok, findings (the oracles' findings), report (the whole `allocsim verify --json` report), allocated
    (the allocated program's text)."""

    def __repr__(self):
        return "VerifyResult(ok=%s, findings=%d)" % (self.ok, len(self.findings))


def verify(kernel, *args, optlevel=2, arch="gen2", dtypes=None, **kwargs):
    """Allocates the traced kernel at `optlevel` (a kernel that places every tensor by hand is checked as placed)
    and runs the three oracles on the allocation, with the given arrays as its inputs."""
    tr = Traced(kernel, args, kwargs, arch, dtypes)
    with tempfile.TemporaryDirectory(prefix="allocsim_nki_") as d:
        path, flags = tr.write(d)
        if tr.tracer.allocated:
            alloc_path = path
            ver = ["verify", path, "--json", "--quiet"] + flags
        else:
            alloc_path = os.path.join(d, "allocated.nki.txt")
            rc, out, err = _run(["alloc", path, "-O", str(optlevel), "-o", alloc_path, "--quiet"] + flags)
            if rc != 0:
                raise RuntimeError("allocsim alloc failed (%d):\n%s" % (rc, err))
            ver = ["verify", alloc_path, "--original", path, "--json", "--quiet"] + flags
        rc, out, err = _run(ver)
        if rc not in (0, 1):
            raise RuntimeError("allocsim verify failed (%d):\n%s" % (rc, err))
        r = VerifyResult()
        r.report = json.loads(out)
        r.ok = bool(r.report.get("ok"))
        r.findings = r.report.get("findings", [])
        with open(alloc_path) as f:
            r.allocated = f.read()
    return r


def program(kernel, *args, arch="gen2", dtypes=None, **kwargs):
    """The program text of `kernel` traced with these arguments (numpy arrays or TensorArg for HBM tensors)."""
    return Traced(kernel, args, kwargs, arch, dtypes).text
