"""Check that a speed change leaves ``check``'s results unchanged (run on demand, not in the test suite).

``--write DIR`` runs ``check`` (in this process, file by file) over every ``*.mlir`` under the
given roots (default: ``fixtures``, the real and seed programs) and over the generated programs
(``--ops`` ops of each ``--kind``; 0: none), once per format: JSON with the
per-op records (``--detail ops``, the most detailed report), SARIF and text
(``--verbose``, the per-op table), each file's report written to DIR.
``--against DIR`` makes the same reports into a temporary directory and
compares them byte for byte with DIR's, naming each report that differs and
its first differing line; the exit status is 1 if any differ.

The usual use: ``--write`` on the commit before a change, ``--against`` on the
change; the reports do not name the tool's version, so they compare as bytes.

``--split`` compares, on the same inputs plus ``tests/data`` and the generated
multi-function programs (:mod:`benchmarks.generate`'s ``groups`` kind), each
file's serial report with the one made by splitting its function groups over two
processes (:mod:`ttanalyze.shards`, forced on every module of several groups:
threshold 0), in the formats the split makes (JSON and text without the per-op
detail, SARIF, concise; with fixes and without), byte for byte, on every file
of several function groups (a file of one group is not split: its split is its
serial run); it prints how many reports were split (the others fell back to
the serial path by design: fixes evaluated below 5,000 ops, an input error).

Usage: .venv/bin/python benchmarks/same_results.py (--write DIR | --against DIR | --split) [--ops 6000]
       [--kind distinct --kind repeated] [ROOT_OR_FILE ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.generate import KINDS  # noqa: E402

FORMATS = {"json": {"format": "json", "detail": "ops"}, "sarif": {"format": "sarif"},
           "txt": {"format": "text", "verbose": True, "width": 240}}


def inputs(roots: list[Path], ops: int, kinds: list[str], out_dir: Path) -> list[Path]:
    """Every ``*.mlir`` under ``roots`` (sorted), then the generated programs (written to ``out_dir`` once)."""
    paths: list[Path] = []
    for root in roots:
        paths += [root] if root.is_file() else sorted(root.rglob("*.mlir"))
    if ops:
        out_dir.mkdir(parents=True, exist_ok=True)
        for kind in kinds:
            path = out_dir / f"{kind}_{ops}.mlir"
            if not path.exists():
                path.write_text(KINDS[kind](ops))
            paths.append(path)
    return paths


def write_reports(paths: list[Path], dest: Path) -> None:
    """One report per file and format in ``dest``, named after the file's path relative to the repository.

    Each is :func:`ttanalyze.batch.check_file`'s outcome for that file (what ``check`` prints or writes
    for it), computed in this process; a file's input error is written as its message.
    """
    import orjson

    from ttanalyze import batch
    from ttanalyze.versions import DEFAULT_TT_METAL

    dest.mkdir(parents=True, exist_ok=True)
    for path in paths:
        absolute = Path(os.path.abspath(path))  # not resolved: benchmarks/out may be a link
        rel = absolute.relative_to(ROOT) if absolute.is_relative_to(ROOT) else None
        stem = str(rel or path.name).replace("/", "__")
        for ext, opts in FORMATS.items():
            opts = batch.CheckOptions(tt_metal=DEFAULT_TT_METAL, **opts)
            outcome = batch.check_file(str(rel or path), opts)
            if outcome.error is not None:
                text = "error: %s at %d:%d\n" % outcome.error
            elif ext == "sarif":
                text = orjson.dumps(outcome.sarif, option=orjson.OPT_INDENT_2).decode() + "\n"
            else:
                text = "\n".join(outcome.outputs) + "\n"
            (dest / f"{stem}.{ext}").write_text(text)


SPLIT_FORMATS = {"json": {"format": "json"}, "sarif": {"format": "sarif"}, "txt": {"format": "text", "width": 240},
                 "nofix.json": {"format": "json", "fixes": False}, "nofix.sarif": {"format": "sarif", "fixes": False},
                 "nofix.txt": {"format": "text", "fixes": False, "width": 240},
                 "concise.txt": {"format": "concise"}}


def split_reports(paths: list[Path], serial: Path, split: Path) -> tuple[int, int]:
    """Each file's report in each of :data:`SPLIT_FORMATS`, made serially into ``serial`` and with its function
    groups split over two processes into ``split`` (the split forced: threshold 0); the number of files of
    several groups compared and of reports the split made (the others fell back to the serial path).  A file
    of one group is left out: its split is its serial run."""
    from ttanalyze import batch, shards
    from ttanalyze.versions import DEFAULT_TT_METAL

    os.environ[shards.MIN_OPS_ENV] = "0"
    made = compared = 0
    for dest in (serial, split):
        dest.mkdir(parents=True, exist_ok=True)
    for path in paths:
        if shards.plan(path.read_bytes().decode("utf-8", "replace"), 2, 0) is None:
            continue  # one group, or functions the text does not delimit: check_split says no at once
        compared += 1
        absolute = Path(os.path.abspath(path))
        rel = absolute.relative_to(ROOT) if absolute.is_relative_to(ROOT) else None
        stem = str(rel or path.name).replace("/", "__")
        for ext, opts in SPLIT_FORMATS.items():
            opts = batch.CheckOptions(tt_metal=DEFAULT_TT_METAL, arch="wormhole_b0", **opts)  # arch: without a system_desc
            for dest, jobs in ((split, 2), (serial, 1)):  # the split first: its parent has no MLIR context yet
                outcome = shards.check_split(str(rel or path), opts, None, jobs) if jobs > 1 else None
                made += outcome is not None
                if outcome is None:
                    outcome = batch.check_file(str(rel or path), opts)
                (dest / f"{stem}.{ext}").write_text(_report_text(outcome, ext))
    return compared, made


def _report_text(outcome, ext: str) -> str:
    import orjson

    if outcome.error is not None:
        return "error: %s at %d:%d\n" % outcome.error
    body = (orjson.dumps(outcome.sarif, option=orjson.OPT_INDENT_2).decode() if ext.endswith("sarif")
            else "\n".join(outcome.outputs))
    return body + "\n" + "".join(f"note: {n}\n" for n in outcome.notes) + \
        f"severities {outcome.severities} suppressed {outcome.suppressed} stale {outcome.stale}\n"


def compare(expected: Path, got: Path) -> list[str]:
    """The reports that differ between two directories, each with its first differing line."""
    diffs: list[str] = []
    names = sorted({p.name for p in expected.iterdir()} | {p.name for p in got.iterdir()})
    for name in names:
        a, b = expected / name, got / name
        if not a.exists() or not b.exists():
            diffs.append(f"{name}: only in {'the new' if b.exists() else 'the expected'} reports")
            continue
        if a.read_bytes() == b.read_bytes():
            continue
        la, lb = a.read_text().splitlines(), b.read_text().splitlines()
        line = next((i for i, (x, y) in enumerate(zip(la, lb)) if x != y), min(len(la), len(lb)))
        x = la[line][:300] if line < len(la) else "<end>"
        y = lb[line][:300] if line < len(lb) else "<end>"
        diffs.append(f"{name}:{line + 1}:\n  expected {x}\n  got      {y}")
    return diffs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("roots", nargs="*", type=Path, default=[ROOT / "fixtures"])
    group = ap.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", type=Path, help="Write the reports here.")
    group.add_argument("--against", type=Path, help="Compare fresh reports with the ones here.")
    group.add_argument("--split", action="store_true", help="Compare serial reports with split ones.")
    ap.add_argument("--ops", type=int, default=6_000, help="Ops of each generated program (0: none).")
    ap.add_argument("--kind", action="append", choices=sorted(KINDS),
                    help="Generated kinds (default: distinct and repeated).")
    ap.add_argument("--out-dir", type=Path, default=ROOT / "benchmarks" / "out",
                    help="Where generated programs are written.")
    args = ap.parse_args()
    if args.split:
        roots = args.roots if args.roots != [ROOT / "fixtures"] else [ROOT / "fixtures", ROOT / "tests" / "data"]
        paths = inputs(roots, args.ops, args.kind or ["distinct", "repeated", "groups"], args.out_dir)
        with tempfile.TemporaryDirectory() as tmp:
            compared, made = split_reports(paths, Path(tmp) / "serial", Path(tmp) / "split")
            diffs = compare(Path(tmp) / "serial", Path(tmp) / "split")
        for d in diffs:
            print(d)
        print(f"{len(paths)} files, {compared} of several groups x {len(SPLIT_FORMATS)} formats: {made} reports "
              f"split, {len(diffs)} differ")
        sys.exit(1 if diffs else 0)
    paths = inputs(args.roots, args.ops, args.kind or ["distinct", "repeated"], args.out_dir)
    if args.write:
        write_reports(paths, args.write)
        print(f"wrote {len(paths) * len(FORMATS)} reports of {len(paths)} files to {args.write}")
        return
    with tempfile.TemporaryDirectory() as tmp:
        write_reports(paths, Path(tmp))
        diffs = compare(args.against, Path(tmp))
    for d in diffs:
        print(d)
    print(f"{len(paths)} files x {len(FORMATS)} formats: {len(diffs)} reports differ")
    sys.exit(1 if diffs else 0)


if __name__ == "__main__":
    main()
