"""Robustness: the fuzzer's reproducers (tests/data/fuzz/) and a bounded, seeded mutation campaign.

Every input ends in an analysis or one ``file:line:col: error:`` line (exit 2):
never an internal error (exit 3), a signal, a hang or a traceback.  The long
campaign (5,000 mutants, each in a subprocess with time and memory caps) is
``benchmarks/fuzz_campaign.py``; its result is in docs/robustness.md.
"""

from __future__ import annotations

import re
import signal
from contextlib import contextmanager
from pathlib import Path

import pytest

from benchmarks.fuzz_mutate import KINDS, mutate
from ttanalyze.analysis import analyze
from ttanalyze.cost.ir import program_cost
from ttanalyze.errors import InputError
from ttanalyze.ir.parse import parse_bytes, parse_text
from ttanalyze.report import cost as cost_report
from ttanalyze.rules import run

from .conftest import FIXTURES

FUZZ = Path(__file__).resolve().parent / "data" / "fuzz"
REPRODUCERS = sorted(FUZZ.glob("*.mlir"))
# Inputs MLIR (or a device) rejects: exit 2 with a position, whatever else they hold.
MUST_REJECT = ("accepted_invalid", "silent_accept", "signal11", "exit3_RecursionError")
SECONDS_PER_INPUT = 120  # a hang guard, generous for a loaded CI machine


@contextmanager
def deadline(seconds: int, what: str):
    """Fail the test (instead of hanging) when the block runs longer than ``seconds``."""
    def expire(signum, frame):
        raise TimeoutError(f"{what} took more than {seconds} s")

    old = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@pytest.mark.parametrize("path", REPRODUCERS, ids=[p.stem[:60] for p in REPRODUCERS])
def test_reproducer(path, cli):
    with deadline(SECONDS_PER_INPUT, path.name):
        result = cli("check", path, "--no-fixes")
    assert result.exit_code in (0, 1, 2), result.output
    assert "Traceback" not in result.output and "internal error" not in result.output
    if path.name.startswith(MUST_REJECT):
        assert result.exit_code == 2, result.output
        assert re.match(rf"^{re.escape(str(path))}:\d+:\d+: error: ", result.stderr), result.stderr


def test_fix_of_reproducers_never_crashes(cli, tmp_path):
    """``fix`` on the reproducers whose fixes once raised (the IR emitter refused the new type)."""
    for path in sorted(FUZZ.glob("exit3_ValueError_ir_emit*.mlir")):
        with deadline(SECONDS_PER_INPUT, path.name):
            result = cli("fix", path, "-o", tmp_path / "out.mlir")
        assert result.exit_code in (0, 1), result.output


def test_large_cost_table_prints_plain(monkeypatch, capsys):
    """The 100,000-op reproducer (timeout_report_cost...mlir.gz) timed out in rich's table layout: large
    tables print as plain aligned text, in time linear in their cells."""
    from rich.console import Console

    a = analyze(parse_text((FIXTURES / "real" / "mlp_o0" / "ttnn.mlir").read_text(), "mlp.mlir"))
    monkeypatch.setattr(cost_report, "PLAIN_TABLE_ROWS", 0)
    cost_report.cost_text(program_cost(a), "mlp.mlir", Console(width=240))
    out = capsys.readouterr().out
    assert re.search(r"^ *line +op +location", out, re.M), out
    assert "total:" in out


SOURCES = sorted([*FIXTURES.glob("real/*/ttnn.mlir"), *FIXTURES.glob("seeds/*.mlir")])
SMALL_SOURCES = [p for p in SOURCES if p.stat().st_size < 40_000]
MUTANTS_PER_SOURCE = 20


def analyze_mutant(data: bytes) -> str:
    """What ``check`` and ``cost`` do with a mutant, in process: ``input_error`` or ``analyzed``."""
    try:
        program = parse_bytes(data, "mutant.mlir")
        try:
            a = analyze(program, "wormhole_b0")
        except ValueError as exc:  # what cli._load turns into an input error
            raise InputError(str(exc)) from None
    except InputError:
        return "input_error"
    run(a)
    program_cost(a)
    return "analyzed"


@pytest.mark.parametrize("source", SMALL_SOURCES, ids=[p.parent.name if p.name == "ttnn.mlir" else p.stem
                                                      for p in SMALL_SOURCES])
def test_mutants_never_crash(source):
    """A few hundred seeded mutants in all (20 per small fixture): each is analyzed or refused as input."""
    text = source.read_text()
    outcomes: dict[str, int] = {}
    for seed in range(MUTANTS_PER_SOURCE):
        mutant, kinds = mutate(text, seed)
        with deadline(SECONDS_PER_INPUT, f"mutant {seed} of {source} ({', '.join(kinds)})"):
            try:
                outcome = analyze_mutant(mutant)
            except Exception as exc:  # noqa: BLE001 - the point of the test
                pytest.fail(f"mutant {seed} of {source} ({', '.join(kinds)}) raised {type(exc).__name__}: {exc}")
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
    assert sum(outcomes.values()) == MUTANTS_PER_SOURCE


def test_mutator_is_seeded_and_covers_every_kind():
    text = SOURCES[0].read_text()
    assert mutate(text, 7) == mutate(text, 7)
    seen = {k for seed in range(300) for k in mutate(text, seed)[1]}
    assert seen == set(KINDS)
