"""Sweep ttanalyze over every TTNN test file of tt-mlir, at several commits ("eras").

For each commit, every ``test/**/*.mlir`` file is split at ``// -----`` (as
``ttmlir-opt --split-input-file`` does); a split that holds ``ttnn.`` ops outside
comments is a *TTNN case*.  A case is *negative* when tt-mlir's own test expects
the verifier to refuse it (the split has an ``expected-error``, or the file's RUN
lines run ``not ttmlir-opt``/``not ttmlir-translate``); every other case is text
tt-mlir's verifier accepts, which ttanalyze must analyze (exit 0 or 1).

Each case is analyzed in-process, as ``ttanalyze check --arch wormhole_b0`` would
(the file's own system_desc wins): parse every TTNN module of the text, analyze,
run every rule.  Identical texts are analyzed once (keyed by their SHA-1), work
is done in chunks of one worker process each (``nice``), with a per-case
timeout, and results are appended to a resumable JSON-lines file.

Usage (the mirror is a bare git directory of tenstorrent/tt-mlir)::

    python benchmarks/eras_sweep.py MIRROR.git 2025-06=42db2e48 2025-10=47da1597 \
        2026-04=41988b57 HEAD=19c86fca --results measurements/eras/results.jsonl.gz \
        --table docs/eras.md

``LABEL=COMMIT`` names each era; a bare commit is labeled by itself.
"""

from __future__ import annotations

import argparse
import collections
import gzip
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SPLIT = re.compile(r"^// -----.*$", re.M)
# an op of the ttnn dialect in code (generic "ttnn.x"(...) or custom ttnn.x), not an attribute #ttnn.x
TTNN_OP = re.compile(r"(?<![#!\w.$\"])(?<!call_opaque )\"?ttnn\.[a-z_][\w]*\"?\s*[(<{:%@]|=\s*\"?ttnn\.[a-z_]\w*")
COMMENT = re.compile(r"//[^\n]*")
NEGATIVE_RUN = re.compile(r"RUN:.*\bnot\s+(ttmlir-opt|ttmlir-translate)\b")


def git(mirror: str, *args: str) -> bytes:
    return subprocess.run(["git", "--git-dir", mirror, *args], check=True, capture_output=True).stdout


def test_files(mirror: str, commit: str) -> list[tuple[str, str]]:
    """(path, blob sha) of every test/**.mlir file at ``commit``."""
    out = git(mirror, "ls-tree", "-r", commit, "--", "test/").decode()
    files = []
    for line in out.splitlines():
        meta, path = line.split("\t", 1)
        _mode, kind, sha = meta.split()
        if kind == "blob" and path.endswith(".mlir"):
            files.append((path, sha))
    return files


def read_blobs(mirror: str, shas: list[str]) -> dict[str, str]:
    """Blob texts by sha, read with one ``git cat-file --batch``."""
    proc = subprocess.run(["git", "--git-dir", mirror, "cat-file", "--batch"], input="\n".join(shas).encode() + b"\n",
                          capture_output=True, check=True)
    data, pos, out = proc.stdout, 0, {}
    for sha in shas:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        size = int(header[2])
        out[sha] = data[nl + 1: nl + 1 + size].decode("utf-8", "replace")
        pos = nl + 1 + size + 1
    return out


def splits(text: str) -> list[tuple[int, str]]:
    """(first line number in the file, text) of each ``// -----`` split.

    The split keeps its place in the file: earlier lines are blank, so the
    analyzer's line numbers are the file's.
    """
    out, start, line = [], 0, 1
    for m in SPLIT.finditer(text):
        out.append((line, text[start:m.start()]))
        line += text.count("\n", start, m.end())
        start = m.end()
    out.append((line, text[start:]))
    return [(ln, "\n" * (ln - 1) + body) for ln, body in out]


def is_ttnn(text: str) -> bool:
    return bool(TTNN_OP.search(COMMENT.sub("", text)))


def cases(mirror: str, commit: str) -> list[dict]:
    """Every TTNN case of ``commit``'s test files, with its text."""
    return _cases_of(mirror, test_files(mirror, commit))


