"""The instructions the tracer composes from the format's own (max8, nc_find_index8, nc_match_replace8,
nc_stream_shuffle, range_select), nl.rand, double-row matmuls and the numpy dtypes standing for bf16 and fp8: the
kernels of tests/kernels/search_ops.py through the allocsim binary, each result against numpy loops written from
the API's definitions.

Run by ctest (nki_python); by hand: ALLOCSIM_BINARY=build/allocsim PYTHONPATH=python python3 -m unittest discover
-s python/tests
"""

import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "kernels"))

import allocsim_nki  # noqa: E402
from arrays import rand, same_bits  # noqa: E402
import search_ops as k  # noqa: E402
import neuronxcc.nki.language as nl  # noqa: E402


def positions(row, vals, order):
    """For each value (taken in `order`), the first position holding it that no value taken before took; all ones
    (uint32) where none does."""
    taken, out = set(), [0xFFFFFFFF] * len(vals)
    for i in order:
        for j, x in enumerate(row):
            if x == vals[i] and j not in taken:
                taken.add(j)
                out[i] = j
                break
    return out


class SearchTest(unittest.TestCase):
    def test_top8_with_duplicates(self):
        # small integers: every row holds repeated values, so ties decide the positions
        a = np.random.RandomState(3).randint(0, 6, size=(16, 24)).astype(np.float32)
        r = allocsim_nki.simulate(k.top8, a, optlevel=None)
        vals, found, replaced, matched = r.returned
        for p in range(16):
            want = sorted(a[p].tolist(), reverse=True)[:8]
            self.assertEqual(vals[p].tolist(), want)
            self.assertEqual(found[p].tolist(), positions(a[p], want, range(8)))
            m = positions(a[p], want, reversed(range(8)))
            self.assertEqual(matched[p].tolist(), m)
            row = a[p].copy()
            row[m] = -1.0
            self.assertTrue(same_bits(replaced[p], row))
        # the duplicates of a value are matched in opposite orders by the two instructions
        self.assertFalse(np.array_equal(found, matched))

    def test_under_a_mask(self):
        a = np.random.RandomState(4).randint(1, 9, size=(8, 24)).astype(np.float32)
        r = allocsim_nki.simulate(k.top8_masked, a, arch="tiny")
        vals, replaced, matched = r.returned
        for p in range(4):  # the masked rows; the others are not written by the instructions (the tracer: 0)
            box = a[p, 2:22]
            want = sorted(box.tolist(), reverse=True)[:8]
            self.assertEqual(vals[p].tolist(), want)
            m = positions(a[p, :20], want, reversed(range(8)))
            self.assertEqual(matched[p].tolist(), m)
            row = np.zeros(24, np.float32)
            row[:20] = a[p, :20]
            row[[j for j in m if j < 20]] = 0.0
            self.assertTrue(same_bits(replaced[p], row))
        self.assertFalse(vals[4:].any() or matched[4:].any() or replaced[4:].any())
        with self.assertRaises(allocsim_nki.KernelError) as e:
            allocsim_nki.simulate(k.find_masked_from_column_2, a, arch="tiny")
        self.assertIn("unsupported: nisa.nc_find_index8 with a mask that leaves out the first columns",
                      str(e.exception))

    def test_absent_values(self):
        a = rand((4, 16), 5)
        b = a[:, :8].copy()
        b[:, 1] = 7.0  # not in a
        b[:, 5] = b[:, 0]  # a second search for one value finds nothing more (a holds it once)
        r = allocsim_nki.simulate(k.find_missing, a, b, optlevel=None)
        for p in range(4):
            self.assertEqual(r.returned[p].tolist(), positions(a[p], b[p], range(8)))
        self.assertTrue((r.returned[:, 1] == 0xFFFFFFFF).all() and (r.returned[:, 5] == 0xFFFFFFFF).all())


class ShuffleTest(unittest.TestCase):
    def test_in_place_and_broadcast(self):
        a, b = rand((2, 16), 6), rand((64, 16), 7)
        r = allocsim_nki.simulate(k.shuffle, a, b)
        want = b.copy()
        for q in range(2):
            for i, s in enumerate(k.SHUFFLE):
                if s != 255:
                    want[q * 32 + i] = b[q * 32 + s]
        self.assertTrue(same_bits(r.returned[0], want))
        self.assertTrue(same_bits(r.returned[1], np.repeat(a[0:1], 32, axis=0)))


