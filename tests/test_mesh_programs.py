"""Multi-device programs analyzed per device (ttanalyze.mesh), on real tt-xla dumps and constructed meshes.

The real program (tests/data/mesh/ORIGINS.md) is a Llama prefill step on a 1x2 Wormhole mesh of 2025-11:
its presharded weights reach the device typed with their global shape and are cut by a ``ttnn.mesh_shard``
of ``shard_type identity`` that the runtime forwards, so each device holds the shard (figures by hand below).
"""

from __future__ import annotations

from pathlib import Path

from ttanalyze.analysis import analyze
from ttanalyze.ir.parse import parse_file, parse_text
from ttanalyze.mesh import Mesh, device_scope, func_mesh, meshes_of, presharded_values

from .conftest import findings_of, l1_overflow_module

DATA = Path(__file__).parent / "data"
LLAMA_1X2 = DATA / "mesh" / "real_ttxla_llama_prefill_1x2_2025_11.mlir"
DECODE_2X4 = DATA / "eras" / "real_ttxla_decode_two_modules_2026_03.mlir"


def _llama():
    return analyze(parse_file(LLAMA_1X2))


def test_real_1x2_program_mesh_and_mesh_shard_shapes():
    a = _llama()
    assert a.mesh.shape == (1, 2) and [m.shape for m in meshes_of(a.program)] == [(1, 2)]
    shards = [op for op in a.program.ops if op.name == "ttnn.mesh_shard"]
    assert len(shards) == 13
    for op in shards:  # every mesh_shard's declared type is the one its shape rule derives
        check = a.shape_checks[op.index]
        assert check.status == "checked" and check.shapes == [op.results[0].type.shape], op
    first = shards[0]  # line 133: shard_shape [2, 1] cuts 8192x3072 to 4096x3072
    assert first.pos.line == 133 and a.shape_checks[first.index].shapes == [(4096, 3072)]
    assert not findings_of(a, "TTA008") and not [f for f in findings_of(a, "TTA009") if "mesh_shard" in f.message]
    assert all(a.programs[op.index].status == "not_device" for op in shards)


def test_presharded_arguments_take_their_per_device_share():
    """``%arg11`` of ``@main`` is the 8192x3072 bf16 weight the frontend sharded over the 2 devices: through
    ``ttcore.load_cached(@main_const_eval_1, [%arg11])`` it reaches an identity ``mesh_shard`` to 4096x3072.
    Per device: 128 x 96 = 12,288 tiles of 2,048 B = 25,165,824 B, 1,024 tiles per each of the 12 DRAM banks
    (2,097,152 B per bank) instead of the global 24,576 tiles."""
    a = _llama()
    shares = presharded_values(a.program)
    main = a.program.func("main")
    arg = next(v for v in main.args if v.name == "%arg11")
    assert arg.type.shape == (8192, 3072) and shares[arg].type.shape == (4096, 3072)
    info = a.infos[arg]
    assert info.logical_shape == (4096, 3072)
    assert info.physical_bytes == 12_288 * 2_048
    # every presharded value is an argument of @main or of a const-eval function, 16 in all
    assert len(shares) == 16 and all(v.producer is None for v in shares)


def test_memory_findings_name_the_mesh_of_their_function():
    """A module declaring two meshes: the op's function opens the 2x4 one, so the L1 overflow holds on each of
    its 8 devices (not on the 1x2 mesh declared first)."""
    text = l1_overflow_module().replace(
        "module attributes {", 'module attributes {ttcore.meshes = #ttcore.meshes<[<"small" = 1x2>, <"big" = 2x4>]>, ')
    text = text.replace('%0 = "ttnn.to_memory_config"',
                        '%dev = "ttnn.get_device"() <{mesh_shape = #ttnn<mesh_shape 2x4>}> : () -> !ttnn.device\n'
                        '    %0 = "ttnn.to_memory_config"', 1)
    a = analyze(parse_text(text, "t.mlir"))
    assert [m.label for m in meshes_of(a.program)] == ["1x2", "2x4"]
    assert a.mesh.shape == (2, 4)  # the entry function opens 2x4
    [f] = findings_of(a, "TTA004")
    assert "on each of the 8 devices of mesh 2x4" in f.message and f.data["mesh"] == "2x4"


def test_device_scope_names_devices():
    mesh = Mesh((2, 4), "")
    assert device_scope(mesh) == " on each of the 8 devices of mesh 2x4"
    assert device_scope(mesh, [(0, 1)]) == " on device (0, 1) of mesh 2x4"
    assert device_scope(mesh, [(0, 0), (1, 3)]) == " on devices (0, 0), (1, 3) of mesh 2x4"


def test_every_module_of_a_two_module_file_has_its_mesh():
    """The 2x4 decode dump holds two TTNN modules; each is analyzed on its 2x4 mesh, const-eval functions
    (which open no device) included through their callers."""
    from ttanalyze.ir.parse import parse_modules

    for program in parse_modules(DECODE_2X4.read_text(), str(DECODE_2X4)):
        a = analyze(program)
        assert a.mesh is not None and a.mesh.shape == (2, 4)
        assert all(func_mesh(program, f).shape == (2, 4) for f in program.funcs)


def test_presharded_values_produced_on_the_way_keep_their_type():
    """In the 2x4 decode dump a presharded host argument goes through to_device and to_layout before its identity
    mesh_shard: only the argument takes the shard's size, the to_layout result keeps its declared (global) type,
    so its output model agrees with it (no TTA012)."""
    from ttanalyze.ir.parse import parse_modules

    for program in parse_modules(DECODE_2X4.read_text(), str(DECODE_2X4)):
        a = analyze(program)
        assert all(v.producer is None for v in presharded_values(program))
        assert not [f for f in findings_of(a) if f.severity == "error"]
