"""Dataflow graph and tensor lifetimes."""

from __future__ import annotations

from ttanalyze.graph import lifetimes

from .conftest import FIXTURES, analyze_path


def test_lifetimes_from_deallocate_last_use_and_return():
    a = analyze_path(FIXTURES / "real" / "mlp_o2" / "ttnn.mlir")
    main = a.program.funcs[0]
    lts = lifetimes(main)
    by_name = {v.name: lt for v, lt in lts.items()}
    # %arg0 (x) is deallocated right after its to_layout (ops #0, #1)
    assert (by_name["%arg0"].start, by_name["%arg0"].end, by_name["%arg0"].end_reason) == (0, 1, "deallocate")
    # %5 = linear (op #10) is freed by the deallocate at op #15
    assert (by_name["%5"].start, by_name["%5"].end, by_name["%5"].end_reason) == (10, 15, "deallocate")
    # the returned %10 lives to the function's last op
    assert by_name["%10"].end_reason == "returned" and by_name["%10"].end == main.ops[-1].index


def test_last_use_without_deallocate():
    a = analyze_path(FIXTURES / "seeds" / "mochi_conv1_norm2_reshape_wh.mlir")
    lts = {v.name: lt for v, lt in lifetimes(a.program.funcs[0]).items()}
    assert lts["%0"].end_reason == "last use" and lts["%0"].end == 1


def test_graph_edges_and_function_boundaries():
    a = analyze_path(FIXTURES / "real" / "transformer_ffn_o2" / "ttnn.mlir")
    g = a.graph
    load = next(op for op in a.program.ops if op.name == "ttcore.load_cached")
    # the cached const-eval function is a node reached by a call edge
    assert g.has_edge(("op", load.index), ("func", "main_const_eval_0"))
    assert g.edges[("op", load.index), ("func", "main_const_eval_0")]["kind"] == "call"
    # def-use: every operand is an edge value -> op
    for op in a.program.ops:
        for v in op.operands:
            assert g.has_edge(("value", v.key), ("op", op.index))
        assert g.nodes[("op", op.index)]["func"] == op.func.name
