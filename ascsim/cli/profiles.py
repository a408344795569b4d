"""`ascsim profiles`: list the shipped hardware profiles, or `--show NAME|FILE` to print every
number of one profile with its source (and, for a [semantics] option, what it decides)."""

from __future__ import annotations

import argparse
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..profile import load_profile, profile_names, semantic_options


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    p = sub.add_parser("profiles", help="list the hardware profiles",
                       description="List the shipped hardware profiles (pass a name or a "
                                   "TOML file of your own with --profile).")
    p.add_argument("--show", metavar="NAME|FILE",
                   help="print every number of one profile with its source")
    return p


def _leaves(table: dict[str, Any], prefix: str = "") -> Iterator[tuple[str, Any, str]]:
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and "value" in value and "source" in value:
            yield name, value["value"], value["source"]
        elif isinstance(value, dict):
            yield from _leaves(value, f"{name}.")


def main(args: argparse.Namespace) -> int:
    if getattr(args, "show", None):
        p = load_profile(args.show)
        print(f"{p.name}: {p.description} ({p.path})")
        data = tomllib.loads(Path(p.path).read_text())
        what = {f"semantics.{k}": v for k, v in semantic_options().items()}
        for key, value, source in _leaves(data):
            line = f"  {key} = {value}"
            if key in what:
                line += f"\n      option: {what[key]}"
            print(f"{line}\n      {source}")
        return 0
    print(f"{'name':<14} {'AIV cores':>9} {'clock MHz':>9} {'UB bytes':>9} {'HBM GB/s':>9}  "
          "description")
    for name in profile_names():
        p = load_profile(name)
        hbm = f"{p.cost.hbm_gb_per_s:g}" if p.cost else "-"
        print(f"{p.name:<14} {p.aiv_cores:>9} {p.clock_mhz:>9} {p.ub_bytes:>9} {hbm:>9}  "
              f"{p.description}")
    return 0
