"""The NKI front end end to end: kernels of tests/kernels/ traced, run by the allocsim binary, and compared with
numpy computations of the same math and, where corpus/nki_samples has the kernel, with its hand translation (the
same outputs bit for bit at the same inputs).

Run by ctest (nki_python); by hand: ALLOCSIM_BINARY=build/allocsim PYTHONPATH=python python3 -m unittest discover
-s python/tests
"""

import os
import re
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.dirname(os.path.dirname(HERE))
KERNELS = os.path.join(HERE, "kernels")
sys.path.insert(0, KERNELS)

import allocsim_nki  # noqa: E402
from arrays import rand, same_bits  # noqa: E402
import attention  # noqa: E402
import columns  # noqa: E402
import constants  # noqa: E402
import conditions  # noqa: E402
import layernorm  # noqa: E402
import matmul  # noqa: E402
import masks  # noqa: E402
import matmul_v2  # noqa: E402
import newer_ops  # noqa: E402
import norms_pool  # noqa: E402
import partial  # noqa: E402
import placed  # noqa: E402
import rotating  # noqa: E402
import small_types  # noqa: E402
import softmax  # noqa: E402
import spmd  # noqa: E402
import tile_lists  # noqa: E402
import typed  # noqa: E402

BIN = allocsim_nki.binary()


def bf16(x):
    """x rounded to bf16 (nearest even), as float32: numpy has no bf16."""
    f = np.ascontiguousarray(x, dtype=np.float32).view(np.uint32).astype(np.uint64)
    r = ((f + 0x7FFF + ((f >> 16) & 1)) >> 16) << 16
    return r.astype(np.uint32).view(np.float32)



def run_hand_translation(name, inputs):
    """Runs corpus/nki_samples/NAME.nki.txt on the interpreter with `inputs` (tensor name -> float32 array, bf16
    tensors rounded); returns its outputs by name."""
    path = os.path.join(SRC, "corpus", "nki_samples", name + ".nki.txt")
    decls = {}
    with open(path) as f:
        for line in f:
            m = re.match(r"\s*dram\s+(\w+)\s+\[(\d+),\s*(\d+)\]\s+(\w+)\s*(.*)", line)
            if m:
                decls[m.group(1)] = ((int(m.group(2)), int(m.group(3))), m.group(4), m.group(5))
    with tempfile.TemporaryDirectory() as d:
        args = [BIN, "interp", path, "--quiet", "--outputs-dir", d]
        for n, a in inputs.items():
            shape, dt, _ = decls[n]
            assert a.size == shape[0] * shape[1], n
            if dt == "bf16":
                b = (np.ascontiguousarray(bf16(a)).view(np.uint32) >> 16).astype(np.uint16).tobytes()
            else:
                b = np.ascontiguousarray(a, dtype=np.float32).tobytes()
            p = os.path.join(d, n + ".in")
            with open(p, "wb") as f:
                f.write(b)
            args += ["--input", "%s=%s" % (n, p)]
        subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
        out = {}
        for n, (shape, dt, flags) in decls.items():
            if "output" in flags.split():
                with open(os.path.join(d, n + ".bin"), "rb") as f:
                    raw = f.read()
                if dt == "bf16":
                    out[n] = (np.frombuffer(raw, np.uint16).astype(np.uint32) << 16).view(np.float32).reshape(shape)
                else:
                    out[n] = np.frombuffer(raw, np.float32).reshape(shape)
        return out



