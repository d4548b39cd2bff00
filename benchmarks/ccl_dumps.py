"""How many collectives of real mesh programs have a program model, and the errors ttanalyze reports on them.

    python benchmarks/ccl_dumps.py DUMP.mlir... [--markdown]

For each file (public tt-xla dumps: ``benchmarks/eras_sweep.py --extract-dumps`` writes them, the index is
``measurements/eras/public_dumps_index.tsv``): its mesh(es), per collective op the count of ops and of those with a
program model (``modeled``) by factory, the reasons of the others, and the error findings of the whole file.
The figures committed in ``measurements/ccl/README.md`` come from this script.
"""

from __future__ import annotations

import argparse
import collections
from pathlib import Path

from ttanalyze.analysis import analyze
from ttanalyze.ir.parse import parse_file
from ttanalyze.mesh import meshes_of
from ttanalyze.rules import run as run_rules

COLLECTIVES = ("ttnn.all_gather", "ttnn.reduce_scatter", "ttnn.all_reduce", "ttnn.all_reduce_async",
               "ttnn.point_to_point", "ttnn.mesh_partition", "ttnn.distributed_rms_norm",
               "ttnn.distributed_layer_norm")


def survey(path: Path) -> dict:
    """Counts of one file: ``ops[name] = [total, modeled]``, ``factories``, ``reasons``, ``errors`` by rule."""
    a = analyze(parse_file(path))
    ops: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    factories: collections.Counter = collections.Counter()
    reasons: collections.Counter = collections.Counter()
    for op in a.program.ops:
        if op.name not in COLLECTIVES:
            continue
        prog = a.programs.get(op.index)
        ops[op.name][0] += 1
        if prog is not None and prog.status == "modeled":
            ops[op.name][1] += 1
            factories[" + ".join(s.factory for s in prog.stages)] += 1
        elif prog is not None:
            reasons[(op.name, prog.reason)] += 1
    errors = collections.Counter(f.rule for f in run_rules(a) if f.severity == "error")
    return {"meshes": [m.label for m in meshes_of(a.program)], "ops": dict(ops), "factories": factories,
            "reasons": reasons, "errors": errors}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", type=Path)
    args = ap.parse_args()
    for path in args.files:
        r = survey(path)
        counts = ", ".join(f"{name.split('.', 1)[1]} {m}/{t}" for name, (t, m) in sorted(r["ops"].items()))
        errors = sum(r["errors"].values())
        print(f"{path.name}: mesh {', '.join(r['meshes']) or '-'}; modeled {counts or 'no collectives'}; "
              f"{errors} error(s){' ' + str(dict(r['errors'])) if errors else ''}")
        for fac, n in r["factories"].most_common():
            print(f"    {n} x {fac}")
        for (name, why), n in r["reasons"].most_common():
            print(f"    not modeled: {n} x {name}: {why}")


if __name__ == "__main__":
    main()
