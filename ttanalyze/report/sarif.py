"""SARIF 2.1.0 report of ``ttanalyze check --format sarif`` (GitHub code scanning and other SARIF viewers).

One run: ``tool.driver`` lists every rule of ``rules/*.yaml`` (id, name, title,
explanation, reference, example, default level); each finding is a result at
its op's line and column (1-based, counted in characters: ``columnKind``
``unicodeCodePoints``), with the op as a logical location, the finding's notes
as related locations, its numbers in ``properties.data`` and a fingerprint that
survives line shifts (:mod:`ttanalyze.baseline`).  Files that could not be
analyzed are ``toolExecutionNotifications`` of the invocation, at the position
of the problem.

File URIs are relative to a source root (the current directory unless given)
with ``uriBaseId`` ``%SRCROOT%``, which ``originalUriBaseIds`` maps to the
root's absolute ``file:`` URI; GitHub resolves such URIs against the checked-out
repository.  Files outside the root get absolute ``file:`` URIs.

With a baseline, findings it accepts are left out (GitHub code scanning does not
honor ``result.suppressions`` reliably, so an accepted finding listed as
suppressed could still open an alert); the reported ones carry
``baselineState: "new"`` and the invocation's ``properties.baseline`` counts the
suppressed ones.

Spec: OASIS SARIF 2.1.0 Errata 01; the tests validate every fixture's log
against its schema (tests/data/sarif-schema-2.1.0.json).
"""

from __future__ import annotations

import hashlib
import os
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import quote

from .. import __version__
from ..analysis import Analysis
from ..baseline import FINGERPRINT_KEY
from ..errors import InputError, SourcePos
from ..findings import Finding
from ..rules import RuleMeta, catalog

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA_URI = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
SRCROOT = "%SRCROOT%"
LEVELS = {"error": "error", "warning": "warning", "info": "note"}
# A tag per severity for filtering in viewers: errors are what tt-metal rejects or
# gets wrong, warnings cost memory or time or disagree with tt-mlir's own layout
# rules, infos mark what ttanalyze does not model.
TAGS = {"error": "correctness", "warning": "quality", "info": "coverage"}
EXIT_CODES = {0: "no finding at or above --fail-on", 1: "findings at or above --fail-on",
              2: "input error", 3: "internal error"}


def information_uri() -> str | None:
    """The project URL of the installed ttanalyze distribution (``[project.urls]``), None when it has none."""
    try:
        urls = metadata.metadata("ttanalyze").get_all("Project-URL") or []
    except metadata.PackageNotFoundError:
        return None
    by_label = dict(u.split(", ", 1) for u in urls if ", " in u)
    return next((by_label[k] for k in ("Homepage", "Repository", "Source") if k in by_label), None)


def level(severity: str) -> str:
    """The SARIF level of a ttanalyze severity: error -> error, warning -> warning, info -> note."""
    return LEVELS[severity]


def rule_descriptor(meta: RuleMeta) -> dict[str, Any]:
    """The ``reportingDescriptor`` of one rule, from its ``rules/*.yaml`` entry."""
    text = f"{meta.explanation}\n\nReference: {meta.reference}\n\nExample:\n{meta.example}"
    markdown = (f"{meta.explanation}\n\n**Reference:** {meta.reference}\n\n**Example:**\n\n"
                f"```\n{meta.example}\n```")
    if meta.fix:
        text += f"\n\nFix: {meta.fix}"
        markdown += f"\n\n**Fix:** {meta.fix}"
    return {
        "id": meta.id,
        "name": meta.name,
        "shortDescription": {"text": meta.title},
        "fullDescription": {"text": meta.explanation, "markdown": meta.explanation},
        "help": {"text": text, "markdown": markdown},
        "defaultConfiguration": {"level": level(meta.severity)},
        "properties": {"tags": ["ttnn", TAGS[meta.severity]], "severity": meta.severity},
    }


class _Artifacts:
    """The run's ``artifacts`` and the ``artifactLocation`` of each file, relative to ``root``."""

    def __init__(self, root: Path):
        self.root = root
        self.items: list[dict[str, Any]] = []
        self.index: dict[str, int] = {}

    def location(self, path: str) -> dict[str, Any]:
        """The ``artifactLocation`` of ``path`` (as given on the command line), adding its artifact once."""
        full = Path(os.path.abspath(path))
        if full.is_relative_to(self.root):
            loc: dict[str, Any] = {"uri": quote(full.relative_to(self.root).as_posix()), "uriBaseId": SRCROOT}
        else:
            loc = {"uri": full.as_uri()}
        key = str(full)
        if key not in self.index:
            self.index[key] = len(self.items)
            artifact: dict[str, Any] = {"location": dict(loc), "sourceLanguage": "mlir"}
            try:
                data = full.read_bytes()
                artifact["length"] = len(data)
                artifact["hashes"] = {"sha-256": hashlib.sha256(data).hexdigest()}
            except OSError:
                pass
            self.items.append(artifact)
        return dict(loc, index=self.index[key])


