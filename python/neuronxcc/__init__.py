"""The `neuronxcc` spelling of NKI's packages, as allocsim traces them (python/allocsim_nki)."""
