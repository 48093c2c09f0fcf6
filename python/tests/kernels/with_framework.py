"""A kernel file in the form of the contributed kernels: it imports frameworks for the code around the kernel."""
import torch
import torch.nn.functional as F
from torch_neuronx import nki_jit

import neuronxcc.nki.language as nl

REFERENCE_DTYPE = torch.float32


@nki_jit
def scale_rows(a):
    out = nl.ndarray(a.shape, dtype=a.dtype, buffer=nl.shared_hbm)
    nl.store(out, nl.multiply(nl.load(a), 0.5))
    return out


@torch.no_grad()
def torch_reference(a):
    return F.relu(torch.tensor(a)) * 0.5
