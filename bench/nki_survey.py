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
    for f in ("getting_started_torch.py", "getting_started_jax.py"):
        out.append(("sdk", X + f, "nki_tensor_add_kernel", add_case(128, 512), {"_cut": 'if __name__ == "__main__":'}))
    # two layout examples as the docs print them: one uses an undefined name, the other does not parse
    for f in ("layout-loop.py", "layout-dynamic-loop.py"):
        out.append(("sdk", X + f, "tensor_exp_kernel_", ((rnd(256, 512),), np.exp), {}))
    out.append(("samples", T + "tensor_addition/spmd_multiple_nc_tensor_addition_nki_kernels.py", "nki_tensor_add_nc2",
                add_case(512, 1024), {"_caller": True}))
    mxs = "nki/deep-dives/src/mxfp-matmul/mx_kernels.py"
    out.append(("sdk", mxs, "kernel_offline_quantized_mx_matmul", None, {"_args": [
        ((128, 512), u8), ((16, 32), u8), ((128, 2048), u8), ((16, 128), u8), "float8_e4m3fn_x4"]}))
    # kernels printed in the SDK's documentation pages (PATH.rst@LINE: the line of their code-block directive)
    ko = "nki/guides/tutorials/kernel-optimization.rst@"
    for line, dims in ((40, (128, 128, 512)), (203, (256, 256, 1024)), (360, (256, 256, 1024)),
                       (486, (256, 512, 2048)), (634, (1024, 2048, 1024))):
        out.append(("doc", ko + str(line), "matrix_multiply_kernel", matmul_case(*dims), {}))
    three_exps = ((rnd(128, 64), rnd(128, 64), rnd(128, 64)), lambda a, b, c: np.exp(np.concatenate([a, b, c], 1)))
    for line in (103, 132):
        out.append(("doc", "nki/guides/how-to-scheduling-apis.rst@%d" % line, "loop", three_exps, {"_cat": 1}))
    blocks = rnd(8, 128, 512)
    for line in (1433, 1474):
        for k in ("sb_blocks", "sb_blocks_migrated"):
            out.append(("doc", "nki/migration/index.rst@%d" % line, k, ((blocks,), lambda x: x), {}))
    out.append(("doc", "nki/migration/index.rst@1501", "sb_blocks_migrated_incorrect", ((blocks,), lambda x: x), {}))
    out.append(("doc", "nki/get-started/about/nki-dma-overview.rst@109", "tensor_exp_kernel_isa",
                ((rnd(4, 4096),), np.exp), {"_cut": 'if __name__ == "__main__":'}))
    out.append(("doc", "nki/get-started/about/nki-dma-overview.rst@174", "tensor_exp_kernel_isa",
                ((rnd(128, 128),), np.exp), {"_cut": 'if __name__ == "__main__":'}))
    x = rnd(256, 512)
    for k, f in (("relu_kernel", lambda x, o: np.maximum(x, 0)), ("scale_kernel", lambda x, o: x * np.float32(0.5))):
        out.append(("doc", "nki/get-started/nki-language-guide.rst@670", k, ((x, np.zeros_like(x)), f),
                    {"_out": "a_output"}))
    for ref in ("nki/get-started/nki-language-guide.rst@15", "nki/get-started/quickstart-implement-run-kernel.rst@138"):
        out.append(("doc", ref, "nki_tensor_add_kernel", add_case(128, 512), {"_cut": 'if __name__ == "__main__":'}))
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


# ---- traced kernels for corpus/nki_samples ---------------------------------------------------------------------

# (name, root, file, kernel, arguments: (shape, dtype) for an HBM tensor or a Python value, launch grid or None,
#  arch, what it computes). Sizes are small (ctest runs every file); the tiny files use the tiny machine's tiles.
F32, BF16, U8 = "float32", "bfloat16", "uint8"
T_ = "src/nki_samples/tutorials/"
MAMBA = T_ + "fused_mamba/mamba_nki_kernels.py"
ATTN = T_ + "attention_fwd_performance/attention_kernels.py"


def mamba_args(ch, sl, st):
    return [((1, ch, sl), F32), ((1, ch, sl), F32), ((ch, st), F32), ((1, st, sl), F32), ((1, st, sl), F32)]


