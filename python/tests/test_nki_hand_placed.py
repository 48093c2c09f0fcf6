"""`allocsim verify KERNEL.py` on a kernel that places its tiles by hand but not the SBUF copy of a constant it loads
(the compiler places what a kernel leaves unplaced): the kernel verifies, and a hand placement that overlaps a live
tile is still found.

Run by ctest (nki_python); by hand: ALLOCSIM_BINARY=build/allocsim PYTHONPATH=python python3 -m unittest discover
-s python/tests
"""

import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "kernels"))

import allocsim_nki  # noqa: E402
import placed  # noqa: E402

FLAGS = ["--kernel", "placed_transpose", "--arch", "tiny", "--arg", "a=8x8:float32", "--quiet", "--poison-seed", "5"]


def verify(path):
    return subprocess.run([allocsim_nki.binary(), "verify", path] + FLAGS, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)


class HandPlacedWithConstantTest(unittest.TestCase):
    def test_transposes(self):
        a = np.random.default_rng(3).standard_normal((8, 8)).astype(np.float32)
        r = allocsim_nki.simulate(placed.placed_transpose, a, arch="tiny")
        np.testing.assert_array_equal(r.returned, a.T)

    def test_verifies(self):
        r = verify(placed.__file__)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)

    def verify_changed(self, old, new):
        """The exit code of verify on the kernel with `old` (one line of its source) replaced by `new`."""
        with open(placed.__file__) as f:
            src = f.read()
        self.assertEqual(src.count(old), 1)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "placed.py")
            with open(path, "w") as f:
                f.write(src.replace(old, new))
            r = verify(path)
        return r.returncode, r.stdout + r.stderr

    # ident is bytes 0-31 of each partition, a_sb 32-63, t_sb 64-95 (8 f32 each). The matmul reads ident and a_sb
    # together; t_sb is written by the copy after it, when neither is read again.
    A_SB = "buffer=ncc.sbuf.mod_alloc(base_addr=R * 4))"
    T_SB = "buffer=ncc.sbuf.mod_alloc(base_addr=R * 4 + C * 4))"

    def test_overlap_with_the_live_identity_is_found(self):
        # a_sb one f32 element into ident
        rc, out = self.verify_changed(self.A_SB, self.A_SB.replace("R * 4", "R * 4 - 4"))
        self.assertEqual(rc, 1, out)

    def test_address_computed_with_the_bf16_size_is_found(self):
        # a_sb at R * 2 = 16: onto ident's second half
        rc, out = self.verify_changed(self.A_SB, self.A_SB.replace("R * 4", "R * 2"))
        self.assertEqual(rc, 1, out)

    def test_overlap_with_a_dead_tile_is_not_flagged(self):
        # t_sb at R * 4 + C * 2 = 48: onto a_sb's second half, which the matmul has read for the last time
        rc, out = self.verify_changed(self.T_SB, self.T_SB.replace("C * 4", "C * 2"))
        self.assertEqual(rc, 0, out)


if __name__ == "__main__":
    unittest.main()
