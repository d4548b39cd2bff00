"""The caches of the op-model path give what the uncached computation gives (benchmarks/same_results.py checks
whole reports; these check each mechanism on its own)."""

from __future__ import annotations

import random

from ttanalyze.ops import cb as C
from ttanalyze.ops.cb import CB, CBContext, ProgramModel, core_range, cores_set, plan_of
from ttanalyze.ops.tensors import _view, seed_views, tensor_of
from ttanalyze.ops.work_split import (_merge, corerange_to_cores, grid_cores, grid_to_cores, merge, merge_ranges,
                                      split_work_to_cores)
from ttanalyze import layout as L
from ttanalyze.allocator import FreeList
from ttanalyze.programs import Verdicts, moved_free_l1, op_models

from ttanalyze.ir.parse import parse_file

from .conftest import FIXTURES, analyze_path


def _busiest_by_search(cbs: list[CB]) -> tuple[tuple[int, int] | None, int]:
    """The busiest core by examining every core of the boundary grid (the definition)."""
    xs = sorted({v for cb in cbs for r in cb.cores.ranges for v in (r.start.x, r.end.x)})
    ys = sorted({v for cb in cbs for r in cb.cores.ranges for v in (r.start.y, r.end.y)})
    best, where = 0, None
    for x in xs:
        for y in ys:
            total = sum(cb.bytes for cb in cbs if C.contains(cb.cores, x, y))
            if total > best:
                best, where = total, (x, y)
    return where, best


def _random_range(rng: random.Random, top: int):
    """A core range from a random core of coordinates 0..``top`` (each), 1 to 4 cores wide and high."""
    x0, y0 = rng.randint(0, top), rng.randint(0, top)
    return core_range(x0, y0, x0 + rng.randint(0, 3), y0 + rng.randint(0, 3))


def test_busiest_core_of_one_core_set_is_its_first_core():
    rng = random.Random(7)
    for _ in range(300):
        ranges = []
        for _ in range(rng.randint(1, 3)):
            ranges.append(_random_range(rng, 9))
        crs = cores_set(*ranges)
        cbs = [CB(i, f"c{i}", rng.choice([0, 32, 2048]), rng.randint(0, 4), crs) for i in range(rng.randint(1, 4))]
        prog = ProgramModel("f", "s", crs, cbs)
        core, total = prog.busiest_core()
        assert total == _busiest_by_search(cbs)[1] == sum(cb.bytes for cb in cbs)
        if total:
            # every core holds all of them: the first boundary core of the set, in (x, y) order
            xs = sorted({v for r in crs.ranges for v in (r.start.x, r.end.x)})
            ys = sorted({v for r in crs.ranges for v in (r.start.y, r.end.y)})
            assert core == next((x, y) for x in xs for y in ys if C.contains(crs, x, y))
        else:
            assert core is None


def test_busiest_core_follows_a_changed_cb_list():
    a, b = cores_set(core_range(0, 0, 1, 0)), cores_set(core_range(1, 0, 2, 0))
    prog = ProgramModel("f", "s", a, [CB(0, "x", 1024, 2, a)])
    assert prog.busiest_core() == ((0, 0), 2048)
    prog.cbs.append(CB(1, "y", 1024, 1, b))
    assert prog.busiest_core() == _busiest_by_search(prog.cbs) == ((1, 0), 3072)
    assert prog.first_overflow(0, 3072) is None and prog.first_overflow(0, 3071) is not None


def test_merge_of_a_grid_split_is_the_merge_of_its_cores():
    for grid in ((8, 8), (13, 10)):
        for n in (1, 7, 13, 64, 100, 130):
            if n > grid[0] * grid[1]:
                continue
            for row_wise in (False, True):
                cores = grid_cores(n, grid, row_wise)
                assert cores is grid_cores(n, grid, row_wise)
                assert list(cores) == grid_to_cores(n, grid, row_wise)
                assert merge(cores) == _merge(frozenset(cores)) == merge(list(cores))
                assert merge(cores) is merge(cores)
                split = split_work_to_cores(grid, n, row_wise)
                assert merge_ranges(split.all_cores) == merge(corerange_to_cores(split.all_cores))


def _analysis():
    return analyze_path(FIXTURES / "real" / "mlp_o2" / "ttnn.mlir")


