"""Write the TTNN dialect's op list (``ttanalyze/ops/data/ttnn_ops.txt``) from tt-mlir's TTNNOps.td.

Usage (from a tt-mlir checkout, or a bare clone with ``git show``)::

    git -C TT_MLIR show 19c86fca:include/ttmlir/Dialect/TTNN/IR/TTNNOps.td > TTNNOps.td
    python scripts/ttnn_op_list.py TTNNOps.td --commit 19c86fca45ae7c3d8f886c0401d8b40a40d2f294

Every ``def NAME : CLASS<"mnemonic"`` (or ``Op<TTNN_Dialect, "mnemonic"``) of the file is one op,
in file order; the list is the input of ``python -m ttanalyze.ops.coverage``.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "ttanalyze" / "ops" / "data" / "ttnn_ops.txt"
_DEF = re.compile(r'^def\s+(\w+)\s*:\s*\n?\s*(\w+)<\s*(?:TTNN_Dialect\s*,\s*)?"([\w.]+)"', re.M)


def op_names(td: str) -> list[tuple[str, str]]:
    """(mnemonic, TableGen record name) of every op the .td defines, in file order."""
    return [(m.group(3), m.group(1)) for m in _DEF.finditer(td)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("td", type=Path, help="include/ttmlir/Dialect/TTNN/IR/TTNNOps.td of tt-mlir")
    parser.add_argument("--commit", required=True, help="the tt-mlir commit the file comes from")
    parser.add_argument("-o", "--output", type=Path, default=OUT)
    args = parser.parse_args(argv)
    ops = op_names(args.td.read_text())
    if not ops:
        print(f"{args.td}: no op definitions found", file=sys.stderr)
        return 2
    lines = [f"# TTNN dialect ops: tt-mlir include/ttmlir/Dialect/TTNN/IR/TTNNOps.td @ {args.commit}",
             f"# {len(ops)} ops, in file order: mnemonic TableGen-record. Written by scripts/ttnn_op_list.py."]
    lines += [f"{name} {record}" for name, record in ops]
    args.output.write_text("\n".join(lines) + "\n")
    print(f"{len(ops)} ops -> {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
