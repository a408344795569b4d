"""Test support shipped with ascsim, for its own kernels and for yours.

- `golden`: a pytest plugin (`-p ascsim.testing.golden`): the `golden` fixture pins outputs bit
  for bit in JSON golden stores, `pytest --update-golden` rewrites them.
- `goldenstore`: the store itself (one JSON per kernel: SHA-256 + a sample, full data when
  small) and its mismatch report.
- `bitcompare`: canonical bits, SHA-256 of an output, the bit-for-bit mismatch report.
- `tolerance`: per-dtype rtol/atol comparison (the CANN operator-test style).
- `specials`: special-value sets per dtype (NaN, ±Inf, ±0, subnormals, ...) and rounding ties.
- `datafiles`: CANN-style test-data directories (.bin inputs, golden, a JSON meta).
"""
