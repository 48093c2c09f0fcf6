"""The NKI front end's storage: HBM views spanning rows, indexes over many loops, PSUM tile arrays folded onto fewer
tiles, hand placements in loops (and scalar_tensor_tensor, which a hand-placed sample needs). Each kernel of tests/kernels/storage.py is traced, run by the allocsim binary and
compared with numpy (bit for bit where the interpreter is exact).

Run by ctest (nki_python); by hand: ALLOCSIM_BINARY=build/allocsim PYTHONPATH=python python3 -m unittest discover
-s python/tests
"""

import os
import re
import subprocess
import sys
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "kernels"))

import allocsim_nki  # noqa: E402
from arrays import rand, same_bits  # noqa: E402
import storage  # noqa: E402




def matmul_in_order(aT, w):
    """aT.T @ w in f32, products rounded, summed over k = 0, 1, ... (the interpreter's matmul)."""
    acc = np.zeros((aT.shape[1], w.shape[1]), np.float32)
    for k in range(aT.shape[0]):
        acc = (acc + aT[k][:, None] * w[k][None, :]).astype(np.float32)
    return acc


class DramRowsTest(unittest.TestCase):
    def test_view_over_consecutive_rows(self):
        a = rand((10, 16), 1)
        r = allocsim_nki.simulate(storage.window_rows_max, a, 3, arch="tiny")
        want = np.maximum(np.maximum(a[0:8], a[1:9]), a[2:10])
        self.assertTrue(same_bits(r.returned, want))
        # one DMA per row of the window, each inside the rows of a: a[e:8, :]
        self.assertRegex(r.program, r"(?m)^\s*dma win\[:, e\*16:16\], a\[e:8, :\]")


class ManyLoopIndicesTest(unittest.TestCase):
    def test_five_loop_indices_in_one_offset(self):
        a = rand((128, 64), 2)  # gen2: five loop registers (tiny has four)
        r = allocsim_nki.simulate(storage.five_loop_copy, a)
        self.assertTrue(same_bits(r.returned, a * 2))
        self.assertRegex(r.program, r"a\[:, i\*32\+j\*16\+k\*8\+m\*4\+n\*2:2\]")


class PsumFoldTest(unittest.TestCase):
    def test_tiles_consumed_at_once_share_two_banks(self):
        # six [8, 64] f32 tiles of one bank each on a machine of four banks
        aT, w = rand((8, 48), 3), rand((8, 64), 4)
        r = allocsim_nki.simulate(storage.psum_tiles_consumed_at_once, aT, w, arch="tiny")
        self.assertTrue(same_bits(r.returned, matmul_in_order(aT, w)))
        self.assertRegex(r.program, r"(?m)^psum res \[8, 128\] f32 ")
        self.assertRegex(r.program, r"matmul res\[:, m%2\*64:64\]")
        self.assertGreater(r.cycles, 0)
        v = allocsim_nki.verify(storage.psum_tiles_consumed_at_once, aT, w, arch="tiny")
        self.assertTrue(v.ok, v.findings)

    def test_tiles_read_after_all_writes_stay_whole(self):
        # two arrays of three one-bank tiles on four banks: only the one consumed at once is folded
        aT, w = rand((8, 24), 5), rand((8, 64), 6)
        r = allocsim_nki.simulate(storage.psum_tiles_kept_and_folded, aT, w, arch="tiny", timing=False)
        want = matmul_in_order(aT, w)
        self.assertTrue(same_bits(r.returned[0], want))
        self.assertTrue(same_bits(r.returned[1], want))
        self.assertRegex(r.program, r"(?m)^psum res_all \[8, 192\] f32 ")
        self.assertRegex(r.program, r"(?m)^psum res_now \[8, 128\] f32 ")
        self.assertFalse(re.search(r"res_all\[:, m\w*%", r.program))


class PlacedInLoopTest(unittest.TestCase):
    def test_modulo_placements_declared_in_a_loop(self):
        aT, w = rand((8, 64), 7), rand((8, 32), 8)
        r = allocsim_nki.simulate(storage.placed_in_loop, aT, w, arch="tiny")
        self.assertTrue(same_bits(r.returned, matmul_in_order(aT, w)))
        # the kernel's own addresses: w_sb at 0, a_sb at N*4 = 128 (two tiles of P*4 = 32 bytes), o_sb at
        # 128 + 2*32 = 192 (one tile), res from bank 2 (two tiles)
        decls = dict(re.findall(r"(?m)^(?:sbuf|psum) (\w+) (\[[^\]]*\] f32 pinned @\S+)", r.program))
        self.assertEqual(decls, {"w_sb": "[8, 32] f32 pinned @p0+0", "a_sb": "[8, 16] f32 pinned @p0+128",
                                 "res": "[8, 64] f32 pinned @bank2", "o_sb": "[8, 32] f32 pinned @p0+192"})
        self.assertRegex(r.program, r"matmul res\[:, m%2\*32:32\], a_sb\[:, m%2\*8:8\]")
        v = allocsim_nki.verify(storage.placed_in_loop, aT, w, arch="tiny")
        self.assertTrue(v.ok, v.findings)
        # -O7 keeps every placement
        o7 = subprocess.run([allocsim_nki.binary(), "alloc", storage.__file__, "-O7", "--quiet", "--arch", "tiny",
                             "--kernel", "placed_in_loop", "--arg", "aT=8x64:float32", "--arg", "w=8x32:float32"],
                            check=True, stdout=subprocess.PIPE, text=True).stdout
        self.assertEqual(dict(re.findall(r"(?m)^(?:sbuf|psum) (\w+) (\[[^\]]*\] f32 pinned @\S+)", o7)), decls)


class ScalarTensorTensorTest(unittest.TestCase):
    def test_matches_numpy_in_f32(self):
        a, s, b = rand((8, 32), 10), rand((8, 1), 11), rand((8, 32), 12)
        r = allocsim_nki.simulate(storage.scaled_sum, a, s, b, arch="tiny")
        self.assertTrue(same_bits(r.returned, (a * s).astype(np.float32) + b))


class RefusedTest(unittest.TestCase):
    def line_of(self, marker):
        with open(storage.__file__) as f:
            return next(i for i, line in enumerate(f, 1) if "# refused: " + marker in line)

    def test_refusals_name_the_kernel_line(self):
        a = rand((8, 16), 9)
        for kernel, marker, message in ((storage.partition_tiles, "num_par_tiles",
                                         "unsupported: a modulo allocation over partitions"),
                                        (storage.packed_mx, "float8_e4m3fn_x4",
                                         "unsupported: dtype float8_e4m3fn_x4")):
            with self.assertRaises(allocsim_nki.KernelError) as ctx:
                allocsim_nki.simulate(kernel, a, arch="tiny")
            self.assertIn("storage.py:%d: %s" % (self.line_of(marker), message), ctx.exception.format())


if __name__ == "__main__":
    unittest.main()
