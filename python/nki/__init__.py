"""NKI's `nki` package as allocsim traces it (python/allocsim_nki): @nki.jit kernels become programs."""
from allocsim_nki.kernel import jit, trace, baremetal, benchmark, profile  # noqa: F401
from allocsim_nki.typing import tensor  # noqa: F401  (the `nki.tensor` annotation kernels write)
from . import language, isa  # noqa: F401


def simulate_kernel(kernel, *args, **kwargs):
    """NKI's simulator entry point: here, allocsim's interpreter (allocsim_nki.simulate) -> the outputs."""
    import allocsim_nki
    return allocsim_nki.simulate_kernel(kernel, *args, **kwargs)


def simulate(kernel, *args, **kwargs):
    """`nki.simulate(kernel)(a, b)`: a function that simulates the kernel on its arguments (simulate_kernel); with
    the arguments given directly, their simulation."""
    if not args and not kwargs:
        return lambda *a, **k: simulate_kernel(kernel, *a, **k)
    return simulate_kernel(kernel, *args, **kwargs)