def branch_test_files(mirror: str, since: str, head: str) -> list[tuple[str, str]]:
    """(path, blob sha) of every test/**.mlir added or changed on any ref since ``since`` (a date), the newest
    version of each path, unless ``head`` holds that very version (the era sweep of ``head`` reads it): the
    test files of tt-mlir's branches, held out from the eras' commits."""
    log = git(mirror, "log", "--all", f"--since={since}", "--format=C %H", "--name-only", "--diff-filter=AM",
              "--", "test/*.mlir").decode()
    newest, commit = {}, None
    for line in log.splitlines():
        if line.startswith("C "):
            commit = line[2:]
        elif line.strip() and line not in newest:
            newest[line] = commit
    at_head = dict(test_files(mirror, head))
    out = []
    for path, commit in sorted(newest.items()):
        try:
            sha = git(mirror, "rev-parse", f"{commit}:{path}").decode().strip()
        except subprocess.CalledProcessError:
            continue
        if at_head.get(path) != sha:
            out.append((path, sha))
    return out


def _cases_of(mirror: str, files: list[tuple[str, str]]) -> list[dict]:
    blobs = read_blobs(mirror, sorted({sha for _, sha in files}))
    out = []
    for path, sha in files:
        text = blobs[sha]
        file_negative = bool(NEGATIVE_RUN.search(text))
        parts = splits(text) if "// -----" in text else [(1, text)]
        for index, (line, body) in enumerate(parts):
            if not is_ttnn(body):
                continue
            negative = file_negative or "expected-error" in body
            key = hashlib.sha1(body.encode()).hexdigest()
            expected = re.search(r"expected-error[^{]*\{\{(.*?)\}\}", body) or re.search(r"CHECK: error: (.*)", body)
            out.append({"path": path, "split": index, "line": line, "negative": negative, "key": key, "text": body,
                        "expected": expected.group(1)[:160] if negative and expected else ""})
    return out


# -- analysis of one case (in the worker) ---------------------------------------------------------------------------


class _Timeout(Exception):
    pass


def _alarm(signum, frame):  # noqa: ARG001
    raise _Timeout()


def analyze_case(text: str, timeout: int) -> dict:
    """Parse and analyze ``text`` as ``ttanalyze check --arch wormhole_b0`` does.

    Returns ``{"status": analyzed|input_error|internal|timeout, ...}``.
    """
    from ttanalyze.analysis import analyze
    from ttanalyze.errors import InputError
    from ttanalyze.rules import run

    try:
        from ttanalyze.ir.parse import parse_modules
    except ImportError:  # a ttanalyze from before several modules per file (--root)
        from ttanalyze.ir.parse import parse_text

        def parse_modules(text, path):
            return [parse_text(text, path)]

    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(timeout)
    start = time.perf_counter()
    try:
        programs = parse_modules(text, "case.mlir")
        rules: collections.Counter = collections.Counter()
        severities: collections.Counter = collections.Counter()
        ops = 0
        for program in programs:
            try:
                a = analyze(program, "wormhole_b0")
            except ValueError as exc:
                raise InputError(str(exc), "case.mlir") from None
            ops += len(program.ops)
            for f in run(a):
                rules[f.rule] += 1
                severities[f.severity] += 1
        status = {"status": "analyzed", "modules": len(programs), "ops": ops, "rules": dict(rules),
                  "errors": severities.get("error", 0)}
    except InputError as exc:
        status = {"status": "input_error", "message": str(exc).removeprefix("case.mlir:")}
    except _Timeout:
        status = {"status": "timeout"}
    except MemoryError:
        status = {"status": "internal", "message": f"MemoryError: more than {WORKER_MEMORY_BYTES >> 30} GiB"}
    except RecursionError as exc:
        status = {"status": "internal", "message": f"RecursionError: {str(exc)[:200]}"}
    except Exception as exc:  # noqa: BLE001 - the sweep counts internal errors
        import traceback

        tb = traceback.extract_tb(exc.__traceback__)[-1]
        status = {"status": "internal",
                  "message": f"{type(exc).__name__}: {str(exc)[:200]} at {Path(tb.filename).name}:{tb.lineno}"}
    finally:
        signal.alarm(0)
    status["seconds"] = round(time.perf_counter() - start, 3)
    return status


# A case may not take more memory than this (the machine is shared): beyond it, MemoryError.
WORKER_MEMORY_BYTES = 4 << 30


