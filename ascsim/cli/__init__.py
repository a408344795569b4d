"""The `ascsim` command line. Each subcommand is a module of this package that defines
`add_parser(subparsers)` and `main(args) -> int`; they are discovered at start-up, so adding a
command means adding a module."""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import signal
import sys

__all__ = ["main", "build_parser"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ascsim", description="A CPU simulator of AscendC vector kernels.")
    sub = parser.add_subparsers(dest="command", metavar="command")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        if hasattr(module, "add_parser"):
            p = module.add_parser(sub)
            p.set_defaults(_main=module.main)
    return parser


def main(argv: list[str] | None = None) -> int:
    if argv is None and hasattr(signal, "SIGPIPE"):
        # as a command: `ascsim ... | head` ends quietly, like other tools
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "_main", None):
        parser.print_help()
        return 2
    return int(args._main(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
