"""NKI expressions beyond plain arithmetic, traced and run by the allocsim binary, each against numpy computing the
same math (kernels in tests/kernels/expressions.py). Run by ctest (nki_python) with test_nki.py."""

import os
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "kernels"))

import allocsim_nki  # noqa: E402
import expressions  # noqa: E402
from test_nki import rand, same_bits  # noqa: E402


def row_reduce(x, op):
    """Each row reduced left to right in float32 (`r = v0; r = r OP v1; ...`), as a fused reduction does."""
    r = x[:, 0].copy()
    for j in range(1, x.shape[1]):
        r = op(r, x[:, j])
    return r


class LoopReduceTest(unittest.TestCase):
    def test_max_and_sum_over_a_loop(self):
        a = rand((24, 16), 60)
        a[3, 4] = -0.0
        r = allocsim_nki.simulate(expressions.loop_reduce_max_and_sum, a, arch="tiny")
        tiles = a.reshape(3, 8, 16)
        hi, total = np.full((8, 16), -np.inf, np.float32), np.zeros((8, 16), np.float32)
        for t in tiles:  # the destination is op's other operand, in loop order
            hi, total = np.maximum(hi, t), total + t
        self.assertTrue(same_bits(r.returned[0], hi))
        self.assertTrue(same_bits(r.returned[1], total))
        self.assertIn("tt hi, hi, t, max", r.program)  # the loop stays a loop
        self.assertEqual(r.program.count("loop "), 1)


class AccumulatedReductionTest(unittest.TestCase):
    def test_scalar_engine_accumulates_across_instructions(self):
        a = rand((16, 48), 61)
        r = allocsim_nki.simulate(expressions.accumulated_row_sums, a, arch="tiny")
        sq, sums = r.returned
        self.assertTrue(same_bits(sq, a * a))
        want = None
        for c in range(3):  # each instruction's row sum, then added to the accumulator
            part = row_reduce((a * a)[:, c * 16:(c + 1) * 16], np.add)
            want = part if want is None else want + part
        self.assertTrue(same_bits(sums[:, 0], want))

    def test_vector_engine_load_reset_idle(self):
        a, init = rand((8, 48), 62), rand((8, 1), 63)
        init[2, 0] = 100.0  # the loaded value wins in one row
        r = allocsim_nki.simulate(expressions.running_max_from_init, a, init, arch="tiny")
        self.assertTrue(same_bits(r.returned[:, 0], np.maximum(init[:, 0], (a * 2).max(axis=1))))
        self.assertTrue(same_bits(r.returned[:, 1], a.max(axis=1)))
        self.assertIn("memset dve_accumulator, -inf", r.program)  # reset: max's identity


    def test_reduce_cmd_chosen_per_iteration(self):
        a = rand((8, 48), 64)
        r = allocsim_nki.simulate(expressions.reduce_cmd_by_iteration, a, arch="tiny")
        parts = [row_reduce(a[:, c * 16:(c + 1) * 16], np.add) for c in range(3)]
        self.assertTrue(same_bits(r.returned[:, 0], (parts[0] + parts[1]) + parts[2]))
        self.assertEqual(r.program.count("loop "), 1)


class BooleanConditionTest(unittest.TestCase):
    """`and`, `or`, `not` and `x if c else y` on loop indices: `if` blocks, the loops kept."""

    def test_and_or_not(self):
        a = rand((32, 32), 65)
        r = allocsim_nki.simulate(expressions.boolean_conditions, a, arch="tiny")
        want = a.copy()
        for i in range(4):
            for j in range(2):
                blk = want[i * 8:(i + 1) * 8, j * 16:(j + 1) * 16]
                blk *= np.float32(3.0 if i % 2 == 0 else 0.5)
                if (i == 0 or i == 3) and j == 1:
                    blk += np.float32(1.0)
                if not (i == 1 and j == 0):
                    blk *= np.float32(2.0)
                else:
                    blk -= np.float32(1.0)
        self.assertTrue(same_bits(r.returned, want))
        self.assertEqual(r.program.count("loop "), 2)

    def test_conditional_tiles(self):
        a = rand((32, 16), 66)
        r = allocsim_nki.simulate(expressions.conditional_tiles, a, arch="tiny")
        tiles = a.reshape(4, 8, 16)
        rest = [t if i % 2 == 0 else t * t for i, t in enumerate(tiles)]
        # exp comes from the interpreter's own implementation: compare the tiles without it bit for bit
        for i in (2, 3):
            self.assertTrue(same_bits(r.returned[i * 8:(i + 1) * 8], np.float32(0.0) + rest[i]))
        for i in (0, 1):
            np.testing.assert_allclose(r.returned[i * 8:(i + 1) * 8], np.exp(tiles[i].astype(np.float64)) + rest[i],
                                       rtol=1e-6, atol=1e-6)


