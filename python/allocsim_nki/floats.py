"""The 8-bit float formats of the program format (docs/format.md "Small floats") in numpy, for the data a kernel is
simulated on and the outputs it returns: numpy has no fp8 dtype.

Each format is given by its exponent and mantissa bits and whether its all-ones exponent holds infinities and NaNs
(IEEE-like: f8e4m3, f8e5m2) or only the NaN with all-ones mantissa (f8e4m3fn). Values are found by searching the
table of all 256 codes, not by bit manipulation, so these are an independent statement of the rounding rule:
round to nearest, ties to the even code; beyond the largest finite value (and its half step) an IEEE-like format
gives infinity and f8e4m3fn NaN; NaN gives the quiet NaN (sign kept, all-ones exponent, top mantissa bit; all-ones
mantissa for f8e4m3fn).
"""

FORMATS = {"f8e4m3": (4, 3, True), "f8e5m2": (5, 2, True), "f8e4m3fn": (4, 3, False)}


def decode(codes, fmt):
    """uint8 codes -> float32 values; a NaN is the quiet NaN 0x7fc00000, as the interpreter loads one."""
    import numpy as np
    E, M, ieee = FORMATS[fmt]
    table = _table(E, M, ieee)
    out = table[np.asarray(codes, dtype=np.uint8)].astype(np.float32)
    out[np.isnan(out)] = np.uint32(0x7FC00000).view(np.float32)
    return out


def _table(E, M, ieee):
    import numpy as np
    bias = (1 << (E - 1)) - 1
    out = np.zeros(256, dtype=np.float64)
    for code in range(256):
        s, e, m = code >> (E + M) & 1, (code >> M) & ((1 << E) - 1), code & ((1 << M) - 1)
        top = e == (1 << E) - 1
        if ieee and top:
            v = np.inf if m == 0 else np.nan
        elif not ieee and top and m == (1 << M) - 1:
            v = np.nan
        elif e == 0:
            v = m * 2.0 ** (1 - bias - M)
        else:
            v = (1 + m / (1 << M)) * 2.0 ** (e - bias)
        out[code] = -v if s else v
    return out


def encode(values, fmt):
    """float32 values -> uint8 codes (nearest, ties to even)."""
    import numpy as np
    E, M, ieee = FORMATS[fmt]
    table = _table(E, M, ieee)
    x = np.asarray(values, dtype=np.float64).ravel()
    pos = [c for c in range(128) if np.isfinite(table[c])]
    vals = table[pos]
    top = max(pos, key=lambda c: table[c])
    step = table[top] - table[top - 1]
    overflow = table[top] + step / 2  # the halfway point to the next value the exponent range lacks
    nan_code = ((1 << E) - 1) << M | ((1 << M) - 1 if not ieee else 1 << (M - 1))
    inf_code = ((1 << E) - 1) << M
    out = np.zeros(x.shape, dtype=np.uint8)
    for i, v in enumerate(x):
        sign = 0x80 if np.signbit(v) else 0
        a = abs(v)
        if np.isnan(v):
            out[i] = sign | nan_code
            continue
        if a > overflow or (a == overflow and top & 1) or np.isinf(a):
            out[i] = sign | (inf_code if ieee else nan_code)
            continue
        d = np.abs(vals - a)
        best = np.flatnonzero(d == d.min())
        codes = [pos[b] for b in best]
        even = [c for c in codes if c % 2 == 0]
        out[i] = sign | (even[0] if even else codes[0])
    return out.reshape(np.shape(values))
