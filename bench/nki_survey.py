"""Survey of the public NKI kernels: each one traced, simulated and compared with numpy.

For every kernel of the aws-neuron/nki-samples repository (tutorials, contributed kernels, the mx tutorial) and of the
NKI examples in aws-neuron/aws-neuron-sdk, this script runs `allocsim_nki.simulate` with small inputs that the
kernel accepts and prints one row: whether it traced, whether the interpreter's outputs match a numpy computation
of the same math (written here, independently of the kernel), or the tracer's refusal with its kernel line.

    python3 bench/nki_survey.py --samples NKI_SAMPLES [--sdk AWS_NEURON_SDK] [--markdown] [FILTER ...]

NKI_SAMPLES and AWS_NEURON_SDK are checkouts, or git directories (bare or not; their HEAD is exported to a
temporary directory). FILTER strings keep only the rows whose file or kernel name contains one of them.
Needs numpy; uses build/allocsim of this source tree unless $ALLOCSIM_BINARY names another binary.

With --sdk, the SDK's NKI API examples (nki/test/test_*.py) run too, as their own unit tests: each kernel call goes
through allocsim (interpreter outputs back to the test, whose numpy assertions are the reference; the -O2 simulation
checked against the interpreter; the -O2 allocation verified), one row per test.

Kernel files that import torch or torch_xla (only for their own checks) get empty stand-in modules when torch is missing;
module-level code that runs a kernel at import (a test at the end of the file) is cut off before loading.
"""

import argparse
import os
import subprocess
import sys
import tempfile
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))
if "ALLOCSIM_BINARY" not in os.environ and os.path.exists(os.path.join(ROOT, "build", "allocsim")):
    os.environ["ALLOCSIM_BINARY"] = os.path.join(ROOT, "build", "allocsim")

import numpy as np  # noqa: E402

import allocsim_nki  # noqa: E402
from allocsim_nki.kernel import kernels, load_module  # noqa: E402
from allocsim_nki.trace import KernelError  # noqa: E402

R = np.random.RandomState(0)


def rnd(*shape):
    return R.uniform(-1, 1, size=shape).astype(np.float32)


# ---- numpy references ----------------------------------------------------------------------------------------

def attention_ref(q, k, v):
    """softmax(q^T k) v^T, rows of q^T against columns of k (q, k, v: [d, seqlen])."""
    s = q.T.astype(np.float64) @ k
    s = np.exp(s - s.max(1, keepdims=True))
    return (s / s.sum(1, keepdims=True)) @ v.T.astype(np.float64)


