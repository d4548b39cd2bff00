"""Command line: ``ttanalyze check``, ``ttanalyze explain``, ``ttanalyze fix``, ``ttanalyze validate``,
``ttanalyze cost``, ``ttanalyze diff``, ``ttanalyze limits``, ``ttanalyze rules``.

Exit status: 0 when no finding reaches ``--fail-on``; 1 when one does; 2 on
input errors (unreadable or malformed files, no system_desc and no
``--arch``); 3 on an internal error of ttanalyze itself.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import traceback
from enum import Enum
from pathlib import Path
from typing import Optional

from typing import TYPE_CHECKING

import typer

from . import __version__
from .errors import InputError
from .fileio import write_atomic
from .findings import Finding, severity_rank
from .versions import DEFAULT_TT_METAL, TT_METAL_VERSIONS

# The analysis, its reports, rich, the MLIR bindings, sympy and networkx are imported by the commands that
# use them, so `ttanalyze --help` and `ttanalyze rules` start in a fraction of the time a check takes.
if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import Progress

    from .analysis import Analysis

app = typer.Typer(add_completion=False, no_args_is_help=True,
                  help="Static analyzer and cost model for Tenstorrent TTNN IR (tt-mlir output).")

EXIT_FINDINGS = 1
EXIT_INPUT = 2
EXIT_INTERNAL = 3
EXIT_INCONCLUSIVE = 4  # validate: an op without reference semantics; the program is neither passed nor failed
LONG_WORK_BYTES = 2_000_000
FIX_LIMIT = 16  # findings per file whose fixes `check` evaluates (each evaluation re-analyzes the file)


class Format(str, Enum):
    """Output of the commands other than ``check``."""

    text = "text"
    json = "json"


class CheckFormat(str, Enum):
    """Output of ``check``: text, JSON (ttanalyze.check/2), SARIF 2.1.0, or one HTML page."""

    text = "text"
    json = "json"
    sarif = "sarif"
    html = "html"
    github = "github"
    concise = "concise"


class Detail(str, Enum):
    """Level of detail of ``check --format json`` (:data:`ttanalyze.report.records.DETAILS`)."""

    findings = "findings"
    ops = "ops"


class FailOn(str, Enum):
    error = "error"
    warning = "warning"
    info = "info"
    never = "never"


class ArchName(str, Enum):
    wormhole_b0 = "wormhole_b0"
    blackhole = "blackhole"


def _load(path: str, arch: Optional[ArchName], l1_small_size: Optional[int] = None,
          tt_metal: str = DEFAULT_TT_METAL) -> Analysis:
    """Parse and analyze one file; input problems become InputError."""
    from .analysis import analyze
    from .ir.parse import parse_file

    program = parse_file(path)
    try:
        a = analyze(program, arch.value if arch else None, l1_small_size, tt_metal)
    except ValueError as exc:
        raise InputError(str(exc), path) from None
    _check_options(a, arch, l1_small_size)
    return a


L1_SMALL_HELP = "Bytes of L1_SMALL per core (default 65536, what the tt-mlir runtime opens its device with)."
TT_METAL_HELP = "tt-metal version whose program factories to model: " + "; ".join(
    f"{k}: {v}" for k, v in TT_METAL_VERSIONS.items())
# The options every command that analyzes a file takes (typer reads an option's metadata, so one serves all).
ARCH_OPTION = typer.Option(None, help="Arch defaults for files without a ttcore.system_desc.")
L1_SMALL_OPTION = typer.Option(None, help=L1_SMALL_HELP)
TT_METAL_OPTION = typer.Option(DEFAULT_TT_METAL, help=TT_METAL_HELP)


def _load_all(path: str, arch: Optional[ArchName], l1_small_size: Optional[int] = None,
              tt_metal: str = DEFAULT_TT_METAL) -> list[Analysis]:
    """Parse and analyze every TTNN module of one file (a compiler log may hold several)."""
    from .analysis import analyze
    from .ir.normalize import decode
    from .ir.parse import parse_modules

    try:
        programs = parse_modules(decode(Path(path).read_bytes(), path), path)
    except OSError as exc:
        raise InputError(f"cannot read file: {exc.strerror or exc}", path) from None
    try:
        analyses = [analyze(p, arch.value if arch else None, l1_small_size, tt_metal) for p in programs]
    except ValueError as exc:
        raise InputError(str(exc), path) from None
    for a in analyses:
        _check_options(a, arch, l1_small_size)
    return analyses


def _check_options(a: "Analysis", arch: Optional[ArchName], l1_small_size: Optional[int]) -> None:
    """:func:`ttanalyze.check_config.check_options`, its note printed on stderr."""
    from .check_config import check_options

    for note in check_options(a, arch.value if arch else None, l1_small_size):
        print(note, file=sys.stderr)


def _internal_error(exc: BaseException) -> None:
    if os.environ.get("TTANALYZE_DEBUG"):
        traceback.print_exc()
    print(f"ttanalyze: internal error: {type(exc).__name__}: {exc} "
          f"(set TTANALYZE_DEBUG=1 for a traceback)", file=sys.stderr)
    raise typer.Exit(EXIT_INTERNAL)


@contextlib.contextmanager
def _check_errors():
    """What both ``check`` drivers (:func:`_check_report`, :func:`_check_html`) do with an exception: an
    input error (a baseline that cannot be written) or an unknown rule exits with ``EXIT_INPUT``,
    anything else is an internal error."""
    try:
        yield
    except (typer.Exit, KeyboardInterrupt):
        raise
    except InputError as exc:  # the baseline could not be written
        print(str(exc), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    except RuntimeError as exc:
        if "unknown rule" in str(exc):
            print(f"ttanalyze: {exc}", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
        _internal_error(exc)
    except Exception as exc:  # noqa: BLE001 - anything else is a bug in ttanalyze
        _internal_error(exc)


class _NoProgress:
    """The progress bar's calls, doing nothing: a bar that is not shown imports no rich (0.03 s of start-up)."""

    def __enter__(self) -> "_NoProgress":
        return self

    def __exit__(self, *exc) -> None:
        return None

    def add_task(self, *args, **kwargs) -> int:
        return 0

    def update(self, *args, **kwargs) -> None:
        return None

    def advance(self, *args, **kwargs) -> None:
        return None


