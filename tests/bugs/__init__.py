"""The sanitizer's bug corpus: deliberately broken kernels, each with the findings it must
produce (kind, check, kernel line) and a fixed twin that must be clean.
tests/test_sanitizer_bugs.py runs them all."""