def avgpool_ref(x, p):
    c, h, w = x.shape
    return x.reshape(c, h // p, p, w // p, p).mean(axis=(2, 4))


def maxpool_stride1_ref(x, k):
    h, w = x.shape
    out = np.full((h - k + 1, w - k + 1), -np.inf, np.float32)
    for a in range(k):
        for b in range(k):
            out = np.maximum(out, x[a:a + h - k + 1, b:b + w - k + 1])
    return out


def mamba_ref(delta, u, A, B, C):
    bs, ch, sl = delta.shape
    out = np.zeros_like(u, dtype=np.float64)
    for b in range(bs):
        dA = np.exp(delta[b][:, None, :] * A[:, :, None])
        dBu = delta[b][:, None, :] * B[b][None, :, :] * u[b][:, None, :]
        h = np.zeros((ch, A.shape[1]))
        for t in range(sl):
            h = dA[:, :, t] * h + dBu[:, :, t]
            out[b, :, t] = (h * C[b][None, :, t]).sum(1)
    return out


def upsample2x_axis(x, axis):
    """Linear 2x upsampling along one axis, half-pixel centres (align_corners=False), as torch interpolates."""
    n = x.shape[axis]
    src = np.maximum((np.arange(2 * n) + 0.5) / 2 - 0.5, 0)
    lo = np.floor(src).astype(int)
    hi = np.minimum(lo + 1, n - 1)
    w = (src - lo).reshape([-1 if a == axis else 1 for a in range(x.ndim)])
    return np.take(x, lo, axis) * (1 - w) + np.take(x, hi, axis) * w


def bilinear_ref(x):
    return upsample2x_axis(upsample2x_axis(x.astype(np.float64), 2), 3)


def trilinear_ref(x):
    return upsample2x_axis(upsample2x_axis(upsample2x_axis(x.astype(np.float64), 2), 3), 4)


def matmul_case(K, M, N):
    return (rnd(K, M), rnd(K, N)), lambda a, b: a.T.astype(np.float64) @ b


def add_case(rows, cols):
    return (rnd(rows, cols), rnd(rows, cols)), lambda a, b: a + b


# ---- the kernels ---------------------------------------------------------------------------------------------

# (root, file, kernel, (arrays, reference or None), keyword arguments; "_grid": a launch grid, "_cat": the outputs
# are a tuple to concatenate along axis 1, "_cut": the line from which the file's module-level code is dropped)
def cases():
    T = "src/nki_samples/tutorials/"
    X = "nki/examples/"
    out = []
    mm = [("nki_matmul_basic_", (128, 64, 512)), ("nki_matmul_tiled_", (256, 256, 1024)),
          ("nki_matmul_hoist_load_", (256, 256, 1024)), ("nki_matmul_block_free_dimension_", (256, 512, 2048)),
          ("nki_matmul_fully_optimized_", (1024, 2048, 1024))]
    for root, f in (("samples", T + "matrix_multiplication/"), ("sdk", X + "matrix_multiplication/")):
        for k, dims in mm:
            out.append((root, f + "matrix_multiplication_nki_kernels.py", k, matmul_case(*dims), {}))
    for root, f in (("samples", T + "average_pool2d/"), ("sdk", X + "average_pool2d/")):
        x = rnd(8, 12, 12)
        out.append((root, f + "average_pool2d_nki_kernels.py", "tensor_avgpool_kernel",
                    ((x,), lambda x: avgpool_ref(x, 2)), {"pool_size": 2}))
    for root, f in (("samples", T + "transpose2d/"), ("sdk", X + "transpose2d/")):
        x = rnd(5, 12)
        out.append((root, f + "transpose2d_nki_kernels.py", "tensor_transpose2D_kernel_",
                    ((x,), lambda x: x.reshape(5, 3, 4).transpose(0, 2, 1).reshape(5, 12)), {"shape2D": (3, 4)}))
    out.append(("samples", T + "tensor_addition/tensor_addition_nki_kernels.py", "nki_tensor_add_kernel_",
                add_case(256, 1024), {"_grid": (2, 2)}))
    out.append(("samples", T + "tensor_addition/spmd_tensor_addition_nki_kernels.py", "nki_tensor_add_kernel_",
                add_case(256, 1024), {"_grid": (2, 2)}))
    out.append(("sdk", X + "tensor_addition/tensor_addition_nki_kernels.py", "nki_tensor_add", add_case(256, 1024),
                {}))
    out.append(("sdk", X + "getting_started_baremetal.py", "nki_tensor_add_kernel", add_case(128, 512), {}))
    for root, f in (("samples", T + "fused_mamba/"), ("sdk", X + "fused_mamba/")):
        for k in ("mamba_v1", "mamba_v2", "mamba_v3"):
            bs, ch, sl, st = 1, 256, 512, 16
            args = (rnd(bs, ch, sl) * 0.1 + 0.2, rnd(bs, ch, sl), -np.abs(rnd(ch, st)), rnd(bs, st, sl),
                    rnd(bs, st, sl))
            out.append((root, f + "mamba_nki_kernels.py", k, (args, mamba_ref), {}))
    attn = T + "attention_fwd_performance/attention_kernels.py"
    for k in ["attn_fwd_v%d" % i for i in range(1, 9)] + ["attn_fwd_v8a"] + ["attn_fwd_v%d" % i for i in (9, 10, 11)]:
        n = 128 if k in ("attn_fwd_v1", "attn_fwd_v2") else 512
        out.append(("samples", attn, k, ((rnd(128, n), rnd(128, n), rnd(128, n)), attention_ref), {}))
    mx = T + "mxfp-matmul/mx_kernels.py"
    u8, bf = "uint8", "bfloat16"
    for k, args in (("kernel_offline_quantized_mx_matmul", [((128, 512), u8), ((16, 32), u8), ((128, 2048), u8),
                                                           ((16, 128), u8), "float8_e4m3fn_x4"]),
                    ("kernel_on_device_quantize_matmul_mx", [((128, 512), u8), ((16, 32), u8), ((128, 512), bf),
                                                            "float8_e4m3fn_x4", "float8_e4m3fn_x4"]),
                    ("kernel_copy_strided_quantize_matmul_mx", [((512, 128), bf), ((512, 512), bf),
                                                               "float8_e4m3fn_x4"])):
        out.append(("samples", mx, k, None, {"_args": args}))
    out.append(("samples", "contributed/matmul.py", "matmul", matmul_case(1024, 512, 2048), {}))
    x = R.uniform(0, 1, (130, 20)).astype(np.float32)
    out.append(("samples", "contributed/maxpooling.py", "max_pooling_2d_stride_1",
                ((x,), lambda x: maxpool_stride1_ref(x, 3)), {"pool_size": 3}))
    out.append(("samples", "contributed/interpolate_bilinear_fwd.py", "interpolate_bilinear_2x_fwd",
                ((rnd(2, 64, 20, 16),), bilinear_ref), {}))
    out.append(("samples", "contributed/interpolate_trilinear_fwd.py", "interpolate_trilinear_2x_fwd",
                ((rnd(2, 64, 6, 6, 6),), trilinear_ref), {}))
    # its own test runs at 16k tokens only: traced, not simulated (the interpreter would take hours)
    out.append(("samples", "contributed/pipelined_attention.py", "flash_fwd", None,
                {"_cut": "bs=1", "_grid": (1,), "_args": [((1, 128, 16384), "bfloat16"), ((1, 128, 16384), "bfloat16"),
                                           ((1, 16384, 128), "bfloat16")],
                 "softmax_scale": 0.125, "use_causal_mask": False}))
    for f, k in (("layout-pass.py", "tensor_exp_kernel_"), ("layout-violation.py", "tensor_exp_kernel_")):
        out.append(("sdk", X + f, k, ((rnd(128, 512),), np.exp), {}))
    out.append(("sdk", X + "index-case-1.py", "tensor_split_kernel_",
                ((rnd(128, 512),), lambda x: np.concatenate([x[:, 0::2], x[:, 1::2]], 1)), {"_cat": 1}))
    out.append(("sdk", X + "index-case-3.py", "tensor_maxpool_kernel_",
                ((rnd(128, 12, 12),), lambda x: x.reshape(128, 6, 2, 6, 2).max(axis=(2, 4))), {"sz_pool": 2}))
    out.append(("sdk", X + "simulate/nki_simulate_example.py", "add_kernel", add_case(128, 512), {}))
    return out


# ---- the API examples: the SDK's nki/test files, run as their own unit tests ----------------------------------

class KernelCalls:
    """Every kernel call of a unit test, through allocsim: the interpreter's outputs go back to the test (whose own
    numpy assertions are the reference), the simulation at -O2 is checked against the interpreter, and the -O2
    allocation is verified by the three oracles. One entry per call: (kernel, stage reached, note)."""

    def __init__(self):
        self.calls = []
        self.real = allocsim_nki.simulate_kernel

    def __call__(self, kernel, *args, **kwargs):
        name = getattr(kernel, "__name__", "?")
        try:
            returned = self.real(kernel, *args, **kwargs)
        except KernelError as e:
            self.calls.append((name, "refused", e.format()))
            raise
        except Exception as e:
            self.calls.append((name, "ERROR", "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[-1][:200])))
            raise
        entry = [name, "traced", ""]
        self.calls.append(entry)
        try:
            r = allocsim_nki.simulate(kernel, *args, optlevel=2, **kwargs)
            entry[1:] = ["simulated", "%d cycles" % r.cycles]
            v = allocsim_nki.verify(kernel, *args, optlevel=2, **kwargs)
            if v.ok:
                entry[1] = "verified"
            else:
                entry[2] += "; verify: " + "; ".join(str(f.get("message", f))[:120] for f in v.findings[:2])
        except RuntimeError as e:
            entry[2] = " ".join(str(e).split())[:240]
        return returned


def test_cases(loader, module):
    import unittest
    stack = [loader.loadTestsFromModule(module)]
    while stack:
        s = stack.pop(0)
        for t in s:
            if isinstance(t, unittest.TestSuite):
                stack.append(t)
            else:
                yield t


def run_api_examples(sdk_root, filters, emit):
    """Rows of the SDK's nki/test/test_*.py: per unit test, the kernels it calls, the stage each reached (refused,
    traced, simulated: -O2 simulation equal to the interpreter, verified: and the -O2 allocation passes the
    oracles) and whether the test's own assertions hold on the interpreter's outputs."""
    import unittest
    d = os.path.join(sdk_root, "nki", "test")
    calls = KernelCalls()
    allocsim_nki.simulate_kernel = calls
    try:
        for fn in sorted(os.listdir(d)):
            if not (fn.startswith("test_") and fn.endswith(".py")):
                continue
            rel = "nki/test/" + fn
            if filters and not any(f in "sdk:" + rel for f in filters):
                continue
            try:
                mod = load_module(os.path.join(d, fn))
            except KernelError as e:
                emit("sdk:" + rel, "ERROR", "-", "-", e.format().replace(sdk_root + "/", ""))
                continue
            for t in test_cases(unittest.defaultTestLoader, mod):
                calls.calls = []
                res = unittest.TestResult()
                t.run(res)
                bad = res.errors + res.failures
                ok = "yes" if not bad and not res.skipped else "NO"
                stages = [c[1] for c in calls.calls]
                worst = next((s for s in ("ERROR", "refused", "traced", "simulated") if s in stages),
                             "verified" if stages else "-")
                notes = ["%s: %s%s" % (c[0], c[1], " (%s)" % c[2] if c[2] else "") for c in calls.calls]
                if bad and worst not in ("ERROR", "refused"):
                    notes.append(bad[0][1].strip().splitlines()[-1][:200])
                emit("sdk:%s %s" % (rel, t.id().split(".", 1)[-1]), worst, ok if stages else "-",
                     str(len(stages)), "; ".join(notes).replace(sdk_root + "/", ""))
    finally:
        allocsim_nki.simulate_kernel = calls.real


# ---- running them --------------------------------------------------------------------------------------------

def export(path, tmp, name):
    """A checkout as is; a git directory's HEAD exported into tmp/name."""
    if os.path.isdir(os.path.join(path, "src")) or os.path.isdir(os.path.join(path, "nki")):
        return path
    dest = os.path.join(tmp, name)
    os.makedirs(dest)
    archive = subprocess.run(["git", "--git-dir", path, "archive", "HEAD"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", dest], input=archive, check=True)
    return dest


def stand_in_torch():
    for names in (("torch", "torch.nn", "torch.nn.functional"), ("torch_xla", "torch_xla.core",
                                                                  "torch_xla.core.xla_model")):
        try:
            __import__(names[0])
        except ImportError:
            for name in names:
                sys.modules[name] = types.ModuleType(name)
                if "." in name:
                    parent, child = name.rsplit(".", 1)
                    setattr(sys.modules[parent], child, sys.modules[name])


def cut_file(path, marker, tmp):
    with open(path) as f:
        lines = f.readlines()
    keep = []
    for line in lines:
        if line.strip() == marker:
            break
        keep.append(line)
    dest = os.path.join(tmp, "cut_" + os.path.basename(path))
    with open(dest, "w") as f:
        f.writelines(keep)
    return dest


def run_case(path, kernel, spec, kw, modules, tmp):
    kw = dict(kw)
    cut, grid, cat = kw.pop("_cut", None), kw.pop("_grid", None), kw.pop("_cat", None)
    if cut:
        path = cut_file(path, cut, tmp)
    if path not in modules:
        sys.path.insert(0, os.path.dirname(path))
        try:
            modules[path] = load_module(path)
        finally:
            sys.path.pop(0)
    mod = modules[path]
    ker = kernels(mod).get(kernel) or getattr(mod, kernel)
    if grid:
        ker = ker[grid]
    if spec is None:
        # traced only: tensors as (shape, dtype), strings as nki.language attributes (an mx dtype)
        import allocsim_nki.language as nl
        args = [getattr(nl, a) if isinstance(a, str) else allocsim_nki.TensorArg(*a) for a in kw.pop("_args")]
        text = allocsim_nki.program(ker, *args, **kw)
        return "yes", "-", "traced only: %d program lines" % text.count("\n")
    arrays, ref = spec
    run_note = None
    try:
        r = allocsim_nki.simulate(ker, *arrays, optlevel=2, **kw)
    except RuntimeError as e:
        if not str(e).startswith("allocsim run failed"):
            raise
        # the values come from the interpreter; the timing run needs the -O2 allocation, which can fail
        run_note = str(e).splitlines()[1].split(": ", 1)[-1] if len(str(e).splitlines()) > 1 else str(e)
        r = allocsim_nki.simulate(ker, *arrays, optlevel=2, timing=False, **kw)
    got = np.concatenate(r.returned, 1) if cat else r.returned
    want = ref(*arrays)
    if got.shape != want.shape and got.size == want.size:
        got = got.reshape(want.shape)  # a kernel that reshapes its HBM output as it returns it
    err = float(np.max(np.abs(got - want)) / max(1e-6, float(np.max(np.abs(want)))))
    # bf16 intermediates (the attention tutorials compute in bf16) keep about 3 significant digits
    timing = "%d cycles" % r.cycles if run_note is None else "no cycles: -O2 allocation: " + run_note
    if run_note is None:
        v = allocsim_nki.verify(ker, *arrays, optlevel=2, **kw)
        timing += ", -O2 verified" if v.ok else ", -O2 verify: %d findings (%s)" % (
            len(v.findings), str(v.findings[0].get("message", v.findings[0]))[:160])
    return "yes", "yes" if err < 2e-2 else "NO", "relative error %.1e, %s" % (err, timing)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--samples", required=True, help="aws-neuron/nki-samples checkout or git directory")
    ap.add_argument("--sdk", help="aws-neuron/aws-neuron-sdk checkout or git directory (its nki/examples)")
    ap.add_argument("--markdown", action="store_true", help="print a markdown table")
    ap.add_argument("filters", nargs="*")
    a = ap.parse_args()
    stand_in_torch()
    counts = {"traced": 0, "match": 0, "rows": 0}
    with tempfile.TemporaryDirectory() as tmp:
        roots = {"samples": export(a.samples, tmp, "samples")}
        if a.sdk:
            roots["sdk"] = export(a.sdk, tmp, "sdk")
        modules = {}
        if a.markdown:
            print("| kernel | traced | matches numpy | note |")
            print("|---|---|---|---|")
        for root, f, kernel, spec, kw in cases():
            if root not in roots:
                continue
            tag = "%s:%s %s" % (root, f, kernel)
            if a.filters and not any(s in tag for s in a.filters):
                continue
            path = os.path.join(roots[root], f)
            try:
                traced, match, note = run_case(path, kernel, spec, kw, modules, tmp)
            except KernelError as e:
                traced, match, note = "refused", "-", e.format().replace(roots[root] + "/", "")
            except Exception as e:  # a kernel file that does not load, or a failure of the run itself
                traced, match, note = "ERROR", "-", "%s: %s" % (type(e).__name__, str(e).splitlines()[0][:200])
            note = note.replace(tmp + "/", "").replace("\n", " ")
            counts["rows"] += 1
            counts["traced"] += traced == "yes"
            counts["match"] += match == "yes"
            if a.markdown:
                print("| %s | %s | %s | %s |" % (tag, traced, match, note.replace("|", "\\|")))
            else:
                print("%-8s %-5s %s  %s" % (traced, match, tag, note))
            sys.stdout.flush()
        print("%d kernels: %d traced, %d match numpy" % (counts["rows"], counts["traced"], counts["match"]))
        if "sdk" in roots:
            api_examples(roots["sdk"], a.filters, a.markdown)


def api_examples(sdk_root, filters, markdown):
    tally = {}
    if markdown:
        print()
        print("| unit test | stage | test passes | kernel calls | note |")
        print("|---|---|---|---|---|")

    def emit(tag, stage, ok, n, note):
        tally[stage] = tally.get(stage, 0) + 1
        tally["passes"] = tally.get("passes", 0) + (ok == "yes")
        tally["rows"] = tally.get("rows", 0) + 1
        note = note.replace("\n", " ")
        if markdown:
            print("| %s | %s | %s | %s | %s |" % (tag, stage, ok, n, note.replace("|", "\\|")))
        else:
            print("%-9s %-3s %s  %s" % (stage, ok, tag, note))
        sys.stdout.flush()
    run_api_examples(sdk_root, filters, emit)
    print("%d unit tests: %s; %d pass their own assertions" % (
        tally.get("rows", 0), ", ".join("%d %s" % (tally[k], k) for k in ("verified", "simulated", "traced", "refused",
                                                                          "ERROR", "-") if tally.get(k)),
        tally.get("passes", 0)))


if __name__ == "__main__":
    main()
