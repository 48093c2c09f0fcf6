"""Kernels on the narrow dtypes (float16, the 8-bit floats, int8, uint8, int16), written for allocsim's tests."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def cast(a, dtype):
    """a converted to `dtype` on chip (one rounding per element), stored as that dtype."""
    out = nl.ndarray(a.shape, dtype=dtype, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(out, value=nl.copy(t, dtype=dtype))
    return out


@nki.jit
def widen(a):
    """a (any dtype) converted to float32."""
    out = nl.ndarray(a.shape, dtype=nl.float32, buffer=nl.shared_hbm)
    t = nl.load(a)
    nl.store(out, value=nl.copy(t, dtype=nl.float32))
    return out


@nki.jit
def mul_add(a, b):
    """a * b + a in a's dtype: each operation computes in f32 (floats) or 32-bit integers and its result is stored
    in a's dtype (rounded or wrapped) before the next."""
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    x = nl.load(a)
    y = nl.load(b)
    nl.store(out, value=nl.add(nl.multiply(x, y), x))
    return out
