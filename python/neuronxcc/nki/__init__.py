"""neuronxcc.nki as allocsim traces it: @nki.jit kernels become programs (python/allocsim_nki)."""
from allocsim_nki.kernel import jit, trace, baremetal, benchmark, profile  # noqa: F401
from allocsim_nki.typing import tensor  # noqa: F401  (the `nki.tensor` annotation kernels write)
from . import language, isa, compiler  # noqa: F401


def simulate_kernel(kernel, *args, **kwargs):
    import allocsim_nki
    return allocsim_nki.simulate_kernel(kernel, *args, **kwargs)
