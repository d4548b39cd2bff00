"""Rule catalog and driver.

Rule metadata (title, severity, explanation, reference, example) lives in the
top-level ``rules/TTA###.yaml`` files; implementations live in the modules of
this package and register with :func:`rule`.  :func:`run` applies every rule to
an :class:`~ttanalyze.analysis.Analysis`.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from ..errors import SourcePos
from ..findings import Finding, Note, severity_rank

if TYPE_CHECKING:  # the catalog alone (ttanalyze rules) needs no analysis
    from ..analysis import Analysis
    from ..ir.model import Op

def _catalog_dir() -> Path:
    """``rules/`` beside the package (a checkout or an editable install), else the copy a wheel installs
    under ``<prefix>/share/ttanalyze/rules`` (``[tool.setuptools.data-files]`` in pyproject.toml)."""
    source = Path(__file__).resolve().parent.parent.parent / "rules"
    if source.is_dir():
        return source
    return Path(sys.prefix) / "share" / "ttanalyze" / "rules"


CATALOG_DIR = _catalog_dir()


@dataclass(frozen=True)
class RuleMeta:
    """One entry of ``rules/*.yaml``."""

    id: str
    name: str
    title: str
    severity: str
    explanation: str
    reference: str
    example: str
    fix: str = ""


@lru_cache(maxsize=1)
def catalog() -> dict[str, RuleMeta]:
    """All rule metadata by id, read from ``rules/*.yaml``.

    Raises:
        RuntimeError: the catalog directory is missing or an entry lacks a field.
    """
    if not CATALOG_DIR.is_dir():
        raise RuntimeError(f"rule catalog not found at {CATALOG_DIR}")
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's: 10x faster, the same data
    out = {}
    for path in sorted(CATALOG_DIR.glob("TTA*.yaml")):
        data = yaml.load(path.read_text(), Loader=loader)
        try:
            meta = RuleMeta(**{k: str(v).strip() for k, v in data.items()})
        except TypeError as exc:
            raise RuntimeError(f"{path}: {exc}") from None
        severity_rank(meta.severity)
        out[meta.id] = meta
    return out


CheckFn = Callable[["Analysis", "Reporter"], None]
_CHECKS: dict[str, CheckFn] = {}


def rule(rule_id: str) -> Callable[[CheckFn], CheckFn]:
    """Decorator registering the implementation of ``rule_id``."""

    def wrap(fn: CheckFn) -> CheckFn:
        _CHECKS[rule_id] = fn
        return fn

    return wrap


class Reporter:
    """Collects the findings of one rule, filling in its metadata."""

    def __init__(self, meta: RuleMeta, analysis: Analysis):
        self.meta = meta
        self.analysis = analysis
        self.findings: list[Finding] = []

    def op(self, op: Op, message: str, notes: Iterable[Note] = (), data: dict[str, Any] | None = None,
           severity: str | None = None) -> None:
        """Report ``message`` at ``op``."""
        self.at(op.pos, message, op.index, notes, data, severity)

    def at(self, pos: SourcePos, message: str, op_index: int | None = None, notes: Iterable[Note] = (),
           data: dict[str, Any] | None = None, severity: str | None = None) -> None:
        """Report ``message`` at a position."""
        self.findings.append(Finding(
            rule=self.meta.id, name=self.meta.name, severity=severity or self.meta.severity, message=message,
            path=self.analysis.program.path, pos=pos, op_index=op_index, notes=list(notes), data=data or {},
        ))


VERIFIER_RULE = "TTA018"  # tt-mlir's own verifier refuses the op: certain whatever tt-metal does with empty tensors


def run(analysis: Analysis, select: Iterable[str] | None = None) -> list[Finding]:
    """Apply the rules (all, or the ids in ``select``) and return findings in file order.

    Raises:
        RuntimeError: a selected id has no metadata or no implementation.
    """
    from . import (capacity, circular_buffers, encoding, eras, mesh, padding, reshape, result_spec,  # noqa: F401  (registration)
                   result_type, unmodeled, use_after_free, user_programs, verifier)

    metas = catalog()
    ids = list(select) if select else sorted(_CHECKS)
    findings: list[Finding] = []
    for rid in ids:
        if rid not in metas or rid not in _CHECKS:
            raise RuntimeError(f"unknown rule '{rid}'")
        reporter = Reporter(metas[rid], analysis)
        _CHECKS[rid](analysis, reporter)
        findings.extend(reporter.findings)
    findings.sort(key=lambda f: (f.pos.line, f.pos.col, f.rule))
    for f in findings:  # const-eval functions run once (weight preparation), not per inference
        op = analysis.program.ops[f.op_index] if f.op_index is not None else None
        if op is not None and f.severity == "error" and f.rule != VERIFIER_RULE:
            _soften_on_empty_tensor(f, op)
        if op is not None and op.func is not None and op.func.kind == "const_eval":
            f.data["const_eval"] = True
            f.notes.append(Note(op.func.pos, f"in const-eval function @{op.func.name}: it runs once, when the "
                                "weights are prepared, not per inference"))
    return findings


def _soften_on_empty_tensor(finding: Finding, op) -> None:
    """Make an error on an op that reads or writes a zero-volume tensor (a dim of 0) a warning, with a note
    (not a TTA018 error: tt-mlir's verifier refuses the op before tt-metal sees it).

    ttnn 0.81.1 accepts such tensors (measured on the mock: ``ttnn.empty([1, 40, 0, 128])``, an empty
    ``ttnn.slice`` and ``ttnn.add`` of empty tensors run), but which of its checks and program factories
    return early on them is not modeled, so no verdict on such an op is certain enough to be an error.
    """
    for value in (*op.operands, *op.results):
        shape = getattr(value.type, "shape", None)
        if shape is not None and 0 in shape:
            finding.severity = "warning"
            finding.notes.append(Note(op.pos, f"{value.name} is a zero-volume tensor {list(shape)}: ttnn accepts "
                                      "empty tensors, and what tt-metal does with them is not modeled, so this "
                                      "is a warning, not an error"))
            return


def implemented() -> list[str]:
    """Ids of the rules with an implementation."""
    from . import (capacity, circular_buffers, encoding, eras, mesh, padding, reshape, result_spec,  # noqa: F401
                   result_type, unmodeled, use_after_free, user_programs, verifier)

    return sorted(_CHECKS)
