"""Program models of the distributed norms: ``layer_norm_post_all_gather`` and ``distributed_layer_norm``.

A distributed norm over a tensor whose last dim is split over the devices of a mesh axis runs, on each
device, the pre-all-gather statistics of its shard (:func:`ttanalyze.ops.norm_extra.pre_all_gather_steps`), an
all-gather of the statistics over the axis (:func:`ttanalyze.ops.ccl_programs.all_gather_program_of`), and
the post-all-gather normalization of its shard with the gathered statistics (:func:`post_all_gather_program`).

* ``ttnn.layer_norm_post_all_gather`` is the third step alone: tt-mlir's runtime calls
  ``ttnn::layer_norm_post_all_gather`` (``runtime/lib/ttnn/operations/normalization/
  layer_norm_post_all_gather.cpp`` @19c86fca): ``LayerNormPostAllGatherProgramFactory``, the 1D factory (no
  program config, no 2D core grid), read from tt-metal ``ttnn/cpp/ttnn/operations/normalization/
  layernorm_distributed/device/layernorm_post_all_gather_program_factory.cpp`` @015365c6 (the factory is not in
  the ttnn 0.81.1 wheel), its CB list measured on the mock: the step runs on one device.
* ``ttnn.distributed_layer_norm`` has no runtime of its own: tt-mlir's ``DistributedLayerNormDecomposition``
  (``lib/Dialect/TTNN/Transforms/Decomposition/DistributedLayerNormDecompositionRewritePattern.cpp``
  @19c86fca) rewrites it into ``layer_norm_pre_all_gather`` -> ``all_gather`` (stats, last dim, the op's
  cluster axis) -> ``layer_norm_post_all_gather`` (with an ``add`` of the residual first); the model is that
  sequence of programs.
* ``ttnn.distributed_rms_norm`` runs ``ttnn::fused_rms_minimal`` (the fused rms + all-gather kernel of
  ``experimental/ccl/rms_allgather``; tt-mlir ``runtime/lib/ttnn/operations/normalization/
  distributed_rms_norm.cpp``): :func:`fused_rms_program`, from source (tt-mlir's
  ``DistributedRMSNormDecomposition`` turns the shapes the kernel cannot take, all but ``(1, ..., 1, 32, K)``
  with a weight, into pre-all-gather, all_gather and eltwise ops before the runtime).
"""

from __future__ import annotations

import re

from .cb import CB, CBContext, CBModelError, DeviceRejection, ProgramModel
from .operands import operand_groups, tensor_or_none
from .registry import int_attr, register_cb, register_check
from .tensors import Tensor, operand, result
from .ccl_programs import PACKET_HEADER_1D_BYTES, core_set
from .work_split import split_work_to_cores

POST_SOURCE = ("tt-metal ttnn/cpp/ttnn/operations/normalization/layernorm_distributed/device/"
               "layernorm_post_all_gather_program_factory.cpp @015365c6 (LayerNormPostAllGatherProgramFactory::create), "
               "its CB list measured on the mock with ttnn 0.81.1 (measurements/distributed_norm/results_post.jsonl)")
_BF16_TILE = 2048


