"""Finding fingerprints and baseline files of accepted findings.

A fingerprint identifies a finding across edits that only move it: it hashes
the rule id, the enclosing function, the op name, the op's MLIR location name
(``loc("jit(mlp)/add")``) and the message (numbers included, so a finding whose
numbers change is a new finding), never the line or column.  Findings with the
same key in one file are told apart by their order (the first is occurrence 0).
SARIF results carry it as ``partialFingerprints["ttanalyze/v1"]``.

A baseline file (``ttanalyze check --write-baseline FILE``) lists the
fingerprints of the findings accepted so far, per file; ``--baseline FILE``
suppresses them, so that only new findings are reported and decide the exit
status.  Format (JSON)::

    {"version": 1, "tool": "ttanalyze 0.1.0",
     "files": {"models/mlp.mlir": [{"fingerprint": "3f...", "rule": "TTA003",
                                    "line": 14, "message": "..."}]}}

File paths are relative to the directory of the baseline file (``/``
separators), so the baseline matches from any working directory; ``rule``,
``line`` and ``message`` are for the people reviewing the file and are not
used for matching.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__
from .analysis import Analysis
from .errors import InputError
from .findings import Finding

VERSION = 1
FINGERPRINT_KEY = "ttanalyze/v1"


def fingerprints(a: Analysis, findings: list[Finding]) -> list[str]:
    """The fingerprint of each finding of one file (same order), 32 hex digits.

    ``findings`` must be all the findings of ``a`` in file order (as
    :func:`ttanalyze.rules.run` returns them): the occurrence count that tells
    identical findings apart depends on the findings before each one.
    """
    seen: dict[tuple[str, ...], int] = {}
    out = []
    for f in findings:
        if f.op_index is not None:
            op = a.program.ops[f.op_index]
            key = (f.rule, op.func.name, op.name, op.loc_name, f.message)
        else:
            key = (f.rule, "", "", "", f.message)
        n = seen.get(key, 0)
        seen[key] = n + 1
        digest = hashlib.sha256("\0".join(key + (str(n),)).encode()).hexdigest()
        out.append(digest[:32])
    return out


def relative_path(path: str | os.PathLike[str], start: str | os.PathLike[str]) -> str:
    """``path`` relative to the directory ``start``, with ``/`` separators."""
    return Path(os.path.relpath(os.path.abspath(path), os.path.abspath(start))).as_posix()


@dataclass
class Baseline:
    """Accepted fingerprints by file path (relative to :attr:`root`).

    Attributes:
        path: the baseline file.
        root: the directory its file paths are relative to (the file's directory).
        files: relative path -> set of accepted fingerprints.
    """

    path: Path
    root: Path
    files: dict[str, set[str]] = field(default_factory=dict)

    def accepted(self, program_path: str) -> set[str]:
        """The fingerprints accepted for the file at ``program_path`` (as given on the command line)."""
        return self.files.get(relative_path(program_path, self.root), set())


@dataclass
class Split:
    """The findings of one file, split by a baseline.

    Attributes:
        new: findings not in the baseline (reported; they decide the exit status).
        new_fingerprints: their fingerprints, same order.
        suppressed: how many findings the baseline accepted.
        stale: how many baseline entries of this file match no finding any more.
    """

    new: list[Finding]
    new_fingerprints: list[str]
    suppressed: int
    stale: int


def split(baseline: Baseline | None, a: Analysis, findings: list[Finding], fps: list[str]) -> Split:
    """Separate the findings of ``a`` that ``baseline`` accepts from the new ones (all new without a baseline)."""
    return split_path(baseline, a.program.path, findings, fps)


def split_path(baseline: Baseline | None, path: str, findings: list[Finding], fps: list[str]) -> Split:
    """:func:`split` of the findings of the file ``path`` (as given on the command line)."""
    if baseline is None:
        return Split(list(findings), list(fps), 0, 0)
    accepted = baseline.accepted(path)
    keep = [i for i, fp in enumerate(fps) if fp not in accepted]
    return Split([findings[i] for i in keep], [fps[i] for i in keep], len(findings) - len(keep),
                 len(accepted - set(fps)))


def load(path: Path) -> Baseline:
    """Read a baseline file.

    Raises:
        InputError: the file cannot be read, is not JSON, or is not a version-1 baseline
            (the message names the file).
    """
    try:
        doc = json.loads(Path(path).read_text())
    except OSError as exc:
        raise InputError(f"cannot read baseline: {exc.strerror or exc}", str(path)) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"malformed baseline (not JSON): {exc}", str(path)) from None
    if not isinstance(doc, dict) or doc.get("version") != VERSION:
        found = doc.get("version") if isinstance(doc, dict) else type(doc).__name__
        raise InputError(f"malformed baseline: expected a JSON object with \"version\": {VERSION}, found {found!r}",
                         str(path))
    files = doc.get("files")
    if not isinstance(files, dict):
        raise InputError("malformed baseline: \"files\" must map file paths to lists of findings", str(path))
    out: dict[str, set[str]] = {}
    for name, entries in files.items():
        if not isinstance(entries, list) or not all(
                isinstance(e, dict) and isinstance(e.get("fingerprint"), str) for e in entries):
            raise InputError(f"malformed baseline: the entries of {name!r} must be objects with a string "
                             "\"fingerprint\"", str(path))
        out[name] = {e["fingerprint"] for e in entries}
    return Baseline(Path(path), Path(os.path.abspath(path)).parent, out)


def entries(findings: list[Finding], fps: list[str]) -> list[dict[str, Any]]:
    """The baseline entries of one file's findings and their fingerprints (same order)."""
    return [{"fingerprint": fp, "rule": f.rule, "line": f.pos.line, "message": f.message}
            for f, fp in zip(findings, fps)]


def document(results: list[tuple[Analysis, list[Finding], list[str]]], path: Path) -> dict[str, Any]:
    """The baseline of ``results`` (analysis, findings, their fingerprints) to be written at ``path``."""
    return _document([(a.program.path, entries(findings, fps)) for a, findings, fps in results], path)


def _document(files: list[tuple[str, list[dict[str, Any]]]], path: Path) -> dict[str, Any]:
    root = Path(os.path.abspath(path)).parent
    out: dict[str, list[dict[str, Any]]] = {}
    for program_path, file_entries in files:
        out.setdefault(relative_path(program_path, root), []).extend(file_entries)
    return {"version": VERSION, "tool": f"ttanalyze {__version__}", "files": out}


def write(results: list[tuple[Analysis, list[Finding], list[str]]], path: Path) -> int:
    """Write the baseline of ``results`` to ``path``; return the number of findings written.

    Raises:
        InputError: the file cannot be written.
    """
    return _write(document(results, path), path)


def write_entries(files: list[tuple[str, list[dict[str, Any]]]], path: Path) -> int:
    """Write the baseline of each file's (path as given, :func:`entries`) to ``path``; return the number of
    findings written.

    Raises:
        InputError: the file cannot be written.
    """
    return _write(_document(files, path), path)


def _write(doc: dict[str, Any], path: Path) -> int:
    try:
        Path(path).write_text(json.dumps(doc, indent=1) + "\n")
    except OSError as exc:
        raise InputError(f"cannot write baseline: {exc.strerror or exc}", str(path)) from None
    return sum(len(v) for v in doc["files"].values())
