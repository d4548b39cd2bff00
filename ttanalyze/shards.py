"""One large module's ``check`` over several processes: its independent function groups analyzed in
parallel, then merged into the reports the serial run makes, byte for byte.

Every function is its own program for the analyses (:func:`ttanalyze.memory.timeline` and
:func:`~ttanalyze.memory.replay` start each from an empty allocator; a callee is replayed inside its
caller), so functions that do not name each other can be analyzed apart:

- *Groups* (:func:`plan`): the ``func.func`` of the text joined by every symbol reference (``@name``
  anywhere in a function: ``call``, ``ttcore.load_cached``, callee attributes), union-find; a function
  referenced from nowhere and referencing nothing is a group of its own.  The groups are dealt over the
  shares, largest first, each to the share with the fewest ops so far (ops estimated as lines).
- *A share* (:func:`share_result`): the file's text with the other shares' functions replaced by empty
  lines (every line:col stays the file's; the module header, aliases, system_desc and other top-level ops
  stay), through the whole pipeline (:func:`ttanalyze.batch.analyze_text`); it returns a small picklable
  :class:`ShareResult`: its findings with their fingerprint keys and rendered fixes, its functions' op
  counts, its summary figures, its JSON function records.
- *Processes* (:func:`check_split`): the shares after the first are computed in processes forked from
  this one (no MLIR context exists here yet: :func:`check_split` is called before any parse), while
  this process computes the first.
- *Merge* (:func:`merge`): op indices are made global (each function's ops move by the ops of the
  functions before it in the file), the peaks are the largest with the first op winning a tie (as
  :attr:`~ttanalyze.memory.MemoryTimeline.peak_l1`), the findings are sorted as
  :func:`ttanalyze.rules.run` sorts them, fingerprints are counted over the merged list
  (:func:`ttanalyze.baseline.fingerprints`), and the module-level findings come from one share.

Where the merge could differ from the serial run, the file is checked serially instead: a file of
several TTNN modules, an input error in any share, shares that disagree on the module-level findings,
notes or mesh shape, fixes that would be evaluated (programs of at most
:data:`ttanalyze.batch.FIX_MAX_OPS` ops), ``--detail ops``, ``--verbose``, ``--write-baseline``, stdin.
"""

from __future__ import annotations

import bisect
import os
import re
import time
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .baseline import Baseline
    from .batch import CheckOptions, FileOutcome
    from .findings import Finding

MIN_OPS_ENV = "TTANALYZE_SPLIT_MIN_OPS"  # internal knob: the split's op threshold (0 forces it; tests, same_results)
MIN_OPS = 10_000  # below this many ops (function lines) a file is checked in one process: measurements/shards

# a function's or a ttcore.cpu_module's first word (group 1: the function's name)
_START = re.compile(r'func\.func\s+(?:(?:private|public|nested)\s+)*@("(?:[^"\\\n]|\\.)*"|[\w$.\-]+)'
                    r"|ttcore\.cpu_module\b")
_SYMBOL_REF = re.compile(r'@("(?:[^"\\]|\\.)*"|[\w$.\-]+)')


@dataclass(frozen=True)
class FuncSpan:
    """A ``func.func`` of the text: its symbol name, its first and last line (0-based, inclusive) and the text
    offsets of their start and end, its ops (estimated: its lines), the symbols it names."""

    name: str
    first: int
    last: int
    start: int
    end: int
    ops: int
    refs: frozenset[str]