def post_all_gather_program(x: Tensor, stats: Tensor, out: Tensor, gamma: Tensor | None, beta: Tensor | None,
                            grid: tuple[int, int], usable_l1: int, fp32_dest_acc: bool = False) -> ProgramModel:
    """``LayerNormPostAllGatherProgramFactory`` (1D, LayerNorm): normalize ``x`` [..., H, W] with the gathered
    ``stats`` (2 tiles per device: sum and sum of squares).

    With ``Wt = padded W / 32`` and ``cb_length = Wt`` (cut to ``int(usable_l1 / in_tile * 0.95 / 7)`` when
    ``Wt`` input tiles pass 95% of ``usable_l1 = l1_size - l1_unreserved_base``; from source, not met by the
    measured cases), the ``N*C*Ht`` tile rows split row-wise over the grid (``split_work_to_cores(grid, rows,
    true)``), every CB on every core of the split, in creation order: input ``cb_length``; statistics
    ``stats_W / 32`` stats tiles; gamma / beta ``cb_length`` tiles of their own format when given; epsilon and
    reduce scaler 1 bf16 tile each; then in the intermediate format (bf16, f32 with ``fp32_dest_acc_en``) the
    reduced statistics 2 tiles, 1, ``cb_length``, 1 and 1 tile(s), one more ``cb_length`` buffer for each of gamma
    and beta; the output ``cb_length`` output tiles.  The CB list is the one ttnn 0.81.1 allocates on the mock
    (tests/test_norm_distributed.py: 16 random instances, with both gamma and beta or neither); the stored source
    @015365c6 has one more 1-tile and one more ``cb_length`` intermediate, and its CB indices are not measured
    (the graph capture records sizes and cores), so the intermediates are numbered in creation order.

    Raises:
        CBModelError: row-major or sharded input/stats/output, or statistics whose width is not a whole number
            of devices' 2 tiles (tt-metal TT_FATAL "Number of devices must divide number of stats tiles").
    """
    if not (x.tiled and stats.tiled) or any(t.sharded for t in (x, stats, out)):
        raise CBModelError("layer_norm_post_all_gather is modeled for interleaved TILE input and statistics")
    wt = x.padded[-1] // 32
    stats_cols = stats.padded[-1] // 32
    if stats_cols % 2 or not stats_cols:
        raise CBModelError(f"statistics of {stats_cols} tiles do not hold 2 tiles per device "
                           "(TT_FATAL 'Number of devices must divide number of stats tiles')")
    rows = x.physical_volume // (x.padded[-1] * 32)
    cb_length = wt
    if wt * x.tile_bytes > usable_l1 * 0.95:
        cb_length = int(usable_l1 / x.tile_bytes * 0.95 / 7)
    split = split_work_to_cores(grid, rows, row_wise=True)
    cores = split.all_cores
    inter = 4096 if fp32_dest_acc else _BF16_TILE
    cbs = [CB(0, "input", x.tile_bytes, cb_length, cores), CB(1, "stats", stats.tile_bytes, stats_cols, cores)]
    if gamma is not None:
        cbs.append(CB(2, "gamma", gamma.tile_bytes, cb_length, cores))
    if beta is not None:
        cbs.append(CB(3, "beta", beta.tile_bytes, cb_length, cores))
    cbs += [CB(4, "epsilon", _BF16_TILE, 1, cores), CB(5, "reduce_scaler", _BF16_TILE, 1, cores)]
    pages = [2, 1, cb_length, 1, 1] + [cb_length] * ((gamma is not None) + (beta is not None))
    cbs += [CB(6 + i, f"intermediate{i}", inter, n, cores) for i, n in enumerate(pages)]
    cbs.append(CB(16, "out", out.tile_bytes, cb_length, cores))
    notes = [f"{rows} tile rows of Wt {wt} on {split.num_cores} cores; statistics of {stats_cols // 2} device(s)"]
    if cb_length != wt:
        notes.append(f"CB length cut to {cb_length} tiles (Wt {wt} input tiles pass 95% of L1; from source)")
    return ProgramModel("LayerNormPostAllGatherDeviceOperation::LayerNormPostAllGatherProgramFactory", POST_SOURCE,
                        cores, cbs, notes, inputs=(x, stats), outputs=(out,))


POST_VALIDATE_SOURCE = ("tt-metal ttnn/cpp/ttnn/operations/normalization/layernorm_distributed/device/"
                        "layernorm_post_all_gather_device_operation.cpp @031b0aba validate_on_program_cache_miss, "
                        "layernorm_post_all_gather_program_factory.cpp:129 (ttnn 0.81.1's message)")
_NORM_DTYPES = ("bf16", "bfp_bf8", "f32")


