"""Write docs/coverage.md: every op of the TTNN dialect and what ttanalyze models of it.

The op list is ``ttanalyze/ops/data/ttnn_ops.txt`` (tt-mlir's TTNNOps.td at the commit named in
its header; ``scripts/ttnn_op_list.py`` writes it).  Everything else comes from the registry
(:mod:`ttanalyze.ops.registry`): the shape rule (``REGISTRY``), the output-spec model
(``SPEC_MODELS``), the program model (``CB_MODELS``), how the program model was checked
(the op-level differential campaign's instance count, ``measurements/opdiff/results.jsonl.gz``;
else ``CHECKS``)
and whether the cost model knows the device operations it runs (``DEVICE_OPS`` against
:data:`ttanalyze.cost.model.OP_KINDS`).

Usage: ``.venv/bin/python benchmarks/coverage.py`` (writes the file), ``--check`` (exit 1 when the
committed file is stale).  tests/test_ops_coverage.py runs the check.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from ttanalyze import ops as O  # noqa: E402
from ttanalyze.cost.ir import NAME_OP_CODES  # noqa: E402
from ttanalyze.cost.model import OP_KINDS  # noqa: E402
from ttanalyze.ops.registry import CB_MODELS, CHECKS, DEVICE_OPS, REGISTRY, SPEC_MODELS  # noqa: E402
from ttanalyze.programs import NO_PROGRAM  # noqa: E402

OP_LIST = ROOT / "ttanalyze" / "ops" / "data" / "ttnn_ops.txt"
OUT = ROOT / "docs" / "coverage.md"


def dialect_ops() -> tuple[str, list[str]]:
    """(the op list's source line, the op names ``ttnn.<mnemonic>`` in .td order)."""
    lines = OP_LIST.read_text().splitlines()
    source = lines[0].lstrip("# ").strip()
    return source, [f"ttnn.{line.split()[0]}" for line in lines if line and not line.startswith("#")]


def campaign_ops() -> Counter:
    """How many instances of each op the op-level differential campaign measured on the mock device
    (``measurements/opdiff/results.jsonl.gz``, benchmarks/opdiff.py; draws tt-metal could not allocate
    and instances the executor could not replay left out)."""
    from benchmarks.opdiff import load_results

    return Counter(r["op"] for r in load_results().values() if r["outcome"] not in ("invalid", "not_replayed"))


def row(name: str, swept: Counter) -> dict[str, str]:
    """The coverage of one op, column by column."""
    model = REGISTRY.get(name)
    if model is None:
        return {"family": "-", "shape": "-", "spec": "-", "program": "-", "checked": "-", "cost": "-"}
    shape = "rule" if model.infer is not None else "declared type"
    spec = "model" if name in SPEC_MODELS else "declared type"
    check = CHECKS.get(name)
    if name in NO_PROGRAM or (check and check[0] == "none"):
        program = "none (no device program)"
    elif check and check[0] == "opaque":
        program = "opaque (user program)"
    elif name in CB_MODELS:
        program = "model"
    else:
        program = "-"
    if name in swept:
        checked = f"measured on the mock: opdiff campaign, {swept[name]} instances (docs/accuracy.md)"
    elif check:
        how, where = check
        checked = {"mock": "measured on the mock", "source": "from source", "none": "no program",
                   "opaque": "opaque"}[how] + f": {where}"
    elif program.startswith("none"):
        checked = "no program"
    elif name in CB_MODELS:
        checked = "its family's measured factory model (docs/accuracy.md); the op itself is not in the campaign"
    else:
        checked = "-"
    if name in DEVICE_OPS:
        codes = DEVICE_OPS[name]
        missing = [c for c in codes if c not in OP_KINDS]
        cost = "costed" if not missing else "no cost model for " + ", ".join(missing)
    elif program == "model":
        cost = "by program factory (cost/ir.py OP_CODES)"
    elif name in NAME_OP_CODES:
        code = NAME_OP_CODES[name]
        cost = (f"by op name: {code} on the whole grid (cost/ir.py NAME_OP_CODES)" if code in OP_KINDS
                else f"no cost model for {code}")
    elif program.startswith("none"):
        cost = "none (no device time)"
    elif program.startswith("opaque"):
        cost = "opaque (not costed)"
    else:
        cost = "-"
    return {"family": model.family, "shape": shape, "spec": spec, "program": program, "checked": checked,
            "cost": cost}


def render() -> str:
    """The text of docs/coverage.md."""
    assert O.REGISTRY is REGISTRY  # the families are registered by importing ttanalyze.ops
    source, names = dialect_ops()
    swept = campaign_ops()
    rows = {n: row(n, swept) for n in names}
    modeled = [n for n in names if rows[n]["family"] != "-"]
    with_program = [n for n in names if rows[n]["program"] != "-" and not rows[n]["program"].startswith("opaque")]
    opaque = [n for n in names if rows[n]["program"].startswith("opaque")]
    checked_mock = [n for n in names if rows[n]["checked"].startswith("measured on the mock")]
    from_source = [n for n in names if rows[n]["checked"].startswith("from source")]
    out = [
        "# TTNN dialect coverage",
        "",
        "Generated by `.venv/bin/python benchmarks/coverage.py` from the op registry (`ttanalyze/ops`); "
        "tests/test_ops_coverage.py fails when this file is stale.",
        "",
        f"Op list: {source} (`ttanalyze/ops/data/ttnn_ops.txt`, written by `scripts/ttnn_op_list.py`).",
        "",
        f"* {len(names)} ops in the dialect; {len(modeled)} modeled (a shape rule or a declared-type model), "
        f"{len(names) - len(modeled)} not modeled (reported as TTA008).",
        f"* {len(with_program)} with a program model or known to run no device program; "
        f"{len(checked_mock)} checked on the mock device, {len(from_source)} from the program factory's source only; "
        f"{len(opaque)} opaque (user kernels or D2M functions: reported as such, TTA011).",
        "",
        "Columns: *shape* `rule` = the result shape is derived from the operands and attributes and checked, "
        "`declared type` = taken from the IR; *spec* `model` = what tt-metal returns (layout, dtype, memory config) "
        "is modeled and compared with the declared type; *program* `model` = cores and circular buffers per core; "
        "*checked* = how the program model was verified; *cost* = whether the cost model knows the device "
        "operations the op runs.",
        "",
        "| op | family | shape | spec | program | checked | cost |",
        "|---|---|---|---|---|---|---|",
    ]
    for n in names:
        r = rows[n]
        out.append(f"| `{n}` | {r['family']} | {r['shape']} | {r['spec']} | {r['program']} | {r['checked']} | {r['cost']} |")
    extra = sorted(set(REGISTRY) - set(names))
    if extra:
        out += ["", "Other ops with a model (not TTNN dialect ops at this commit):", "",
                "| op | family | shape | spec | program | checked | cost |", "|---|---|---|---|---|---|---|"]
        for n in extra:
            r = row(n, swept)
            out.append(f"| `{n}` | {r['family']} | {r['shape']} | {r['spec']} | {r['program']} | {r['checked']} | "
                       f"{r['cost']} |")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when docs/coverage.md is stale")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not OUT.exists() or OUT.read_text() != text:
            print(f"{OUT.relative_to(ROOT)} is stale: run .venv/bin/python benchmarks/coverage.py", file=sys.stderr)
            return 1
        return 0
    OUT.write_text(text)
    print(f"wrote {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