def worker(chunk_path: str, out_path: str, timeout: int, root: str) -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (WORKER_MEMORY_BYTES, WORKER_MEMORY_BYTES))
    sys.path.insert(0, root)
    with open(chunk_path) as f:
        chunk = json.load(f)
    with open(out_path, "a") as out:
        for key, text in chunk:
            result = analyze_case(text, timeout)
            result["key"] = key
            out.write(json.dumps(result) + "\n")
            out.flush()


# -- driver ---------------------------------------------------------------------------------------------------------


def load_results(path: Path) -> dict[str, dict]:
    if not path.exists():
        return {}
    opener = gzip.open if path.suffix == ".gz" else open
    out = {}
    with opener(path, "rt") as f:
        for line in f:
            if line.strip():
                r = json.loads(line)
                if "key" in r and "status" in r:
                    out[r["key"]] = r
    return out


def file_cases(paths: list[str]) -> list[dict]:
    """One case per file (a TTNN dump of a real model, analyzed whole)."""
    out = []
    for path in paths:
        text = Path(path).read_bytes().decode("utf-8", "replace")
        out.append({"path": path, "name": f"{Path(path).parent.name}/{Path(path).name}", "split": 0, "line": 1,
                    "negative": False, "expected": "",
                    "key": hashlib.sha1(text.encode()).hexdigest(), "text": text})
    return out


def run_sweep(per_era: dict[str, list[dict]], results_path: Path, chunk: int, timeout: int,
              fresh: bool, root: Path = ROOT, retry: bool = False) -> tuple[dict[str, list[dict]], dict[str, dict]]:
    known = {} if fresh else load_results(results_path)
    if retry:  # analyze again the texts that were refused, crashed or timed out
        known = {k: r for k, r in known.items() if r.get("status") == "analyzed"}
    texts = {c["key"]: c["text"] for cs in per_era.values() for c in cs}
    todo = [k for k in texts if k not in known]
    print(f"{len(texts)} distinct cases, {len(todo)} to analyze", file=sys.stderr)
    with tempfile.TemporaryDirectory() as tmp:
        part = Path(tmp) / "part.jsonl"
        for i in range(0, len(todo), chunk):
            spec = Path(tmp) / "chunk.json"
            spec.write_text(json.dumps([(k, texts[k]) for k in todo[i:i + chunk]]))
            part.write_text("")
            subprocess.run(["nice", "-n", "10", sys.executable, __file__, "--worker", str(spec), str(part),
                            "--timeout", str(timeout), "--root", str(root)], check=False, cwd=root)
            done = load_results(part)
            for k in todo[i:i + chunk]:  # a case that killed the worker (segfault) is an internal error
                if k not in done:
                    done[k] = {"key": k, "status": "internal", "message": "worker process died"}
                    break
            known.update(done)
            save_results(results_path, known, per_era)
            print(f"  {min(i + chunk, len(todo))}/{len(todo)}", file=sys.stderr)
            if len(done) < len(todo[i:i + chunk]):  # resume after the crash
                return run_sweep(per_era, results_path, chunk, timeout, False, root)
    save_results(results_path, known, per_era)
    return per_era, known


