from allocsim_nki.isa import *  # noqa: F401,F403
from allocsim_nki import isa as _i


def _constants_module():
    """`from neuronxcc.nki.isa.constants import dge_mode`: the enumerations, as a submodule of this module."""
    import sys
    import types
    m = types.ModuleType(__name__ + ".constants")
    for n in ("engine", "dge_mode", "oob_mode", "reduce_cmd"):
        setattr(m, n, getattr(_i, n))
    sys.modules[m.__name__] = m
    return m


constants = _constants_module()