def function_spans(text: str) -> tuple[list[FuncSpan], set[str]] | None:
    """The device functions of a module's ``text`` (those of a ``ttcore.cpu_module`` are left alone), and the
    symbols named outside them (a declaration without a body is a one-line function); None when a function's
    extent cannot be told from the text (a function not closed by a ``}`` at its own indentation, perhaps with
    its ``loc``; the generic form).  Ops are counted as the function's lines."""
    if '"func.func"' in text:
        return None
    spans: list[FuncSpan] = []
    outside: set[str] = set()
    pos, line, n = 0, 0, len(text)
    next_start = _starts(text)
    while (m := next_start(pos)) is not None:
        start = text.rfind("\n", 0, m.start()) + 1
        if text[start:m.start()].strip(" \t"):  # not the line's first word (a comment, an attribute)
            _names_outside(text, pos, m.end(), outside)
            pos = m.end()
            continue
        _names_outside(text, pos, start, outside)
        line += text.count("\n", pos, start)
        first = line
        eol = _eol(text, m.end())
        head = text[start:eol].rstrip()
        while head.endswith(("(", ",")) and eol < n:  # a signature over several lines
            eol = _eol(text, eol + 1)
            head = text[start:eol].rstrip()
        name = m.group(1)
        if not head.endswith("{"):
            if name is None or "\n" in text[start:eol]:
                return None
            spans.append(FuncSpan(name, first, first, start, eol, 1,  # a declaration: a symbol without a body
                                  frozenset(_SYMBOL_REF.findall(text, m.end(), eol))))
            pos = eol
            continue
        close = "\n" + text[start:m.start()] + "}"
        k = text.find(close, eol)
        while k >= 0:
            end = _eol(text, k + len(close))
            rest = text[k + len(close):end]
            if not rest.strip() or rest.startswith(" loc("):
                break
            k = text.find(close, k + 1)
        if k < 0:
            return None
        line += text.count("\n", start, end)
        if name is not None:  # a ttcore.cpu_module's functions are the host's: they never name the device's
            refs = frozenset(_SYMBOL_REF.findall(text, m.end(), end)) - {name}
            spans.append(FuncSpan(name, first, line, start, end, line - first, refs))
        pos = end
    _names_outside(text, pos, n, outside)
    return spans, outside


def _starts(text: str):
    """A function ``next_start(pos)``: the match of :data:`_START` at the next ``func.func`` or
    ``ttcore.cpu_module`` from ``pos``, or None (found with ``str.find``, each word's next place remembered: a
    regex search over the text's megabytes is several times slower)."""
    found = {word: text.find(word) for word in ("func.func", "ttcore.cpu_module")}

    def next_start(pos: int) -> "re.Match[str] | None":
        while True:
            for word, k in found.items():
                if 0 <= k < pos:
                    found[word] = text.find(word, pos)
            k = min((k for k in found.values() if k >= 0), default=-1)
            if k < 0:
                return None
            m = _START.match(text, k)
            if m is not None:
                return m
            pos = k + 1

    return next_start


def _names_outside(text: str, start: int, end: int, out: set[str]) -> None:
    """Add the symbols named in ``text[start:end]`` (outside every function) to ``out``, but in comments."""
    for m in _SYMBOL_REF.finditer(text, start, end):
        if not text[text.rfind("\n", 0, m.start()) + 1:m.start()].lstrip().startswith("//"):
            out.add(m.group(1))


def _eol(text: str, pos: int) -> int:
    """The offset of the end of the line holding ``pos`` (its newline, or the end of the text)."""
    k = text.find("\n", pos)
    return len(text) if k < 0 else k