class RangeSelectTest(unittest.TestCase):
    def test_ranges_and_accumulated_maximum(self):
        P, F = 8, 16
        a = rand((P, F), 8)
        lo = np.arange(P, dtype=np.float32).reshape(P, 1) * 3
        hi = lo + 9
        r = allocsim_nki.simulate(k.ranges, a, lo, hi, arch="tiny")
        top = np.full((P, 1), -np.inf, np.float32)
        for start, x in ((3, a), (3 + F, a + np.float32(1))):
            pos = start + np.arange(F, dtype=np.float32)
            inside = (pos >= lo) & (pos < hi)
            sel = np.where(inside, x, np.float32(-100.0))
            if start == 3:
                self.assertTrue(same_bits(r.returned[0], sel))
            top = np.maximum(top, sel.max(axis=1, keepdims=True))
        self.assertTrue(same_bits(r.returned[1], top))


def lowbias32(x):
    x = x.astype(np.uint64)
    for shift, mult in ((16, 0x7FEB352D), (15, 0x846CA68B), (16, None)):
        x ^= x >> shift
        if mult is not None:
            x = (x * mult) & 0xFFFFFFFF
    return x


class RandTest(unittest.TestCase):
    def test_values(self):
        z = np.zeros((32, 64), np.float32)
        r = allocsim_nki.simulate(k.randoms, z, z.copy(), optlevel=None)
        for call, out in enumerate((r.outputs["out1"], r.outputs["out2"])):
            n = np.arange(32 * 64, dtype=np.uint64) + (call << 24)
            want = (lowbias32(n) >> 8).astype(np.float32) * np.float32(2.0 ** -24)
            self.assertTrue(same_bits(out, want.reshape(32, 64)))
            self.assertTrue(((out >= 0) & (out < 1)).all())
            self.assertLess(abs(float(out.mean()) - 0.5), 0.03)
        self.assertFalse(np.array_equal(r.outputs["out1"], r.outputs["out2"]))


    def test_dropout(self):
        a = rand((16, 64), 14)
        rate = np.linspace(0.0, 1.0, 16, dtype=np.float32).reshape(16, 1)  # from keeping all to dropping all
        o1, o2 = allocsim_nki.simulate(k.dropouts, a, rate).returned
        for call, (out, p) in enumerate(((o1, rate), (o2, np.float32(0.25)))):
            n = np.arange(16 * 64, dtype=np.uint64) + (call << 24)
            u = ((lowbias32(n) >> 8).astype(np.float32) * np.float32(2.0 ** -24)).reshape(16, 64)
            self.assertTrue(same_bits(out, np.where(u >= p, a, np.float32(0.0))))
        self.assertTrue(same_bits(o1[0], a[0]) and not o1[15].any())