def _physical(artifacts: _Artifacts, path: str, pos: SourcePos) -> dict[str, Any]:
    return {"artifactLocation": artifacts.location(path),
            "region": {"startLine": max(pos.line, 1), "startColumn": max(pos.col, 1)}}


def logical_location(a: Analysis, f: Finding) -> list[dict[str, Any]]:
    """The SARIF ``logicalLocations`` of a finding: its op, function, results and MLIR location name."""
    if f.op_index is None:
        return []
    op = a.program.ops[f.op_index]
    results = ", ".join(v.name for v in op.results)
    name = f"@{op.func.name}: {results + ' = ' if results else ''}{op.name}"
    loc = op.loc_name
    props: dict[str, Any] = {"function": op.func.name, "op": op.name, "results": [v.name for v in op.results]}
    if loc:
        props["loc"] = loc
        name += f' loc("{loc}")'
    return [{"name": op.name, "fullyQualifiedName": name, "kind": "op", "properties": props}]


def result(a: Analysis, f: Finding, fingerprint: str, rule_index: int, artifacts: _Artifacts,
           baseline_state: str | None = None, fixes: list | None = None) -> dict[str, Any]:
    """The SARIF ``result`` of one finding; its ranked fixes (``ttanalyze.fixes``) go in ``properties.fixes``
    with their measured effects, and each evaluated rewrite that removes the finding also as a SARIF
    ``fix`` (:func:`sarif_fix`: the file's changed lines as ``artifactChanges``)."""
    fix_records = sarif_fixes = None
    if fixes:
        from .fixes import fix_record

        fix_records = [fix_record(fx) for fx in fixes]
        sarif_fixes = [x for x in (sarif_fix(a, fx, artifacts.location(f.path)) for fx in fixes
                                   if fx.rewrite is not None and fx.effect is not None and fx.removes_finding)
                       if x is not None]
    return result_of(f, fingerprint, rule_index, artifacts, baseline_state, logical_location(a, f), fix_records,
                     sarif_fixes)


def result_of(f: Finding, fingerprint: str, rule_index: int, artifacts: _Artifacts, baseline_state: str | None,
              logical: list[dict[str, Any]], fix_records: list[dict[str, Any]] | None,
              sarif_fixes: list[dict[str, Any]] | None) -> dict[str, Any]:
    """:func:`result` from its parts made beforehand: the finding's :func:`logical_location`, its fixes'
    JSON records and SARIF ``fix`` objects."""
    location: dict[str, Any] = {"physicalLocation": _physical(artifacts, f.path, f.pos)}
    if logical:
        location["logicalLocations"] = logical
    out: dict[str, Any] = {
        "ruleId": f.rule,
        "ruleIndex": rule_index,
        "level": level(f.severity),
        "message": {"text": f.message},
        "locations": [location],
        "partialFingerprints": {FINGERPRINT_KEY: fingerprint},
        "properties": {"severity": f.severity, "data": f.data},
    }
    if f.notes:
        out["relatedLocations"] = [{"id": i, "physicalLocation": _physical(artifacts, f.path, n.pos),
                                    "message": {"text": n.message}} for i, n in enumerate(f.notes, 1)]
    if f.op_index is not None:
        out["properties"]["op_index"] = f.op_index
    if fix_records:
        out["properties"]["fixes"] = fix_records
        if sarif_fixes:
            out["fixes"] = sarif_fixes
    if baseline_state:
        out["baselineState"] = baseline_state
    return out


def sarif_fix(a: Analysis, fx, artifact: dict[str, Any]) -> dict[str, Any] | None:
    """A SARIF 2.1.0 ``fix`` (section 3.55) for the rewrite ``fx``: one ``replacement`` per run of changed
    lines, each deleting whole lines (``deletedRegion`` from column 1 of its first line to column 1 of the
    line after; empty for a pure insertion) and inserting the rewritten lines.  None when the rewrite cannot
    be made again."""
    import difflib

    from ..fixes.model import apply_rewrites
    from ..ir.rewrite import RewriteError

    try:
        new = apply_rewrites(a.program.source, a, [fx.rewrite])
    except (RewriteError, ValueError):
        return None
    old_lines, new_lines = a.program.source.splitlines(keepends=True), new.splitlines(keepends=True)
    replacements = []
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, old_lines, new_lines, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        replacements.append({"deletedRegion": {"startLine": i1 + 1, "startColumn": 1, "endLine": i2 + 1,
                                               "endColumn": 1},
                             "insertedContent": {"text": "".join(new_lines[j1:j2])}})
    if not replacements:
        return None
    note = "" if fx.applicable else " (not applied by `ttanalyze fix`: it makes the program worse; see properties)"
    return {"description": {"text": f"{fx.id}: {fx.title}{note}"},
            "artifactChanges": [{"artifactLocation": artifact, "replacements": replacements}]}