def _progress(enabled: bool) -> "Progress | _NoProgress":
    """A transient progress bar on stderr, or :class:`_NoProgress` when ``enabled`` is false."""
    if not enabled:
        return _NoProgress()
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    return Progress(TextColumn("{task.description}"), BarColumn(), TextColumn("{task.completed}/{task.total}"),
                    TimeElapsedColumn(), console=Console(stderr=True), transient=True)


def _version_callback(value: bool) -> None:
    if value:
        print(f"ttanalyze {__version__}")
        raise typer.Exit()


@app.callback()
def _main(version: bool = typer.Option(False, "--version", is_eager=True, callback=_version_callback,
                                       help="Print the version and exit.")) -> None:
    """Static analyzer and cost model for Tenstorrent TTNN IR (tt-mlir output)."""


def _inputs(files: list[Path], exclude: list[str]) -> list[Path]:
    """The files to check: ``-`` (stdin), files as given, directories recursed for ``*.mlir`` (sorted), minus
    the ``--exclude`` glob patterns (matched against the path and each of its parts)."""
    import fnmatch

    def excluded(p: Path) -> bool:
        return any(fnmatch.fnmatch(str(p), pat) or any(fnmatch.fnmatch(part, pat) for part in p.parts)
                   for pat in exclude)

    out: list[Path] = []
    for f in files:
        if str(f) != "-" and f.is_dir():
            out.extend(p for p in sorted(f.rglob("*.mlir")) if not excluded(p))
        elif str(f) == "-" or not excluded(f):
            out.append(f)
    return out


def _load_input(path: Path, arch: Optional[ArchName], l1_small_size: Optional[int],
                tt_metal: str) -> list["Analysis"]:
    """:func:`_load_all` for a file, or for the text on stdin when ``path`` is ``-`` (named ``<stdin>``)."""
    if str(path) != "-":
        return _load_all(str(path), arch, l1_small_size, tt_metal)
    from .analysis import analyze
    from .ir.normalize import decode
    from .ir.parse import parse_modules

    programs = parse_modules(decode(sys.stdin.buffer.read(), "<stdin>"), "<stdin>")
    try:
        analyses = [analyze(p, arch.value if arch else None, l1_small_size, tt_metal) for p in programs]
    except ValueError as exc:
        raise InputError(str(exc), "<stdin>") from None
    for a in analyses:
        _check_options(a, arch, l1_small_size)
    return analyses


