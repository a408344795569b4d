"""The operator on the command line: the `op` argument every op-level command takes, and the
operator's own options (`ascsim.Option`s), which become arguments only once the op is known.

`ascsim run OP ...` is parsed twice: a probe reads OP (ignoring everything it does not know),
the operator is loaded and its options are added to the command's parser, then the real parse
runs (so `ascsim run OP --help` lists OP's options too)."""

from __future__ import annotations

import argparse
from typing import Any

from ..errors import UsageError
from ..operator import Operator
from ..oprunner import load_operator, operator_names

__all__ = ["add_operator_argument", "add_operator_options", "option_values", "attach_operator"]


def add_operator_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("op", metavar="OP",
                   help=f"the operator: a name ({', '.join(operator_names())}, or an "
                        "ascsim.ops entry point), path/to/my_op.py or pkg.module; its own "
                        "options follow it (`ascsim COMMAND OP --help` lists them)")
    p.set_defaults(_takes_operator=True)


def add_operator_options(p: argparse.ArgumentParser, op: Operator) -> None:
    group = p.add_argument_group(f"{op.name} options")
    for option in op.options:
        try:
            group.add_argument(option.flag, **option.parser_kwargs())
        except argparse.ArgumentError:
            raise UsageError(f"{op.name}: option {option.flag} clashes with the command's own "
                             f"{option.flag}; rename it") from None


def option_values(args: argparse.Namespace, op: Operator) -> dict[str, Any]:
    return op.option_values({o.name: getattr(args, o.name) for o in op.options})


class _ProbeFailed(Exception):
    pass


class _Probe(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise _ProbeFailed(message)


def _probe_spec(command: argparse.ArgumentParser, argv: list[str]) -> str | None:
    """OP in a command's arguments, or None (absent, or arguments the real parse will
    reject with its own message)."""
    probe = _Probe(add_help=False)
    for action in command._actions:
        if action.option_strings and not isinstance(action, argparse._HelpAction):
            probe._add_action(action)
    probe.add_argument("op", nargs="?")
    try:
        known, _ = probe.parse_known_args(argv)
    except _ProbeFailed:
        return None
    return known.op


def attach_operator(command: argparse.ArgumentParser, argv: list[str]) -> None:
    """Load the operator named in `argv` (the command's arguments) and add its options to the
    command's parser; the loaded Operator becomes `args.operator`."""
    spec = _probe_spec(command, argv)
    if spec is None:
        return
    op = load_operator(spec)
    add_operator_options(command, op)
    command.set_defaults(operator=op)
