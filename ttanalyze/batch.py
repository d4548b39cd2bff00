"""``check`` over many files: each file's whole work as one picklable outcome, run in a process pool
(``check -j N``) and kept in the content-keyed cache (:mod:`ttanalyze.cache`).

:func:`check_file` parses and analyzes one file, applies the rules and the
baseline, evaluates the fixes of the reported findings and renders that file's
part of the report in the requested format (its text lines, its JSON file
record, its SARIF results); the command then only concatenates the parts, in
the order the files were given, whether they came from this process, a worker
or the cache.  The HTML page and ``--write-baseline`` need the analyses
themselves and are made in one process.
"""

from __future__ import annotations

import contextlib
import gc
import hashlib
import io
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable

from .errors import InputError, SourcePos

if TYPE_CHECKING:
    from .baseline import Baseline

FIX_MAX_OPS = 5_000  # beyond this many ops, `check` lists fixes without evaluating them

# The last file check_file analyzed, kept alive until the process ends when the command line asks for it
# (keep_until_exit): freeing a 50,000-op analysis object by object takes 0.1 s of CPU, which a process
# about to exit need not spend (ttanalyze.__main__ ends it with os._exit).  Only the last one: a check of
# many files in one process frees each earlier analysis as it goes, so memory stays that of one file.
# None: freed as usual.
_kept: list[Any] | None = None


def keep_until_exit() -> None:
    """Keep the last analysis :func:`check_file` makes in this process alive until the process exits (for a
    command that ends with ``os._exit``, which skips freeing it; never in a long-lived process)."""
    global _kept
    if _kept is None:
        _kept = []


@dataclass(frozen=True)
class CheckOptions:
    """Everything besides the file that decides a file's outcome (and so its cache key)."""

    format: str  # text, json or sarif
    arch: str | None = None
    l1_small_size: int | None = None
    tt_metal: str = ""
    select: tuple[str, ...] | None = None
    detail: str = "findings"
    verbose: bool = False
    fixes: bool = True
    fix_limit: int = 16
    sarif_root: str | None = None
    width: int | None = 240  # columns of the text report's per-op table
    with_baseline_entries: bool = False  # for --write-baseline
    quiet: bool = False  # text: the finding lines only
    thresholds: tuple[tuple[str, float], ...] = ()  # [tool.ttanalyze.thresholds]
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, rule ids), [tool.ttanalyze]
    config_dir: str | None = None  # the directory per-file-ignores globs are relative to
    arch_given: bool = False  # --arch was given (a file whose system_desc says otherwise gets a note)


@dataclass
class FileOutcome:
    """One file's part of a ``check`` run; a file (a compiler log) may hold several TTNN modules.

    Attributes:
        path: the file as given.
        error: ``(message, line, col)`` of the input error that stopped it, else None.
        modules: the TTNN modules analyzed.
        severities: the severity of each reported finding (after the baseline).
        suppressed / stale: the baseline's counts for this file (summed over its modules).
        outputs: per module, its text lines (format text) or its JSON file record (format json).
        sarif: per module, its SARIF results (format sarif).
        baseline_entries: with ``--write-baseline``, every finding's baseline entry
            (:func:`ttanalyze.baseline.entries`).
    """

    path: str
    error: tuple[str, int, int] | None = None
    modules: int = 0
    severities: list[str] = field(default_factory=list)
    suppressed: int = 0
    stale: int = 0
    outputs: list[str] = field(default_factory=list)
    sarif: list[list[dict[str, Any]]] = field(default_factory=list)
    baseline_entries: list[dict[str, Any]] = field(default_factory=list)
    rules: list[tuple[str, str, str]] = field(default_factory=list)  # (id, name, severity) of each reported finding
    notes: list[str] = field(default_factory=list)  # lines for stderr (an --arch the file overrides)

    def input_error(self) -> InputError | None:
        """The input error as raised, or None."""
        if self.error is None:
            return None
        message, line, col = self.error
        return InputError(message, self.path, SourcePos(line, col))


