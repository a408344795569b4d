"""`ascsim sanitize <op>`: run an operator with every sanitizer check on and print the report
(msSanitizer style). Exit status 1 when there is any ERROR finding (or the run fails), else 0."""

from __future__ import annotations

import argparse

from .. import prewarm
from ..errors import SimulationError
from .run import add_common, prepare


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("sanitize", help="run an operator under the sanitizer",
                       description="Run an operator on random inputs with memcheck, racecheck, "
                                   "synccheck, initcheck and the multi-core checks, and print "
                                   "the findings. Exits 1 on any error.")
    add_common(p)
    p.add_argument("--strict", action="store_true",
                   help="stop at the first error (raise) instead of collecting findings")
    p.add_argument("--warnings-as-errors", action="store_true",
                   help="exit 1 on warnings too")
    return p


def main(args: argparse.Namespace) -> int:
    op, shape, dtype, inputs, options = prepare(args)
    mode = "strict" if args.strict else "check"
    prewarm.start("sanitizer")  # the offline pass compiles in a worker while the kernel runs
    try:
        _, run = op.run(inputs, options, profile=args.profile, sanitize=mode,
                        threads=args.threads)
    except SimulationError as e:
        print(f"ascsim sanitize {op.name}: {e}")
        return 1
    if run is None:
        print(f"ascsim sanitize {op.name}: empty input, nothing launched")
        return 0
    errors = sum(1 for f in run.findings if f.severity == "ERROR")
    warnings = len(run.findings) - errors
    failed = errors or (warnings and args.warnings_as_errors)
    print(f"ascsim sanitize {op.name}: {errors} error(s), {warnings} warning(s) on "
          f"{run.block_dim} core(s), {run.instruction_count} instructions")
    return 1 if failed else 0
