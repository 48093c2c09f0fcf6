"""Row softmax in the form of NKI's softmax tutorial, written for allocsim's tests."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def softmax(a_tensor):
    R, N = a_tensor.shape
    P = nl.tile_size.pmax
    out_tensor = nl.ndarray((R, N), dtype=a_tensor.dtype, buffer=nl.shared_hbm)
    for i in nl.affine_range(R // P):
        a_tile = nl.load(a_tensor[i * P:(i + 1) * P, :])
        max_vals = nl.max(a_tile, axis=1, keepdims=True)
        shifted = nl.subtract(a_tile, max_vals)
        numerator = nl.exp(shifted)
        denominator = nl.sum(numerator, axis=1)
        sm = nl.divide(numerator, denominator)
        nl.store(out_tensor[i * P:(i + 1) * P, :], value=sm)
    return out_tensor
