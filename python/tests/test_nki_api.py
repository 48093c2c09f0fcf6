"""NKI API forms the SDK's own examples use: dtype limits (`nl.fp32.min`), tensor_scalar with reversed operands,
nl.store of a number, HBM to HBM copies, `dge_mode`, launch grids over NeuronCores (`nl.spmd_dim`, `nl.nc`), and
kernels called directly with numpy arrays or in simulation mode. Each kernel of tests/kernels/api_examples.py runs
through the allocsim binary; the expected values come from numpy on the same inputs.

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
import api_examples as k  # noqa: E402
import neuronxcc.nki.language as nl  # noqa: E402
from allocsim_nki import floats  # noqa: E402




class DtypeLimitsTest(unittest.TestCase):
    def test_limits_are_numpys(self):
        for d, n in ((nl.float32, np.float32), (nl.float16, np.float16)):
            self.assertEqual(d.max, float(np.finfo(n).max))
            self.assertEqual(d.min, float(np.finfo(n).min))
        self.assertEqual(nl.fp32.min, float(np.finfo(np.float32).min))
        for d, n in ((nl.int8, np.int8), (nl.uint8, np.uint8), (nl.int16, np.int16), (nl.uint16, np.uint16),
                     (nl.int32, np.int32), (nl.uint32, np.uint32)):
            self.assertEqual((d.min, d.max), (int(np.iinfo(n).min), int(np.iinfo(n).max)))
        # bf16: f32's exponent with 7 mantissa bits; the fp8 formats: the largest finite value of their code table
        self.assertEqual(nl.bfloat16.max, float(np.uint32(0x7F7F0000).view(np.float32)))
        for d in (nl.float8_e4m3, nl.float8_e5m2, nl.float8_e4m3fn):
            codes = floats.decode(np.arange(256, dtype=np.uint8), d.fmt if hasattr(d, "fmt") else d)
            self.assertEqual(d.max, float(np.max(codes[np.isfinite(codes)])))
            self.assertEqual(d.min, -d.max)

    def test_numpy_takes_the_dtypes_it_has(self):
        self.assertEqual(np.zeros(2, dtype=nl.float32).dtype, np.float32)
        self.assertEqual(np.ones(2).astype(nl.uint8).dtype, np.uint8)
        self.assertEqual(np.zeros(2, dtype=nl.bool_).dtype, np.bool_)
        # bf16 and fp8 (numpy has none) are float32 arrays tagged with the format (test_nki_search.py)
        self.assertEqual(np.zeros(2, dtype=nl.bfloat16).dtype, np.float32)

    def test_fill_with_lowest_value(self):
        a = rand((8, 8), 1)
        r = allocsim_nki.simulate(k.fill_below_diagonal, a, arch="tiny")
        want = a.copy()
        want[np.triu_indices(8)] = np.finfo(np.float32).min
        self.assertTrue(same_bits(r.returned, want))


class ReversedScalarTest(unittest.TestCase):
    def test_reverse0(self):
        a, c = rand((8, 16), 2), rand((8, 1), 3)
        r = allocsim_nki.simulate(k.reversed_scalar_ops, a, c, arch="tiny")
        o1, o2, o3 = r.returned
        self.assertTrue(same_bits(o1, np.float32(3.0) - a))
        self.assertTrue(same_bits(o2, (np.float32(2.5) - a) * c))
        self.assertTrue(same_bits(o3, (np.float32(0.5) < a).astype(np.float32)))

    def test_reverse1_with_a_column(self):
        a, c = rand((8, 16), 4), rand((8, 1), 5)
        r = allocsim_nki.simulate(k.subtract_from_column, a, c, arch="tiny")
        self.assertTrue(same_bits(r.returned, c - a * np.float32(2.0)))


class HbmStoreTest(unittest.TestCase):
    def test_number_and_hbm_copy(self):
        a = rand((8, 24), 6)
        r = allocsim_nki.simulate(k.store_number_and_copy, a, arch="tiny")
        self.assertTrue(same_bits(r.returned[0], np.full_like(a, 100.0)))
        self.assertTrue(same_bits(r.returned[1], a))
        self.assertTrue(allocsim_nki.verify(k.store_number_and_copy, a, arch="tiny").ok)

    def test_hbm_copy_of_more_rows_than_partitions(self):
        a = rand((20, 4), 7)  # three staged blocks of rows on tiny (8 partitions), the last one partial
        r = allocsim_nki.simulate(k.copy_hbm_rows, a, arch="tiny")
        self.assertTrue(same_bits(r.returned, a))
        self.assertEqual(r.program.count("dma "), 6)


class SelectionTest(unittest.TestCase):
    def special(self, shape, seed):
        x = rand(shape, seed)
        x.flat[:4] = [np.inf, -np.inf, -0.0, np.nan]
        return x

    def test_broadcast_along_partitions(self):
        a, s, col, row = rand((8, 16), 11), rand((1, 1), 12), rand((8, 1), 13), rand((1, 16), 14)
        r = allocsim_nki.simulate(k.broadcast_adds, a, s, col, row, arch="tiny")
        self.assertTrue(same_bits(r.returned[0], a + s))
        self.assertTrue(same_bits(r.returned[1], col - row))

    def test_copy_predicated(self):
        x, y = self.special((8, 16), 15), self.special((8, 16), 16)[::-1].copy()
        pred = (rand((8, 16), 17) > 0).astype(np.uint8)
        r = allocsim_nki.simulate(k.copy_predicated, pred, x, y, arch="tiny")
        self.assertTrue(same_bits(r.returned[0], np.where(pred != 0, x, y)))
        self.assertTrue(same_bits(r.returned[1], np.where(pred != 0, y, x)))
        self.assertTrue(allocsim_nki.verify(k.copy_predicated, pred, x, y, arch="tiny").ok)

    def test_select_reduce(self):
        x = rand((8, 16), 18)
        pred = (rand((8, 16), 19) > 0.5).astype(np.uint8)
        fill = rand((8, 1), 20) - np.float32(3)
        r = allocsim_nki.simulate(k.select_with_max, pred, x, fill, arch="tiny")
        want = np.where(pred != 0, x, fill)
        self.assertTrue(same_bits(r.returned[0], want))
        self.assertTrue(same_bits(r.returned[1], want.max(axis=1, keepdims=True)))
        self.assertTrue(same_bits(r.returned[2], np.where(pred != 0, x, np.float32(-1.5))))

    def test_transposing_loads(self):
        a = rand((20, 8), 21)  # three blocks of rows on tiny (8 partitions), the last one partial
        r = allocsim_nki.simulate(k.transposing_loads, a, arch="tiny")
        self.assertTrue(same_bits(r.returned[0], a.T))
        self.assertTrue(same_bits(r.returned[1], a.T))
        self.assertTrue(allocsim_nki.verify(k.transposing_loads, a, arch="tiny").ok)


def running(values, op, reg):
    """reg = op(v, reg) along each row, in float32, every step's register kept (a numpy loop)."""
    out = np.empty_like(values)
    reg = np.asarray(reg, np.float32).reshape(-1).copy()
    for i in range(values.shape[1]):
        reg = op(values[:, i], reg).astype(np.float32)
        out[:, i] = reg
    return out


