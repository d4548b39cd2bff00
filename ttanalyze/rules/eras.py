"""Notes about files written by other tt-mlir eras: defaulted system_desc fields (TTA026), host work (TTA028)."""

from __future__ import annotations

from ..analysis import Analysis
from ..errors import SourcePos
from . import Reporter, rule


def _fmt(value) -> str:
    return "x".join(map(str, value)) if isinstance(value, tuple) else f"{value:,}"


@rule("TTA026")
def system_desc_defaults(a: Analysis, r: Reporter) -> None:
    desc = a.program.system_desc
    if desc is None:
        return
    pos = a.program.system_desc_pos or SourcePos(1, 1)
    for i, chip in enumerate(desc.chips):
        for name, value, why in chip.defaulted:
            r.at(pos, f"system_desc chip {i} has no {name} (written by an earlier tt-mlir): using {_fmt(value)} ({why})",
                 data={"chip": i, "field": name, "value": list(value) if isinstance(value, tuple) else value})


@rule("TTA028")
def host_work(a: Analysis, r: Reporter) -> None:
    funcs = a.program.host_functions
    if not funcs:
        return
    names = ", ".join(n for n, _ in funcs[:8]) + (f" and {len(funcs) - 8} more" if len(funcs) > 8 else "")
    r.at(funcs[0][1], f"{len(funcs)} function{'s' * (len(funcs) != 1)} run on the host CPU "
         f"(ttcore.cpu_module, not analyzed): {names}", data={"functions": [n for n, _ in funcs]})