CORPUS = [
    ("mamba_v1", "samples", MAMBA, "mamba_v1", mamba_args(256, 256, 4), None, "gen2",
     "the selective scan of Mamba, its first version: per channel tile, per state, exp(delta * A), delta * u * B, the "
     "scan along the sequence and the sum of scan * C; batch 1, channels 256, seq_len 256, state_size 4"),
    ("mamba_v1_tiny", "samples", MAMBA, "mamba_v1", mamba_args(128, 32, 4), None, "tiny",
     "mamba_v1 on the tiny machine: channels 128 in tiles of 8, seq_len 32, state_size 4"),
    ("mamba_v3", "samples", MAMBA, "mamba_v3", mamba_args(128, 512, 4), None, "gen2",
     "mamba_v3 (sequence tiles of 512 with the scan state carried between them, B and C broadcast along partitions "
     "on the PE): channels 128, seq_len 512, state_size 4"),
    ("attn_fwd_v6", "samples", ATTN, "attn_fwd_v6", [((128, 512), F32)] * 3, None, "gen2",
     "attention forward, the performance tutorial's sixth step (the score's scale, max and exp combined on the Scalar "
     "Engine): d_head 128, seqlen 512, f32"),
    ("attn_fwd_v11", "samples", ATTN, "attn_fwd_v11", [((128, 512), BF16)] * 3, None, "gen2",
     "attention forward, the performance tutorial's last step (software-pipelined): d_head 128, seqlen 512, bf16"),
    ("tensor_add_spmd", "samples", T_ + "tensor_addition/spmd_tensor_addition_nki_kernels.py",
     "nki_tensor_add_kernel_", [((256, 1024), F32), ((256, 1024), F32)], (2, 2), "gen2",
     "elementwise addition of [256, 1024] tensors by a 2 x 2 SPMD grid of [128, 512] tiles (nl.program_id)"),
    ("maxpool_stride1", "samples", "contributed/maxpooling.py", "max_pooling_2d_stride_1", [((130, 20), F32), 3],
     None, "gen2", "3 x 3 max pooling with stride 1 of a [130, 20] image: row tiles of 128 with a masked last "
                   "tile, the window as a view over consecutive rows, nl.max over two free axes"),
    ("maxpool_stride1_tiny", "samples", "contributed/maxpooling.py", "max_pooling_2d_stride_1", [((18, 12), F32), 3],
     None, "tiny", "maxpool_stride1 on the tiny machine: an [18, 12] image in row tiles of 8"),
    ("interpolate_bilinear", "samples", "contributed/interpolate_bilinear_fwd.py", "interpolate_bilinear_2x_fwd",
     [((1, 16, 20, 16), F32)], None, "gen2",
     "2x bilinear upsampling (align_corners=False) of a [1, 16, 20, 16] image, in chunks of 10 rows"),
    ("interpolate_bilinear_tiny", "samples", "contributed/interpolate_bilinear_fwd.py", "interpolate_bilinear_2x_fwd",
     [((1, 2, 20, 8), F32)], None, "tiny", "interpolate_bilinear on the tiny machine: a [1, 2, 20, 8] image"),
    ("matmul_doc_hoisted", "doc", "nki/guides/tutorials/kernel-optimization.rst@360", "matrix_multiply_kernel",
     [((256, 256), F32), ((256, 1024), F32)], None, "gen2",
     "the kernel-optimization guide's matmul with the loads hoisted out of the inner loop, in the destination-first "
     "nki.isa API (nisa.dma_copy, nisa.nc_matmul(dst=...), nisa.tensor_copy): K 256, M 256, N 1024"),
    ("matmul_doc_hoisted_tiny", "doc", "nki/guides/tutorials/kernel-optimization.rst@360", "matrix_multiply_kernel",
     [((16, 16), F32), ((16, 128), F32)], None, "tiny", "matmul_doc_hoisted on the tiny machine: K 16, M 16, N 128"),
    ("select_reduce", "sdk", "nki/test/test_nki_isa_select_reduce.py", "nki_select_reduce_with_reduction",
     [((128, 512), U8), ((128, 512), F32), ((128, 1), F32)], None, "gen2",
     "nisa.select_reduce's API example: where(predicate, on_true, on_false column) and its row maximum through the "
     "Vector Engine's accumulator"),
    ("load_transpose2d", "sdk", "nki/test/test_nki_nl_load_transpose2d.py", "example_kernel_0", [((512, 128), F32)],
     None, "gen2", "nl.load_transpose2d's API example on a [512, 128] tensor: four row blocks, each loaded, "
                   "transposed on the PE and copied into the result's columns"),
    ("sequence_bounds", "sdk", "nki/test/test_nki_isa_sequence_bounds.py", "nki_sequence_bounds", [((1, 32), F32)],
     None, "gen2", "nisa.sequence_bounds' API example on [1, 32] segment ids: the start and end of each element's run, "
                   "running maximum and (over a backwards view) running minimum with tt_scan"),
    ("match_replace8", "sdk", "nki/test/test_nki_isa_nc_match_replace8.py", "nki_nc_match_replace_indices8",
     [((128, 512), F32), float("-inf")], None, "gen2",
     "nisa.max8 and nisa.nc_match_replace8's API example on [128, 512]: the 8 largest values of each row, their "
     "positions and the row with them replaced by -inf (reductions, comparisons and selections over an iota)"),
    ("stream_shuffle", "sdk", "nki/test/test_nki_isa_nc_stream_shuffle.py", "nki_nc_stream_shuffle_broadcast_mask",
     [((128, 128), F32)], None, "gen2",
     "nisa.nc_stream_shuffle's API example on [128, 128]: each quadrant of 32 partitions rotated by one, as SBUF to "
     "SBUF DMAs of partition runs"),
    ("indirect_store_rmw", "sdk", "nki/test/test_nki_isa_dma_copy.py", "nki_indirect_store_rmw", [((64, 512), F32)],
     None, "gen2", "nisa.dma_copy's indirect store with dst_rmw_op=np.add through an iota index (rows 2p): a loop "
                   "over the partitions, each HBM row read, added to and written back"),
]


