"""The `ascsim` command line. Each subcommand is a module of this package that defines
`add_parser(subparsers)` and `main(args) -> int`; they are discovered at start-up, so adding a
command means adding a module.

Commands that run an operator call `_options.add_operator_argument(p)`; main() then loads the
operator the arguments name (any form `ascsim.load_operator` takes) and adds its options before
the real parse.

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

from .. import batch, progress
from ..errors import AscsimError, SimulationError
from ._options import attach_operator

__all__ = ["main", "build_parser"]


class _Parser(argparse.ArgumentParser):
    """argparse, with a bad argument reported in one line (argparse prints the whole usage
    first); every command's parser is one (add_subparsers makes them of the parent's class)."""

    def error(self, message: str) -> None:  # type: ignore[override]
        print(f"{self.prog}: {message} (see `{self.prog} --help`)", file=sys.stderr)
        sys.exit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
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
    parser.set_defaults(_commands=sub.choices)  # name -> the command's parser (see _parse)
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


def _command(parser: argparse.ArgumentParser, argv: list[str]
             ) -> tuple[str | None, argparse.ArgumentParser | None, list[str]]:
    """The command named in argv, its parser and its arguments (the top level takes flags
    only, so the command is the first word that is not one)."""
    commands: dict[str, argparse.ArgumentParser] = parser.get_default("_commands") or {}
    for i, word in enumerate(argv):
        if not word.startswith("-"):
            return word, commands.get(word), argv[i + 1:]
    return None, None, []


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    _, command, rest = _command(parser, argv)
    if command is not None and command.get_default("_takes_operator"):
        attach_operator(command, rest)  # the op's own options, before the real parse
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    if argv is None:
        # as a command: `ascsim ... | head` ends quietly, like other tools
        if hasattr(signal, "SIGPIPE"):
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        # and its first run after an install runs what is not compiled yet eagerly, while a
        # worker compiles it for the next run (batch.py)
        batch.compile_in_background()
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser()
    name = _command(parser, argv)[0] or ""
    debug = "--debug" in argv[:argv.index(name)] if name in argv else "--debug" in argv
    try:
        args = _parse(parser, argv)
        if not getattr(args, "_main", None):
            parser.print_help()
            return 2
        with _log_to_stdout(), progress.enabled():
            return int(args._main(args) or 0)
    except SimulationError as e:
        if debug:
            raise
        print(f"ascsim {name}: {e}", file=sys.stderr)
        return 1
    except AscsimError as e:
        if debug:
            raise
        first = str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__
        print(f"ascsim {name}: {first}", file=sys.stderr)
        return 2
    except MemoryError as e:  # e.g. --shape 100000000000: numpy names the size it wanted
        if debug:
            raise
        print(f"ascsim {name}: out of memory: {e or 'MemoryError'} (a smaller --shape?)",
              file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
