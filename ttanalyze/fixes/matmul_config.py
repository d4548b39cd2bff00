"""A matmul program config whose circular buffers fit: chosen with z3, checked with the CB model.

For a ``ttnn.matmul``/``ttnn.linear`` with a 1D or 2D multicast or reuse
program config, keep what fixes the work split (kind, grid, ``per_core_m``,
``per_core_n``, flags) and choose ``in0_block_w``, ``out_block_h/w`` and
``out_subblock_h/w`` under tt-metal's constraints
(``validate_matmul_block_and_subblock_configuration`` and the factories'
checks; ``matmul_device_operation.cpp``):

* ``Kt % in0_block_w == 0``;
* ``per_core_m % out_block_h == 0``, ``per_core_n % out_block_w == 0`` (1D/2D);
* ``out_block_h % out_subblock_h == 0``, ``out_block_w % out_subblock_w == 0``;
* ``out_subblock_h * out_subblock_w <= 8``, or 4 with fp32 accumulation (the
  destination registers hold 8 or 4 tiles);

so that the CBs fit the budget tt-metal checks (``l1_unreserved_base + CBs <=
l1_size``, and below the lowest live L1 buffer).  z3 maximizes the CB bytes of
the 2D/1D factories' formula (in0 ``out_block_h * in0_block_w`` and in1
``out_block_w * in0_block_w`` tiles, doubled when ``Kt / in0_block_w > 1``;
output ``out_block_h * out_block_w``; bias ``out_block_w``): the largest
configuration that fits, i.e. the fewest K blocks and the largest subblocks.
Every candidate is then run through the analyzer's own factory model
(:func:`ttanalyze.programs.run_cb_model`), which has the terms the formula
leaves out (intermediate CBs, sharded operands); a candidate the model rejects
is excluded and z3 asked again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import z3

from ..analysis import Analysis
from ..ir.attrs import MatmulProgramConfig
from ..ir.model import Op
from ..ops.cb import CBModelError, ProgramModel
from ..ops.matmul import matmul_shape_of
from ..programs import context_for, run_cb_model

FIELDS = ("in0_block_w", "out_block_h", "out_block_w", "out_subblock_h", "out_subblock_w")
MAX_CANDIDATES = 64


@dataclass(frozen=True)
class ConfigChoice:
    """A chosen config: the new field values, the model's CB bytes on the busiest core, and how many
    candidates z3 proposed before one passed the model."""

    values: dict[str, int]
    cb_per_core: int
    region_end: int
    candidates: int


def cb_budget(a: Analysis, op: Op) -> int:
    """Bytes of CBs per core tt-metal accepts at ``op``: up to ``l1_size``, and below the lowest live L1 buffer."""
    arch = a.arch
    point = a.memory.points.get(op.index)
    live = point.l1_per_core if point else 0
    limit = arch.l1_size - arch.l1_small_size - live if live else arch.l1_size
    return limit - arch.l1_unreserved_base


def _with_config(op: Op, pc: MatmulProgramConfig, values: dict[str, int]) -> Op:
    params = dict(pc.params)
    params.update(values)
    return replace(op, attrs={**op.attrs, "matmul_program_config": MatmulProgramConfig(pc.kind, params, pc.grid)})


def _fits(prog: ProgramModel, a: Analysis, budget: int) -> tuple[bool, int]:
    arch = a.arch
    end = max((e for _, e in prog.cb_regions(arch.l1_unreserved_base, arch.dram_alignment)),
              default=arch.l1_unreserved_base)
    return end - arch.l1_unreserved_base <= budget, end


def search(a: Analysis, op: Op) -> ConfigChoice | None:
    """The largest config of ``op``'s kind whose CBs fit (module docstring), or None.

    None when the op has no 1D/2D/reuse program config in the IR, or no
    assignment satisfies the constraints and the model.
    """
    pc = op.attrs.get("matmul_program_config")
    if not isinstance(pc, MatmulProgramConfig) or pc.kind not in ("mcast_1d", "mcast_2d", "reuse"):
        return None
    ctx = context_for(a, op)
    try:
        shape = matmul_shape_of(ctx, bool(pc.get("fuse_batch", True)))
    except CBModelError:
        return None
    pm, pn = int(pc.get("per_core_m")), int(pc.get("per_core_n"))
    budget = cb_budget(a, op)
    v = {name: z3.Int(name) for name in FIELDS}
    bw, bh, bwid, sh, sw = (v[n] for n in FIELDS)
    opt = z3.Optimize()
    for x in v.values():
        opt.add(x >= 1)
    opt.add(shape.kt % bw == 0, bw <= shape.kt)
    if pc.kind == "reuse":  # no out_block fields: the block is per_core
        opt.add(bh == pm, bwid == pn)
    else:
        opt.add(pm % bh == 0, pn % bwid == 0, bh <= pm, bwid <= pn)
    opt.add(bh % sh == 0, bwid % sw == 0, sh * sw <= (4 if shape.fp32_dest_acc else 8))
    double = z3.If(z3.And(bw == shape.kt, shape.batch == 1), 1, 2)
    cbs = (shape.tile_a * bh * bw * double + shape.tile_b * bwid * bw * double
           + shape.tile_out * bh * bwid + shape.tile_bias * bwid)
    opt.add(cbs <= budget)
    opt.maximize(cbs)
    opt.maximize(sh * sw)
    for n in range(1, MAX_CANDIDATES + 1):
        if opt.check() != z3.sat:
            return None
        m = opt.model()
        values = {name: m.eval(x).as_long() for name, x in v.items()}
        if pc.kind == "reuse":
            values = {k: values[k] for k in ("in0_block_w", "out_subblock_h", "out_subblock_w")}
        candidate = _with_config(op, pc, values)
        verdict = run_cb_model(candidate, replace(ctx, op=candidate))
        if verdict.status == "modeled":
            ok, end = _fits(verdict.program, a, budget)
            if ok:
                return ConfigChoice(values, verdict.program.per_core_bytes(), end, n)
        opt.add(z3.Or([x != values[name] for name, x in v.items() if name in values]))
    return None


def rewrite_config_text(line: str, values: dict[str, int]) -> str:
    """The op's text with the program config's fields set to ``values`` (``in0_block_w = 8`` ...).

    Raises:
        ValueError: a field is not in the op's ``matmul_program_config``.
    """
    start = line.find("matmul_program_config")
    if start < 0:
        raise ValueError("the op has no matmul_program_config")
    head, tail = line[:start], line[start:]
    for name, value in values.items():
        tail, n = re.subn(rf"\b{name} = \d+", f"{name} = {value}", tail, count=1)
        if not n:
            raise ValueError(f"matmul_program_config has no {name}")
    return head + tail