class CumulativeTest(unittest.TestCase):
    def check(self, a, start, extra):
        args = (a, start) if extra is None else (a, start, extra)
        r = allocsim_nki.simulate(k.cumulative, *args, arch="tiny")
        src = a if extra is None else a + extra
        o1 = running(src * np.float32(2), np.add, np.zeros(8, np.float32))
        self.assertTrue(same_bits(r.returned[0], o1))
        self.assertTrue(same_bits(r.returned[2], running(np.float32(0.5) - a, np.add, o1[:, -1])))
        self.assertTrue(same_bits(r.returned[1], running(a + np.float32(1), np.maximum, start)))
        self.assertTrue(allocsim_nki.verify(k.cumulative, *args, arch="tiny").ok)

    def test_scan_commands(self):
        self.check(rand((8, 12), 23), rand((8, 1), 24), None)

    def test_optional_hbm_parameter_given(self):
        self.check(rand((8, 12), 25), rand((8, 1), 26), rand((8, 12), 27))


class PartitionReduceTest(unittest.TestCase):
    def test_sum_and_max_over_partitions(self):
        a = rand((8, 3, 12), 28)  # 36 free elements: five blocks of at most 8 on the tiny machine
        total, top = np.zeros((1, 3, 12), np.float32), np.zeros((1, 3, 12), np.float32)
        r = allocsim_nki.simulate(k.partition_reduce, a, total, top, arch="tiny")
        want = a[0].copy()
        for p in range(1, 8):  # partition 0 first, each sum rounded to float32
            want = (want + a[p]).astype(np.float32)
        self.assertTrue(same_bits(r.outputs["total"], want[None]))
        self.assertTrue(same_bits(r.outputs["top"], a.max(axis=0, keepdims=True)))
        self.assertTrue(allocsim_nki.verify(k.partition_reduce, a, total, top, arch="tiny").ok)


