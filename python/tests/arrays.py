"""Input arrays and comparisons the NKI front end's tests share."""

import numpy as np


def rand(shape, seed, scale=1.0):
    """float32 values drawn uniformly from [-2, 2) (times `scale`), the same for the same seed."""
    return (np.random.RandomState(seed).uniform(-2, 2, size=shape) * scale).astype(np.float32)


def same_bits(a, b):
    """Whether two arrays hold the same float32 bit patterns (NaNs and signed zeros included)."""
    return np.array_equal(np.ascontiguousarray(a, np.float32).view(np.uint32),
                          np.ascontiguousarray(b, np.float32).view(np.uint32))