def write_corpus(roots, dest, tmp, commits):
    """Traces each CORPUS kernel with its arguments and writes DEST/NAME.nki.txt: a header saying what it computes and
    where it comes from, then the program (each line's `# FILE:LINE` relative to its repository)."""
    import allocsim_nki.language as nl
    modules = {}
    for name, root, f, kernel, args, grid, arch, what in CORPUS:
        path = doc_block(roots["sdk"], f, tmp) if root == "doc" else os.path.join(roots[root], f)
        if path not in modules:
            modules[path] = load_module(path)
        ker = kernels(modules[path])[kernel]
        if grid:
            ker = ker[grid]
        params = [p for p in ker.parameters()]
        vals = [allocsim_nki.TensorArg(*a) if isinstance(a, tuple) else a for a in args]
        text = allocsim_nki.program(ker, *vals, arch=arch)
        for r in roots.values():
            text = text.replace(r + "/", "")
        text = text.replace(tmp + "/", "")
        repo = "aws-neuron/aws-neuron-sdk" if root in ("sdk", "doc") else "aws-neuron/nki-samples"
        src = f.replace("@", ", the code block at line ") if root == "doc" else f
        shown = ", ".join("%s=%s" % (p.name, "x".join(map(str, a[0])) + ":" + a[1] if isinstance(a, tuple) else a)
                          for p, a in zip(params, args))
        head = ["%s: %s." % (name, what),
                "Traced by python/allocsim_nki (allocsim nki) from %s at %s, %s, kernel %s(%s)%s." % (
                    repo, commits[root], src, kernel, shown, ", grid %s" % "x".join(map(str, grid)) if grid else ""),
                "Written by bench/nki_survey.py --write-corpus; each line's comment is the kernel line that made it."]
        import textwrap
        lines = []
        for h in head:
            lines += ["# " + w for w in textwrap.wrap(h, 116)]
        with open(os.path.join(dest, name + ".nki.txt"), "w") as out:
            out.write("\n".join(lines) + "\n" + text)
        print("wrote %s (%d lines)" % (name, text.count("\n")))


def head_commit(path):
    """The commit a checkout or git directory is at (short), for the corpus headers."""
    git = ["git", "--git-dir", path] if not os.path.isdir(os.path.join(path, ".git")) else ["git", "-C", path]
    p = subprocess.run(git + ["rev-parse", "--short=8", "HEAD"], capture_output=True, text=True)
    return p.stdout.strip() or "an unknown commit"


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
                                                                  "torch_xla.core.xla_model"), ("torch_neuronx",)):
        try:
            __import__(names[0])
        except ImportError:
            for name in names:
                sys.modules[name] = types.ModuleType(name)
                if "." in name:
                    parent, child = name.rsplit(".", 1)
                    setattr(sys.modules[parent], child, sys.modules[name])
    try:
        import pytest  # noqa: F401  (test files mark their tests with it)
    except ImportError:
        from allocsim_nki.cli import stand_in
        stand_in("pytest")
    if not hasattr(sys.modules["torch_neuronx"], "nki_jit"):
        sys.modules["torch_neuronx"].nki_jit = allocsim_nki.jit  # torch_neuronx's spelling of the decorator


