"""Random op instances measured on the mock device for engineer dialect-rest's ops.

``clamp_tensor``, ``cumsum``, ``cumprod``, ``gather``, ``scatter`` and ``prod``, drawn from a seeded
generator over shapes (rank 2-4, dims that are and are not tile multiples), dtypes and memory configs
(DRAM / L1 interleaved).  Each case is one TTNN op as IR (:class:`~measurements.dialect.cases_misc.MiscCase`)
and the ttnn call tt-mlir's runtime makes for it (``runtime/lib/ttnn/operations/*`` @19c86fca).
``measurements/dialect/probe_rest.py`` replays them on the mock (NO_DISPATCH graph capture) into
``results_rest.jsonl``; tests/test_ops_dialect_rest.py compares the models with it.
"""

from __future__ import annotations

import random

from measurements.dialect.cases_misc import MiscCase, _shape


def _cases() -> list[MiscCase]:
    rng = random.Random(23)
    out: list[MiscCase] = []
    for i in range(10):  # clamp_tensor(input, min, max): min/max of the input's shape or broadcast rows/cols
        shape = _shape(rng, rng.randint(2, 4))
        dt = rng.choice(["bf16", "bf16", "f32"])
        buf = rng.choice(["dram", "l1"])
        lo = rng.choice([shape, shape, (*shape[:-1], 1), (1,) * len(shape)])
        hi = rng.choice([shape, shape, (*shape[:-2], 1, shape[-1])])
        out.append(MiscCase(f"clamp_tensor/{i}", "ttnn.clamp_tensor",
                            ((shape, dt, "tile", buf), (lo, dt, "tile", buf), (hi, dt, "tile", buf)),
                            ((shape, dt, "tile", buf),)))
    for name in ("cumsum", "cumprod"):
        for i in range(8):
            rank = rng.randint(2, 4)
            shape = _shape(rng, rank)
            dim = rng.randrange(-rank, rank)
            dt = rng.choice(["bf16", "bf16", "f32"])
            buf = rng.choice(["dram", "l1"])
            out.append(MiscCase(f"{name}/{i}", f"ttnn.{name}", ((shape, dt, "tile", buf),), ((shape, dt, "tile", buf),),
                                f"dim = {dim} : si32", kwargs={"dim": dim}))
    for i in range(8):  # gather(input, index) along dim: index of the input's rank, smaller or equal along dim
        rank = rng.randint(2, 4)
        shape = _shape(rng, rank)
        dim = rng.choice([-1, -1, rank - 2])
        idx = list(shape)
        idx[dim] = rng.choice([1, 8, 32, shape[dim]])
        dt = rng.choice(["bf16", "f32"])
        idt = rng.choice(["u16", "u32"])
        buf = rng.choice(["dram", "l1"])
        out.append(MiscCase(f"gather/{i}", "ttnn.gather", ((shape, dt, "tile", buf), (tuple(idx), idt, "tile", buf)),
                            ((tuple(idx), dt, "tile", buf),), f"dim = {dim} : si32", kwargs={"dim": dim}))
    for i in range(8):  # scatter(input, index, source) along dim
        rank = rng.randint(2, 4)
        shape = _shape(rng, rank)
        dim = rng.choice([-1, -1, rank - 2])
        idx = list(shape)
        idx[dim] = rng.choice([1, 8, 32, shape[dim]])
        dt = rng.choice(["bf16", "f32"])
        idt = rng.choice(["u16", "u32", "si32"])
        buf = rng.choice(["dram", "l1"])
        red = rng.choice(["invalid", "invalid", "sum"])
        out.append(MiscCase(f"scatter/{i}", "ttnn.scatter",
                            ((shape, dt, "row_major", buf), (tuple(idx), idt, "row_major", buf),
                             (tuple(idx), dt, "row_major", buf)), ((shape, dt, "row_major", buf),),
                            f"dim = {dim} : si32, scatter_reduce_type = #ttcore.reduce_type<{red}>",
                            kwargs={"dim": dim, "reduce": {"invalid": None, "sum": "add"}[red]}))
    for i in range(8):  # prod over one dim (keep_dim) or all dims
        rank = rng.randint(2, 4)
        shape = _shape(rng, rank)
        dt = rng.choice(["bf16", "bf16", "f32"])
        buf = rng.choice(["dram", "l1"])
        dim = rng.choice([None, rank - 1, rank - 2, 0])
        keep = dim is not None and rng.random() < 0.5
        if dim is None:
            res = ()
        else:
            res = tuple(1 if (d == dim) else s for d, s in enumerate(shape)) if keep else \
                tuple(s for d, s in enumerate(shape) if d != dim)
        attrs = (f"dim_arg = {dim} : si64, " if dim is not None else "") + f"keep_dim = {'true' if keep else 'false'}"
        out.append(MiscCase(f"prod/{i}", "ttnn.prod", ((shape, dt, "tile", buf),), ((res, dt, "tile", buf),), attrs,
                            kwargs={"dim": dim, "keep": keep}))
    rng = random.Random(29)
    for i in range(6):  # prod over dim 0 or 1 of a 4D tensor (ProdNc without permutes)
        shape = (rng.choice([2, 3, 4]), rng.choice([1, 2, 3]), rng.choice([32, 64, 50]), rng.choice([32, 96, 100]))
        dt = rng.choice(["bf16", "f32"])
        buf = rng.choice(["dram", "l1"])
        dim, keep = rng.choice([0, 1]), rng.random() < 0.5
        res = tuple(1 if d == dim else s for d, s in enumerate(shape)) if keep else \
            tuple(s for d, s in enumerate(shape) if d != dim)
        out.append(MiscCase(f"prod_nc/{i}", "ttnn.prod", ((shape, dt, "tile", buf),), ((res, dt, "tile", buf),),
                            f"dim_arg = {dim} : si64, keep_dim = {'true' if keep else 'false'}",
                            kwargs={"dim": dim, "keep": keep}))
    return out


CASES: list[MiscCase] = _cases()
