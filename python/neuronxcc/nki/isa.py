from allocsim_nki.isa import *  # noqa: F401,F403
