"""The command line the allocsim binary runs: `python3 -m allocsim_nki.cli list|trace KERNEL.py ...`."""

import inspect
import os
import sys
import types

from .trace import KernelError
from .kernel import MissingModule, load_module, kernels, parse_arg, trace_kernel


def _describe(name, k):
    parts = []
    for p in k.parameters():
        parts.append(p.name if p.default is p.empty else "%s=%r" % (p.name, p.default))
    return "%s(%s)" % (name, ", ".join(parts))


def main(argv):
    if len(argv) < 2 or argv[0] not in ("list", "trace"):
        sys.stderr.write("usage: python3 -m allocsim_nki.cli list|trace KERNEL.py [--kernel NAME] [--arg NAME=SPEC]"
                         " [--grid GXxGY] [--arch NAME]\n")
        return 2
    verb, path = argv[0], argv[1]
    kernel, specs, arch, grid = None, [], "gen2", None
    i = 2
    while i < len(argv):
        a = argv[i]
        if a in ("--kernel", "--arg", "--arch", "--grid") and i + 1 < len(argv):
            v = argv[i + 1]
            i += 2
            if a == "--kernel":
                kernel = v
            elif a == "--arg":
                specs.append(v)
            elif a == "--grid":
                grid = v
            else:
                arch = v
        else:
            sys.stderr.write("%s: unknown option '%s'\n" % (path, a))
            return 2
    # The program goes to standard output: whatever the kernel file prints goes to standard error instead.
    out, sys.stdout = sys.stdout, sys.stderr
    try:
        return _run(verb, path, kernel, specs, arch, grid, out)
    except MissingModule as e:
        other = _python_with(e.module)
        if other is None and (e.module or "").split(".")[0] in FRAMEWORKS:
            # a kernel file that imports a framework for its own tests and benchmarks (the kernels do not use it)
            sys.stderr.write("%s: note: %s is not installed: the tracer stands it in (a kernel that uses it fails "
                             "where it does)\n" % (path, e.module))
            stand_in(e.module)
            sys.stdout = out
            return main(argv)
        if other is None:
            sys.stderr.write(e.format() + "; no other python3 on PATH or in /usr/bin has it: install it, or set "
                             "ALLOCSIM_PYTHON to a python3 that has it\n")
            return 2
        sys.stdout = out
        sys.stdout.flush()
        os.environ["ALLOCSIM_PYTHON_TRIED"] = os.environ.get("ALLOCSIM_PYTHON_TRIED", "") + os.pathsep + \
            os.path.realpath(sys.executable)
        os.execv(other, [other, "-m", "allocsim_nki.cli"] + list(argv))
    finally:
        sys.stdout = out


# Frameworks kernel files import for the code around their kernels (tests, benchmarks, a torch reference).
FRAMEWORKS = ("torch", "torch_xla", "torch_neuronx", "jax", "jax_neuronx", "neuronx_distributed", "transformers",
              "pytest")


class StandIn(types.ModuleType):
    """A missing framework module: every attribute, call and subscript is a stand-in again, so that module-level code
    (imports, decorators, constants) runs; a kernel that computes with it gets stand-ins, not values."""

    def __init__(self, name):
        super().__init__(name)
        self.__path__ = []

    def __getattr__(self, attr):
        if attr.startswith("__"):
            raise AttributeError(attr)
        if self.__name__ == "torch_neuronx" and attr == "nki_jit":  # the framework's spelling of nki.jit
            from .kernel import jit
            return jit
        return StandIn(self.__name__ + "." + attr)

    def __call__(self, *args, **kwargs):
        if len(args) == 1 and callable(args[0]) and not kwargs:
            return args[0]  # a decorator keeps the function it decorates
        return StandIn(self.__name__ + "()")

    def __getitem__(self, key):
        return StandIn(self.__name__ + "[]")

    def __iter__(self):
        return iter(())


class _StandInFinder:
    """Imports of a stood-in framework's submodules (`import torch.nn.functional as F`) give stand-ins too."""

    def __init__(self, roots):
        self.roots = roots

    def find_spec(self, name, path=None, target=None):
        import importlib.machinery
        if name.split(".")[0] in self.roots:
            return importlib.machinery.ModuleSpec(name, self)
        return None

    def create_module(self, spec):
        return StandIn(spec.name)

    def exec_module(self, module):
        pass


def stand_in(module):
    root = module.split(".")[0]
    for f in sys.meta_path:
        if isinstance(f, _StandInFinder):
            f.roots.add(root)
            return
    sys.meta_path.insert(0, _StandInFinder({root}))


def _python_with(module):
    """Another python3 (on PATH, then /usr/bin) that imports `module`, not tried before; None if there is none."""
    import shutil
    import subprocess
    tried = set(os.environ.get("ALLOCSIM_PYTHON_TRIED", "").split(os.pathsep)) | {os.path.realpath(sys.executable)}
    cands = []
    for d in os.environ.get("PATH", "").split(os.pathsep) + ["/usr/bin", "/usr/local/bin"]:
        c = shutil.which("python3", path=d) if d else None
        if c and os.path.realpath(c) not in tried and os.path.realpath(c) not in [os.path.realpath(x) for x in cands]:
            cands.append(c)
    for c in cands:
        try:
            if subprocess.run([c, "-c", "import " + module], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              timeout=30).returncode == 0:
                return c
        except (OSError, subprocess.SubprocessError):
            continue
    return None


def parse_grid(spec):
    """`2x4` -> (2, 4): the launch grid of --grid."""
    parts = spec.split("x")
    if not all(p.isdigit() and int(p) > 0 for p in parts):
        raise KernelError("--grid expects positive integers joined by x (2, 2x4), got '%s'" % spec,
                          ("<command line>", 0))
    return tuple(int(p) for p in parts)


def _run(verb, path, kernel, specs, arch, grid, out):
    try:
        mod = load_module(path)
        ks = kernels(mod)
        if verb == "list":
            if not ks:
                raise KernelError("no NKI kernels (functions decorated with @nki.jit) in this file", (path, 1))
            for name, k in ks.items():
                out.write("%s  # %s:%d\n" % (_describe(name, k), path, k.func.__code__.co_firstlineno))
            return 0
        if kernel is None:
            if len(ks) != 1:
                raise KernelError("%s: name one with --kernel (%s)" % (
                    "no NKI kernels (functions decorated with @nki.jit) in this file" if not ks else
                    "the file has %d kernels" % len(ks), ", ".join(sorted(ks)) or "none"), (path, 1))
            kernel = next(iter(ks))
        if kernel not in ks:
            raise KernelError("no kernel '%s' in this file (kernels: %s)" % (kernel, ", ".join(sorted(ks)) or "none"),
                              (path, 1))
        try:
            args = dict(parse_arg(s) for s in specs)
        except KernelError as e:  # a dtype the format lacks: at the kernel's definition
            raise KernelError(e.message, (path, ks[kernel].func.__code__.co_firstlineno))
        k = ks[kernel] if grid is None else ks[kernel][parse_grid(grid)]
        text, _ = trace_kernel(k, args, arch)
        out.write(text)
        return 0
    except MissingModule:
        raise
    except KernelError as e:
        sys.stderr.write(e.format() + "\n")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
