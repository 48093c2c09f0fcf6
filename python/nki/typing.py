"""nki.typing as allocsim traces it (python/allocsim_nki/typing.py)."""
from allocsim_nki.typing import tensor  # noqa: F401
