"""The `ascsim` command line. Each subcommand is a module of this package that defines
`add_parser(subparsers)` and `main(args) -> int`; they are discovered at start-up, so adding a
command means adding a module.

This package is where ascsim prints and exits: the library raises (`ascsim.AscsimError`) and
logs (`ascsim.kernel`: the kernels' printf output; `ascsim.sanitizer`: the sanitizer report).
Here a user error becomes one line on stderr and exit status 2 (a traceback only with
--debug), a kernel fault its full report and status 1, and the log goes to stdout.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import logging
import pkgutil
import signal
import sys
from collections.abc import Iterator

from ..errors import AscsimError, SimulationError

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ascsim", description="A CPU simulator of AscendC vector kernels.")
    parser.add_argument("--debug", action="store_true",
                        help="show the full traceback of an error")
    sub = parser.add_subparsers(dest="command", metavar="command")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "add_parser"):
            p = module.add_parser(sub)
            p.set_defaults(_main=module.main)
    return parser


class _Stdout(logging.Handler):
    """Log lines to whatever sys.stdout is when they are emitted."""

    def emit(self, record: logging.LogRecord) -> None:
        sys.stdout.write(self.format(record) + "\n")


@contextlib.contextmanager
def _log_to_stdout() -> Iterator[None]:
    """ascsim's log (kernel printf output, sanitizer reports) on stdout while a command runs."""
    logger = logging.getLogger("ascsim")
    handler = _Stdout(logging.INFO)
    handler.setFormatter(logging.Formatter("%(message)s"))
    old_level, old_propagate = logger.level, logger.propagate
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
        logger.propagate = old_propagate


def main(argv: list[str] | None = None) -> int:
    if argv is None and hasattr(signal, "SIGPIPE"):
        # as a command: `ascsim ... | head` ends quietly, like other tools
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_main", None):
        parser.print_help()
        return 2
    try:
        with _log_to_stdout():
            return int(args._main(args) or 0)
    except SimulationError as e:
        if args.debug:
            raise
        print(f"ascsim {args.command}: {e}", file=sys.stderr)
        return 1
    except AscsimError as e:
        if args.debug:
            raise
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        print(f"ascsim {args.command}: {first}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