class TypingTest(unittest.TestCase):
    def test_annotated_kernel_traces_and_adds(self):
        import nki.typing
        self.assertIs(nki.typing.tensor, typed.tensor)  # both spellings name one marker
        a, b = rand((8, 64), 11), rand((8, 64), 12)
        r = allocsim_nki.simulate(typed.typed_add, a, b, arch="tiny")
        self.assertTrue(same_bits(r.returned, a + b))


    def test_dtypes_outside_the_format_are_refused_at_the_kernel(self):
        for dt in (np.float64, np.int64):
            with self.assertRaises(allocsim_nki.KernelError) as ctx:
                allocsim_nki.simulate(typed.typed_add, np.ones((8, 64), dt), np.ones((8, 64), dt), arch="tiny")
            self.assertRegex(ctx.exception.format(), r"typed\.py:\d+: unsupported: parameter 'a' is a numpy array of "
                             + np.dtype(dt).name)
        p = subprocess.run([BIN, "nki", os.path.join(KERNELS, "typed.py"), "--kernel", "typed_add", "--arg",
                            "a=8x64:tfloat32", "--arg", "b=8x64:float32"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertRegex(p.stderr, r"typed\.py:\d+: --arg a: unsupported: dtype tfloat32")

    def test_nki_simulate_returns_a_function(self):
        import nki
        a, b = rand((8, 64), 54), rand((8, 64), 55)
        self.assertTrue(same_bits(nki.simulate(typed.typed_add)(a, b, arch="tiny"), a + b))


class MatmulTest(unittest.TestCase):
    def test_basic_matches_numpy_and_hand_translation(self):
        for arch, (K, M, N) in (("tiny", (8, 4, 64)), ("gen2", (128, 64, 512))):
            lhsT, rhs = bf16(rand((K, M), 1)), bf16(rand((K, N), 2))
            r = allocsim_nki.simulate(matmul.matmul_basic, lhsT, rhs, arch=arch,
                                      dtypes={"lhsT": "bfloat16", "rhs": "bfloat16"})
            got = r.returned
            np.testing.assert_allclose(got, bf16(lhsT.T.astype(np.float64) @ rhs), rtol=1e-2, atol=1e-2)
            hand = run_hand_translation("matmul_basic" + ("_tiny" if arch == "tiny" else ""),
                                        {"lhsT": lhsT, "rhs": rhs})["result"]
            self.assertTrue(same_bits(got, hand), arch)
            self.assertGreater(r.cycles, 0)

    def test_tiled_forms_match_the_hand_translation(self):
        K, M, N = 16, 16, 128
        lhsT, rhs = bf16(rand((K, M), 3)), bf16(rand((K, N), 4))
        hand = run_hand_translation("matmul_tiled_tiny", {"lhsT": lhsT, "rhs": rhs})["result"]
        for kernel in (matmul.matmul_tiled, matmul_v2.matmul_tiled_dst, matmul_v2.matmul_hoisted):
            r = allocsim_nki.simulate(kernel, lhsT, rhs, arch="tiny", dtypes={"lhsT": "bfloat16", "rhs": "bfloat16"})
            self.assertTrue(same_bits(r.returned, hand), kernel.__name__)
            np.testing.assert_allclose(r.returned, lhsT.T.astype(np.float64) @ rhs, rtol=1e-2, atol=2e-2)

    def test_accumulation_across_two_loops(self):
        for KB, K in ((2, 48), (3, 48), (2, 16)):
            lhsT, rhs = rand((K, 16), 48), rand((K, 128), 49)
            r = allocsim_nki.simulate(matmul_v2.matmul_two_level_k, lhsT, rhs, arch="tiny", KB=KB)
            np.testing.assert_allclose(r.returned, lhsT.T.astype(np.float64) @ rhs, rtol=1e-5, atol=1e-5)
            self.assertIn("start@first", r.program)
            self.assertIn("stop@last", r.program)

    def test_tiled_program_keeps_its_loops(self):
        prog = allocsim_nki.program(matmul.matmul_tiled, allocsim_nki.TensorArg((16, 16), "bfloat16"),
                                    allocsim_nki.TensorArg((16, 128), "bfloat16"), arch="tiny")
        body = [line.split("#")[0].strip() for line in prog.splitlines()]
        self.assertEqual(sum(1 for x in body if x.startswith("loop ")), 3)
        self.assertEqual(sum(1 for x in body if x.startswith("matmul ")), 1)
        self.assertIn("start@first", prog)
        self.assertIn("stop@last", prog)


class TileListTest(unittest.TestCase):
    """Python lists of tiles indexed by loop indices: one tile array in the program, the loops kept."""

    def check(self, kernel, K, M, N, seed, **kw):
        lhsT, rhs = rand((K, M), seed), rand((K, N), seed + 1)
        r = allocsim_nki.simulate(kernel, lhsT, rhs, arch="tiny", **kw)
        np.testing.assert_allclose(r.returned, lhsT.T.astype(np.float64) @ rhs, rtol=1e-5, atol=1e-5)
        return r

    def test_hoisted_lists(self):
        r = self.check(tile_lists.matmul_list_hoisted, 24, 16, 128, 30)
        body = [line.split("#")[0].strip() for line in r.program.splitlines()]
        self.assertEqual(sum(1 for x in body if x.startswith("loop ")), 5)  # m, k, n, k, k: nothing unrolled
        # the per-k tiles of each list are one tensor of K/TK blocks: [8, 3*8] for columns, [8, 3*64] for rows
        self.assertIn("sbuf col [8, 24] f32", r.program)
        self.assertRegex(r.program, r"(?m)^sbuf \w+ \[8, 192\] f32")

    def test_nested_lists(self):
        self.check(tile_lists.matmul_list_blocked, 16, 32, 256, 32)
        self.check(tile_lists.matmul_list_blocked, 16, 32, 256, 34, BM=1, BN=4)

    def test_lists_built_by_python_loops(self):
        self.check(tile_lists.matmul_python_lists, 32, 16, 128, 36)
        self.check(tile_lists.matmul_python_lists, 32, 24, 128, 38, KB=4)


class ConditionTest(unittest.TestCase):
    """`if` on loop indices: conditional blocks in the program, loops kept."""

    def test_if_else_and_nested(self):
        a = rand((40, 16), 40)
        r = allocsim_nki.simulate(conditions.branchy_rows, a, arch="tiny")
        want = a.copy()
        for i in range(5):
            rows = slice(i * 8, i * 8 + 8)
            want[rows] = a[rows] * 2 if i == 0 else a[rows] * 0.5 if i >= 2 else a[rows]
            if i % 2 == 1:
                want[rows] += 1
        np.testing.assert_array_equal(r.returned, want)
        self.assertEqual(len(re.findall(r"(?m)^\s*if ", r.program)), 5)
        self.assertEqual(len(re.findall(r"(?m)^\s*loop ", r.program)), 1)

    def test_condition_on_two_loop_indices(self):
        a = rand((24, 24), 41)
        r = allocsim_nki.simulate(conditions.lower_block_sums, a, arch="tiny")
        want = a.copy()
        for q in range(3):
            for k in range(q + 1, 3):
                want[q * 8:q * 8 + 8, k * 8:k * 8 + 8] = 0
        np.testing.assert_array_equal(r.returned, want)


class PartialReductionTest(unittest.TestCase):
    def test_window_max_and_mean(self):
        x = rand((8, 6, 4), 42)
        r = allocsim_nki.simulate(partial.window_max_and_mean, x, arch="tiny")
        windows = x.reshape(8, 3, 2, 2, 2)
        np.testing.assert_array_equal(r.returned[0], windows.max(axis=(2, 4)))
        np.testing.assert_allclose(r.returned[1], windows.astype(np.float64).mean(axis=(2, 4)), rtol=1e-6, atol=1e-7)

    def test_copy_into_a_view_of_two_free_axes(self):
        x = rand((8, 24), 53)
        r = allocsim_nki.simulate(partial.interleave_halves, x, arch="tiny")
        want = np.empty_like(x)
        want[:, 0::2], want[:, 1::2] = x[:, :12], x[:, 12:]
        self.assertTrue(same_bits(r.returned, want))

    def test_access_pattern_groups_keepdims(self):
        x = rand((8, 16), 43)
        r = allocsim_nki.simulate(partial.row_group_sums, x, arch="tiny")
        want = x.astype(np.float64).reshape(8, 4, 4).sum(axis=2) * x[:, :1]
        np.testing.assert_allclose(r.returned, want, rtol=1e-6, atol=1e-6)
        # one reduce per kept element, in a loop of the program
        self.assertRegex(r.program, r"(?m)^loop \w+ = 0, 4, 1 \{")


class MaskTest(unittest.TestCase):
    """Masks that are false on part of a tile: the instructions cover the rest, per run of iterations."""

    def test_partial_tiles_on_both_axes(self):
        a = rand((20, 70), 44)
        r = allocsim_nki.simulate(masks.ragged_exp, a, arch="tiny")
        np.testing.assert_allclose(r.returned, np.exp(a.astype(np.float64)), rtol=1e-6)
        # 3 row tiles of 8 (the last holds 4 rows) by 3 column tiles of 32 (the last holds 6 columns)
        self.assertIn("a[r*8:4, c*32:6]", r.program)

    def test_partition_mask_on_dma_reduce_store(self):
        a = rand((20, 16), 45)
        r = allocsim_nki.simulate(masks.ragged_row_sums, a, arch="tiny")
        np.testing.assert_allclose(r.returned, a.astype(np.float64).sum(axis=1, keepdims=True), rtol=1e-5,
                                   atol=1e-6)


class ColumnTest(unittest.TestCase):
    def test_column_loads_ufunc_ops_zeroed_tile_array(self):
        x, w = rand((16, 8), 50), rand((16, 3), 51)
        r = allocsim_nki.simulate(columns.scaled_column_sums, x, w, arch="tiny")
        # one rounded multiply, then + 0.0 (exact): numpy float32 gives the same bits
        self.assertTrue(same_bits(r.returned, np.concatenate([x * w[:, j:j + 1] for j in range(3)], axis=1)))


class ConstantTest(unittest.TestCase):
    def test_identity_constant_fused_and_negated_reductions(self):
        x = rand((8, 8), 52)
        t, twice, negmax, sums = allocsim_nki.simulate(constants.transpose_by_identity, x, arch="tiny").returned
        self.assertTrue(same_bits(t, x.T))  # each element times 1, plus zeros
        self.assertTrue(same_bits(twice, x * 2))
        self.assertTrue(same_bits(negmax, -x.max(axis=1, keepdims=True)))
        np.testing.assert_allclose(sums, (2 * x.astype(np.float64)).sum(axis=1, keepdims=True), rtol=1e-6, atol=1e-6)


class SpmdTest(unittest.TestCase):
    def test_launch_grid_becomes_loops(self):
        a, b = rand((16, 96), 56), rand((16, 96), 57)
        r = allocsim_nki.simulate(spmd.grid_scaled_add[2, 3], a, b, arch="tiny")
        self.assertTrue(same_bits(r.returned, a + b * 2))
        self.assertEqual(len(re.findall(r"(?m)^\s*loop ", r.program)), 2)
        with self.assertRaises(allocsim_nki.KernelError):
            allocsim_nki.simulate(spmd.grid_scaled_add, a, b, arch="tiny")  # no grid: program_id is refused

    def test_grid_on_the_command_line(self):
        a, b = rand((16, 96), 58), rand((16, 96), 59)
        path = os.path.join(KERNELS, "spmd.py")
        with tempfile.TemporaryDirectory() as d:
            args = [BIN, "interp", path, "--kernel", "grid_scaled_add", "--grid", "2x3", "--arch", "tiny", "--quiet",
                    "--outputs-dir", d]
            for name, x in (("a", a), ("b", b)):
                x.tofile(os.path.join(d, name + ".in"))
                args += ["--arg", "%s=16x96:float32" % name, "--input", "%s=%s" % (name, os.path.join(d, name + ".in"))]
            subprocess.run(args, check=True, stdout=subprocess.DEVNULL)
            out = np.fromfile(os.path.join(d, "out.bin"), np.float32).reshape(16, 96)
        self.assertTrue(same_bits(out, a + b * 2))
        for bad in ("0x2", "2x", "two"):
            p = subprocess.run([BIN, "nki", path, "--kernel", "grid_scaled_add", "--grid", bad, "--arg",
                                "a=16x96:float32", "--arg", "b=16x96:float32"], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            self.assertEqual(p.returncode, 2, bad)
            self.assertIn("--grid expects positive integers", p.stderr)
        p = subprocess.run([BIN, "nki", path, "--kernel", "grid_scaled_add", "--arg", "a=16x96:float32", "--arg",
                            "b=16x96:float32"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 2)
        self.assertRegex(p.stderr, r"spmd\.py:\d+: nl\.num_programs in a kernel traced without a launch grid")


class WhereTest(unittest.TestCase):
    def test_where_on_indices(self):
        a, b = rand((16, 16), 46), rand((16, 16), 47)
        a[0, 0] = -0.0  # kept as is where selected (the two-tile form adds -0.0)
        r = allocsim_nki.simulate(masks.lower_upper_where, a, b, arch="tiny")
        lower = np.tril(np.ones((16, 16), bool))
        self.assertTrue(same_bits(r.returned[0], np.where(lower, a, b)))
        self.assertTrue(same_bits(r.returned[1], np.where(lower, a, np.float32(-9984.0))))


class SoftmaxLayernormTest(unittest.TestCase):
    def test_softmax(self):
        a = rand((16, 64), 5, 4.0)
        r = allocsim_nki.simulate(softmax.softmax, a, arch="tiny")
        e = np.exp(a - a.max(axis=1, keepdims=True))
        np.testing.assert_allclose(r.returned, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
        hand = run_hand_translation("softmax_tiny", {"a_tensor": a})["out_tensor"]
        self.assertTrue(same_bits(r.returned, hand))

    def test_softmax_gen2(self):
        a = rand((256, 128), 6, 4.0)
        r = allocsim_nki.simulate(softmax.softmax, a)
        e = np.exp(a - a.max(axis=1, keepdims=True))
        np.testing.assert_allclose(r.returned, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)

    def test_layernorm(self):
        x, g, b = rand((16, 64), 7, 3.0), rand((1, 64), 8), rand((1, 64), 9)
        r = allocsim_nki.simulate(layernorm.layernorm, x, g, b, arch="tiny")
        mean = x.mean(axis=1, keepdims=True)
        var = (x * x).mean(axis=1, keepdims=True) - mean * mean
        want = (x - mean) / np.sqrt(var + 1e-5) * g + b
        np.testing.assert_allclose(r.returned, want, rtol=1e-4, atol=1e-4)
        hand = run_hand_translation("layernorm_v1_tiny", {"input_tensor": x, "gamma_vector": g, "beta_vector": b})
        self.assertTrue(same_bits(r.returned, hand["output_tensor"]))


    def test_rmsnorm(self):
        a, g = rand((16, 64), 16, 3.0), rand((1, 64), 17)
        r = allocsim_nki.simulate(norms_pool.rmsnorm, a, g, arch="tiny")
        want = a / np.sqrt((a.astype(np.float64) ** 2).mean(axis=1, keepdims=True)) * g
        np.testing.assert_allclose(r.returned, want, rtol=1e-5, atol=1e-6)
        hand = run_hand_translation("rmsnorm_tiny", {"a_tensor": a, "g_tensor": g})["out_tensor"]
        self.assertTrue(same_bits(r.returned, hand))

    def test_average_pool(self):
        x = bf16(rand((8, 16, 16), 18))
        r = allocsim_nki.simulate(norms_pool.avgpool2x2, x, arch="tiny", dtypes={"in_tensor": "bfloat16"})
        want = bf16(x.reshape(8, 8, 2, 8, 2).astype(np.float64).sum(axis=(2, 4)) / 4)
        np.testing.assert_array_equal(r.returned, want)  # sums of 4 bf16 values are exact in f32
        hand = run_hand_translation("average_pool2d_tiny", {"in_tensor": x})["out_tensor"]
        self.assertTrue(same_bits(r.returned.reshape(8, 64), hand))


class AttentionTest(unittest.TestCase):
    def test_causal_attention(self):
        q, k, v = rand((16, 4), 10), rand((16, 4), 11), rand((16, 4), 12)
        r = allocsim_nki.simulate(attention.causal_attention, q, k, v, arch="tiny")
        s = q.astype(np.float64) @ k.T
        s[np.triu_indices(16, 1)] = -9984.0
        p = np.exp(s - s.max(axis=1, keepdims=True))
        want = (p / p.sum(axis=1, keepdims=True)) @ v
        np.testing.assert_allclose(r.returned, want, rtol=1e-5, atol=1e-6)
        self.assertIn("affine_select", r.program)
        self.assertTrue(allocsim_nki.verify(attention.causal_attention, q, k, v, arch="tiny").ok)


class NewerInstructionsTest(unittest.TestCase):
    """Kernels that need instructions the tracer probes the binary for: with the instruction they match numpy; a
    binary without it makes the tracer refuse the kernel at its line."""

    def run_or_refused(self, features, kernel, *arrays):
        from allocsim_nki import trace
        if all(trace.has_op(f) or trace.act_available(f) for f in features):
            return allocsim_nki.simulate(kernel, *arrays, arch="tiny")
        with self.assertRaises(allocsim_nki.KernelError) as ctx:
            allocsim_nki.simulate(kernel, *arrays, arch="tiny")
        self.assertIn("newer_ops.py", ctx.exception.format())
        self.assertIn("unsupported", ctx.exception.format())
        return None

    def test_iota(self):
        a = rand((8, 64), 20)
        r = self.run_or_refused(["iota"], newer_ops.positions, a)
        if r is not None:  # the indices are exact in f32; then one rounded f32 add, as numpy's
            np.testing.assert_array_equal(r.returned, a + np.arange(8 * 64, dtype=np.float32).reshape(8, 64))

    def test_tensor_tensor_scan(self):
        d, x = rand((8, 64), 21, 0.5), rand((8, 64), 22)
        r = self.run_or_refused(["tt_scan"], newer_ops.scan_decay, d, x)
        if r is not None:
            h, want = np.zeros(8, np.float32), np.empty_like(x)
            for i in range(64):  # float32 numpy: one rounded operation at a time, the scan's order
                h = d[:, i] * h + x[:, i]
                want[:, i] = h
            np.testing.assert_array_equal(r.returned, want)

    def test_layernorm_with_bn_stats_and_broadcast(self):
        x, g = rand((16, 64), 23, 3.0), rand((1, 64), 24)
        r = self.run_or_refused(["bn_stats", "bn_aggr", "broadcast"], newer_ops.layernorm_bn, x, g)
        if r is not None:
            x64 = x.astype(np.float64)
            want = (x64 - x64.mean(axis=1, keepdims=True)) / np.sqrt(x64.var(axis=1, keepdims=True) + 1e-5) * g
            np.testing.assert_allclose(r.returned, want, rtol=1e-4, atol=1e-4)

    def test_log_and_pe_transpose(self):
        a = rand((8, 8), 25) + 3.0
        r = self.run_or_refused(["log"], newer_ops.log_transpose, a)
        if r is not None:
            np.testing.assert_allclose(r.returned, np.log(a.astype(np.float64)).T, rtol=1e-6)


class HandPlacedTest(unittest.TestCase):
    ARGS = ["--kernel", "placed_add_matmul", "--arg", "aT=8x16:float32", "--arg", "bT=8x16:float32",
            "--arg", "w=8x32:float32", "--arch", "tiny"]

    def test_values_and_oracles(self):
        aT, bT, w = rand((8, 16), 13), rand((8, 16), 14), rand((8, 32), 15)
        r = allocsim_nki.simulate(placed.placed_add_matmul, aT, bT, w, arch="tiny")
        np.testing.assert_allclose(r.returned, (aT + bT).T.astype(np.float64) @ w, rtol=1e-5, atol=1e-5)
        v = allocsim_nki.verify(placed.placed_add_matmul, aT, bT, w, arch="tiny")
        self.assertTrue(v.ok, v.findings)

    def test_comes_out_allocated_and_O7_keeps_it(self):
        path = os.path.join(KERNELS, "placed.py")
        prog = subprocess.run([BIN, "nki", path] + self.ARGS, check=True, stdout=subprocess.PIPE, text=True).stdout
        placements = re.findall(r"^(sbuf|psum) (\w+) \[[^\]]*\] \w+ pinned (@\S+)", prog, re.M)
        # the kernel's own addresses, read from its source: base_addr=0 and 256, address (0, 288) ... bank 1
        self.assertEqual(sorted((n, p) for _, n, p in placements),
                         sorted([("w_sb", "@p0+0"), ("a_sb", "@p0+256"), ("b_sb", "@p0+288"), ("s_sb", "@p0+320"),
                                 ("res", "@bank1"), ("o_sb", "@p0+512")]))
        self.assertRegex(prog, r"(?m)^reg m @r0")
        o7 = subprocess.run([BIN, "alloc", path, "-O7", "--quiet"] + self.ARGS, check=True,
                            stdout=subprocess.PIPE, text=True).stdout
        for _, n, p in placements:
            self.assertRegex(o7, r"(?m)^\w+ %s \[[^\]]*\] \w+ pinned %s$" % (n, re.escape(p)))
        ok = subprocess.run([BIN, "verify", path, "--quiet"] + self.ARGS, stdout=subprocess.PIPE, text=True)
        self.assertEqual(ok.returncode, 0, ok.stdout)


def special_floats(seed):
    """float32 values for conversions: zeros, ties and near-ties of the small formats, subnormals, values around
    their largest finite ones, infinities and NaN, and random values over many binades."""
    r = np.random.RandomState(seed)
    fixed = [0.0, -0.0, 1.0, -1.5, 1.0625, 1.125, 1.1875, 0.3, 2.0 ** -7, 2.0 ** -9, 2.0 ** -10, 3 * 2.0 ** -11,
             2.0 ** -16, 2.0 ** -17, 2.0 ** -24, 3 * 2.0 ** -25, 2.0 ** -26, 224.0, 232.0, 240.0, 247.9, 248.0, 256.0,
             440.0, 448.0, 460.0, 464.0, 464.1, 480.0, 57344.0, 61439.0, 61440.0, 65504.0, 65519.0, 65520.0, 1e6,
             np.inf, -np.inf, np.nan]
    rand = r.uniform(-1, 1, 512 - len(fixed)) * 2.0 ** r.randint(-30, 20, 512 - len(fixed))
    return np.array(fixed + list(rand), dtype=np.float32).reshape(8, 64)


class SmallTypesTest(unittest.TestCase):
    def test_float16_matches_numpy(self):
        x = special_floats(71)
        r = allocsim_nki.simulate(small_types.cast, x, dtype="float16", arch="tiny")
        self.assertEqual(r.returned.dtype, np.float16)
        with np.errstate(over="ignore"):
            want = x.astype(np.float16)  # numpy rounds f32 -> f16 to nearest even, beyond 65520 to infinity
        self.assertTrue(np.array_equal(r.returned.view(np.uint16), want.view(np.uint16)))
        a, b = rand((8, 64), 72).astype(np.float16), rand((8, 64), 73).astype(np.float16)
        r = allocsim_nki.simulate(small_types.mul_add, a, b, arch="tiny")
        prod = (a.astype(np.float32) * b.astype(np.float32)).astype(np.float16)
        want = (prod.astype(np.float32) + a.astype(np.float32)).astype(np.float16)
        self.assertTrue(np.array_equal(r.returned.view(np.uint16), want.view(np.uint16)))
        r = allocsim_nki.simulate(small_types.widen, a, arch="tiny")
        self.assertTrue(same_bits(r.returned, a.astype(np.float32)))

    def test_fp8_rounding(self):
        from allocsim_nki import floats
        x = special_floats(74)
        for name, fmt in (("float8_e4m3", "f8e4m3"), ("float8_e5m2", "f8e5m2"), ("float8_e4m3fn", "f8e4m3fn")):
            r = allocsim_nki.simulate(small_types.cast, x, dtype=name, arch="tiny")
            want = floats.decode(floats.encode(x, fmt), fmt)
            self.assertTrue(same_bits(r.returned, want), name)
            # fp8 data in: read exactly
            r = allocsim_nki.simulate(small_types.widen, x, arch="tiny", dtypes={"a": name})
            self.assertTrue(same_bits(r.returned, want), name)
        # the largest finite values and what lies beyond them, from the formats' definitions
        self.assertEqual(list(floats.decode(floats.encode(np.float32([240, 250, 448, 464, 470]), "f8e4m3fn"),
                                            "f8e4m3fn")[:4]), [240, 256, 448, 448])
        self.assertTrue(np.isnan(floats.decode(floats.encode(np.float32([470]), "f8e4m3fn"), "f8e4m3fn")[0]))
        self.assertEqual(list(floats.decode(floats.encode(np.float32([240, 247, 248]), "f8e4m3"), "f8e4m3")),
                         [240, 240, np.inf])

    def test_narrow_integers_wrap(self):
        for dt in (np.int8, np.uint8, np.int16):
            info = np.iinfo(dt)
            a = np.random.RandomState(75).randint(info.min, info.max + 1, (8, 64)).astype(dt)
            b = np.random.RandomState(76).randint(info.min, info.max + 1, (8, 64)).astype(dt)
            r = allocsim_nki.simulate(small_types.mul_add, a, b, arch="tiny")
            prod = (a.astype(np.int64) * b).astype(dt)  # numpy's astype keeps the low bits
            want = (prod.astype(np.int64) + a).astype(dt)
            self.assertEqual(r.returned.dtype, dt)
            self.assertTrue(np.array_equal(r.returned, want), np.dtype(dt).name)
        # float -> int8 truncates toward zero and saturates; NaN -> 0
        x = np.float32([[1.9, -1.9, 127.5, 128.0, -128.9, -200.0, 1e9, np.nan]])
        r = allocsim_nki.simulate(small_types.cast, x, dtype="int8", arch="tiny")
        self.assertEqual(list(r.returned[0]), [1, -1, 127, 127, -128, -128, 127, 0])


class RotatingBuffersTest(unittest.TestCase):
    def test_modulo_allocated_psum_rotates_and_verifies(self):
        aT, w = rand((8, 32), 61), rand((8, 32), 62)
        r = allocsim_nki.simulate(rotating.pipelined_matmul, aT, w, arch="tiny")
        np.testing.assert_allclose(r.returned, aT.T.astype(np.float64) @ w, rtol=1e-5, atol=1e-5)
        v = allocsim_nki.verify(rotating.pipelined_matmul, aT, w, arch="tiny")
        self.assertTrue(v.ok, v.findings)
        # four row tiles on the two PSUM tiles the kernel allocates, their SBUF copies on one tile
        self.assertRegex(r.program, r"(?m)^psum res \[8, 64\] f32 pinned @bank0 ")
        self.assertRegex(r.program, r"(?m)^sbuf o_sb \[8, 32\] f32 pinned ")
        self.assertRegex(r.program, r"res\[:, m%2\*32:32\]")

    def test_shifted_ring_indices(self):
        a = rand((32, 16), 63)
        r = allocsim_nki.simulate(rotating.shifted_buffers, a, arch="tiny")
        t = a.reshape(4, 8, 16)
        want = np.concatenate([t[:-1] + t[1:], 2 * t[-1:]]).reshape(32, 16)
        self.assertTrue(same_bits(r.returned, want))

    def test_backward_view(self):
        a = rand((8, 16), 64)
        r = allocsim_nki.simulate(rotating.reversed_columns, a, arch="tiny")
        self.assertTrue(same_bits(r.returned, a[:, ::-1] * 2))


class CommandLineTest(unittest.TestCase):
    def test_lists_kernels_with_parameters(self):
        out = subprocess.run([BIN, "nki", os.path.join(KERNELS, "layernorm.py")], check=True,
                             stdout=subprocess.PIPE, text=True).stdout
        self.assertIn("layernorm(input_tensor, gamma_vector, beta_vector, epsilon=1e-05)", out)

    def test_run_takes_a_kernel(self):
        p = subprocess.run([BIN, "run", os.path.join(KERNELS, "softmax.py"), "--arg", "a_tensor=16x64:float32",
                            "--arch", "tiny", "--json", "--quiet"], stdout=subprocess.PIPE, text=True)
        self.assertEqual(p.returncode, 0)
        self.assertIn('"cycles"', p.stdout)

    def test_stall_report_names_kernel_lines(self):
        path = os.path.join(KERNELS, "softmax.py")
        with open(path) as f:
            src = f.read().splitlines()
        calls = {i + 1 for i, line in enumerate(src) if re.search(r"\bnl\.\w+\(", line)}
        store = next(i + 1 for i, line in enumerate(src) if "nl.store(" in line)
        p = subprocess.run([BIN, "run", path, "--arg", "a_tensor=16x64:float32", "--arch", "tiny"],
                           stdout=subprocess.PIPE, text=True)
        named = [int(n) for n in re.findall(r"\(%s:(\d+)\)" % re.escape(path), p.stdout)]
        self.assertIn(store, named)  # the store waits for the division before it
        self.assertTrue(set(named) <= calls, (named, calls))
        r = allocsim_nki.simulate(softmax.softmax, rand((16, 64), 27), arch="tiny")
        lines = {int(t["consumer_kernel_line"].rsplit(":", 1)[1]) for t in r.top_stalls}
        self.assertIn(store, lines)
        self.assertTrue(lines <= calls)

    def test_refusals_are_located(self):
        for name in ("errors.py", "expression_errors.py"):
            path = os.path.join(KERNELS, name)
            with open(path) as f:
                lines = f.read().splitlines()
            marked = [i + 1 for i, line in enumerate(lines) if line.rstrip().endswith("# refused here") and
                      not line.lstrip().startswith('"""')]
            kernels = re.findall(r"^def (\w+)", "\n".join(lines), re.M)
            self.assertEqual(len(marked), len(kernels), name)
            for kernel, line in zip(kernels, marked):
                p = subprocess.run([BIN, "nki", path, "--kernel", kernel, "--arg", "a=16x64:float32", "--arch",
                                    "tiny"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                self.assertEqual(p.returncode, 2, kernel)
                first = p.stderr.splitlines()[0]
                self.assertTrue(first.startswith("%s:%d: " % (path, line)), (kernel, first))

    def test_simulate_locates_checker_findings(self):
        sys.path.insert(0, KERNELS)
        import errors
        with self.assertRaises(RuntimeError) as ctx:
            allocsim_nki.simulate(errors.reads_unwritten_tile, rand((16, 64), 26), arch="tiny")
        with open(os.path.join(KERNELS, "errors.py")) as f:
            line = next(i + 1 for i, s in enumerate(f) if "value=t)  # refused here" in s)
        self.assertIn("errors.py:%d: reads never-written element" % line, str(ctx.exception))

    def test_unsupported_names_the_construct(self):
        p = subprocess.run([BIN, "nki", os.path.join(KERNELS, "errors.py"), "--kernel", "uses_tan", "--arg",
                            "a=16x64:float32", "--arch", "tiny"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        self.assertIn("unsupported: nl.tan", p.stderr)


if __name__ == "__main__":
    unittest.main()
