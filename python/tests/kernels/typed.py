"""A kernel annotated with NKI's typing module (`tensor[...]`), as NKI's tutorials annotate theirs; written for
allocsim's tests."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl
from neuronxcc.nki.typing import tensor


@nki.jit
def typed_add(a: tensor[8, 64], b: tensor[8, 64]):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    a_tile: tensor[8, 64] = nl.load(a)
    b_tile: tensor[8, 64] = nl.load(b)
    nl.store(out, value=nl.add(a_tile, b_tile))
    return out
