"""Kernels that place their tiles by hand (NKI's direct allocation), written for allocsim's tests: out = (a + b) @ w
per row tile, every SBUF tile at an explicit byte address and the PSUM tile in bank 1; a transpose through the PE
whose identity matrix comes from a constant the kernel does not place."""
import numpy as np

import neuronxcc.nki as nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl
import neuronxcc.nki.compiler as ncc


@nki.jit
def placed_add_matmul(aT, bT, w):
    K, M = aT.shape
    _, N = w.shape
    P = nl.tile_size.pmax
    out = nl.ndarray((M, N), dtype=nl.float32, buffer=nl.shared_hbm)
    w_sb = nl.ndarray((K, N), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    a_sb = nl.ndarray((K, P), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=256))
    b_sb = nl.ndarray((K, P), dtype=nl.float32, buffer=nl.sbuf, address=(0, 288))
    s_sb = nl.ndarray((K, P), dtype=nl.float32, buffer=nl.sbuf, address=(0, 320))
    res = nl.ndarray((P, N), dtype=nl.float32, buffer=ncc.psum.mod_alloc(base_bank=1))
    o_sb = nl.ndarray((P, N), dtype=nl.float32, buffer=nl.sbuf, address=(0, 512))
    w_sb[...] = nl.load(w)
    for m in nl.affine_range(M // P):
        a_sb[...] = nl.load(aT[:, m * P:(m + 1) * P])
        b_sb[...] = nl.load(bT[:, m * P:(m + 1) * P])
        s_sb[...] = nl.add(a_sb, b_sb)
        res[...] = nl.matmul(s_sb, w_sb, transpose_x=True)
        o_sb[...] = nl.copy(res)
        nl.store(out[m * P:(m + 1) * P, :], value=o_sb)
    return out


@nki.jit
def placed_transpose(a):
    """out = a.T through the PE (a matmul with an identity matrix). Every tile is placed by hand; the identity comes
    from a constant, whose copy in SBUF the kernel does not place (the compiler does)."""
    R, C = a.shape
    out = nl.ndarray((C, R), dtype=nl.float32, buffer=nl.shared_hbm)
    ident_c = nl.shared_constant(np.identity(R, dtype=np.int8), dtype=nl.float32)
    ident = nl.ndarray((R, R), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=0))
    ident[...] = nl.load(ident_c)
    a_sb = nl.ndarray((R, C), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=R * 4))
    a_sb[...] = nl.load(a)
    t_ps = nl.ndarray((C, R), dtype=nl.float32, buffer=ncc.psum.mod_alloc(base_bank=0))
    t_ps[...] = nisa.nc_matmul(a_sb, ident)
    t_sb = nl.ndarray((C, R), dtype=nl.float32, buffer=ncc.sbuf.mod_alloc(base_addr=R * 4 + C * 4))
    t_sb[...] = nl.copy(t_ps)
    nl.store(out, value=t_sb)
    return out
