"""The golden regression outside pytest, spread over worker processes or a Dask cluster: every
case of tests/golden/cases.py against its pinned output in tests/golden/<op>.json and against
the op's numpy model, bit for bit (what tests/test_golden.py checks, case for case).

    python tools/golden_regression.py                         # LocalCluster when Dask is installed
    python tools/golden_regression.py --scheduler tcp://host:8786
    python tools/golden_regression.py --scheduler none --workers 2 -k float16

Each case is an independent job that returns its verdict, so the verdicts do not depend on the
scheduler, the worker count or the order the cases finish in (`--compare-serial` re-runs them
one by one in this process and says so if anything differs). Exit status 1 on any mismatch.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
sys.path.insert(0, str(ROOT))

from ascsim import distribute, progress  # noqa: E402


def check_case(tests_dir: str, op_name: str, case_id: str) -> tuple[str, str, str | None]:
    """(op, case, None when it passes, else the mismatch report): run in a worker."""
    if tests_dir not in sys.path:
        sys.path.insert(0, tests_dir)
    import numpy as np
    from golden.cases import OPERATORS

    from ascsim.testing.goldenstore import GoldenStore, exact_reports
    op = OPERATORS[op_name]
    case = op.case(case_id)
    inputs = op.make_inputs(case)
    out = op.run(case, inputs, 1)
    expected = np.asarray(op.model(case, inputs))
    store = GoldenStore.load(Path(tests_dir) / "golden" / f"{op_name}.json")
    return op_name, case_id, "\n".join(exact_reports(store, op_name, case_id, out,
                                                      expected)) or None


def all_cases(ops: list[str] | None, keyword: str | None) -> list[tuple[str, str]]:
    sys.path.insert(0, str(TESTS))
    from golden.cases import OPERATORS
    unknown = sorted(set(ops or ()) - set(OPERATORS))
    if unknown:
        raise SystemExit(f"golden_regression: no operator {', '.join(unknown)} (have "
                         f"{', '.join(sorted(OPERATORS))})")
    return [(o.name, c.id) for o in OPERATORS.values() if not ops or o.name in ops
            for c in o.cases if keyword is None or keyword in c.id]


def run(cases: list[tuple[str, str]], scheduler: str | None, workers: int | None
        ) -> dict[tuple[str, str], str | None]:
    """Every case's verdict, computed in parallel."""
    verdicts: dict[tuple[str, str], str | None] = {}
    with distribute.open_pool(scheduler, workers) as pool, \
            progress.bar(len(cases), "golden cases", " cases", delay=0.0) as shown:
        futures = [pool.submit(check_case, str(TESTS), op, case) for op, case in cases]
        for future in pool.as_completed(futures):
            op, case, report = future.result()
            verdicts[op, case] = report
            shown.update(1)
    return verdicts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scheduler", default=distribute.default_scheduler(),
                        metavar="ADDRESS", help="a Dask scheduler's address, 'local' (a "
                        "LocalCluster; the default when Dask is installed) or 'none' (local "
                        "worker processes)")
    parser.add_argument("--workers", type=int, default=None, help="local worker processes")
    parser.add_argument("--op", action="append", dest="ops", help="only this operator")
    parser.add_argument("-k", dest="keyword", help="only cases whose id contains this")
    parser.add_argument("--compare-serial", action="store_true",
                        help="also run every case serially here and compare the verdicts")
    args = parser.parse_args(argv)
    cases = all_cases(args.ops, args.keyword)
    start = time.perf_counter()
    with progress.enabled():
        verdicts = run(cases, args.scheduler, args.workers)
    seconds = time.perf_counter() - start
    failed = {k: v for k, v in verdicts.items() if v is not None}
    for (op, case), report in sorted(failed.items()):
        print(f"FAIL {op}:{case}\n  {report}")
    local = args.scheduler in (None, "none")
    where = f"{args.workers or 'all'} local worker processes" if local else args.scheduler
    print(f"{len(cases) - len(failed)}/{len(cases)} golden cases pass ({seconds:.1f} s on "
          f"{where})")
    if args.compare_serial:
        serial = {(op, case): check_case(str(TESTS), op, case)[2] for op, case in cases}
        differ = sorted(k for k in cases if serial[k] != verdicts[k])
        print("serial run: " + ("the same verdicts" if not differ else
                                f"{len(differ)} verdicts differ, first {differ[0]}"))
        if differ:
            return 1
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