class PiecewiseIndexTest(unittest.TestCase):
    def test_remainders_and_quotients_of_sums(self):
        a = rand((24, 16), 70)
        r = allocsim_nki.simulate(expressions.piecewise_indices, a, arch="tiny")
        want = np.zeros((48, 16), np.float32)
        for i in range(3):
            for j in range(2):
                k, m, q = (i + 1) % 3, (i + j) % 2, (2 * i + j + 1) // 3
                t, u = a[k * 8:(k + 1) * 8], a[m * 8:(m + 1) * 8]
                v = t + u if (i + j) % 2 == 1 else t - u
                o = (i * 2 + j) * 8
                want[o:o + 8] = v
                want[o, 0:3] = 0.0
                want[o, q] = v[0, 0]
        self.assertTrue(same_bits(r.returned, want))
        self.assertEqual(r.program.count("loop "), 2)  # no unrolling: the pieces are `if` blocks


class RelatedMaskTest(unittest.TestCase):
    def test_mask_relating_two_tile_axes(self):
        a = rand((8, 8), 71)
        r = allocsim_nki.simulate(expressions.triangular_masks, a, arch="tiny")
        i_p, i_f = np.mgrid[0:8, 0:8]
        # a fresh destination gets -0.0 outside the mask
        self.assertTrue(same_bits(r.returned[:, :8], np.where(i_f <= i_p, a * np.float32(2.0), np.float32(-0.0))))
        z, upper = r.returned[:, 8:], i_f > i_p + 1
        self.assertTrue(same_bits(z[~upper], a[~upper]))  # kept where the mask does not hold
        np.testing.assert_allclose(z[upper], np.exp(a[upper].astype(np.float64)), rtol=1e-6)


class CompareSelectTest(unittest.TestCase):
    """Elementwise comparisons (tt / ts gt, le, ...: 1 or 0) and nl.where on tiles of values (keep, keep, add)."""

    def test_comparisons_logic_and_where(self):
        a, b = rand((8, 16), 67), rand((8, 16), 68)
        a[0, :4] = [np.inf, np.nan, -0.0, 0.25]
        b[0, :4] = [1.0, 0.0, 0.0, 0.25]
        b[1, :2] = [np.nan, -np.inf]
        r = allocsim_nki.simulate(expressions.compare_and_select, a, b, arch="tiny")
        o = r.returned.reshape(8, 7, 16).transpose(1, 0, 2)
        f = np.float32
        with np.errstate(invalid="ignore"):
            gt, le = (a > b).astype(f), (a <= f(0.25)).astype(f)
        self.assertTrue(same_bits(o[0], gt))
        self.assertTrue(same_bits(o[1], (f(0.25) >= a).astype(f)))
        self.assertTrue(same_bits(o[2], ((gt != 0) & (le != 0)).astype(f)))
        either = ((gt != 0) | (le != 0)).astype(f)
        self.assertTrue(same_bits(o[3], either))
        self.assertTrue(same_bits(o[4], (either == 0).astype(f)))
        # selected values keep their bits (the infinity, -0.0, a NaN as the quiet NaN)
        self.assertTrue(same_bits(o[5], np.where(gt != 0, a, b)))
        self.assertTrue(same_bits(o[6], np.where(le != 0, f(-1.0), a)))

    def test_integer_where_and_equal(self):
        rs = np.random.RandomState(69)
        a, b = rs.randint(-2**31, 2**31, (8, 8)).astype(np.int32), rs.randint(-3, 3, (8, 8)).astype(np.int32)
        b[0, :3] = a[0, :3]
        c = rs.randint(-1, 2, (8, 8)).astype(np.int32)
        r = allocsim_nki.simulate(expressions.integer_where, a, b, c, arch="tiny")
        np.testing.assert_array_equal(r.returned[:, :8], np.where(c != 0, a, b))
        np.testing.assert_array_equal(r.returned[:, 8:], (a == b).astype(np.int32))


if __name__ == "__main__":
    unittest.main()