@contextlib.contextmanager
def analysis_gc():
    """Pause Python's cyclic garbage collector while a file is parsed and analyzed, then freeze what was built.

    A 50,000-op program is millions of live objects that each full collection
    walks again: measured, the collector took more than half of ``check``'s
    time.  What the analysis builds lives until the report is written and holds
    next to no garbage cycles (same peak RSS with the collector off), so it is
    moved out of the collector's sight (``gc.freeze``) instead; the fix
    evaluations that follow collect their own garbage as usual.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if enabled:
            gc.enable()


def check_file(path: str, opts: CheckOptions, baseline: "Baseline | None" = None) -> FileOutcome:
    """The whole ``check`` of one file (see the module docstring).

    Raises:
        RuntimeError: an unknown rule in ``opts.select``.
        Exception: any other exception is a bug of ttanalyze (the command reports an internal error).
    """
    from . import baseline as baseline_mod
    from .fixes.catalog import suggest_all

    out = FileOutcome(path)
    try:
        with analysis_gc():
            name = "<stdin>" if path == "-" else path
            try:
                data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
            except OSError as exc:
                raise InputError(f"cannot read file: {exc.strerror or exc}", path) from None
            from .ir.normalize import decode

            results, out.notes = analyze_text(decode(data, name), name, opts)
            if _kept is not None:
                _kept[:] = [results]
    except InputError as exc:
        pos = exc.pos or SourcePos(1, 1)
        out.error = (exc.message, pos.line, pos.col)
        return out
    out.modules = len(results)
    for a, findings in results:
        fps = baseline_mod.fingerprints(a, findings)
        if opts.with_baseline_entries:
            out.baseline_entries += baseline_mod.entries(findings, fps)
        split = baseline_mod.split(baseline, a, findings, fps)
        reported = split.new
        out.severities += [f.severity for f in reported]
        out.rules += [(f.rule, f.name, f.severity) for f in reported]
        out.suppressed += split.suppressed
        out.stale += split.stale
        suggestions = suggest_all(a.program.source, a, reported, opts.fix_limit,
                                  evaluate_fixes=len(a.program.ops) <= FIX_MAX_OPS) \
            if wants_fixes(opts) and reported else {}
        if opts.format in ("github", "concise") or (opts.format == "text" and opts.quiet):
            out.outputs.append(finding_lines(reported, opts))
        elif opts.format == "json":
            out.outputs.append(_json_record(a, reported, suggestions, opts.detail))
        elif opts.format == "sarif":
            from .report import sarif

            root = Path(opts.sarif_root) if opts.sarif_root is not None else None
            out.sarif.append(sarif.file_results(a, reported, split.new_fingerprints, root, baseline is not None,
                                                suggestions))
        else:
            from .report.summary import module_summary

            out.outputs.append(text_block(a, module_summary(a), reported, suggestions, None, split.suppressed, opts))
    return out


def analyze_text(text: str, name: str, opts: CheckOptions) -> tuple[list[tuple[Any, list[Any]]], list[str]]:
    """Parse and analyze every TTNN module of ``text`` (the file ``name``) and apply the rules under ``opts``:
    (analysis, its findings in file order) per module, and the notes for stderr (an ``--arch`` the file
    overrides).

    Raises:
        InputError: the text is not TTNN IR ttanalyze can analyze (the message says where and why).
        RuntimeError: an unknown rule in ``opts.select``.
    """
    from .analysis import analyze
    from .check_config import check_options, ignored_for_path
    from .ir.parse import parse_modules
    from .rules import run

    try:
        analyses = [analyze(p, opts.arch, opts.l1_small_size, opts.tt_metal) for p in parse_modules(text, name)]
    except ValueError as exc:
        raise InputError(str(exc), name) from None
    notes: list[str] = []
    for a in analyses:
        notes += check_options(a, opts.arch if opts.arch_given else None, opts.l1_small_size)
        a.thresholds = dict(opts.thresholds)
    off = ignored_for_path(name, opts.per_file_ignores, opts.config_dir)
    return [(a, [f for f in run(a, opts.select) if f.rule not in off]) for a in analyses], notes


def wants_fixes(opts: CheckOptions) -> bool:
    """Whether the report shows fixes under the findings."""
    return opts.fixes and not opts.quiet and opts.format not in ("github", "concise")


def finding_lines(findings: list[Any], opts: CheckOptions) -> str:
    """The findings alone, one line each: ``--format github``, ``concise``, or text with ``--quiet``."""
    from .report import text

    one = text.github_line if opts.format == "github" else text.concise_line
    return "".join(one(f) + "\n" for f in findings)


def _json_record(a, findings, suggestions, detail: str) -> str:
    from .report import records
    from .report.fixes import fix_record

    record = records.file_record(a, findings, detail)
    for i, fixes in suggestions.items():
        record["findings"][i]["fixes"] = [fix_record(fx) for fx in fixes]
    return json_text(record)


def json_text(record: dict[str, Any]) -> str:
    """A file record as the JSON report's text (:func:`ttanalyze.report.records.write_json`), without the last
    newline."""
    from .report import records

    chunks: list[str] = []
    records.write_json(record, chunks.append)
    return "".join(chunks).rstrip("\n")


def text_block(a, summary, findings, suggestions, fix_text, suppressed: int, opts: CheckOptions) -> str:
    """One module's part of the text report: its findings with their fixes (``suggestions``: finding index ->
    :class:`~ttanalyze.fixes.model.Fix` list, or ``fix_text``: finding index -> lines), the per-op table
    (``--verbose``: needs the analysis ``a``; drawn by rich) and the summary line (from ``summary``, a
    :class:`~ttanalyze.report.summary.ModuleSummary`), each as rich's console writes it
    (:func:`ttanalyze.report.text.console_text`)."""
    from .report import text

    parts = []
    if findings:
        parts.append(text.console_text(text.findings_text(findings, suggestions, fix_text), opts.width))
    if opts.verbose:
        from rich.console import Console

        buf = io.StringIO()
        text.op_table(a, Console(file=buf, width=opts.width, emoji=False, highlight=False))
        parts.append(buf.getvalue())
    line = text.summary_text(summary, findings)
    if suppressed:
        line += f"; {suppressed} finding{'s' * (suppressed != 1)} suppressed by baseline"
    parts.append(text.console_text(line, opts.width))
    return "".join(parts)


def cache_key(path: str, data: bytes, opts: CheckOptions, baseline: "Baseline | None") -> str:
    """The cache key of ``path`` with content ``data`` under ``opts`` and ``baseline`` (only the
    fingerprints it accepts for this file matter)."""
    from .cache import Cache

    accepted = "\n".join(sorted(baseline.accepted(path))) if baseline is not None else "-"
    return Cache.key(path, hashlib.sha256(data).digest(), repr(opts), accepted)


def check_files(paths: list[str], opts: CheckOptions, baseline: "Baseline | None", jobs: int, use_cache: bool,
                progress: Callable[[str], None] = lambda path: None) -> list[FileOutcome]:
    """The outcome of every file, in order: from the cache, else computed (in ``jobs`` worker processes
    when there are several files to compute), then cached.  ``progress(path)`` is called as each completes.

    Raises:
        RuntimeError: an unknown rule in ``opts.select``.
    """
    from .cache import Cache

    cache = Cache() if use_cache else None
    outcomes: list[FileOutcome | None] = [None] * len(paths)
    keys: list[str | None] = [None] * len(paths)
    todo: list[int] = []
    for i, path in enumerate(paths):
        if cache is not None and path != "-":
            try:
                data = Path(path).read_bytes()
            except OSError:
                data = None  # check_file reports it
            if data is not None:
                keys[i] = cache_key(path, data, opts, baseline)
                outcomes[i] = cache.get(keys[i])
        if outcomes[i] is None:
            todo.append(i)
        else:
            progress(path)
    stdin = [i for i in todo if paths[i] == "-"]  # read here: a worker process has no stdin
    for i in stdin:
        outcomes[i] = check_file("-", opts, baseline)
        progress("-")
    todo = [i for i in todo if paths[i] != "-"]
    for i, outcome in _compute([(i, paths[i]) for i in todo], opts, baseline, jobs):
        outcomes[i] = outcome
        if cache is not None and keys[i] is not None and outcome.error is None:
            cache.put(keys[i], outcome)
        progress(paths[i])
    return outcomes  # type: ignore[return-value]


def _compute(items: list[tuple[int, str]], opts: CheckOptions, baseline: "Baseline | None",
             jobs: int) -> Iterable[tuple[int, FileOutcome]]:
    if jobs <= 1 or len(items) <= 1:
        from .shards import check_split

        for i, path in items:  # one file and several cores: its function groups in parallel, when it pays
            split = check_split(path, opts, baseline, jobs) if len(items) == 1 else None
            yield i, split if split is not None else check_file(path, opts, baseline)
        return
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed

    # Not fork: this process may hold MLIR contexts whose thread pools a forked child would inherit
    # mid-lock.  A fork server, started clean with the analysis imported once, forks the workers.
    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(["ttanalyze.batch", "ttanalyze.analysis", "ttanalyze.ir.parse", "ttanalyze.rules",
                                    "ttanalyze.fixes.catalog", "ttanalyze.report.records", "ttanalyze.report.text",
                                    "ttanalyze.report.sarif"])
    with ProcessPoolExecutor(max_workers=min(jobs, len(items)), mp_context=ctx) as pool:
        futures = {pool.submit(check_file, path, opts, baseline): i for i, path in items}
        for future in as_completed(futures):
            yield futures[future], future.result()


def default_jobs() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1
