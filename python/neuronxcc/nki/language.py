from allocsim_nki.language import *  # noqa: F401,F403
from allocsim_nki.language import abs, max, min, sum, copy, tile_size  # noqa: F401
