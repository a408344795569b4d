"""Print LogitGrad's edge-case table (documented vs ascsim kernel vs PyTorch) as markdown,
or with --write replace it in README.md between the <!-- logit-grad-table --> markers."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

from kernels_py.logit_grad.behaviour import evaluate, markdown_table

README = Path(__file__).resolve().parent.parent / "README.md"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--write", action="store_true", help="update README.md in place")
    args = parser.parse_args()
    table = markdown_table(evaluate())
    if not args.write:
        print(table)
        return 0
    text = README.read_text()
    new, n = re.subn(r"(<!-- logit-grad-table -->\n)(?:.*?\n)?(<!-- /logit-grad-table -->)",
                     lambda m: m.group(1) + table + "\n" + m.group(2), text, flags=re.S)
    if n != 1:
        raise SystemExit("README.md has no <!-- logit-grad-table --> block")
    README.write_text(new)
    print(f"updated {README}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
