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

    def test_overlap_with_the_live_identity_is_found(self):
        with open(placed.__file__) as f:
            src = f.read()
        line = "a_sb = nl.ndarray((R, C), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=R * 4))"
        self.assertIn(line, src)
        # a_sb one f32 element into ident: both are read by the matmul
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "placed.py")
            with open(path, "w") as f:
                f.write(src.replace(line, line.replace("base_addr=R * 4", "base_addr=R * 4 - 4")))
            r = verify(path)
        self.assertEqual(r.returncode, 1, r.stdout + r.stderr)


if __name__ == "__main__":
    unittest.main()
