"""``ttnn.rms_norm`` as the jax-tt-plugin runtime runs it (tt-metal 614f605f): width-sharded over 8 x 2 cores.

ttnn 0.81.1 runs an interleaved rms_norm in ``LayerNormMultiCoreProgramFactory`` (one tile row per
core; :func:`ttanalyze.ops.reduction.layernorm_program`).  The real compiler's runtime (jax-tt-plugin
0.1.3: tt-mlir + tt-metal 614f605f) does not: it reshards the input to L1, width-sharded, runs
``LayerNormShardedProgramFactory`` and writes the result back to the interleaved output.  Measured on
the mock P150 through the plugin (``measurements/rms_norm_614f605f/``):

* the kernels it builds are ``reader_unary_sharded_blocks_interleaved_start_id`` (interleaved to
  sharded), ``layernorm_sharded`` with ``RMSNORM`` and ``FUSE_GAMMA``, ``block_h`` 1, ``block_w`` =
  Wt / 16, ``num_blocks_first_stage`` 8 and ``num_blocks_second_stage`` 2 (a two-stage reduce on an
  8 x 2 grid), and ``writer_unary_sharded`` (sharded to interleaved): the same grid for every one-tile-row
  input from Wt 256 to Wt 3072 (ten widths, f32 and bf16); Wt 128 ran on 8 x 1, Wt 32-36 on 4-11 cores,
  taller inputs on other grids: those are not modeled;
* tt-metal's refusals name core range [0-0 - 7-1], and the figures follow from the factory's DFBs
  (below) and the two L1 shards (input and output, ``block_w`` tiles each per core) allocated top-down
  under L1_SMALL.  At [32, 36864] f32: "L1 buffer allocated at 917504 and static dataflow buffer
  region ends at 1123456" = 1,507,328 - 2 x 72 x 4,096 and 177,280 + 61,440 + 72 x 12,288.

The DFBs follow ``sharded_layernorm_factory_helpers.cpp`` (``DFBSizeParams::compute``,
``add_dataflow_buffer_specs``) of tt-metal 614f605f, for a non-distributed RMS norm with ``block_h`` 1:
the input and output DFBs borrow the shards (no static L1); ``scaler`` and ``eps`` one bf16 tile each;
``scaler_global`` one intermediate-format tile; ``ex_partial2`` 1, ``ex_external2``
``num_blocks_first_stage + num_blocks_second_stage - 1`` and ``ex2`` 1 intermediate tiles; ``ex2pe``
``ceil(block_h / 8)`` = 1; ``gamma`` / ``beta`` ``block_w`` tiles of their format; ``x`` and ``xmm``
``block_w`` intermediate tiles; ``ex_global`` 1.  Intermediates are f32 with fp32 accumulation, else
bf16.
"""

from __future__ import annotations

from ..ir.attrs import DataType
from .cb import CB, CBModelError, ProgramModel, core_range, cores_set
from .tensors import Tensor

SOURCE = ("tt-metal 614f605f ttnn/cpp/ttnn/operations/normalization/layernorm/device/"
          "sharded_layernorm_factory_helpers.cpp (DFBSizeParams::compute, add_dataflow_buffer_specs); grid and "
          "resharding measured through jax-tt-plugin 0.1.3 (measurements/rms_norm_614f605f/)")
GRID_X, GRID_Y = 8, 2  # the measured grid: num_blocks_first_stage 8, num_blocks_second_stage 2
MIN_WT = 256  # the narrowest one-tile-row width measured on the 8 x 2 grid (Wt 128 ran on 8 x 1)

F32_TILE = DataType("f32").tile_bytes()
BF16_TILE = DataType("bf16").tile_bytes()


def rms_norm_width_sharded_614f605f(x: Tensor, out: Tensor, gamma: Tensor | None, beta: Tensor | None,
                                    fp32_acc: bool) -> ProgramModel:
    """The layer-norm sharded program the plugin's runtime runs for an interleaved ``ttnn.rms_norm``.

    Args:
        x: the input, interleaved and tiled, ``[..., H, W]`` with ``NC * Ht == 1`` (one tile row).
        out: the result (its tile size sizes the output shard).
        gamma / beta: the weight and bias, tiled, or None.
        fp32_acc: the compute config's ``fp32_dest_acc_en`` (intermediates f32 when set, else bf16).

    Returns:
        The program on cores (0,0)-(7,1): its static DFBs (bytes per core, formula in the module
        docstring) and, as ``l1_buffers_per_core``, the input and output shards,
        ``2 * block_w * tile bytes`` (``block_w = Wt / 16``).

    Raises:
        CBModelError: a configuration outside the measured grid (more than one tile row, Wt not a
            multiple of 16 or below 256, row-major weights): the plugin runs it on a grid not modeled.
    """
    from .reduction import dims4  # the shared norm module's tile dims

    nc, ht, wt = dims4(x)
    cores_n = GRID_X * GRID_Y
    if nc * ht != 1 or wt % cores_n or wt < MIN_WT:
        raise CBModelError(f"rms_norm under tt-metal 614f605f (jax-tt-plugin) runs width-sharded; its grid is "
                           f"measured for one tile row and Wt a multiple of {cores_n} from {MIN_WT} only (here "
                           f"{nc * ht} tile rows, Wt {wt})")
    for name, w in (("weight", gamma), ("bias", beta)):
        if w is not None and not w.tiled:
            raise CBModelError(f"rms_norm with a row-major {name} under tt-metal 614f605f is not modeled")
    block_w = wt // cores_n
    cb = F32_TILE if fp32_acc else BF16_TILE
    stages = GRID_X + GRID_Y - 1  # ex_external2: num_blocks_first_stage + num_blocks_second_stage - 1
    cores = cores_set(core_range(0, 0, GRID_X - 1, GRID_Y - 1))
    specs = [("in0", x.tile_bytes, block_w, True), ("scaler", BF16_TILE, 1, False), ("eps", BF16_TILE, 1, False),
             ("scaler_global", cb, 1, False), ("ex_partial2", cb, 1, False), ("ex_external2", cb, stages, False),
             ("ex2", cb, 1, False), ("ex2pe", cb, 1, False)]
    if gamma is not None:
        specs.append(("gamma", gamma.tile_bytes, block_w, False))
    if beta is not None:
        specs.append(("beta", beta.tile_bytes, block_w, False))
    specs += [("x", cb, block_w, False), ("xmm", cb, block_w, False), ("ex_global", cb, 1, False),
              ("out", out.tile_bytes, block_w, True)]
    cbs = [CB(i, name, page, n, cores, globally_allocated=borrowed) for i, (name, page, n, borrowed) in enumerate(specs)]
    shards = block_w * (x.tile_bytes + out.tile_bytes)
    notes = [f"rms_norm as jax-tt-plugin's runtime runs it (tt-metal 614f605f): resharded to L1, width-sharded on "
             f"{GRID_X} x {GRID_Y} cores, block_w {block_w} tiles, LayerNormShardedProgramFactory with a two-stage "
             f"reduce; the input and output shards hold {shards:,} B per core while it runs"]
    return ProgramModel("LayerNormDeviceOperation::LayerNormShardedProgramFactory (resharded by the runtime)", SOURCE,
                        cores, cbs, notes, l1_buffers_per_core=shards)
