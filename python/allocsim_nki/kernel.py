"""Kernels: the @nki.jit decorator, the arguments a kernel is traced with, and tracing one into a program."""

import ast
import copy
import inspect
import os
import re
import textwrap
import traceback
import weakref

from . import trace as _t
from .trace import KernelError


class Kernel:
    """A function decorated with @nki.jit (or trace, baremetal, benchmark, ...): traced, not run."""

    def __init__(self, func, **options):
        self.func = func
        self.options = options
        self.__name__ = func.__name__
        self.__doc__ = func.__doc__
        self.__wrapped__ = func

    def __call__(self, *args, **kwargs):
        if _t._T is not None:
            # a kernel called from a kernel being traced: inline it
            return traced_function(self.func)(*args, **kwargs)
        if self.options.get("mode") == "simulation" or \
                any(type(a).__module__ == "numpy" for a in list(args) + list(kwargs.values())):
            # NKI's simulation mode: a kernel called with numpy arrays runs on the simulator (here, allocsim's
            # interpreter) and returns its outputs as numpy arrays
            import allocsim_nki
            return allocsim_nki.simulate_kernel(self, *args, **kwargs)
        raise KernelError("an NKI kernel runs on the device; trace it (allocsim nki) or simulate it "
                          "(allocsim_nki.simulate(kernel, *arrays), or call it with numpy arrays)")

    def __getitem__(self, grid):
        """kernel[gx, gy]: the kernel launched on an SPMD grid, traced inside one loop per grid axis (the instances
        in order); nl.program_id(axis) is that loop's index."""
        grid = grid if isinstance(grid, tuple) else (grid,)
        # nl.spmd_dim(nl.nc(2), 2) and nl.nc(2) * 2: an axis of 4 instances spread over two cores (the same
        # instances, the same program_id values: the tracer runs them in order)
        grid = tuple(g.size if hasattr(g, "spmd_size") else g for g in grid)
        if not grid or not all(isinstance(g, int) and not isinstance(g, bool) and g > 0 for g in grid):
            raise KernelError("a launch grid is positive Python integers: kernel[2, 4], not kernel[%r]" % (grid,))
        k = Kernel(self.func, **self.options)
        k.grid = tuple(grid)
        return k

    grid = ()

    def parameters(self):
        return list(inspect.signature(self.func).parameters.values())


def jit(func=None, **options):
    if func is None:
        return lambda f: jit(f, **options)
    if isinstance(func, Kernel):  # nki.jit(kernel, mode=...) of a function already decorated
        return Kernel(func.func, **dict(func.options, **options))
    return Kernel(func, **options)


trace = baremetal = benchmark = profile = simulate_kernel_decorator = jit


class TensorArg:
    """An HBM tensor argument: a shape and a dtype (`1024x512:bfloat16`)."""

    def __init__(self, shape, dtype):
        self.shape, self.dtype = tuple(shape), _t.as_dtype(dtype, "dtype")


_SPEC = re.compile(r"^(\d+(?:x\d+)*):([A-Za-z0-9_]+)$")


def parse_arg(spec):
    """NAME=DIMxDIM...:DTYPE or NAME=PYTHON_LITERAL -> (name, value)."""
    if "=" not in spec:
        raise KernelError("--arg expects NAME=VALUE, got '%s'" % spec, ("<command line>", 0))
    name, value = spec.split("=", 1)
    m = _SPEC.match(value.strip())
    if m:
        try:
            return name, TensorArg([int(d) for d in m.group(1).split("x")], m.group(2))
        except KernelError as e:
            raise KernelError("--arg %s: %s" % (name, e.message), ("<command line>", 0))
    try:
        return name, ast.literal_eval(value)
    except (ValueError, SyntaxError):
        raise KernelError("--arg %s=%s is neither DIMxDIM...:DTYPE nor a Python literal" % (name, value),
                          ("<command line>", 0))