class MaskedTileTest(unittest.TestCase):
    def test_compute_on_a_partially_loaded_tile(self):
        a = rand((5, 16), 22)  # one tile of 8 partitions, 5 of them loaded
        r = allocsim_nki.simulate(k.partial_rows_unmasked_compute, a, arch="tiny")
        self.assertTrue(same_bits(r.returned, a * np.float32(3.0)))
        self.assertTrue(r.run["ok"])
        self.assertTrue(allocsim_nki.verify(k.partial_rows_unmasked_compute, a, arch="tiny").ok)

    def test_masked_reduction_over_some_free_axes(self):
        a = rand((5, 12), 29)
        r = allocsim_nki.simulate(k.masked_group_max, a, arch="tiny")
        self.assertTrue(same_bits(r.returned, a.reshape(5, 4, 3).max(axis=2)))
        self.assertTrue(allocsim_nki.verify(k.masked_group_max, a, arch="tiny").ok)


class FrameworkImportsTest(unittest.TestCase):
    def test_file_importing_missing_frameworks_traces(self):
        import subprocess
        env = dict(os.environ, PYTHONPATH=os.path.join(os.path.dirname(HERE)))
        p = subprocess.run([sys.executable, "-m", "allocsim_nki.cli", "trace",
                            os.path.join(HERE, "kernels", "with_framework.py"), "--kernel", "scale_rows",
                            "--arg", "a=8x4:float32", "--arch", "tiny"], capture_output=True, text=True, env=env)
        self.assertEqual(p.returncode, 0, p.stderr)
        self.assertIn("dram a [8, 4] f32 input", p.stdout)
        self.assertRegex(p.stdout, r"(?m)^ts \w+, \w+, 0\.5, mul")


class IndirectTest(unittest.TestCase):
    def test_index_from_a_tile_is_refused_at_its_line(self):
        with self.assertRaises(allocsim_nki.KernelError) as e:
            allocsim_nki.program(k.gather_rows, rand((16, 4), 10), np.zeros((8, 1), np.int32), arch="tiny")
        msg = e.exception.format()
        self.assertIn("unsupported: an index taken from a tile's values", msg)
        with open(k.__file__) as f:
            line = next(n for n, text in enumerate(f, 1) if "data[rows," in text)
        self.assertIn("api_examples.py:%d:" % line, msg)


class GridAndCallsTest(unittest.TestCase):
    def test_grid_over_neuron_cores(self):
        a = rand((4, 2, 8, 16), 8)
        want = (a * 2).transpose(1, 0, 2, 3)
        for axis0 in (nl.spmd_dim(nl.nc(2), 2), nl.nc(2) * 2, 2 * nl.nc(2), 4):
            r = allocsim_nki.simulate(k.swap_blocks[axis0, 2], a, arch="tiny")
            self.assertTrue(same_bits(r.returned, want))

    def test_kernel_called_with_numpy_arrays(self):
        a = rand((8, 16), 9)
        self.assertTrue(same_bits(k.double(a), a * 2))
        self.assertTrue(same_bits(k.double_sim(a), a * 2))
        self.assertEqual(k.double_sim.options.get("mode"), "simulation")

    def test_simulation_mode_kernel_without_arguments(self):
        got = k.iota_rows()
        self.assertTrue(np.array_equal(got, np.repeat(np.arange(8, dtype=np.int32)[:, None] * 3, 4, axis=1)))


if __name__ == "__main__":
    unittest.main()
