"""`ascsim profiles`: list the shipped hardware profiles."""

from __future__ import annotations

import argparse

from ..profile import load_profile, profile_names


def add_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:
    return sub.add_parser("profiles", help="list the hardware profiles",
                          description="List the shipped hardware profiles (pass a name or a "
                                      "TOML file of your own with --profile).")


def main(args: argparse.Namespace) -> int:
    print(f"{'name':<14} {'AIV cores':>9} {'clock MHz':>9} {'UB bytes':>9}  description")
    for name in profile_names():
        p = load_profile(name)
        print(f"{p.name:<14} {p.aiv_cores:>9} {p.clock_mhz:>9} {p.ub_bytes:>9}  {p.description}")
    return 0