def load_module(path):
    """Runs a kernel file as a module; its kernels are its Kernel objects."""
    import importlib.util
    import sys
    if not os.path.exists(path):
        raise KernelError("cannot open: no such file", (path, 0))
    _t.show_path_as(path)
    with open(path, "rb") as f:
        data = f.read()
    if b"\0" in data:  # Python's own message for this names an importlib frame, not the file
        raise KernelError("not Python source: the file contains a NUL byte", (path, data.count(b"\n", 0, data.index(b"\0")) + 1))
    name = "_allocsim_kernel_" + re.sub(r"\W", "_", os.path.basename(path)[:-3])
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(mod)
    except KernelError:
        raise
    except SyntaxError as e:
        raise KernelError("syntax error: %s" % e.msg, (e.filename or path, e.lineno or 0))
    except ModuleNotFoundError as e:
        err = MissingModule("%s: %s (this is %s)" % (type(e).__name__, e, sys.executable), _innermost(e, path))
        err.module = e.name
        raise err
    except Exception as e:  # an error of the kernel file itself, at its line
        raise KernelError("%s: %s" % (type(e).__name__, e), _innermost(e, path))
    except BaseException as e:  # sys.exit(), KeyboardInterrupt: the file stops the tracer, which says where
        raise KernelError(_stopped(e), _innermost(e, path))
    finally:
        sys.path.remove(os.path.dirname(os.path.abspath(path)))
    return mod


class MissingModule(KernelError):
    """The kernel file imports a module this Python lacks (numpy, say): cli.py looks for a python3 that has it."""


def kernels(mod):
    return {n: k for n, k in vars(mod).items() if isinstance(k, Kernel) and k.func.__module__ == mod.__name__}


def _stopped(exc):
    """The message for a kernel file that ends the tracer itself (sys.exit(), KeyboardInterrupt, ...)."""
    if isinstance(exc, SystemExit):
        return "the file calls sys.exit(%s) while it is traced; a kernel file must not exit" % (
            "" if exc.code is None else repr(exc.code))
    return "%s raised while the file is traced%s" % (type(exc).__name__, (": %s" % exc) if str(exc) else "")


def _innermost(exc, path=None):
    tb = traceback.extract_tb(exc.__traceback__)
    pkg = _t._package_dirs()
    for fr in reversed(tb):
        if fr.filename.startswith("<"):  # importlib's frozen frames and other code without a file
            continue
        if not os.path.abspath(fr.filename).startswith(pkg):
            return (fr.filename, fr.lineno)
    return (path or "<kernel>", 0)


_HOOKS = "__allocsim"


def _hook(name, *args):
    return ast.Call(func=ast.Attribute(value=ast.Name(id=_HOOKS, ctx=ast.Load()), attr=name, ctx=ast.Load()),
                    args=list(args), keywords=[])


def _assigned_names(stmts):
    """Names the statements bind in the function's own scope (not in nested functions or comprehensions)."""
    names = []

    def walk(node):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef, ast.ListComp,
                             ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name not in names:
                names.append(node.name)
            return
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id not in names:
            names.append(node.id)
        for child in ast.iter_child_nodes(node):
            walk(child)
    for st in stmts:
        walk(st)
    return names


def _leaves_block(stmts):
    """Whether the statements hold a return, break or continue that would leave an `if` traced as a block."""
    def walk(node, in_loop):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            return False
        if isinstance(node, (ast.Return, ast.Yield, ast.YieldFrom)):
            return True
        if isinstance(node, (ast.Break, ast.Continue)) and not in_loop:
            return True
        inner = in_loop or isinstance(node, (ast.For, ast.While))
        return any(walk(c, inner) for c in ast.iter_child_nodes(node))
    return any(walk(st, False) for st in stmts)


