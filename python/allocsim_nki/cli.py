"""The command line the allocsim binary runs: `python3 -m allocsim_nki.cli list|trace KERNEL.py ...`."""

import inspect
import sys

from .trace import KernelError
from .kernel import load_module, kernels, parse_arg, trace_kernel


def _describe(name, k):
    parts = []
    for p in k.parameters():
        parts.append(p.name if p.default is p.empty else "%s=%r" % (p.name, p.default))
    return "%s(%s)" % (name, ", ".join(parts))


def main(argv):
    if len(argv) < 2 or argv[0] not in ("list", "trace"):
        sys.stderr.write("usage: python3 -m allocsim_nki.cli list|trace KERNEL.py [--kernel NAME] [--arg NAME=SPEC]"
                         " [--arch NAME]\n")
        return 2
    verb, path = argv[0], argv[1]
    kernel, specs, arch = None, [], "gen2"
    i = 2
    while i < len(argv):
        a = argv[i]
        if a in ("--kernel", "--arg", "--arch") and i + 1 < len(argv):
            v = argv[i + 1]
            i += 2
            if a == "--kernel":
                kernel = v
            elif a == "--arg":
                specs.append(v)
            else:
                arch = v
        else:
            sys.stderr.write("%s: unknown option '%s'\n" % (path, a))
            return 2
    # The program goes to standard output: whatever the kernel file prints goes to standard error instead.
    out, sys.stdout = sys.stdout, sys.stderr
    try:
        return _run(verb, path, kernel, specs, arch, out)
    finally:
        sys.stdout = out


def _run(verb, path, kernel, specs, arch, out):
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
        args = dict(parse_arg(s) for s in specs)
        text, _ = trace_kernel(ks[kernel], args, arch)
        out.write(text)
        return 0
    except KernelError as e:
        sys.stderr.write(e.format() + "\n")
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
