"""neuronxcc.nki.compiler (ncc): direct allocation. A hand-placed tensor becomes a pinned placement."""

from . import trace as _t


def _modulo_func(base, shape, scale):
    def func(indices):
        shp = tuple(shape) if shape else (1,) * len(indices)
        lin, mul = 0, 1
        for i, s in reversed(list(zip(indices, shp))):
            lin += (i % s) * mul
            mul *= s
        return lin * scale + base
    return func


class _Sbuf:
    def mod_alloc(self, base_addr, base_partition=0, num_par_tiles=(), num_free_tiles=()):
        if num_par_tiles and tuple(num_par_tiles) != (1,) * len(num_par_tiles):
            # blocks at different partitions: a tensor of the program keeps its blocks side by side in its free axis
            _t.unsupported("a modulo allocation over partitions (num_par_tiles=%s)" % (tuple(num_par_tiles),))
        pl = _t.Placement("sbuf", partition=base_partition, offset=base_addr,
                          func=lambda idx, p, f: (base_partition, _modulo_func(base_addr, num_free_tiles, f)(idx)))
        pl.counts = tuple(num_free_tiles)
        return pl

    def alloc(self, func):
        return _t.Placement("sbuf", func=func)


class _Psum:
    def mod_alloc(self, base_bank, base_addr=0, num_bank_tiles=()):
        if base_addr:
            _t.unsupported("a PSUM allocation inside a bank (base_addr=%d)" % base_addr)
        pl = _t.Placement("psum", bank=base_bank,
                            func=lambda idx, p, f: (0, _modulo_func(base_bank, num_bank_tiles, 1)(idx)))
        pl.counts = tuple(num_bank_tiles)
        return pl

    def alloc(self, func):
        return _t.Placement("psum", func=lambda idx, p, f: _psum_func(func, idx, p, f))


def _psum_func(func, idx, p, f):
    """NKI's PSUM allocation function gives (bank, partition, byte address in the bank); the tracer's placements are
    (partition, bank) of whole banks."""
    r = tuple(func(idx, p, f))
    if len(r) != 3:
        _t.unsupported("a PSUM allocation function that returns %r (NKI's returns (bank, partition, address))" % (r,))
    if r[1] or r[2]:
        _t.unsupported("a PSUM allocation at partition %d, byte %d of a bank (tiles start at a bank)" % (r[1], r[2]))
    return 0, r[0]


sbuf = _Sbuf()
psum = _Psum()


def skip_middle_end_transformations(f):
    return f


def enable_stack_allocator(*a, **k):
    return (lambda f: f) if not a or not callable(a[0]) else a[0]


force_auto_alloc = enable_stack_allocator


class no_reorder:
    """`with ncc.no_reorder():` asks the compiler to keep the instructions in program order: the traced program is in
    program order already."""

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False
