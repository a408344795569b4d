"""Alternative algorithms for the vector math whose hardware algorithm is not public.

The hardware's Exp, Ln, Sqrt, Reciprocal and Div algorithms are unpublished. ascsim's default
for each (`DEFAULTS`, elementwise.py's element functions) is a correctly rounded fp32 result
(Exp and Ln: evaluated in float64 and rounded once). A profile option per instruction
(`exp_impl`, `ln_impl`, `sqrt_impl`, `reciprocal_impl`, `div_impl`) picks one of the
well-defined alternatives below instead, so that a user can see how sensitive a kernel is to
the algorithm. Each alternative is a fixed sequence of IEEE float32 operations (no FMA, round
to nearest-even), so it is reproducible bit for bit; the stated error bounds are measured
against mpmath (tests/test_numerics_options.py). half inputs are widened to fp32, computed,
and rounded to half as for every element-wise op.

- exp `fp32_poly`: k = rint(x / ln 2), r = (x - k*LN2_HI) - k*LN2_LO (Cody-Waite, both fp32),
  p = degree-7 Taylor polynomial of e**r by Horner in fp32, result p * 2**k (scaled in two
  exact steps so that a subnormal result rounds once). Under 2 ULP from e**x (measured: 1.19).
- ln `fp32_poly`: x = m * 2**e with m in [sqrt(1/2), sqrt(2)), s = (m - 1) / (m + 1),
  ln m = 2s + 2s * z * (1/3 + z/5 + ... + z**4/11) with z = s*s by Horner in fp32, result
  e*LN2_HI + (ln m + e*LN2_LO). Under 3 ULP from ln x (measured: 1.94).
- reciprocal `estimate_newton`: a 256-entry seed table on the top 8 mantissa bits (each entry
  the fp32 reciprocal of its interval's midpoint, relative error <= 2**-9), then one Newton
  step y = y0 * (2 - x*y0) in fp32. Relative error under 2**-17 (about 65 ULP; measured
  0.505 * 2**-17). Zeros,
  infinities, NaN and |x| outside [2**-126, 2**126) take IEEE 1/x.
- div `reciprocal_mul`: a * fl(1/b): the IEEE fp32 reciprocal, then the product (two
  roundings; a / b for b beyond 2**126 loses bits to the subnormal reciprocal).
- sqrt `rsqrt_mul`: x * fl(1/sqrt(x)) with a correctly rounded fp32 rsqrt (two roundings,
  under 1.5 ULP from sqrt x; measured 1.48); 0, inf, NaN and negative x as IEEE sqrt.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

__all__ = ["DEFAULTS", "ALTERNATIVES", "RECIP_SEED", "exp_poly", "ln_poly", "recip_newton",
           "div_recip_mul", "sqrt_rsqrt_mul"]

# Cody-Waite split of ln 2: LN2_HI has 9 significant bits, so k*LN2_HI is exact for |k| < 2**15
LN2_HI = np.float32(0.693359375)
LN2_LO = np.float32(math.log(2.0) - 0.693359375)
INV_LN2 = np.float32(1.0 / math.log(2.0))
_EXP_C = tuple(np.float32(1.0 / math.factorial(n)) for n in range(8))  # 1, 1, 1/2, ..., 1/7
_LN_C = tuple(np.float32(1.0 / (2 * n + 1)) for n in range(1, 6))     # 1/3, 1/5, ..., 1/11
SQRT_HALF = np.float32(math.sqrt(0.5))
# the reciprocal of the midpoint of [1 + i/256, 1 + (i+1)/256), rounded to fp32
RECIP_SEED = np.array([1.0 / (1.0 + (i + 0.5) / 256.0) for i in range(256)], dtype=np.float32)


@njit(cache=True, nogil=True, error_model="numpy")
def _pow2(n):
    """2**n as float32 for n in [-126, 127] (exact)."""
    return np.float32(math.ldexp(1.0, n))


@njit(cache=True, nogil=True, error_model="numpy")
def exp_poly(x):
    x = np.float32(x)
    if x != x:
        return x
    if x > np.float32(89.0):
        return np.float32(np.inf)
    if x < np.float32(-104.0):
        return np.float32(0.0)
    k = np.float32(np.rint(x * INV_LN2))
    r = (x - k * LN2_HI) - k * LN2_LO
    c = _EXP_C
    p = c[7]
    p = c[6] + r * p
    p = c[5] + r * p
    p = c[4] + r * p
    p = c[3] + r * p
    p = c[2] + r * p
    p = c[1] + r * p
    p = c[0] + r * p
    n = int(k)
    if n > 127:
        return (p * _pow2(n - 1)) * np.float32(2.0)
    if n < -125:
        return (p * _pow2(n + 100)) * _pow2(-100)
    return p * _pow2(n)


@njit(cache=True, nogil=True, error_model="numpy")
def ln_poly(x):
    x = np.float32(x)
    if x != x or x == np.float32(np.inf):
        return x
    if x < 0:
        return np.float32(np.nan)
    if x == 0:
        return np.float32(-np.inf)
    m64, e = math.frexp(np.float64(x))  # exact: x = m * 2**e, m in [0.5, 1)
    m = np.float32(m64)
    if m < SQRT_HALF:
        m = m * np.float32(2.0)
        e -= 1
    f = m - np.float32(1.0)
    s = f / (m + np.float32(1.0))
    z = s * s
    c = _LN_C
    q = c[4]
    q = c[3] + z * q
    q = c[2] + z * q
    q = c[1] + z * q
    q = c[0] + z * q
    s2 = s + s
    lnm = s2 + s2 * (z * q)
    ef = np.float32(e)
    return ef * LN2_HI + (lnm + ef * LN2_LO)


@njit(cache=True, nogil=True, error_model="numpy")
def recip_newton(x):
    x = np.float32(x)
    a = abs(x)
    if not (a >= np.float32(2.0 ** -126) and a < np.float32(2.0 ** 126)):
        return np.float32(1.0) / x  # zeros, infinities, NaN, subnormals, the largest
    m64, e = math.frexp(np.float64(a))  # a = (2m) * 2**(e-1), 2m in [1, 2)
    i = int((m64 * 2.0 - 1.0) * 256.0)
    y = RECIP_SEED[i] * _pow2(1 - e)
    y = y * (np.float32(2.0) - a * y)
    return -y if x < 0 else y


@njit(cache=True, nogil=True, error_model="numpy")
def div_recip_mul(a, b):
    return a * (np.float32(1.0) / b)


@njit(cache=True, nogil=True, error_model="numpy")
def sqrt_rsqrt_mul(x):
    x = np.float32(x)
    if not (x > 0 and x < np.float32(np.inf)):
        return np.sqrt(x)  # +-0, inf, NaN, negative
    return x * np.float32(1.0 / math.sqrt(np.float64(x)))


# option -> its default value (today's behaviour: the op's own element function)
DEFAULTS = {"exp_impl": "correctly_rounded", "ln_impl": "correctly_rounded",
            "sqrt_impl": "correctly_rounded", "reciprocal_impl": "exact",
            "div_impl": "correctly_rounded"}
# option -> {alternative value: its element function}
ALTERNATIVES = {"exp_impl": {"fp32_poly": exp_poly}, "ln_impl": {"fp32_poly": ln_poly},
                "sqrt_impl": {"rsqrt_mul": sqrt_rsqrt_mul},
                "reciprocal_impl": {"estimate_newton": recip_newton},
                "div_impl": {"reciprocal_mul": div_recip_mul}}