def test_tensor_views_are_shared_by_values_of_one_type():
    a = _analysis()
    op = next(o for o in a.program.ops if o.name == "ttnn.matmul")
    ctx = CBContext(op, a.arch, (), (), 0, tensor_views={})
    for v in (*op.operands, *op.results):
        assert _view(ctx, v, "v") == tensor_of(v, a.arch, "v")
    same_type = [v for v in a.values() if v.type is op.results[0].type]
    assert all(_view(ctx, v, "v") is _view(ctx, op.results[0], "v") for v in same_type)
    # a value built by a model, whose type has no layout, reads the view it is given
    seeded = CBContext(op, a.arch, (), (), 0, tensor_views=seed_views([(op.operands[0], "given")]))
    assert _view(seeded, op.operands[0], "v") == "given"


def test_a_plan_is_derived_once_per_context():
    a = _analysis()
    op = a.program.ops[0]
    calls = []

    def derive(ctx):
        calls.append(ctx)
        return len(calls)

    ctx = CBContext(op, a.arch, (), (), 0)
    assert plan_of(ctx, derive) == plan_of(ctx, derive) == 1
    other = CBContext(op, a.arch, (), (), 1)
    assert plan_of(other, derive) == 2  # another context derives its own


def test_op_models_verdicts_equal_a_fresh_run():
    a = _analysis()
    programs, specs = op_models(a)
    again, again_specs = op_models(a)
    assert programs == again == a.programs and specs == again_specs == a.specs
    deallocs = [i for i, op in enumerate(a.program.ops) if op.name == "ttnn.deallocate"]
    assert deallocs and all(programs[i].status == "not_device" and i not in specs for i in deallocs)


def test_tensor_with_is_dataclasses_replace():
    import dataclasses

    import pytest

    a = _analysis()
    t = tensor_of(next(o for o in a.program.ops if o.name == "ttnn.matmul").operands[0], a.arch, "a")
    for changes in ({"shape": (3, 70)}, {"layout": "row_major"}, {"padded": (64, 64), "shape": (2, 3)},
                    {"mem": t.mem, "dtype": t.dtype}, {"l1_alignment": 32}):
        expected = dict(changes)
        if "padded" not in expected and ("shape" in expected or "layout" in expected):
            expected["padded"] = t.with_(**changes).padded
        assert t.with_(**changes) == dataclasses.replace(t, **expected)
    with pytest.raises(TypeError):
        t.with_(volume=3)


def test_replay_peaks_equal_a_snapshot_after_every_op(monkeypatch):
    from ttanalyze import memory

    a = _analysis()
    fast = memory.replay(a)
    run_op = memory._Replay.run_op
    monkeypatch.setattr(memory._Replay, "run_op", lambda self, *args: run_op(self, *args) and False)
    slow = memory.replay(a)
    assert fast.points == slow.points and fast.l1_lowest_at_op == slow.l1_lowest_at_op


def test_op_models_after_the_replay_look_up_only_the_moved_ops():
    # attention_o2: the allocator replay moves the free L1 of 9 of its 48 ops
    a = analyze_path(FIXTURES / "real" / "attention_o2" / "ttnn.mlir")
    replayed, verdicts = a.allocation, Verdicts()
    a.allocation = None  # the first pass sees the summed free L1, as in analyze
    a.programs, a.specs = op_models(a, verdicts)
    a.allocation = replayed
    moved = moved_free_l1(a, verdicts)
    assert moved and len(moved) < len(a.program.ops)
    programs, specs = op_models(a, verdicts, only=moved)
    full_programs, full_specs = op_models(a)  # every op looked up, with the replay's free L1
    assert programs == full_programs and specs == full_specs
    assert list(programs) == list(full_programs) and list(specs) == list(full_specs)  # program order


def test_ops_named_are_the_ops_of_those_names_in_program_order():
    a = _analysis()
    for names in (("ttnn.matmul",), ("ttnn.deallocate", "ttnn.matmul"), ("ttnn.absent",), ()):
        assert a.ops_named(*names) == [op for op in a.program.ops if op.name in names]


