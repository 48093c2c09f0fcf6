"""A kernel written for an SPMD launch grid, for allocsim's tests."""
import neuronxcc.nki as nki
import neuronxcc.nki.language as nl


@nki.jit
def grid_scaled_add(a, b):
    """Instance (x, y) of the grid adds its [P, F] tile of a and b, the tile of instance (x, y) of a grid of
    nl.num_programs(0) x nl.num_programs(1) tiles, and doubles b's part."""
    P = a.shape[0] // nl.num_programs(0)
    F = a.shape[1] // nl.num_programs(1)
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    rows = nl.program_id(0) * P + nl.arange(P)[:, None]
    cols = nl.program_id(1) * F + nl.arange(F)[None, :]
    ta = nl.load(a[rows, cols])
    tb = nl.load(b[rows, cols])
    nl.store(out[rows, cols], value=nl.add(ta, nl.multiply(tb, 2.0)))
    return out