def save_results(path: Path, known: dict[str, dict], per_era: dict[str, list[dict]]) -> None:
    """Compact raw results: one line per case (era, path, split, verdict), then one per distinct text."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt") as f:
        for label, cs in per_era.items():
            for c in cs:
                f.write(json.dumps({"era": label, "path": c.get("name", c["path"]), "split": c["split"], "line": c["line"],
                                    "negative": c["negative"], "expected": c["expected"], "case": c["key"]}) + "\n")
        for r in known.values():
            f.write(json.dumps(r, sort_keys=True) + "\n")


def reason(message: str) -> str:
    """An input error message with positions, names and numbers blanked, for grouping."""
    m = re.sub(r"^\d+:\d+: error: ", "", message)
    m = re.sub(r"'[^']*'", "'…'", m)
    m = re.sub(r"\d+", "N", m)
    return m[:110]


def table(eras: list[tuple[str, str]], per_era: dict[str, list[dict]], known: dict[str, dict], mirror: str) -> str:
    lines = ["| era | commit | TTNN cases | accepted by tt-mlir | analyzed (exit 0/1) | accepted with an error finding | "
             "refused (exit 2) | internal errors | timeouts | negative tests | negative refused | negative flagged | "
             "negative analyzed |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    groups = {}
    for label, commit in eras:
        cs = per_era[label]
        date = git(mirror, "log", "-1", "--format=%cs", commit).decode().strip()
        pos = [c for c in cs if not c["negative"]]
        neg = [c for c in cs if c["negative"]]
        st = lambda c: known.get(c["key"], {}).get("status")  # noqa: E731
        flagged = sum(1 for c in neg if st(c) == "analyzed" and known[c["key"]].get("errors"))
        lines.append(
            f"| {label} | `{commit[:10]}` {date} | {len(cs)} | {len(pos)} | "
            f"{sum(st(c) == 'analyzed' for c in pos)} | "
            f"{sum(1 for c in pos if st(c) == 'analyzed' and known[c['key']].get('errors'))} | "
            f"{sum(st(c) == 'input_error' for c in pos)} | "
            f"{sum(st(c) == 'internal' for c in cs)} | {sum(st(c) == 'timeout' for c in cs)} | {len(neg)} | "
            f"{sum(st(c) == 'input_error' for c in neg)} | {flagged} | "
            f"{sum(st(c) == 'analyzed' for c in neg) - flagged} |")
        g = collections.Counter()
        examples = {}
        for c in pos:
            r = known.get(c["key"], {})
            if r.get("status") in ("input_error", "internal", "timeout"):
                why = reason(r.get("message", r["status"]))
                g[why] += 1
                examples.setdefault(why, f"{c['path']}:{r.get('message', '').split(': error')[0]}")
        groups[label] = (g, examples)
    out = ["\n".join(lines), ""]
    label = eras[-1][0]
    missed = collections.Counter()
    for c in per_era[label]:
        r = known.get(c["key"], {})
        if c["negative"] and r.get("status") == "analyzed" and not r.get("errors"):
            op = re.search(r"'((?:ttnn|ttcore)\.\w+)' op", c["expected"])
            missed[op.group(1) if op else "(no op named)"] += 1
    if missed:
        out.append(f"**{label}**: negative cases analyzed without an error finding (tt-mlir's verifier refuses them; "
                   "ttanalyze has no model of the rule), by the op the expected error names\n")
        out.append("| cases | op |\n|---|---|")
        out.extend(f"| {n} | `{op}` |" for op, n in missed.most_common())
        out.append("")
    for label, (g, examples) in groups.items():
        if not g:
            out.append(f"**{label}**: every accepted case analyzed.\n")
            continue
        out.append(f"**{label}**: accepted cases not analyzed, by reason\n")
        out.append("| cases | reason | example |\n|---|---|---|")
        for why, n in g.most_common():
            out.append(f"| {n} | {why.replace('|', '/')} | `{examples[why]}` |")
        out.append("")
    return "\n".join(out)


# FileCheck inputs and lit tests, not dumps (tt-mlir's test/ is what the era sweep reads)
_NOT_DUMPS = ("tests/filecheck/", "test/")


def extract_dumps(mirror: str, out_dir: Path, repo: str = "") -> list[Path]:
    """Write every ``*.mlir`` holding a TTNN op ever committed on any ref of a mirror (tenstorrent/tt-xla,
    tenstorrent/tt-mlir's branches, tt-torch...) into ``out_dir``, newest version of each path, one file per
    distinct text, with ``INDEX.tsv`` (file, commit, date, path, repository ``repo``, default the
    directory's name); test trees (``test/``, ``tests/filecheck/``) are left out."""
    log = git(mirror, "log", "--all", "--format=C %H %cs", "--name-only", "--diff-filter=AM", "--",
              "*.mlir").decode()
    newest: dict[str, tuple[str, str]] = {}
    commit = None
    for line in log.splitlines():
        if line.startswith("C "):
            commit = tuple(line.split()[1:3])
        elif line.strip() and line not in newest:
            newest[line] = commit
    out_dir.mkdir(parents=True, exist_ok=True)
    seen, written, index = set(), [], []
    for i, (path, (sha, date)) in enumerate(sorted(newest.items())):
        if path.startswith(_NOT_DUMPS):
            continue
        try:
            data = git(mirror, "show", f"{sha}:{path}")
        except subprocess.CalledProcessError:
            continue
        digest = hashlib.sha1(data).hexdigest()
        if not data.strip() or digest in seen or not is_ttnn(data.decode("utf-8", "replace")):
            continue
        seen.add(digest)
        name = f"{i:03d}_{Path(path).name}"
        (out_dir / name).write_bytes(data)
        written.append(out_dir / name)
        index.append(f"{name}\t{sha}\t{date}\t{path}\t{repo or out_dir.name}")
    head = git(mirror, "rev-parse", "HEAD").decode().strip()
    date = git(mirror, "show", "-s", "--format=%cs", head).decode().strip()
    try:
        docs = git(mirror, "grep", "-l", "-E", "ttnn\\.[a-z_]+", head, "--", "*.md").decode().split()
    except subprocess.CalledProcessError:  # git grep exits 1 when nothing matches
        docs = []
    for path in sorted(p.split(":", 1)[1] for p in docs):
        for k, block in enumerate(markdown_blocks(git(mirror, "show", f"{head}:{path}").decode("utf-8", "replace"))):
            digest = hashlib.sha1(block.encode()).hexdigest()
            if digest in seen or not is_ttnn(block) or "func.func" not in block:
                continue
            seen.add(digest)
            name = f"md{len(index):03d}_{Path(path).stem}_{k}.mlir"
            (out_dir / name).write_text(block)
            written.append(out_dir / name)
            index.append(f"{name}\t{head}\t{date}\t{path}#block{k}\t{repo or out_dir.name}")
    (out_dir / "INDEX.tsv").write_text("\n".join(index) + "\n")
    return written


FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)


def markdown_blocks(text: str) -> list[str]:
    """The fenced code blocks of a markdown text (IR pasted in docs and issues), in order; a block printed
    as a CSV cell, every ``"`` doubled (tt-torch's ``docs/src/ops/ttnn/README.md``), is undoubled."""
    blocks = [m.group(1) for m in FENCE.finditer(text)]
    return [b.replace('""', '"') if '""ttnn.' in b else b for b in blocks]


def fetch_dumps(index: Path, mirrors: dict[str, str], out_dir: Path) -> list[Path]:
    """Write the dumps an index names (``measurements/eras/public_dumps_index.tsv``: file, commit, date, path,
    repository) from the mirrors (``{"owner/name": bare git dir}``) into ``out_dir/<name>/``, each with the
    ``INDEX.tsv`` of its rows; rows of a repository without a mirror are skipped (said on stderr)."""
    written, by_dir = [], {}
    for line in index.read_text().splitlines():
        name, sha, date, path, repo = line.split("\t")
        if repo not in mirrors:
            print(f"no mirror of {repo}: {path} skipped", file=sys.stderr)
            continue
        d = out_dir / repo.split("/")[-1]
        d.mkdir(parents=True, exist_ok=True)
        path, _, block = path.partition("#block")  # a code block of a markdown file
        data = git(mirrors[repo], "show", f"{sha}:{path}")
        if block:
            data = markdown_blocks(data.decode("utf-8", "replace"))[int(block)].encode()
        (d / name).write_bytes(data)
        by_dir.setdefault(d, []).append(line)
        written.append(d / name)
    for d, lines in by_dir.items():
        (d / "INDEX.tsv").write_text("\n".join(lines) + "\n")
    return written


def _origin(path: str) -> str:
    """``repo commit date path`` of an extracted dump, from the ``INDEX.tsv`` beside it (the file name otherwise)."""
    index = Path(path).parent / "INDEX.tsv"
    if index.exists():
        for line in index.read_text().splitlines():
            name, sha, date, origin, *repo = line.split("\t")
            if name == Path(path).name:
                return f"{(repo or [Path(path).parent.name])[0]} `{sha[:10]}` {date} `{origin}`"
    return Path(path).name


def files_table(cs: list[dict], known: dict[str, dict]) -> str:
    """One row per file: origin, size, verdict, modules, ops, findings by rule (or the input error)."""
    lines = ["| file | KB | verdict | modules | ops | errors | s | rules or message |", "|---|---|---|---|---|---|---|---|"]
    for c in cs:
        r = known.get(c["key"], {})
        kb = len(c["text"].encode()) // 1024
        if r.get("status") == "analyzed":
            rules = ", ".join(f"{k} {v}" for k, v in sorted(r["rules"].items()))
            lines.append(f"| {_origin(c['path'])} | {kb:,} | analyzed | {r['modules']} | {r['ops']:,} | {r['errors']} | "
                         f"{r.get('seconds', '')} | {rules} |")
        else:
            msg = r.get("message", "").replace("|", "/")[:120]
            lines.append(f"| {_origin(c['path'])} | {kb:,} | {r.get('status')} | | | | {r.get('seconds', '')} | {msg} |")
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mirror", nargs="?", help="bare git directory of tenstorrent/tt-mlir")
    ap.add_argument("eras", nargs="*", help="LABEL=COMMIT or COMMIT")
    ap.add_argument("--results", default=str(ROOT / "measurements/eras/results.jsonl.gz"))
    ap.add_argument("--branches-since", metavar="DATE",
                    help="one more era: the test files of every branch changed since DATE that the last era lacks")
    ap.add_argument("--table", help="write the per-era table (markdown) here")
    ap.add_argument("--chunk", type=int, default=300, help="cases per worker process")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per case")
    ap.add_argument("--fresh", action="store_true", help="ignore earlier results")
    ap.add_argument("--retry", action="store_true", help="analyze again the cases not analyzed before")
    ap.add_argument("--files", nargs="+", help="analyze these files whole instead (TTNN dumps of real models)")
    ap.add_argument("--extract-dumps", nargs=2, metavar=("MIRROR", "DIR"),
                    help="write every *.mlir holding TTNN ops of a mirror's history into DIR (for --files)")
    ap.add_argument("--repo", default="", help="with --extract-dumps: the mirror's owner/name, for the index")
    ap.add_argument("--fetch-dumps", nargs=2, metavar=("INDEX", "DIR"),
                    help="write the dumps INDEX names into DIR/<repo>/ from the --mirror-of mirrors")
    ap.add_argument("--mirror-of", nargs="+", default=[], metavar="OWNER/NAME=GITDIR",
                    help="with --fetch-dumps: the bare git directory of each repository")
    ap.add_argument("--root", default=str(ROOT), help="the ttanalyze checkout to measure (default: this one)")
    ap.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker(args.worker[0], args.worker[1], args.timeout, args.root)
        return
    if args.extract_dumps:
        for path in extract_dumps(args.extract_dumps[0], Path(args.extract_dumps[1]), args.repo):
            print(path)
        return
    if args.fetch_dumps:
        mirrors = dict(m.split("=", 1) for m in args.mirror_of)
        for path in fetch_dumps(Path(args.fetch_dumps[0]), mirrors, Path(args.fetch_dumps[1])):
            print(path)
        return
    if args.files:
        per_era, known = run_sweep({"files": file_cases(args.files)}, Path(args.results), args.chunk, args.timeout,
                                   args.fresh, Path(args.root), args.retry)
        text = files_table(per_era["files"], known)
        print(text)
        if args.table:
            Path(args.table).write_text(text + "\n")
        return
    if not args.mirror or not args.eras:
        ap.error("give the mirror and at least one commit")
    eras = [tuple(e.split("=", 1)) if "=" in e else (e, e) for e in args.eras]
    resolved = []
    for label, commit in eras:
        try:
            resolved.append((label, git(args.mirror, "rev-parse", "--verify", f"{commit}^{{commit}}").decode().strip()))
        except (subprocess.CalledProcessError, FileNotFoundError):
            ap.error(f"{commit}: not a commit of {args.mirror}")
    eras = resolved
    per_era = {label: cases(args.mirror, commit) for label, commit in eras}
    if args.branches_since:
        label = f"branches since {args.branches_since}"
        per_era[label] = _cases_of(args.mirror, branch_test_files(args.mirror, args.branches_since, eras[-1][1]))
        eras.append((label, eras[-1][1]))
    per_era, known = run_sweep(per_era, Path(args.results), args.chunk, args.timeout, args.fresh, Path(args.root), args.retry)
    text = table(eras, per_era, known, args.mirror)
    print(text)
    if args.table:
        Path(args.table).write_text(text + "\n")


if __name__ == "__main__":
    main()