def post_all_gather_refusal(x: Tensor, stats: Tensor, gamma: Tensor | None, beta: Tensor | None,
                            fp32_dest_acc: bool) -> str | None:
    """Why tt-metal refuses ``layer_norm_post_all_gather(x, stats, gamma, beta)`` (:data:`POST_VALIDATE_SOURCE`),
    or None: the input and statistics dtypes (bf16, bfloat8_b, f32), the statistics' dims 0-2 equal to the
    input's (padded; ``padded_shape()[2]`` of a rank-2 input is out of range), a TILE gamma/beta with the input's
    last dim and one tile row (``[W]`` or ``[1, W]``), a row-major one ``[W / 32, 32]`` (padded last dim 32 and
    ``physical volume / 32 == padded W / 32``), gamma/beta bf16 or f32, and f32 input or statistics only with
    ``fp32_dest_acc_en`` (the factory's TT_FATAL)."""
    for t, what in ((x, "input"), (stats, "stats")):
        if t.dtype.name not in _NORM_DTYPES:
            return f"{what} tensor must be BFLOAT16, BFLOAT8_B, or FLOAT32, got {t.dtype}"
    if stats.padded[-1] % 32:
        return f"stats inner dimension must be divisible by 32, got {stats.padded[-1]}"
    for d in range(3):  # in the validator's order
        if d >= min(x.rank, stats.rank):
            return f"a rank-{min(x.rank, stats.rank)} input or statistics: padded_shape()[{d}] is out of range"
        if stats.padded[d] != x.padded[d]:
            return f"stats and input dim{d} must match, got stats: {stats.padded[d]} vs input: {x.padded[d]}"
    for t, what in ((gamma, "gamma"), (beta, "beta")):
        if t is None:
            continue
        if t.tiled:
            if t.shape[-1] != x.shape[-1] or t.padded[-1] != x.padded[-1]:
                return f"input and {what} last logical and padded dims must match"
            if t.rank >= 2 and t.padded[-2] != 32:  # a rank-1 TILE tensor's padded shape is [32, W]
                return f"{what} tensor height must equal tile height (32)"
        elif not (t.padded[-1] == 32 and t.physical_volume // 32 == x.padded[-1] // 32):
            return (f"{what} tensor dimensions must align with input tensor (row-major [W / 32, 32]), got padded "
                    f"{list(t.padded)}")
        if t.dtype.name not in ("bf16", "f32"):
            return f"{what} tensor must be BFLOAT16 or FLOAT32, got {t.dtype}"
    if (x.dtype.name == "f32" or stats.dtype.name == "f32") and not fp32_dest_acc:
        return "FLOAT32 input/stats require fp32_dest_acc_en"
    return None


def _fp32_acc(op) -> bool:
    cc = op.attrs.get("compute_config")
    return bool(cc is not None and getattr(cc, "fp32_dest_acc_en", None))


def post_all_gather_cb(ctx: CBContext) -> ProgramModel:
    """``ttnn.layer_norm_post_all_gather``: :func:`post_all_gather_program` on the op's operands.

    Raises:
        DeviceRejection: what tt-metal validates (:func:`post_all_gather_refusal`; measured: the op-level
            campaign's layer_norm_post_all_gather instances, measurements/opdiff/runs/gens).
        CBModelError: a program config (the sharded factory), or see :func:`post_all_gather_program`.
    """
    op = ctx.op
    if op.attrs.get("program_config") is not None:
        raise CBModelError(f"{op.name} with a program config (the sharded factory) is not modeled")
    g = operand_groups(op, ("input", "stats", "weight?", "bias?"))
    tensors = {name: (operand(ctx, op.operands.index(v)) if v is not None else None)
               for name, v in ((n, tensor_or_none(g, n)) for n in ("input", "stats", "weight", "bias"))}
    why = post_all_gather_refusal(tensors["input"], tensors["stats"], tensors["weight"], tensors["bias"], _fp32_acc(op))
    if why is not None:
        raise DeviceRejection(f"{op.name}: TT_FATAL {why} (layernorm_post_all_gather_device_operation.cpp)")
    arch = ctx.arch
    return post_all_gather_program(tensors["input"], tensors["stats"], result(ctx), tensors["weight"],
                                   tensors["bias"], ctx.grid, arch.l1_size - arch.l1_unreserved_base, _fp32_acc(op))


def distributed_layer_norm_cb(ctx: CBContext) -> list[ProgramModel]:
    """``ttnn.distributed_layer_norm`` as tt-mlir's decomposition runs it (module docstring): the
    pre-all-gather statistics ``[..., 64]`` (sum and sum of squares, bf16), the all-gather of the statistics
    over the op's cluster axis (``[..., 64 * n]``), and the post-all-gather normalization.

    Raises:
        CBModelError: a residual (the decomposition adds it with a ``ttnn.add`` first, not modeled here), or
            see the three steps' models.
    """
    from .ccl_programs import all_gather_program_of, fabric_of
    from .norm_extra import pre_all_gather_steps

    op = ctx.op
    g = operand_groups(op, ("input", "weight?", "bias?", "residual?", "device"))
    if tensor_or_none(g, "residual") is not None:
        raise CBModelError(f"{op.name} with a residual (decomposed with an add first) is not modeled")
    x, out = operand(ctx, 0), result(ctx)
    fab = fabric_of(op, honours_num_links=False)
    stats = x.with_(shape=(*x.shape[:-1], 64))
    gathered = stats.with_(shape=(*x.shape[:-1], 64 * fab.n))
    steps = pre_all_gather_steps(x, None, stats, "ttnn.layer_norm_pre_all_gather", ctx.grid, ctx.arch, False)
    steps[-1].inputs, steps[-1].outputs = (x,), (stats,)
    steps.append(all_gather_program_of(ctx, stats, gathered, stats.rank - 1, fab))
    weight, bias = (operand(ctx, op.operands.index(v)) if v is not None else None
                    for v in (tensor_or_none(g, "weight"), tensor_or_none(g, "bias")))
    arch = ctx.arch
    steps.append(post_all_gather_program(x, gathered, out, weight, bias, ctx.grid,
                                         arch.l1_size - arch.l1_unreserved_base))
    for s in steps:
        s.notes.append(f"{op.name} decomposed by tt-mlir into pre-all-gather, all_gather over cluster axis "
                       f"{int_attr(op, 'cluster_axis', 0)}, post-all-gather")
    return steps


FUSED_RMS_SOURCE = ("tt-metal ttnn/cpp/ttnn/operations/experimental/ccl/rms_allgather/device/"
                    "rms_allgather_program_factory.cpp @00503008 (RMSAllGatherMeshWorkloadFactory::create_at: the CBs); "
                    "its kernels' names and TT_FATAL strings are in the 0.81.1 wheel, whose sender reader takes one more "
                    "compile-time argument (num_mcast_dests) than that version; from source")
_BLOCK = re.compile(r"\b(subblock_w|block_w|block_h)\s*=\s*(\d+)")


def fused_rms_program(ctx: CBContext) -> ProgramModel:
    """``ttnn.distributed_rms_norm`` runs ``ttnn::fused_rms_minimal`` (tt-mlir ``runtime/lib/ttnn/operations/
    normalization/distributed_rms_norm.cpp`` @19c86fca): ``RMSAllGatherDeviceOperation``, the RMS statistics of a
    width-sharded ``(1, 1, 32, K)`` input, their all-gather over the fabric and the normalization in one program on
    the input's shard grid (tt-mlir's ``DistributedRMSNormWidthShardInputRewritePattern`` shards the input into L1,
    adds the stats scratch tensor, a compute config and the ``layernorm_sharded_multicore_program_config``;
    other shapes are decomposed before the runtime).

    With ``bw`` the program config's ``block_w`` (tiles per core), ``t`` the intermediate tile (4,096 B with
    ``fp32_dest_acc_en``, else 2,048 B), static CBs on every core of the shard grid: ``c_0``, ``c_1`` scalers,
    ``c_13`` epsilon, ``c_14`` scaler 1 bf16 tile each; ``c_2`` partial, ``c_3`` E(x^2), ``c_9`` global stats 1 ``t``
    each; ``c_4`` the external partials, ``gx + gy - 1`` ``t`` with the two-stage reduce (a shard grid of several
    rows and columns), else ``ceil(Kt / bw)``; ``c_6`` and ``c_15`` ``bw`` ``t`` each; ``c_7`` one stats tile;
    ``c_8`` 8 x 2 packet headers of 48 B; ``c_10`` the output ``bw`` output tiles (backed by the output buffer when
    the output keeps the input's shard spec); ``c_11`` gamma ``bw`` tiles of its dtype; ``c_20`` a 2-B signal; on
    the sender core (the grid's first) ``c_17`` and ``c_18`` 1 ``t`` each.  The input, residual, resharded output
    and stats CBs are backed by their tensors' buffers.

    Raises:
        CBModelError: an input that is not sharded or no program config / stats (the workaround has not run: the
            runtime would refuse), or no mesh known.
    """
    from .ccl_programs import fabric_of

    op = ctx.op
    g = operand_groups(op, ("input", "weight?", "residual?", "stats?", "semaphore?", "device"))
    x, out = operand(ctx, 0), result(ctx)
    stats_v, weight_v = tensor_or_none(g, "stats"), tensor_or_none(g, "weight")
    if not x.sharded or x.shard is None or not out.sharded or out.shard is None:
        raise CBModelError(f"{op.name} of an unsharded input: fused_rms_minimal takes a width-sharded L1 input "
                           "(tt-mlir's width-shard workaround has not run on this IR)")
    cfg = dict((k, int(v)) for k, v in _BLOCK.findall(str(op.raw_attrs.get("program_config", ""))))
    if "block_w" not in cfg or stats_v is None:
        raise CBModelError(f"{op.name} without a program config or a stats tensor: the runtime asserts both "
                           "(tt-mlir adds them in its workaround pass), not modeled")
    fab = fabric_of(op, honours_num_links=True)
    stats = operand(ctx, op.operands.index(stats_v))
    gamma = operand(ctx, op.operands.index(weight_v)) if weight_v is not None else None
    bw = cfg["block_w"]
    fp32 = _fp32_acc(op)
    t = 4096 if fp32 else _BF16_TILE
    kt = x.padded[-1] // 32
    grid = x.shard.grid
    xs = [c for r in grid.ranges for c in range(r.start.x, r.end.x + 1)]
    ys = [c for r in grid.ranges for c in range(r.start.y, r.end.y + 1)]
    gx, gy = max(xs) - min(xs) + 1, max(ys) - min(ys) + 1
    two_stage = 1 < gx <= ctx.grid[0] and gy > 1
    external = gx + gy - 1 if two_stage else -(-kt // bw)
    sender = core_set([(min(xs), min(ys))])
    skip_write_back = out.shard.shape == x.shard.shape and out.shard.grid == grid
    cbs = [CB(0, "scaler", _BF16_TILE, 1, grid), CB(1, "pre_scaler", _BF16_TILE, 1, grid),
           CB(2, "ex_partial2", t, 1, grid), CB(3, "ex2", t, 1, grid), CB(4, "ex_external2", t, external, grid),
           CB(6, "pre_x", t, bw, grid), CB(7, "to_allgather_writer", stats.tile_bytes, 1, grid),
           CB(8, "packet_headers", PACKET_HEADER_1D_BYTES, 16, grid),
           CB(12, "in0", x.tile_bytes, bw, grid, globally_allocated=True),
           CB(5, "pre_in0", x.tile_bytes, bw, grid, globally_allocated=True),
           CB(9, "ex_global", t, 1, grid),
           CB(10, "out", out.tile_bytes, bw, grid, globally_allocated=skip_write_back)]
    if gamma is not None:
        cbs.append(CB(11, "gamma", gamma.dtype.tile_bytes(), bw, grid))
    cbs += [CB(13, "eps", _BF16_TILE, 1, grid), CB(14, "scaler_c", _BF16_TILE, 1, grid), CB(15, "x", t, bw, grid)]
    if not skip_write_back:
        cbs.append(CB(16, "out_resharded", out.tile_bytes, out.shard.shape[1] // 32, out.shard.grid,
                      globally_allocated=True))
    cbs += [CB(17, "var", t, 1, sender), CB(18, "stats_reduced", t, 1, sender),
            CB(19, "stats", t, stats.padded[-1] // 32, sender, globally_allocated=True),
            CB(20, "signaling", 2, 1, grid)]
    notes = list(fab.notes) + [
        f"shard grid {gx}x{gy} ({grid.num_cores} cores), block_w {bw} tiles, Kt {kt}"
        + (", two-stage reduce" if two_stage else ""),
        f"intermediates in {'float32' if fp32 else 'bfloat16'} (fp32_dest_acc_en {'on' if fp32 else 'off'})",
        "from source, its CB list checked on a 1x2 mock mesh in one configuration (measurements/ccl: 4 cores, one "
        "row, fp32 accumulation); the two-stage reduce and the residual add from source only"]
    return ProgramModel("RMSAllGatherDeviceOperation::RMSAllGatherMeshWorkloadFactory", FUSED_RMS_SOURCE, grid, cbs,
                        notes, inputs=(x,), outputs=(out,), params={"ring_size": fab.n, "num_links": fab.links})


register_cb("ttnn.layer_norm_post_all_gather")(post_all_gather_cb)
register_cb("ttnn.distributed_layer_norm")(distributed_layer_norm_cb)
register_cb("ttnn.distributed_rms_norm")(fused_rms_program)
register_check("ttnn.layer_norm_post_all_gather", "mock",
               "tests/test_norm_distributed.py against measurements/distributed_norm/results_post.jsonl (16 instances)",
               ("LayerNormPostAllGatherDeviceOperation",))
register_check("ttnn.distributed_layer_norm", "source",
               "tt-mlir DistributedLayerNormDecompositionRewritePattern.cpp @19c86fca: pre- and post-all-gather "
               "measured on the mock, the all_gather from source (ttanalyze/ops/ccl_programs.py)",
               ("LayerNormPreAllGatherDeviceOperation", "AllGatherDeviceOperation",
                "LayerNormPostAllGatherDeviceOperation"))
register_check("ttnn.distributed_rms_norm", "mock", FUSED_RMS_SOURCE + "; measured on a 1x2 mock mesh: "
               "tests/test_ccl_measured.py (1 case; the two-stage reduce and residual paths from source only)",
               ("RMSAllGatherDeviceOperation",))
