from allocsim_nki.isa import *  # noqa: F401,F403
from allocsim_nki import isa as _i


constants = _i.constants_module(__name__)