class _KernelSource(ast.NodeTransformer):
    """The kernel function's source, recompiled so that the tracer sees what Python alone would decide:

    - `x[k]` (a read, k not a slice) becomes `__allocsim.subscript(x, k)`, so that a Python list of tiles can be
      indexed by a loop index (trace.subscript);
    - `if TEST: BODY else: ORELSE` runs as before unless TEST is a comparison of loop indices; then BODY is traced
      into a conditional block where TEST holds and ORELSE into one where it does not, and the names either
      assigned are poisoned after it (trace.Poisoned).
    """

    def __init__(self, first_line):
        self.count, self.offset = 0, first_line - 1

    def visit_Subscript(self, node):
        self.generic_visit(node)
        key = node.slice
        keys = key.elts if isinstance(key, ast.Tuple) else [key]
        if not isinstance(node.ctx, ast.Load) or any(isinstance(k, ast.Slice) for k in keys):
            return node
        return ast.copy_location(_hook("subscript", node.value, key), node)

    def _lazy(self, node):
        """Whether an operand can be wrapped in a lambda (it holds no assignment expression, yield or await)."""
        return not any(isinstance(n, (ast.NamedExpr, ast.Yield, ast.YieldFrom, ast.Await)) for n in ast.walk(node))

    def visit_BoolOp(self, node):
        self.generic_visit(node)
        if not all(self._lazy(v) for v in node.values):
            return node
        thunks = [ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[],
                                                kwarg=None, defaults=[]), body=v) for v in node.values]
        return ast.copy_location(_hook("bool_and" if isinstance(node.op, ast.And) else "bool_or", *thunks), node)

    def visit_UnaryOp(self, node):
        self.generic_visit(node)
        if not isinstance(node.op, ast.Not):
            return node
        return ast.copy_location(_hook("bool_not", node.operand), node)

    def visit_IfExp(self, node):
        self.generic_visit(node)
        if not self._lazy(node.body) or not self._lazy(node.orelse):
            return node
        lam = lambda body: ast.Lambda(args=ast.arguments(posonlyargs=[], args=[], vararg=None,  # noqa: E731
                                                         kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
                                      body=body)
        return ast.copy_location(_hook("if_exp", node.test, lam(node.body), lam(node.orelse)), node)

    def visit_If(self, node):
        self.generic_visit(node)
        if _leaves_block(node.body) or _leaves_block(node.orelse):
            return node
        self.count += 1
        t, p = "__allocsim_test%d" % self.count, "__allocsim_pred%d" % self.count
        c = "__allocsim_case%d" % self.count
        name = lambda n, ctx=ast.Load: ast.Name(id=n, ctx=ctx())  # noqa: E731

        def per_case(taken, body):  # for c in branches(p, taken): with c: body
            return ast.For(target=name(c, ast.Store), iter=_hook("branches", name(p), ast.Constant(taken)),
                           body=[ast.With(items=[ast.withitem(context_expr=name(c))], body=body)], orelse=[])
        traced = [per_case(True, node.body)]
        if node.orelse:
            traced.append(per_case(False, copy.deepcopy(node.orelse)))
        for n in _assigned_names(node.body + node.orelse):
            traced.append(ast.Assign(targets=[name(n, ast.Store)],
                                     value=_hook("poison", ast.Constant(n), ast.Constant(node.lineno + self.offset))))
        native = ast.If(test=name(t), body=copy.deepcopy(node.body), orelse=node.orelse)
        out = [ast.Assign(targets=[name(t, ast.Store)], value=node.test),
               ast.Assign(targets=[name(p, ast.Store)], value=_hook("traced_if", name(t))),
               ast.If(test=ast.Compare(left=name(p), ops=[ast.IsNot()], comparators=[ast.Constant(None)]),
                      body=traced, orelse=[native])]
        for st in out:  # the new statements are at the `if`'s first line
            for sub in ast.walk(st):
                if getattr(sub, "lineno", None) is None:
                    sub.lineno = sub.end_lineno = node.lineno
                    sub.col_offset, sub.end_col_offset = node.col_offset, node.col_offset
        return out


def traced_function(func):
    """The kernel function recompiled from its source with subscripts through trace.subscript (same file, same
    lines, same globals and closure); the function itself when its source is not available."""
    cached = _REWRITTEN.get(func)
    if cached is not None:
        return cached
    new = func
    try:
        lines, start = inspect.getsourcelines(func)
        tree = ast.parse(textwrap.dedent("".join(lines)))
    except (OSError, TypeError, SyntaxError, IndentationError):
        tree = None
    if tree is not None and len(tree.body) == 1 and isinstance(tree.body[0], ast.FunctionDef) and \
            tree.body[0].name == func.__name__:
        fdef = tree.body[0]
        fdef.decorator_list = []
        _KernelSource(start).visit(fdef)
        free = list(func.__code__.co_freevars)
        outer = ast.FunctionDef(
            name="__allocsim_outer",
            args=ast.arguments(posonlyargs=[], args=[ast.arg(arg=a) for a in [_HOOKS] + free], vararg=None,
                               kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]),
            body=[fdef, ast.Return(value=ast.Name(id=fdef.name, ctx=ast.Load()))], decorator_list=[], returns=None,
            type_comment=None)
        mod = ast.Module(body=[outer], type_ignores=[])
        ast.fix_missing_locations(mod)
        ast.increment_lineno(mod, start - 1)
        try:
            cells = [c.cell_contents for c in (func.__closure__ or ())]
            ns = {}
            exec(compile(mod, func.__code__.co_filename, "exec"), func.__globals__, ns)
            new = ns["__allocsim_outer"](_t.Hooks, *cells)
            new.__defaults__, new.__kwdefaults__ = func.__defaults__, func.__kwdefaults__
        except (ValueError, SyntaxError, NameError):
            new = func  # an empty closure cell, or source that no longer matches the function
    _REWRITTEN[func] = new
    return new


