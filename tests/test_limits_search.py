"""limits: the DRAM bound binds like L1's, the per-call time budget holds, Ctrl-C answers with the best so far."""

from __future__ import annotations

from ttanalyze import limits as L
from ttanalyze.ir.parse import parse_file

from .conftest import FIXTURES

MLP = FIXTURES / "real" / "mlp_o0" / "ttnn.mlir"
ARGMAX = FIXTURES / "real" / "cb_fits_argmax_7104x4096_o0" / "ttnn.mlir"


def test_dram_overflow_bounds_the_largest_size():
    """mlp_o0's batch: L1 never overflows; at 44,553,409 rows the live DRAM tensors exceed the DRAM bank
    (TTA005), so the largest size that runs is the DRAM bound, not the model's size cap."""
    r = L.find_limit(parse_file(MLP), "batch", 10**8, auto_matmul_config=True)
    assert r.binding is not None and r.binding.rule == "TTA005"
    assert r.largest is not None and r.first_failing == r.largest + r.step
    assert r.binding.used > r.binding.budget


def test_time_budget_stops_a_slow_call(monkeypatch):
    monkeypatch.setattr(L, "PROBE_SECONDS", 1e-4)
    r = L.find_limit(parse_file(ARGMAX), "batch")
    assert r.binding is not None and r.binding.rule == "time-budget"
    assert any("took more than" in n for n in r.notes)


def test_interrupt_answers_with_the_best_size_so_far(monkeypatch):
    real = L._Oracle.__call__
    calls = []

    def interrupting(self, v):
        calls.append(v)
        if len(calls) == 4:
            raise KeyboardInterrupt
        return real(self, v)

    monkeypatch.setattr(L._Oracle, "__call__", interrupting)
    r = L.find_limit(parse_file(ARGMAX), "batch")
    assert r.interrupted and r.largest is not None and r.largest >= 7104
    assert any(n.startswith("interrupted after") for n in r.notes)