def plan(text: str, shares: int, min_ops: int) -> list[list[FuncSpan]] | None:
    """The functions of each share (at most ``shares``, each holding whole groups), or None when the module
    is not split: fewer than 2 groups, fewer than ``min_ops`` ops, a function named outside the functions."""
    if shares < 2 or text.count("\n") + 1 < min_ops:  # the functions' lines (their ops) are at most the text's
        return None
    found = function_spans(text)
    if found is None:
        return None
    spans, outside = found
    if len(spans) < 2 or sum(s.ops for s in spans) < min_ops:
        return None
    names = {s.name: k for k, s in enumerate(spans)}
    if len(names) != len(spans) or outside & names.keys():
        return None
    parent = list(range(len(spans)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for k, s in enumerate(spans):
        for ref in s.refs:
            other = names.get(ref)
            if other is not None:
                parent[root(k)] = root(other)
    groups: dict[int, list[FuncSpan]] = {}
    for k, s in enumerate(spans):
        groups.setdefault(root(k), []).append(s)
    if len(groups) < 2:
        return None
    bins: list[list[FuncSpan]] = [[] for _ in range(min(shares, len(groups)))]
    load = [0] * len(bins)
    for group in sorted(groups.values(), key=lambda g: -sum(s.ops for s in g)):
        k = load.index(min(load))
        bins[k] += group
        load[k] += sum(s.ops for s in group)
    return [sorted(b, key=lambda s: s.first) for b in bins]


def share_text(text: str, keep: list[FuncSpan], spans: list[FuncSpan]) -> str:
    """The text with the functions of ``spans`` not in ``keep`` replaced by as many empty lines."""
    kept = {s.start for s in keep}
    parts, pos = [], 0
    for s in sorted(spans, key=lambda s: s.start):
        if s.start not in kept:
            parts += [text[pos:s.start], "\n" * (s.last - s.first)]
            pos = s.end
    parts.append(text[pos:])
    return "".join(parts)


@dataclass
class ShareFinding:
    """One finding of a share: the finding (op index local to the share), its fingerprint key
    (:func:`ttanalyze.baseline.fingerprints`), whether it lies outside every function of the share (a
    module-level finding), its SARIF logical location and its rendered fixes (text lines, JSON records)."""

    finding: "Finding"
    key: tuple[str, ...]
    module_level: bool
    logical: list[dict[str, Any]] = field(default_factory=list)
    fix_text: list[str] = field(default_factory=list)
    fix_records: list[dict[str, Any]] = field(default_factory=list)


@dataclass
class ShareResult:
    """What one share returns to the merge (small: never the analysis).

    Attributes:
        fallback: why the file must be checked serially instead, or "".
        funcs: (name, first line, local index of its first op, ops) of each function, in order.
        meshes: (name, private, kind, own mesh) of each function, for the program's mesh; declared: the
            module's declared meshes (name, shape).
        mesh: the share's program mesh (:func:`ttanalyze.mesh.mesh_of`).
        notes: the stderr notes (:func:`ttanalyze.check_config.check_options`).
        findings: in the share's file order.
        summary: its :class:`~ttanalyze.report.summary.ModuleSummary` (local op indices).
        arch_record / tt_metal / functions: the JSON report's parts (functions' lifetimes in local indices).
        seconds: how long the share took (wall time, in its process).
    """

    fallback: str = ""
    funcs: list[tuple[str, int, int, int]] = field(default_factory=list)
    meshes: list[tuple[str, bool, str, Any]] = field(default_factory=list)
    declared: list[Any] = field(default_factory=list)
    mesh: Any = None
    notes: list[str] = field(default_factory=list)
    findings: list[ShareFinding] = field(default_factory=list)
    summary: Any = None
    arch_record: dict[str, Any] = field(default_factory=dict)
    tt_metal: str = ""
    functions: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0  # wall time of the share in its process


def share_result(text: str, name: str, opts: "CheckOptions", funcs: list[FuncSpan], keep: bool = False) -> ShareResult:
    """Analyze one share's text (:func:`share_text`), whose functions are ``funcs``, and return what the merge
    needs; ``keep``: keep the analysis alive until the process ends (a process that ends with ``os._exit``).

    Raises:
        RuntimeError: an unknown rule in ``opts.select``; any other exception is a bug (as in the serial path).
    """
    from . import batch
    from .errors import InputError
    from .mesh import mesh_of, mesh_of_func
    from .report.summary import module_summary

    try:
        with batch.analysis_gc():
            results, notes = batch.analyze_text(text, name, opts)
    except InputError:
        return ShareResult(fallback="an input error")
    if len(results) != 1:
        return ShareResult(fallback="several modules")
    a, findings = results[0]
    if keep:  # freed by the process's exit (os._exit), not object by object
        _keep_alive[:] = [results]
    program = a.program
    placed: list[tuple[str, int, int, int]] = []
    start = 0
    for f in program.funcs:
        if [op.index for op in f.ops] != list(range(start, start + len(f.ops))):
            return ShareResult(fallback="ops not numbered function by function")
        placed.append((f.name, f.pos.line, start, len(f.ops)))
        start += len(f.ops)
    if start != len(program.ops) or [f[0] for f in placed] != [s.name.strip('"') for s in funcs]:
        return ShareResult(fallback="functions not as found in the text")
    spans = [(s.first + 1, s.last + 1) for s in funcs]  # 1-based lines
    out = ShareResult(funcs=placed, notes=notes, mesh=mesh_of(program), summary=module_summary(a),
                      tt_metal=a.tt_metal)
    out.meshes = [(f.name, f.private, f.kind, mesh_of_func(f)) for f in program.funcs]
    out.declared = [(name, tuple(shape)) for name, shape in (program.meshes.shapes if program.meshes else ())]
    want = batch.wants_fixes(opts)
    if want and findings:
        from .fixes.catalog import candidates
        from .report.fixes import fix_lines, fix_record
    if opts.format == "sarif":
        from .report.sarif import logical_location
    for f in findings:
        if f.op_index is not None:
            op = program.ops[f.op_index]
            key = (f.rule, op.func.name, op.name, op.loc_name, f.message)
        else:
            key = (f.rule, "", "", "", f.message)
        inside = f.op_index is not None or any(lo <= f.pos.line <= hi for lo, hi in spans)
        item = ShareFinding(f, key, not inside)
        if opts.format == "sarif":
            item.logical = logical_location(a, f)
        if want:
            fixes = candidates(f, a, findings)  # unevaluated (over FIX_MAX_OPS ops), as batch.suggest_all lists them
            for n, fx in enumerate(fixes, 1):
                fx.rank = n
            item.fix_text = fix_lines(f, fixes) if fixes else []
            item.fix_records = [fix_record(fx) for fx in fixes]
        out.findings.append(item)
    if opts.format == "json":
        from .report import records

        out.arch_record = records.arch_record(a)
        out.functions = records.function_records(a)
    return out


_keep_alive: list[Any] = []  # each share's analysis in this process (see share_result)


def _shape(mesh: Any) -> tuple[int, ...] | None:
    return mesh.shape if mesh is not None else None


def _serial_mesh(shares: list[ShareResult]) -> Any:
    """The mesh :func:`ttanalyze.mesh.mesh_of` finds for the whole module, from the shares' functions (in
    file order) and declared meshes."""
    from .mesh import Mesh

    funcs = sorted(((line, meta) for s in shares for (_, line, _, _), meta in zip(s.funcs, s.meshes)),
                   key=lambda x: x[0])
    metas = [m for _, m in funcs]
    entry = next((m for m in metas if not m[1] and m[2] != "const_eval"), metas[-1] if metas else None)
    found = [Mesh(shape, f'ttcore.meshes "{name}"') for name, shape in shares[0].declared]  # as mesh.meshes_of
    for _, _, _, own in metas:
        if own is not None and all(m.shape != own.shape for m in found):
            found.append(own)
    if entry is not None and entry[3] is not None:
        declared = [m for m in found if m.shape == entry[3].shape]
        return declared[0] if declared else entry[3]
    return found[0] if found else None


def merge(shares: list[ShareResult], path: str, opts: "CheckOptions", baseline: "Baseline | None",
          out: "FileOutcome") -> bool:
    """Fill ``out`` (a :class:`~ttanalyze.batch.FileOutcome`) with the merged reports of ``shares``; False when
    the merge would not be the serial run's (``out`` then untouched)."""
    import hashlib

    from . import batch
    from . import baseline as baseline_mod
    from .report.summary import ModuleSummary, Peak

    if any(s.fallback for s in shares):
        return False
    first = shares[0]
    module_level = [x.finding for x in first.findings if x.module_level]
    for s in shares[1:]:
        if (s.notes != first.notes or _shape(s.mesh) != _shape(first.mesh) or s.tt_metal != first.tt_metal
                or s.arch_record != first.arch_record or s.declared != first.declared
                or [x.finding for x in s.findings if x.module_level] != module_level
                or (s.summary.path, s.summary.module_name, s.summary.module_lines, s.summary.arch)
                != (first.summary.path, first.summary.module_name, first.summary.module_lines, first.summary.arch)):
            return False
    mesh = _serial_mesh(shares)
    if _shape(mesh) != _shape(first.mesh):  # only its shape is read (its source names where it was found)
        return False
    total = sum(n for s in shares for *_, n in s.funcs)
    want = batch.wants_fixes(opts)
    # global start of each function: the ops of the functions before it in the file
    order = sorted((line, k, j) for k, s in enumerate(shares) for j, (_, line, _, _) in enumerate(s.funcs))
    delta: list[list[int]] = [[0] * len(s.funcs) for s in shares]
    at = 0
    for _, k, j in order:
        _, _, local, n = shares[k].funcs[j]
        delta[k][j] = at - local
        at += n
    starts = [[local for _, _, local, _ in s.funcs] for s in shares]

    def move(k: int, index: int) -> int:
        j = bisect.bisect_right(starts[k], index) - 1
        return index + delta[k][j]

    items: list[tuple[ShareFinding, Any]] = []
    for k, s in enumerate(shares):
        for x in s.findings:
            if x.module_level and k:
                continue
            f = x.finding if x.finding.op_index is None else replace(x.finding, op_index=move(k, x.finding.op_index))
            items.append((x, f))
    items.sort(key=lambda t: (t[1].pos.line, t[1].pos.col, t[1].rule))
    seen: dict[tuple[str, ...], int] = {}
    fps = []
    for x, _ in items:
        n = seen.get(x.key, 0)
        seen[x.key] = n + 1
        fps.append(hashlib.sha256("\0".join(x.key + (str(n),)).encode()).hexdigest()[:32])
    findings = [f for _, f in items]
    split = baseline_mod.split_path(baseline, path, findings, fps)
    keep = set(map(id, split.new))
    reported_items = [x for x, f in items if id(f) in keep]
    reported = split.new
    if want and reported and total <= batch.FIX_MAX_OPS:
        return False  # the serial run evaluates these fixes on the whole program

    def peak(attr: str) -> Peak | None:
        best = None
        for k, s in enumerate(shares):
            p = getattr(s.summary, attr)
            if p is None:
                continue
            p = replace(p, op_index=move(k, p.op_index))
            if best is None or (p.bytes, -p.op_index) > (best.bytes, -best.op_index):
                best = p
        return best

    summary = ModuleSummary(first.summary.path, first.summary.module_name, first.summary.module_lines,
                            first.summary.arch, mesh, total, sum(len(s.funcs) for s in shares),
                            peak("peak_l1"), peak("peak_dram"), peak("dram_extent"), peak("l1_extent"))
    out.modules = 1
    out.notes = list(first.notes)
    out.severities = [f.severity for f in reported]
    out.rules = [(f.rule, f.name, f.severity) for f in reported]
    out.suppressed, out.stale = split.suppressed, split.stale
    if opts.format in ("github", "concise") or (opts.format == "text" and opts.quiet):
        out.outputs = [batch.finding_lines(reported, opts)]
    elif opts.format == "json":
        from .report import records

        functions = []
        for line, k, j in order:
            rec = dict(shares[k].functions[j])
            rec["arguments"] = [_moved_lifetime(v, delta[k][j]) for v in rec["arguments"]]
            functions.append(rec)
        record = records.file_record_of(first.summary.path, first.arch_record, first.tt_metal,
                                        records.summary_record_of(summary, reported), functions, reported)
        if want:
            for i, x in enumerate(reported_items):
                if x.fix_records:
                    record["findings"][i]["fixes"] = x.fix_records
        out.outputs = [batch.json_text(record)]
    elif opts.format == "sarif":
        from pathlib import Path

        from .report import sarif

        root = Path(opts.sarif_root) if opts.sarif_root is not None else None
        rows = [(f, fp, x.logical, x.fix_records if want and x.fix_records else None)
                for f, fp, x in zip(reported, split.new_fingerprints, reported_items)]
        out.sarif = [sarif.file_results_of(path if path != "-" else "<stdin>", rows, root, baseline is not None)]
    else:
        fix_text = {i: x.fix_text for i, x in enumerate(reported_items) if want and x.fix_text}
        out.outputs = [batch.text_block(None, summary, reported, None, fix_text, split.suppressed, opts)]
    return True


def _moved_lifetime(value: dict[str, Any], delta: int) -> dict[str, Any]:
    lifetime = value.get("lifetime")
    if not lifetime or not delta:
        return value
    moved = dict(lifetime)
    for key in ("start_op", "end_op"):
        if moved[key] >= 0:  # -1: a function without ops
            moved[key] += delta
    return dict(value, lifetime=moved)


def min_ops() -> int:
    """The op count from which a module is split (:data:`MIN_OPS`, or the ``TTANALYZE_SPLIT_MIN_OPS``
    environment variable: 0 splits every module of several groups)."""
    try:
        return int(os.environ.get(MIN_OPS_ENV, MIN_OPS))
    except ValueError:
        return MIN_OPS


def splittable(opts: "CheckOptions") -> bool:
    """Whether the options allow a split (the per-op detail, table and baseline entries need one analysis)."""
    return opts.detail != "ops" and not opts.verbose and not opts.with_baseline_entries


_SHARE: tuple[str, list[list[FuncSpan]], list[FuncSpan], str, Any] | None = None  # for the forked children


def _run_share(k: int, keep: bool) -> ShareResult:
    start = time.perf_counter()
    text, shares, spans, name, opts = _SHARE  # type: ignore[misc]
    out = share_result(share_text(text, shares[k], spans), name, opts, shares[k], keep)
    out.seconds = time.perf_counter() - start
    return out


# Wall seconds of the last check_split's steps (benchmarks/run.py --split-phases): reading and grouping, the
# fork and submission, this process's share, the wait for the children, their exit, the merge; each share's
# own time and ops.
last_timings: dict[str, Any] = {}


def check_split(path: str, opts: "CheckOptions", baseline: "Baseline | None", jobs: int) -> "FileOutcome | None":
    """The outcome of ``path`` computed as ``jobs`` shares (see the module docstring), or None when the file is
    not split (then :func:`ttanalyze.batch.check_file` checks it).

    Must be called before this process creates any MLIR context (the children are forked).

    Raises:
        RuntimeError: an unknown rule in ``opts.select``.
        Exception: a bug of ttanalyze in a share (re-raised here, as the serial run would raise it).
    """
    global _SHARE
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    import multiprocessing

    from . import batch
    from .batch import FileOutcome

    if path == "-" or jobs < 2 or not splittable(opts) or "fork" not in multiprocessing.get_all_start_methods():
        return None
    t0 = time.perf_counter()
    try:
        with open(path, "rb") as fh:
            data = fh.read()
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None  # check_file reports it
    shares = plan(text, jobs, min_ops())
    if shares is None:
        return None
    spans = [s for share in shares for s in share]
    _SHARE = (text, shares, spans, path, opts)
    t1 = time.perf_counter()
    try:
        with ProcessPoolExecutor(max_workers=len(shares) - 1, mp_context=multiprocessing.get_context("fork")) as pool:
            futures = [pool.submit(_run_share, k, True) for k in range(1, len(shares))]
            t2 = time.perf_counter()
            results = [_run_share(0, batch._kept is not None)]
            t3 = time.perf_counter()
            results += [f.result() for f in futures]
            t4 = time.perf_counter()
    except BrokenProcessPool:
        return None  # a child died (killed, out of memory): the serial run says what happens
    finally:
        _SHARE = None
    t5 = time.perf_counter()
    out = FileOutcome(path)
    merged = merge(results, path, opts, baseline, out)
    last_timings.clear()
    last_timings.update({"group": t1 - t0, "fork": t2 - t1, "own share": t3 - t2, "wait": t4 - t3,
                         "children's exit": t5 - t4, "merge": time.perf_counter() - t5, "shares": [r.seconds for r in results],
                         "ops": [sum(s.ops for s in share) for share in shares]})
    return out if merged else None