def _notification(e: InputError, artifacts: _Artifacts) -> dict[str, Any]:
    return {"level": "error", "message": {"text": e.message},
            "locations": [{"physicalLocation": _physical(artifacts, e.path, e.pos or SourcePos(1, 1))}]}


def file_results(a: Analysis, findings: list[Finding], fps: list[str], root: Path | None = None,
                 baselined: bool = False, fixes: dict[int, list] | None = None) -> list[dict[str, Any]]:
    """The SARIF ``result`` of each reported finding of one file, for :func:`assemble` (its locations point
    at artifact index 0, which :func:`assemble` renumbers).  Arguments as in :func:`sarif_log`."""
    artifacts = _Artifacts(Path(os.path.abspath(root if root is not None else os.curdir)))
    artifacts.location(a.program.path)
    rule_index = {m_id: i for i, m_id in enumerate(catalog())}
    state = "new" if baselined else None
    fixes = fixes or {}
    return [result(a, f, fp, rule_index[f.rule], artifacts, state, fixes.get(k))
            for k, (f, fp) in enumerate(zip(findings, fps))]


def file_results_of(path: str, rows: list[tuple[Finding, str, list[dict[str, Any]], list[dict[str, Any]] | None]],
                    root: Path | None = None, baselined: bool = False) -> list[dict[str, Any]]:
    """:func:`file_results` from parts made beforehand: per reported finding (finding, fingerprint, its
    :func:`logical_location`, its fixes' JSON records, none of them evaluated, so no SARIF ``fix``)."""
    artifacts = _Artifacts(Path(os.path.abspath(root if root is not None else os.curdir)))
    artifacts.location(path)
    rule_index = {m_id: i for i, m_id in enumerate(catalog())}
    state = "new" if baselined else None
    return [result_of(f, fp, rule_index[f.rule], artifacts, state, logical, fix_records, None)
            for f, fp, logical, fix_records in rows]


def assemble(files: list[tuple[str, list[dict[str, Any]]]], input_errors: list[InputError], exit_code: int,
             root: Path | None = None, baseline: dict[str, Any] | None = None) -> dict[str, Any]:
    """The SARIF log of one ``check`` run from each analyzed file's path and :func:`file_results`.

    Every analyzed file is an artifact, in order, with or without findings;
    the results' artifact indices are set to their file's.
    """
    artifacts = _Artifacts(Path(os.path.abspath(root if root is not None else os.curdir)))
    metas = list(catalog().values())
    sarif_results = []
    for path, results in files:
        index = artifacts.location(path)["index"]
        for r in results:
            for loc in (*r["locations"], *r.get("relatedLocations", ())):
                loc["physicalLocation"]["artifactLocation"]["index"] = index
            sarif_results.append(r)
    invocation: dict[str, Any] = {
        "executionSuccessful": exit_code in (0, 1),
        "exitCode": exit_code,
        "exitCodeDescription": EXIT_CODES.get(exit_code, "unknown"),
        "toolExecutionNotifications": [_notification(e, artifacts) for e in input_errors],
    }
    if baseline is not None:
        invocation["properties"] = {"baseline": baseline}
    driver: dict[str, Any] = {"name": "ttanalyze", "version": __version__, "semanticVersion": __version__}
    uri = information_uri()
    if uri:
        driver["informationUri"] = uri
    driver["rules"] = [rule_descriptor(m) for m in metas]
    return {
        "$schema": SARIF_SCHEMA_URI,
        "version": SARIF_VERSION,
        "runs": [{
            "tool": {"driver": driver},
            "originalUriBaseIds": {SRCROOT: {"uri": artifacts.root.as_uri().rstrip("/") + "/"}},
            "artifacts": artifacts.items,
            "invocations": [invocation],
            "results": sarif_results,
            "columnKind": "unicodeCodePoints",
        }],
    }


def sarif_log(results: list[tuple[Analysis, list[Finding], list[str]]], input_errors: list[InputError],
              exit_code: int, root: Path | None = None, baseline: dict[str, Any] | None = None,
              fixes: list[dict[int, list]] | None = None) -> dict[str, Any]:
    """The SARIF log of one ``check`` run.

    Args:
        results: per analyzed file, its analysis, the findings to report and their fingerprints
            (:func:`ttanalyze.baseline.fingerprints`, computed over all the file's findings).
        input_errors: the files that could not be analyzed.
        exit_code: the exit status of the run (0, 1 or 2).
        root: the directory file URIs are relative to (default: the current directory).
        baseline: when a baseline was applied, ``{"path", "suppressed", "stale"}``: the reported
            findings are then marked ``baselineState: "new"``.
        fixes: per file, the ranked fixes of each reported finding (finding index -> fixes).
    """
    fixes = fixes or [{} for _ in results]
    files = [(a.program.path, file_results(a, findings, fps, root, baseline is not None, fx))
             for (a, findings, fps), fx in zip(results, fixes)]
    return assemble(files, input_errors, exit_code, root, baseline)