class SequenceBoundsTest(unittest.TestCase):
    def test_runs_and_padding(self):
        ids = np.array([[3, 3, 0, 0, 5, 5, 5, 2, 3, 3, 0, 7],
                        [0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
                        [4, 0, 4, 4, 9, 9, 8, 8, 8, 1, 1, 0]], dtype=np.int32)
        n = ids.shape[1]
        want = np.zeros((3, 2, n), np.int32)
        for p, row in enumerate(ids):
            for i, x in enumerate(row):
                if x == 0:
                    want[p, :, i] = (n, -1)
                    continue
                a, b = i, i + 1
                while a > 0 and row[a - 1] == x:
                    a -= 1
                while b < n and row[b] == x:
                    b += 1
                want[p, :, i] = (a, b)
        for dt in (np.int32, np.float32):
            r = allocsim_nki.simulate(k.segments, ids.astype(dt))
            self.assertEqual(r.returned.dtype, dt)
            self.assertTrue(np.array_equal(r.returned, want.astype(dt)))


class ApiTest(unittest.TestCase):
    def test_loops_queries_and_bypass(self):
        a = rand((6, 8), 16)
        r = allocsim_nki.simulate(k.api_odds, a, arch="tiny")
        self.assertTrue(same_bits(r.returned, a * np.float32(2.0) + np.float32(1.0)))

    def test_instructions_refused_at_their_line(self):
        a = rand((4, 8), 17)
        for name in ("local_gather", "nc_n_gather", "register_alloc", "nc_matmul_mx", "quantize_mx", "set_rng_seed",
                     "rand_get_state", "core_barrier", "sendrecv", "dma_compute", "topk", "exponential"):
            with self.assertRaises(allocsim_nki.KernelError, msg=name) as e:
                allocsim_nki.simulate(k.refused(name), a, arch="tiny")
            self.assertRegex(str(e.exception), r"search_ops\.py:\d+: unsupported: nisa\.%s" % name)
        with self.assertRaises(allocsim_nki.KernelError) as e:
            allocsim_nki.simulate(k.all_reduce, a, arch="tiny")
        self.assertRegex(str(e.exception), r"search_ops\.py:\d+: unsupported: nki\.collectives\.all_reduce")


class GatherTest(unittest.TestCase):
    def test_gather_by_known_indices(self):
        a = rand((6, 16), 18)
        r = allocsim_nki.simulate(k.gather_columns, a, arch="tiny")
        idx = np.array([[0] * 4 if i == 2 else [3 * j + 1 for j in range(4)] for i in range(6)])
        self.assertTrue(same_bits(r.returned, np.take_along_axis(a, idx, axis=1)))
        with self.assertRaises(allocsim_nki.KernelError) as e:
            allocsim_nki.simulate(k.gather_columns_computed, a, arch="tiny")
        self.assertIn("unsupported: nl.gather_flattened with indices the tracer does not know", str(e.exception))


class TransposeTest(unittest.TestCase):
    def test_dma_transpose_of_a_tile(self):
        a = (rand((16, 40), 15) * 100).astype(np.float16)
        r = allocsim_nki.simulate(k.transpose_tile, a)
        self.assertEqual(r.returned.dtype, np.float16)
        self.assertTrue(np.array_equal(r.returned.view(np.uint16), a.T.view(np.uint16)))


class DtypeTest(unittest.TestCase):
    def test_numpy_arrays_of_small_floats(self):
        x = np.ones(3, dtype=nl.bfloat16)
        self.assertEqual(x.dtype, np.float32)
        self.assertEqual(x.dtype.metadata, {"nki_dtype": "bfloat16"})

    def test_double_row_fp8(self):
        rs = np.random.RandomState(9)
        # fp8 e4m3 holds the integers -8..8 exactly; the sums stay exact in f32
        a = rs.randint(-8, 9, size=(32, 2, 4)).astype(nl.float8_e4m3)
        b = rs.randint(-8, 9, size=(32, 2, 16)).astype(np.float32)
        r = allocsim_nki.simulate(k.double_row, a, b, dtypes={"b": "float8_e4m3"})
        want = np.einsum("krm,krn->mn", a.astype(np.float64), b.astype(np.float64)).astype(np.float32)
        self.assertTrue(same_bits(r.returned, want))

    def test_values_rounded_when_passed(self):
        a = np.full((4, 8), 1.0 + 2.0 ** -12, dtype=nl.bfloat16)  # not a bf16 value: the nearest is 1.0
        r = allocsim_nki.simulate(k.returns_tile, a, arch="tiny")
        self.assertTrue(same_bits(r.returned, np.ones((4, 8), np.float32)))

if __name__ == "__main__":
    unittest.main()


class IndirectTest(unittest.TestCase):
    """Index tiles written by nisa.iota: the tracer knows their values and follows them row by row."""

    def test_gather_skipping_rows_past_the_end(self):
        a = rand((40, 8), 10)
        r = allocsim_nki.verify(k.gather_rows, a)
        self.assertTrue(r.ok, r.findings)
        out = allocsim_nki.simulate(k.gather_rows, a).returned
        want = np.full((16, 8), -1.0, np.float32)
        for p in range(16):
            if 3 * p + 1 < 40:
                want[p] = a[3 * p + 1]
        self.assertTrue(same_bits(out, want))

    def test_scatter_with_add_and_into_a_fresh_output(self):
        a, b = rand((8, 16), 11), rand((16, 16), 12)
        out, spread = allocsim_nki.simulate(k.scatter_add, a, b).returned
        want = b.copy()
        want[0::2] += a
        self.assertTrue(same_bits(out, want))
        fresh = np.zeros((16, 16), np.float32)
        fresh[1::2] = a
        self.assertTrue(same_bits(spread, fresh))

    def test_refusals(self):
        a = rand((32, 8), 13)
        with self.assertRaises(allocsim_nki.KernelError) as e:
            allocsim_nki.simulate(k.gather_past_end, a)
        self.assertIn("runs from 0 to 45", str(e.exception))
        self.assertIn("search_ops.py:", str(e.exception))
        for rows in (np.arange(8, dtype=np.int32).reshape(8, 1), None):
            with self.assertRaises(allocsim_nki.KernelError) as e:
                allocsim_nki.simulate(k.gather_by_loaded_index, a, rows)
            self.assertIn("unsupported: an index taken from a tile's values", str(e.exception))
            self.assertIn("search_ops.py:", str(e.exception))
        with self.assertRaises(allocsim_nki.KernelError) as e:
            allocsim_nki.simulate(k.gather_by_index_changed_in_loop, a)
        self.assertIn("unsupported: a write into tile 'idx'", str(e.exception))