DOC_IMPORTS = "import nki\nimport nki.language as nl\nimport nki.isa as nisa\nimport numpy as np\n"


def doc_block(sdk_root, ref, tmp):
    """The Python code block of an .rst page of the SDK whose `.. code-block:: python` directive is at line LINE
    (ref: PATH.rst@LINE), as a file; blocks that use nki, nl, nisa or np without importing them get the imports."""
    import textwrap
    path, line = ref.rsplit("@", 1)
    with open(os.path.join(sdk_root, path)) as f:
        lines = f.read().splitlines()
    head = lines[int(line) - 1]
    if ".. code-block:: python" not in head:
        raise RuntimeError("%s:%s is not a python code block" % (path, line))
    indent = len(head) - len(head.lstrip())
    body = []
    for text in lines[int(line):]:
        if text.strip() and len(text) - len(text.lstrip()) <= indent:
            break
        if not text.strip().startswith(":") or body:
            body.append(text)
    code = textwrap.dedent("\n".join(body)) + "\n"
    if "import nki" not in code and "import neuronxcc" not in code:
        code = DOC_IMPORTS + code
    dest = os.path.join(tmp, "doc_%s_%s.py" % (os.path.basename(path)[:-4].replace("-", "_"), line))
    with open(dest, "w") as f:
        f.write(code)
    return dest


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
    caller, out_param = kw.pop("_caller", False), kw.pop("_out", None)
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
    if caller:
        # a Python function that launches a kernel (on a grid it computes): its kernel calls go through allocsim
        calls = KernelCalls()
        allocsim_nki.simulate_kernel = calls
        try:
            got = getattr(mod, kernel)(*arrays, **kw)
        finally:
            allocsim_nki.simulate_kernel = calls.real
        want = ref(*arrays)
        err = float(np.max(np.abs(got - want)) / max(1e-6, float(np.max(np.abs(want)))))
        notes = "; ".join("%s: %s%s" % (c[0], c[1], " (%s)" % c[2] if c[2] else "") for c in calls.calls)
        return "yes", "yes" if err < 2e-2 else "NO", "relative error %.1e, %s" % (err, notes)
    run_note = None
    try:
        r = allocsim_nki.simulate(ker, *arrays, optlevel=2, **kw)
    except RuntimeError as e:
        if not str(e).startswith("allocsim run failed"):
            raise
        # the values come from the interpreter; the timing run needs the -O2 allocation, which can fail
        run_note = str(e).splitlines()[1].split(": ", 1)[-1] if len(str(e).splitlines()) > 1 else str(e)
        r = allocsim_nki.simulate(ker, *arrays, optlevel=2, timing=False, **kw)
    got = np.concatenate(r.returned, 1) if cat else r.outputs[out_param] if out_param else r.returned
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
    ap.add_argument("--write-corpus", metavar="DIR", help="write the traced kernels of corpus/nki_samples into DIR "
                    "instead of surveying (needs --sdk)")
    ap.add_argument("filters", nargs="*")
    a = ap.parse_args()
    stand_in_torch()
    if a.write_corpus:
        with tempfile.TemporaryDirectory() as tmp:
            roots = {"samples": export(a.samples, tmp, "samples"), "sdk": export(a.sdk, tmp, "sdk")}
            commits = {"samples": head_commit(a.samples), "sdk": head_commit(a.sdk), "doc": head_commit(a.sdk)}
            write_corpus(roots, a.write_corpus, tmp, commits)
        return
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
            if root not in roots and not (root == "doc" and "sdk" in roots):
                continue
            tag = "%s:%s %s" % (root, f, kernel)
            if a.filters and not any(s in tag for s in a.filters):
                continue
            try:
                path = doc_block(roots["sdk"], f, tmp) if root == "doc" else os.path.join(roots[root], f)
                traced, match, note = run_case(path, kernel, spec, kw, modules, tmp)
            except KernelError as e:
                traced, match, note = "refused", "-", e.format().replace(roots.get(root, roots.get("sdk")) + "/", "")
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