def test_affine_map_coefficients_are_derived_once_per_map_text():
    a = _analysis()
    for v, info in a.infos.items():
        linear = v.type.layout.linear
        n, coefficients = L._map_coefficients(linear)
        assert coefficients == tuple(linear.coefficients(k) for k in range(n))
        assert L._map_coefficients(linear) is L._map_coefficients(linear)


def test_free_list_takes_the_first_fitting_block():
    """FreeList.allocate (size classes, the non-empty ones only) against first fit over every free block: the
    lowest fitting block, carved from its low end, bottom-up; the highest, carved from its high end, top-down."""
    rng = random.Random(11)
    for bottom_up in (True, False):
        fl = FreeList(4 * 1024 * 1024, 64)
        live: list[int] = []
        for _ in range(3000):
            if live and rng.random() < 0.45:
                fl.deallocate(live.pop(rng.randrange(len(live))))
                continue
            size = rng.choice([64, 1000, 5000, 70_000, 300_000])
            need = fl.aligned(size)
            fits = {start: free for start, free in fl.free_by_start.items() if free >= need}
            block = (min(fits) if bottom_up else max(fits)) if fits else None
            got = fl.allocate(size, bottom_up)
            if block is None:
                assert got is None
                continue
            assert got == (block if bottom_up else block + fits[block] - need)
            live.append(got)
        assert fl.nonempty == sum(1 << k for k, lst in enumerate(fl.classes) if lst)


def test_only_the_buffer_sharing_ops_share_a_result_buffer():
    # the replay and the timeline ask tied_operand / aliased_result about these ops only: for any other op
    # name, with every operand segment present and many operands and results, both must answer None
    from types import SimpleNamespace

    from ttanalyze.ops import registry
    from ttanalyze.ops.generic import BUFFER_SHARING_OPS, tied_operand
    from ttanalyze.ops.moe_compute import aliased_result

    values = [SimpleNamespace(name=f"%{i}") for i in range(12)]
    sharing = set()
    for name in registry.REGISTRY:
        for n in range(1, 7):
            op = SimpleNamespace(name=name, attrs={"operandSegmentSizes": [1] * 12}, operands=values,
                                 results=values[:n])
            if any(f(op, k) is not None for k in range(n) for f in (tied_operand, aliased_result)):
                sharing.add(name)
    assert sharing == BUFFER_SHARING_OPS


def test_region_figures_are_the_busiest_core_and_first_overflow():
    rng = random.Random(11)
    for _ in range(400):
        cbs = []
        for i in range(rng.randint(0, 5)):
            crs = cores_set(_random_range(rng, 7))
            cbs.append(CB(i, f"c{i}", rng.choice([0, 32, 1000, 2048, 65536]), rng.randint(0, 6), crs,
                          globally_allocated=rng.random() < 0.2))
        extra = rng.choice([0, 0, 64, 1500])
        prog = ProgramModel("f", "s", cores_set(core_range(0, 0, rng.randint(0, 7), rng.randint(0, 7))), cbs,
                            extra_l1_per_core=extra, scratchpads=rng.choice([(), (extra,)]))
        base, alignment = rng.choice([(0, 1), (1000, 32), (99_000, 64)])
        limit = base + rng.randint(0, 400_000)
        core, cb_bytes = prog.region_busiest_core()
        assert prog.region_figures(base, limit, alignment) == (
            core, cb_bytes, prog.first_overflow(base, limit, alignment) is None)


def test_layout_numbers_from_the_per_layout_cache_equal_a_fresh_computation():
    from benchmarks.generate import KINDS
    from ttanalyze.analysis import analyze
    from ttanalyze.ir.parse import parse_text

    programs = [parse_text(KINDS["distinct"](600), "distinct.mlir")]  # L1 and DRAM layouts, each of many types
    programs += [parse_file(FIXTURES / "real" / name / "ttnn.mlir") for name in ("mlp_o2", "conv2d_block_o0")]
    for program in programs:
        a = analyze(program)
        layouts: dict = {}
        by_type = {id(v.type): (v.type, info) for v, info in a.infos.items()}
        for t, info in by_type.values():
            assert L.analyze(t, a.arch, layouts) == L.analyze(t, a.arch) == info
        if program is programs[0]:
            assert len(layouts) < len(by_type) / 2  # the cache served most types