_REWRITTEN = weakref.WeakKeyDictionary()


def trace_kernel(kernel, args, arch="gen2", file_for_errors=None):
    """Traces `kernel` with `args` (name -> TensorArg or Python value): the program text.

    Tensor arguments become HBM tensors named after their parameters: `input` when the kernel reads them, `output`
    when it writes them; a tensor the kernel returns is an output too.
    """
    func = kernel.func if isinstance(kernel, Kernel) else kernel
    sig = inspect.signature(func)
    loc = (inspect.getsourcefile(func) or "<kernel>", func.__code__.co_firstlineno)
    tr = _t.Tracer(arch)
    values = {}
    tr.names.update(n for n, v in args.items() if isinstance(v, TensorArg))
    for name, p in sig.parameters.items():
        if p.kind in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            continue
        if name in args:
            v = args[name]
        elif p.default is not p.empty:
            v = p.default
        else:
            raise KernelError("parameter '%s' of kernel '%s' needs a value (--arg %s=DIMxDIM:DTYPE or "
                              "--arg %s=VALUE)" % (name, func.__name__, name, name), loc)
        if isinstance(v, TensorArg):
            # a parameter named like a word of the format (`start`, `input`, `loop`) is `start_` in the program
            tname = tr.unique(name) if name in _t.RESERVED else name
            tr.names.add(tname)
            v = _t.Tensor(tr, tname, "dram", v.dtype, v.shape, loc, param=True)
            v.param_name = name
            tr.tensors.append(v)
        values[name] = v
    for name in args:
        if name not in sig.parameters:
            raise KernelError("kernel '%s' has no parameter '%s'" % (func.__name__, name), loc)
    prev, _t._T = _t._T, tr
    try:
        try:
            loops = []
            for axis, n in enumerate(getattr(kernel, "grid", ())):
                g = tr._loop(0, n, 1, loc, name="spmd%d" % axis)
                tr.grid.append((n, next(g)))
                loops.append(g)
            try:
                result = traced_function(func)(**values)
            finally:
                for g in reversed(loops):
                    g.close()
        except KernelError:
            raise
        except RecursionError as e:
            raise KernelError("RecursionError: %s" % e, _innermost(e))
        except Exception as e:
            raise KernelError("%s: %s" % (type(e).__name__, e), _innermost(e))
        except BaseException as e:
            raise KernelError(_stopped(e), _innermost(e))
        outs = list(result) if isinstance(result, (tuple, list)) else ([] if result is None else [result])
        for k, o in enumerate(outs):
            if isinstance(o, _t.View) and o.tensor.space != "dram" and not tr.grid:
                # an on-chip tile returned (NKI's simulation hands back its values): stored into an HBM output of
                # its shape at the end of the kernel
                hbm = tr.tensor(o.shape, o.dtype, "dram", loc, name="returned_" + o.tensor.name)
                _t.store(hbm, o, None, loc)
                outs[k] = o = hbm
            if not isinstance(o, _t.View) or o.tensor.space != "dram":
                what = "'%s' in %s" % (o.tensor.name, o.tensor.space) if isinstance(o, _t.View) else repr(o)
                raise KernelError("kernel '%s' returns %s; a kernel returns HBM tensors%s" % (
                    func.__name__, what, " (an on-chip tile only without a launch grid)"
                    if isinstance(o, _t.View) else ""), loc)
            if not o.tensor.written:
                raise KernelError("kernel '%s' returns '%s', which it never writes" % (func.__name__, o.tensor.name),
                                  o.tensor.loc)
        if not any(t.space == "dram" and t.written for t in tr.tensors):
            raise KernelError("kernel '%s' writes no HBM tensor: it has no output" % func.__name__, loc)
        tr.returned = [o.tensor.name for o in outs]
        text = tr.render()
    finally:
        _t._T = prev
    return text, tr