@app.command()
def check(
    files: list[Path] = typer.Argument(..., help="TTNN IR files (.mlir), directories (searched for *.mlir), "
                                       "or - for stdin."),
    arch: Optional[ArchName] = ARCH_OPTION,
    l1_small_size: Optional[int] = L1_SMALL_OPTION,
    tt_metal: Optional[str] = typer.Option(None, help=TT_METAL_HELP + f" (default {DEFAULT_TT_METAL})"),
    format: CheckFormat = typer.Option(CheckFormat.text, "--format", "--output-format", "-f",
                                       help="Output format: text, concise (one line per finding), github "
                                       "(workflow annotations), json (ttanalyze.check/2), sarif (SARIF 2.1.0), html."),
    detail: Detail = typer.Option(Detail.findings, "--detail", help="JSON report detail: findings (summary, "
                                  "functions, findings) or ops (also every op's layouts, memory and programs)."),
    fail_on: Optional[FailOn] = typer.Option(None, help="Lowest severity that makes the exit status 1 "
                                             "(default error)."),
    select: Optional[list[str]] = typer.Option(None, "--select", help="Run only these rules: ids, rule names or "
                                               "id prefixes (TTA010, cb-overflow, TTA00); repeatable, comma lists."),
    ignore: Optional[list[str]] = typer.Option(None, "--ignore", help="Skip these rules (as --select)."),
    exclude: Optional[list[str]] = typer.Option(None, "--exclude", help="Glob of files to skip when recursing "
                                                "into directories (repeatable)."),
    statistics: bool = typer.Option(False, "--statistics", help="Print the number of findings per rule."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="Only the findings (no notes, fixes or summaries)."),
    config: Optional[Path] = typer.Option(None, "--config", help="TOML file with a [tool.ttanalyze] table "
                                          "(default: the nearest pyproject.toml)."),
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also print a per-op table."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Write the report here instead of stdout."),
    fixes: bool = typer.Option(True, "--fixes/--no-fixes", help="Suggest fixes, each evaluated on the rewritten IR."),
    fix_limit: int = typer.Option(FIX_LIMIT, help="Findings per file whose fixes are evaluated (errors first); "
                                  "programs over 5,000 ops list fixes unevaluated."),
    baseline: Optional[Path] = typer.Option(None, "--baseline", help="Suppress the findings listed in this baseline "
                                            "file; only new findings are reported and decide the exit status."),
    write_baseline: Optional[Path] = typer.Option(None, "--write-baseline", help="Write every current finding to "
                                                  "this baseline file (accepting them: exit status 0 unless an "
                                                  "input error)."),
    sarif_root: Optional[Path] = typer.Option(None, "--sarif-root", help="Directory SARIF file URIs are relative "
                                              "to (uriBaseId %SRCROOT%; default: the current directory)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, help="Worker processes for the files, "
                                       "or, for one large file (10,000 ops or more), for its independent function "
                                       "groups (default: the cores; html analyzes in one process)."),
    cache: bool = typer.Option(True, "--cache/--no-cache", help="Reuse the result of a file whose content, options "
                               "and ttanalyze are unchanged (under $TTANALYZE_CACHE_DIR, else ~/.cache/ttanalyze)."),
) -> None:
    """Analyze TTNN IR files and report findings with the numbers behind them, and their ranked fixes.

    Settings not given on the command line come from the [tool.ttanalyze] table of the nearest
    pyproject.toml (select, ignore, per-file-ignores, fail-on, arch, tt-metal).
    """
    from . import baseline as baseline_mod
    from . import check_config
    from .diff import find_config
    from .rules import catalog, implemented

    metas = catalog()
    try:
        cfg = check_config.load(config if config is not None else find_config(Path.cwd()))
        tokens = check_config.split_list(select) or cfg.select
        selected = sorted(check_config.resolve_rules(tokens, metas)) if tokens else None
        ignored = check_config.resolve_rules(check_config.split_list(ignore) + cfg.ignore, metas, "--ignore")
        if ignored:
            selected = [r for r in (selected if selected is not None else implemented()) if r not in ignored]
        per_file = tuple((pattern, tuple(sorted(check_config.resolve_rules(rules, metas, f"per-file-ignores {pattern!r}"))))
                         for pattern, rules in cfg.per_file_ignores.items())
    except InputError as exc:
        print(str(exc), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    fail_on = fail_on or FailOn(cfg.fail_on or "error")
    arch_given = arch is not None
    arch = arch or (ArchName(cfg.arch) if cfg.arch else None)
    tt_metal = tt_metal or cfg.tt_metal or DEFAULT_TT_METAL
    files = _inputs(files, exclude or [])
    settings = {"quiet": quiet, "thresholds": tuple(sorted(cfg.thresholds.items())), "per_file_ignores": per_file,
                "config_dir": str(cfg.path.parent) if cfg.path is not None else None, "arch_given": arch_given}

    accepted = None
    if baseline is not None:
        try:
            accepted = baseline_mod.load(baseline)
        except InputError as exc:
            print(str(exc), file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
    import io

    if output is not None and not output.parent.is_dir():
        print(f"{output}: error: cannot write: no directory {output.parent}", file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    stream = io.StringIO() if output else sys.stdout  # -o is written at the end, atomically
    colour = output is None and sys.stdout.isatty() and not os.environ.get("NO_COLOR") and format == CheckFormat.text
    width = _terminal_width(stream) if stream.isatty() else 240  # columns of the text report (its per-op table)
    if format == CheckFormat.html:
        exit_code = _check_html(files, arch, l1_small_size, tt_metal, selected, fixes, fix_limit, accepted,
                                write_baseline, fail_on, stream, settings)
    else:
        exit_code = _check_report(files, arch, l1_small_size, tt_metal, format, detail, selected, verbose, fixes,
                                  fix_limit, accepted, baseline, write_baseline, sarif_root, fail_on, jobs, cache,
                                  stream, width, settings, statistics, colour)
    if output:
        try:
            write_atomic(output, stream.getvalue())
        except OSError as exc:
            print(f"{output}: error: cannot write: {exc.strerror or exc}", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
    if exit_code:
        raise typer.Exit(exit_code)


def _terminal_width(stream) -> int:
    """The columns rich's console gives the terminal ``stream`` writes to."""
    from rich.console import Console

    return Console(file=stream).width


def _exit_code(input_errors: bool, severities: list[str], fail_on: FailOn, write_baseline: Optional[Path]) -> int:
    if input_errors:
        return EXIT_INPUT
    if fail_on != FailOn.never and write_baseline is None:
        threshold = severity_rank(fail_on.value)
        if any(severity_rank(s) >= threshold for s in severities):
            return EXIT_FINDINGS
    return 0


def _check_report(files, arch, l1_small_size, tt_metal, format, detail, select, verbose, fixes, fix_limit, accepted,
                  baseline, write_baseline, sarif_root, fail_on, jobs, cache, stream, width, settings=None,
                  statistics=False, colour=False) -> int:
    """``check`` in text, concise, github, JSON or SARIF, written to ``stream``: every file's part from
    :func:`ttanalyze.batch.check_files` (text ``width`` columns wide)."""
    from . import baseline as baseline_mod
    from . import batch
    from .report import records, text

    opts = batch.CheckOptions(
        format=format.value, arch=arch.value if arch else None, l1_small_size=l1_small_size, tt_metal=tt_metal,
        select=tuple(select) if select is not None else None, detail=detail.value, verbose=verbose, fixes=fixes,
        fix_limit=fix_limit, sarif_root=str(sarif_root) if sarif_root is not None else None,
        width=width, with_baseline_entries=write_baseline is not None, **(settings or {}))
    quiet = opts.quiet
    with _check_errors():
        size = sum(p.stat().st_size for p in files if str(p) != "-" and p.is_file())
        with _progress(sys.stderr.isatty() and (len(files) > 2 or size > LONG_WORK_BYTES)) as progress:
            task = progress.add_task("analyzing", total=len(files))
            outcomes = batch.check_files([str(p) for p in files], opts, accepted, jobs or batch.default_jobs(), cache,
                                         lambda path: progress.update(task, advance=1,
                                                                      description=f"analyzed {Path(path).name}"))
        input_errors = [o.input_error() for o in outcomes if o.error is not None]
        for e in input_errors:
            print(str(e), file=sys.stderr)
        for o in outcomes:
            for note in getattr(o, "notes", []):
                print(note, file=sys.stderr)
        if write_baseline is not None:
            n = baseline_mod.write_entries([(o.path, o.baseline_entries) for o in outcomes if o.error is None],
                                           write_baseline)
            modules = sum(o.modules for o in outcomes)
            print(f"ttanalyze: wrote {n} finding{'s' * (n != 1)} of {modules} file{'s' * (modules != 1)} "
                  f"to baseline {write_baseline}", file=sys.stderr)
    analyzed = [o for o in outcomes if o.error is None]
    suppressed = sum(o.suppressed for o in analyzed)
    stale = sum(o.stale for o in analyzed)
    exit_code = _exit_code(bool(input_errors), [s for o in analyzed for s in o.severities], fail_on, write_baseline)
    baseline_summary = ({"path": str(baseline), "suppressed": suppressed, "stale": stale}
                        if accepted is not None else None)
    if format == CheckFormat.json:
        import orjson

        doc = {
            "schema": records.SCHEMA,
            "tool": {"name": "ttanalyze", "version": __version__},
            "detail": detail.value,
            "files": [orjson.Fragment(record) for o in analyzed for record in o.outputs],
            "input_errors": [{"path": e.path, "line": e.pos.line if e.pos else 1, "col": e.pos.col if e.pos else 1,
                              "message": e.message} for e in input_errors],
        }
        if baseline_summary is not None:
            doc["baseline"] = baseline_summary
        records.write_json(doc, stream.write)
    elif format == CheckFormat.sarif:
        from .report import sarif as sarif_report

        log = sarif_report.assemble([(o.path, results) for o in analyzed for results in o.sarif], input_errors,
                                    exit_code, sarif_root, baseline_summary)
        stream.write(records.dumps(log) + "\n")
    else:
        for o in analyzed:
            for block in o.outputs:
                stream.write(text.colourize(block) if colour else block)
        if accepted is not None and format == CheckFormat.text and not quiet:
            line = f"{suppressed} finding{'s' * (suppressed != 1)} suppressed by baseline {baseline}"
            if stale:
                line += f"; {stale} baseline entr{'ies' if stale != 1 else 'y'} no longer found (fixed?)"
            stream.write(text.console_text(line, width))
        rules = [r for o in analyzed for r in getattr(o, "rules", [])]
        if statistics:
            stream.write("".join(line + "\n" for line in text.statistics_lines(rules)))
        if format == CheckFormat.text and not quiet and analyzed:
            stream.write(text.found_line([sev for _, _, sev in rules], len(files), len(input_errors)) + "\n")
    return exit_code


def _check_html(files, arch, l1_small_size, tt_metal, select, fixes, fix_limit, accepted, write_baseline, fail_on,
                stream, settings) -> int:
    """``check --format html``, written to ``stream``: the page needs every file's analysis, so the files are
    analyzed here, in turn; ``settings`` (thresholds, per-file-ignores) apply as in the other formats
    (:func:`ttanalyze.batch.check_file`)."""
    from . import baseline as baseline_mod
    from .batch import FIX_MAX_OPS, analysis_gc
    from .check_config import ignored_for_path
    from .fixes.catalog import suggest_all
    from .report import html as html_report
    from .rules import run

    results: list[tuple[Analysis, list[Finding]]] = []
    input_errors: list[InputError] = []
    with _check_errors():
        size = sum(p.stat().st_size for p in files if str(p) != "-" and p.is_file())
        with _progress(sys.stderr.isatty() and (len(files) > 2 or size > LONG_WORK_BYTES)) as progress:
            task = progress.add_task("analyzing", total=len(files))
            for path in files:
                progress.update(task, description=f"analyzing {path.name}")
                try:
                    off = ignored_for_path(str(path), settings["per_file_ignores"], settings["config_dir"])
                    with analysis_gc():
                        for a in _load_all(str(path), arch, l1_small_size, tt_metal):
                            a.thresholds = dict(settings["thresholds"])
                            results.append((a, [f for f in run(a, select) if f.rule not in off]))
                except InputError as exc:
                    input_errors.append(exc)
                    print(str(exc), file=sys.stderr)
                progress.advance(task)
        fingerprints = [baseline_mod.fingerprints(a, fs) for a, fs in results]
        if write_baseline is not None:
            n = baseline_mod.write([(a, fs, fps) for (a, fs), fps in zip(results, fingerprints)], write_baseline)
            print(f"ttanalyze: wrote {n} finding{'s' * (n != 1)} of {len(results)} file{'s' * (len(results) != 1)} "
                  f"to baseline {write_baseline}", file=sys.stderr)
    splits = [baseline_mod.split(accepted, a, fs, fps) for (a, fs), fps in zip(results, fingerprints)]
    reported = [(a, s.new) for (a, _), s in zip(results, splits)]
    try:  # fixes of the reported findings (index into each file's reported list)
        want = fixes
        suggestions = [suggest_all(a.program.source, a, fs, fix_limit,
                                   evaluate_fixes=len(a.program.ops) <= FIX_MAX_OPS) if want and fs else {}
                       for a, fs in reported]
    except Exception as exc:  # noqa: BLE001 - a bug in a fix builder
        _internal_error(exc)
    with analysis_gc():  # the page's records (cost, plots) are as long-lived as the analyses
        page = html_report.render(reported, fixes=suggestions)
    stream.write(page)
    return _exit_code(bool(input_errors), [f.severity for _, fs in reported for f in fs], fail_on, write_baseline)


@app.command()
def explain(
    file: Path = typer.Argument(..., help="TTNN IR file."),
    op: str = typer.Option(..., "--op", help="The op: its line number, result name (%5) or func:%5."),
    arch: Optional[ArchName] = ARCH_OPTION,
    l1_small_size: Optional[int] = L1_SMALL_OPTION,
    tt_metal: str = TT_METAL_OPTION,
    format: Format = typer.Option(Format.text, "--format", "-f", help="Output format."),
) -> None:
    """Everything known about one op: operands and results with every layout number, memory, rule verdicts."""
    from .report import explain as explain_mod
    from .report import records
    from .rules import run

    try:
        a = _load(str(file), arch, l1_small_size, tt_metal)
        findings = run(a)
        try:
            ops = explain_mod.select_ops(a, op)
        except ValueError as exc:
            print(f"{file}: error: {exc}", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
    except InputError as exc:
        print(str(exc), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001
        _internal_error(exc)
    if format == Format.json:
        doc = {"schema": records.SCHEMA, "path": a.program.path, "arch": records.arch_record(a),
               "ops": [dict(records.op_record(a, o),
                            operand_records=[records.value_record(a, v) for v in o.operands],
                            findings=[records.finding_record(f) for f in findings if f.op_index == o.index])
                       for o in ops]}
        print(json.dumps(doc, indent=1))
    else:
        print("\n\n".join(explain_mod.explain_text(a, o, findings) for o in ops))


@app.command()
def fix(
    file: Path = typer.Argument(..., help="TTNN IR file to fix (never overwritten)."),
    output: Optional[Path] = typer.Option(None, "--output", "-o", help="Where to write the fixed IR "
                                          "(atomically: an interrupted run leaves OUT as it was)."),
    rule: Optional[str] = typer.Option(None, "--rule", help="Fix only findings of this rule (TTA010)."),
    op: Optional[int] = typer.Option(None, "--op", help="Fix only findings on the op at this line."),
    show_diff: bool = typer.Option(False, "--diff", help="Print the unified diff of the fixes instead of writing."),
    allow_regressions: bool = typer.Option(False, "--allow-regressions", help="Also apply fixes that remove their "
                                           "finding but make predicted latency, peak L1 or DRAM traffic worse."),
    arch: Optional[ArchName] = ARCH_OPTION,
    l1_small_size: Optional[int] = L1_SMALL_OPTION,
    tt_metal: str = TT_METAL_OPTION,
    format: Format = typer.Option(Format.text, "--format", "-f", help="Output format of the summary."),
) -> None:
    """Apply the best applicable fix of each finding and write the rewritten IR to OUT.

    A fix applies when it removes its finding, adds no error and makes no
    total ``ttanalyze diff`` compares worse (predicted latency, peak L1 per
    core, DRAM traffic; an error's fix is exempt); the others are listed with
    their costs (``--allow-regressions`` applies them).  Exit 0 when no
    selected warning or error remains (``--rule``/``--op`` select), 1
    otherwise (what was fixed is still written), 2 on input errors (OUT =
    FILE, no -o and no --diff, an unknown --rule, no finding on the --op line).
    """
    from .fixes.catalog import fix_file
    from .report import records
    from .report.fixes import fix_record
    from .rules import catalog, run

    try:
        if output is None and not show_diff:
            print(f"{file}: error: give -o OUT (where to write the fixed IR) or --diff", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
        if output is not None and output.resolve() == file.resolve():
            print(f"{file}: error: -o names the input file; ttanalyze fix never overwrites its input", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
        a = _load(str(file), arch, l1_small_size, tt_metal)
        findings = run(a)
        if rule is not None and rule not in catalog():
            print(f"ttanalyze: unknown rule '{rule}': expected one of {', '.join(catalog())}", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
        if op is not None and not any(f.pos.line == op for f in findings):
            print(f"{file}:{op}:1: error: no finding on line {op}", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
        result = fix_file(a.program.source, a, findings, rule, op, allow_regressions)
        if show_diff:
            import difflib

            sys.stdout.writelines(difflib.unified_diff(
                a.program.source.splitlines(keepends=True), result.text.splitlines(keepends=True),
                fromfile=str(file), tofile=str(output or file) + " (fixed)"))
        if output is not None:
            write_atomic(output, result.text)
    except InputError as exc:
        print(str(exc), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    except OSError as exc:
        print(f"{output}: error: cannot write: {exc.strerror or exc}", file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001
        _internal_error(exc)
    selected = set().union(*(site_names_of(f, a) for f in findings if f.pos.line == op)) if op is not None else None
    left = [f for f in result.findings if (rule is None or f.rule == rule) and f.severity != "info"
            and (selected is None or site_names_of(f, result.analysis) & selected)]
    if format == Format.json:
        print(json.dumps({
            "schema": "ttanalyze.fix/1", "input": str(file), "output": str(output) if output else None,
            "applied": [{"rule": x.finding.rule, "line": x.finding.pos.line, "message": x.finding.message,
                         "fix": fix_record(x.fix)} for x in result.applied],
            "unfixed": [{"rule": f.rule, "line": f.pos.line, "message": f.message, "why": why}
                        for f, why in result.unfixed],
            "findings_after": [records.finding_record(f) for f in result.findings],
        }, indent=1))
    else:
        for x in result.applied:
            print(f"{file}:{x.finding.pos.line}:{x.finding.pos.col}: fixed {x.finding.rule} with {x.fix.id}: "
                  f"{x.fix.title}: {x.fix.effect.summary()}"
                  + ("" if x.fix.numerics == "exact" else f" (numerics: {x.fix.numerics})"))
        for f, why in result.unfixed:
            print(f"{file}:{f.pos.line}:{f.pos.col}: not fixed {f.rule}: {why}", file=sys.stderr if show_diff else sys.stdout)
        errors = sum(1 for f in result.findings if f.severity == "error")
        print(f"{f'wrote {output}' if output else str(file)}: {len(result.applied)} fix(es) applied; {errors} error(s), "
              f"{sum(1 for f in result.findings if f.severity == 'warning')} warning(s) left"
              + (f" [{result.analysis.arch.name}]" if result.analysis is not None else ""),
              file=sys.stderr if show_diff else sys.stdout)
    if result.unfixed or left:
        raise typer.Exit(EXIT_FINDINGS)


def site_names_of(f: Finding, a: Optional[Analysis]) -> set[str]:
    """The values the op of ``f`` defines, as the parser names them in ``a`` (empty without an op)."""
    if a is None or f.op_index is None:
        return set()
    return {v.name for v in a.program.ops[f.op_index].results}


@app.command()
def validate(
    file: Path = typer.Argument(..., help="TTNN IR file: the original program (or the program to check alone)."),
    fixed: Optional[Path] = typer.Option(None, "--fixed", help="The rewritten program (e.g. ttanalyze fix -o OUT)."),
    seed: int = typer.Option(0, help="Seed of the random inputs both programs run on."),
    no_device: bool = typer.Option(False, "--no-device", help="Skip the device check (no ttnn replay)."),
    arch: Optional[ArchName] = ARCH_OPTION,
    format: Format = typer.Option(Format.text, "--format", "-f", help="Output format."),
) -> None:
    """Check a fix: the reference interpreter runs original and fixed on the same random inputs (identical
    outputs for pure data movement, PCC >= 0.999 otherwise), and the ttnn executor replays the changed ops
    (tt-metal accepts them, its CBs match the prediction). Without --fixed: FILE runs alone, every op replayed.
    Exit 0 pass, 1 fail, 2 input error, 4 inconclusive (an op the interpreter has no semantics for)."""
    from . import validate as V
    from .analysis import analyze
    from .ir.parse import parse_file

    progress = _progress(sys.stderr.isatty() and format == Format.text)
    try:
        original = parse_file(str(file))
        program = parse_file(str(fixed)) if fixed is not None else None
        semantic = V.semantic_check(original, program, seed)
        target = program if program is not None else original
        ops = semantic.diff.added if semantic.diff is not None else list(target.ops)
        if no_device:
            device = V.DeviceCheckResult("skipped", reason="--no-device")
            device.ops = [V.OpReplay(op, "skipped", reason="--no-device") for op in ops]
        else:
            try:  # the device runs ttnn 0.81.1 (the default model); CBs are predicted for its arch (validate.py)
                a = analyze(target, arch.value if arch else None)
            except ValueError as exc:
                raise InputError(str(exc), str(fixed or file)) from None
            with progress:
                task = progress.add_task("replaying", total=len(ops))
                device = V.device_check(a, ops, progress=lambda op: progress.update(
                    task, advance=1, description=f"replaying line {op.pos.line} {op.name}"))
    except InputError as exc:
        print(str(exc), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001
        _internal_error(exc)
    passed = semantic.passed and device.passed
    status = ("pass" if passed else "fail" if not device.passed or semantic.status == "fail" else "inconclusive")
    if format == Format.json:
        doc = {"schema": "ttanalyze.validate/1", "tool": {"name": "ttanalyze", "version": __version__},
               "file": str(file), "fixed": str(fixed) if fixed is not None else None, "passed": passed,
               "status": status, "semantic": semantic.record(), "device": device.record()}
        print(json.dumps(doc, indent=1))
    else:
        head = f"{file}" + (f" -> {fixed}" if fixed is not None else "")
        print("\n".join([head, *V.semantic_text(semantic), *V.device_text(device), f"{head}: {status.upper()}"]))
    if status == "inconclusive":
        raise typer.Exit(EXIT_INCONCLUSIVE)
    if not passed:
        raise typer.Exit(EXIT_FINDINGS)


class SortKey(str, Enum):
    line = "line"
    ns = "ns"
    bytes = "bytes"
    flops = "flops"


class GroupKey(str, Enum):
    none = "none"
    op = "op"
    bound = "bound"
    device_op = "device_op"


@app.command()
def cost(
    file: Optional[Path] = typer.Argument(None, help="TTNN IR file to cost (optional with --measured)."),
    measured: Optional[Path] = typer.Option(None, "--measured", help="A tt-metal device-profiler CSV "
                                            "(ops_perf_results): predict every row, compare with the measurement."),
    sort: SortKey = typer.Option(SortKey.line, help="Order of the per-op table (ns, bytes, flops: largest first)."),
    group: GroupKey = typer.Option(GroupKey.none, help="Group the table by IR op name, bound or device op."),
    top: int = typer.Option(5, help="Hotspots to list."),
    constants: Optional[Path] = typer.Option(None, help="Cost-model constants JSON (default: the calibrated ones)."),
    board: Optional[str] = typer.Option(None, help="Board of --measured's rows: n150, n300, p100, p150, p300 "
                                        "(sets the DRAM channels; default: n150 / p150, noted)."),
    strict: bool = typer.Option(False, "--strict", help="Stop on the first --measured row that cannot be read "
                                "(default: skip and report it)."),
    arch: Optional[ArchName] = ARCH_OPTION,
    l1_small_size: Optional[int] = L1_SMALL_OPTION,
    tt_metal: str = TT_METAL_OPTION,
    format: Format = typer.Option(Format.text, "--format", "-f", help="Output format."),
) -> None:
    """Predicted device time per op (ns), what bounds it, bytes and FLOPs; or predicted vs measured per profiler row."""
    from rich.console import Console

    from .cost import constants as cost_constants
    from .cost.constants import ConstantsError
    from .cost.ir import program_cost
    from .cost.profile import ProfileError
    from .report import cost as cost_report

    if file is None and measured is None:
        print("ttanalyze cost: give a TTNN IR file, --measured PROFILE.csv, or both", file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    console = Console(width=None if sys.stdout.isatty() else 240, emoji=False, highlight=False)
    doc: dict = {"schema": "ttanalyze.cost/1", "tool": {"name": "ttanalyze", "version": __version__}}
    try:
        consts = cost_constants.load(constants)
        if file is not None:
            a = _load(str(file), arch, l1_small_size, tt_metal)
            pc = program_cost(a, consts)
            if format == Format.json:
                doc["program"] = cost_report.cost_record(pc, str(file))
            else:
                cost_report.cost_text(pc, str(file), console, sort.value, group.value, top)
        if measured is not None:
            from .cost import profile
            from .cost.accuracy import compare_profile

            trace = profile.load_profile(measured, arch=arch.value if arch else None, strict=strict)
            try:
                comparison = compare_profile(trace, consts, board=board)
            except ValueError as exc:  # an unknown board, or one of another arch
                raise profile.ProfileError(str(exc), str(measured), 1) from None
            if format == Format.json:
                doc["measured"] = cost_report.measured_record(comparison, str(measured))
            else:
                cost_report.measured_text(comparison, str(measured), console, top)
            if file is not None:  # predicted vs measured per IR op
                from .cost.accuracy import match_ir

                matches, unmatched = match_ir(pc, trace.rows)
                if format == Format.json:
                    doc["per_ir_op"] = cost_report.ir_match_record(matches, unmatched)
                else:
                    cost_report.ir_match_text(matches, unmatched, str(measured), console)
    except (InputError, ProfileError) as exc:  # both print as path:line[:col]: error: message
        print(str(exc), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    except ConstantsError as exc:  # names the constants file
        print(f"ttanalyze: error: {exc}", file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001
        _internal_error(exc)
    if format == Format.json:
        print(json.dumps(doc, indent=1))


@app.command("diff")
def diff_cmd(
    before: Path = typer.Argument(..., help="TTNN IR before the compiler pass."),
    after: Path = typer.Argument(..., help="The same program after it."),
    format: Format = typer.Option(Format.text, "--format", "-f", help="Output format."),
    max_latency_increase: Optional[str] = typer.Option(
        None, metavar="PCT", help="Largest allowed growth of the total predicted latency, % ('off': unchecked)."),
    max_l1_increase: Optional[str] = typer.Option(
        None, metavar="PCT", help="Largest allowed growth of the peak L1 per core (tensors + CBs), %."),
    max_cb_increase: Optional[str] = typer.Option(
        None, metavar="PCT", help="Largest allowed growth of the largest CB region per core, %."),
    max_dram_increase: Optional[str] = typer.Option(
        None, metavar="PCT", help="Largest allowed growth of the total DRAM traffic, %."),
    fail_on_new: Optional[FailOn] = typer.Option(
        None, help="New findings at or above this severity are a regression (default error)."),
    allow_uncosted: Optional[bool] = typer.Option(
        None, "--allow-uncosted/--no-allow-uncosted",
        help="Whether an op the cost model stops knowing (or a new unknown op) may pass (default: a regression)."),
    config: Optional[Path] = typer.Option(
        None, "--config", help="TOML file with a tool.ttanalyze.diff table (default: the nearest pyproject.toml)."),
    arch: Optional[ArchName] = ARCH_OPTION,
    l1_small_size: Optional[int] = L1_SMALL_OPTION,
    tt_metal: str = TT_METAL_OPTION,
) -> None:
    """Compare a program before and after a compiler pass: matched ops, findings that appear or vanish,
    per-op and total L1, CB, DRAM and latency changes; exit 1 on a regression beyond the thresholds
    (command line, else the tool.ttanalyze.diff table of pyproject.toml, else 5% each and new errors)."""
    from rich.console import Console

    from . import diff as diff_mod
    from .rules import run

    given = {"latency": max_latency_increase, "l1": max_l1_increase, "cb": max_cb_increase,
             "dram": max_dram_increase}
    options = {"latency": "--max-latency-increase", "l1": "--max-l1-increase", "cb": "--max-cb-increase",
               "dram": "--max-dram-increase"}
    try:
        try:
            cli_values = {k: diff_mod.parse_percent(v, options[k]) for k, v in given.items() if v is not None}
        except InputError as exc:
            print(f"ttanalyze diff: {exc.message}", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
        if fail_on_new is not None:
            cli_values["fail_on_new"] = fail_on_new.value
        if allow_uncosted is not None:
            cli_values["allow_uncosted"] = allow_uncosted
        thresholds = diff_mod.resolve_thresholds(cli_values, config)
        sides = []
        for path in (before, after):
            a = _load(str(path), arch, l1_small_size, tt_metal)
            sides.append(diff_mod.side(a, run(a)))
        d = diff_mod.diff(sides[0], sides[1], thresholds)
    except InputError as exc:
        print(str(exc), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001
        _internal_error(exc)
    if format == Format.json:
        print(json.dumps(diff_mod.diff_record(d), indent=1))
    else:
        console = Console(width=None if sys.stdout.isatty() else 240, emoji=False, highlight=False)
        diff_mod.diff_text(d, console)
    if d.regressions:
        raise typer.Exit(EXIT_FINDINGS)


@app.command()
def limits(
    file: Path = typer.Argument(..., help="TTNN IR file."),
    dim: str = typer.Option(..., "--dim", help="The dimension: batch (dim 0), sequence (dim -2) or width (dim -1) of "
                            "the first argument, or %argN:D / NAME:D (an argument by SSA name or loc name, dim D)."),
    max_value: int = typer.Option(2**20, "--max", help="Largest size to consider (elements)."),
    auto_matmul_config: bool = typer.Option(False, "--auto-matmul-config", help="Drop the matmul_program_config of "
                                            "matmuls the dimension reaches (tt-metal picks its own) instead of refusing."),
    arch: Optional[ArchName] = ARCH_OPTION,
    l1_small_size: Optional[int] = L1_SMALL_OPTION,
    tt_metal: str = TT_METAL_OPTION,
    format: Format = typer.Option(Format.text, "--format", "-f", help="Output format."),
) -> None:
    """The largest size of one dimension before an op overflows L1 (z3 search, the analyzer as oracle)."""
    from .limits import find_limit

    try:
        a = _load(str(file), arch, l1_small_size, tt_metal)
        result = find_limit(a.program, dim, max_value, arch.value if arch else None, l1_small_size, tt_metal,
                            auto_matmul_config)
    except InputError as exc:
        print(str(exc), file=sys.stderr)
        raise typer.Exit(EXIT_INPUT)
    except typer.Exit:
        raise
    except Exception as exc:  # noqa: BLE001
        _internal_error(exc)
    if format == Format.json:
        doc = dict(result.record(), tool={"name": "ttanalyze", "version": __version__})
        print(json.dumps(doc, indent=1))
    else:
        print(result.text())
    if result.interrupted:  # Ctrl-C: the best size found so far is printed above
        raise typer.Exit(130)


@app.command("rules")
def rules_cmd(rule_id: Optional[str] = typer.Argument(None, help="Show one rule in full.")) -> None:
    """List the rules (id, severity, title), or show one rule's explanation."""
    from .rules import catalog

    metas = catalog()
    if rule_id:
        meta = metas.get(rule_id.upper())
        if meta is None:
            print(f"ttanalyze: unknown rule '{rule_id}'", file=sys.stderr)
            raise typer.Exit(EXIT_INPUT)
        print(f"{meta.id} {meta.name} ({meta.severity}): {meta.title}\n\n{meta.explanation}\n\n"
              f"Reference: {meta.reference}\n\nExample:\n{meta.example}" + (f"\n\nFix: {meta.fix}" if meta.fix else ""))
        return
    for meta in metas.values():
        print(f"{meta.id}  {meta.severity:<7}  {meta.name:<28}  {meta.title}")


@app.command()
def version() -> None:
    """Print the ttanalyze version."""
    print(__version__)


def main() -> None:
    """Console-script entry point."""
    app()
