"""Op instances measured on the mock device for the dialect op models (ttanalyze.ops.transformer, kv_cache).

Each case is a single TTNN op as IR (operand and result tensors, attributes) and the ttnn call
tt-mlir's runtime makes for it (``runtime/lib/ttnn/operations/{transformer,kv_cache}/*.cpp``
@19c86fca).  ``measurements/dialect/probe.py`` replays them on the mock (NO_DISPATCH graph capture)
and writes ``results.jsonl``; tests/test_ops_dialect_measured.py compares the models with it.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Case:
    """One measured op: ``id``, the IR op name, operand and result shapes (bf16 TILE DRAM
    interleaved unless ``dtypes`` says otherwise), IR attributes, and keyword arguments of the call."""

    id: str
    op: str
    operands: tuple[tuple[int, ...], ...]
    results: tuple[tuple[int, ...], ...]
    attrs: str = ""
    kwargs: dict = field(default_factory=dict)
    dtypes: tuple[str, ...] = ()


CASES: list[Case] = []
for b, h, s, d in [(1, 8, 128, 64), (1, 4, 64, 64), (2, 8, 128, 64), (1, 16, 256, 128), (1, 2, 32, 32),
                   (1, 32, 32, 128), (1, 12, 96, 64), (3, 1, 32, 32)]:
    CASES.append(Case(f"nlp_concat_heads/{b}x{h}x{s}x{d}", "ttnn.nlp_concat_heads", ((b, h, s, d),),
                      ((b, 1, s, h * d),)))
    CASES.append(Case(f"concatenate_heads/{b}x{h}x{s}x{d}", "ttnn.concatenate_heads", ((b, h, s, d),),
                      ((b, s, h * d),)))
for b, h, s, d, n in [(1, 8, 256, 64, 32), (1, 8, 256, 64, 128), (2, 8, 256, 64, 64), (4, 1, 1024, 128, 256),
                      (1, 32, 2048, 128, 1024), (8, 8, 128, 64, 96)]:
    CASES.append(Case(f"fill_cache/{b}x{h}x{s}x{d}/{n}", "ttnn.fill_cache", ((b, h, s, d), (1, h, n, d)), (),
                      "batch_offset = 0 : i32", {"batch_idx": 0}))
for b, h, s, d, n in [(32, 8, 1024, 128, 32), (32, 1, 256, 64, 32), (8, 8, 512, 64, 8), (64, 4, 256, 128, 64),
                      (32, 8, 1024, 128, 16), (4, 2, 128, 32, 4)]:
    CASES.append(Case(f"update_cache/{b}x{h}x{s}x{d}/{n}", "ttnn.update_cache", ((b, h, s, d), (1, h, n, d), (1,)), (),
                      "batch_offset = 0 : i32", {"update_idx": 5}, ("bf16", "bf16", "u32")))
