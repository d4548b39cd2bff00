"""Random instances of ``selective_reduce_combine`` measured on a mock 2x1 Blackhole mesh (one P300 board).

tt-mlir's runtime (``runtime/lib/ttnn/operations/ccl/selective_reduce_combine.cpp`` @19c86fca) calls
``ttnn::prim::selective_reduce_combine(dense_input, dense_activations, dense_token_maps, dense_token_counts,
hidden_size, batch_size, seq_size, select_experts_k, axis=0, Topology::Ring, num_links=4, token_parallel 4,
data_parallel 3, worker cores (1,0)..(3,3) row by row, mux cores (4,0)-(5,3), DRAM output, no output tensor, no
semaphore)``, GPT-OSS's constants.  The probe makes the same call with two changes the mock forces: the mesh is
opened 2x1 so that the runtime's axis 0 has two devices, and ``num_links`` is 2, the ethernet channels between the
P300's chips (4 is refused there: "Requested link index 2 is out of bounds. 2 ethernet channels available"; the
links change no CB).  The device is opened with tt-mlir's ``l1_small_size`` (64 KiB, ``include/Constants.h``).

The operands follow ttnn's contract (the ``moe_compute`` outputs): the dense input ``[E * T / tp * tp * dp, H / dp]``
bf16 row-major, height-sharded in L1 over the 12 worker cores; the activations ``[1, T * s]`` u32 with
``s = align((2 E + 1) * 4 B, its buffer's alignment) / 4``; the token maps ``[E, (T + 1) * s]`` u32; the token counts
``[1, E]`` u32; ``E`` the local experts, ``T = batch * seq``.

A case: ``id``, ``experts_local``, ``batch``, ``seq``, ``hidden``, ``k``, ``buffers`` (activations, maps, counts:
``l1``/``dram``), ``input_buffer`` and ``stride_extra`` (elements added to ``s``: outside ttnn's contract), ``maps_rank3``, ``axis``
(the cluster axis of the call: 1 stands for the runtime's axis 0 on a 1x2 mesh, one device on that axis).
"""

from __future__ import annotations

import random
from dataclasses import dataclass

MESH = (2, 1)  # the probe's first mesh: the runtime's cluster axis 0 has 2 devices
MESH_2X2 = (2, 2)  # its second: two P300 boards cabled as a ring (measurements/ccl/bh_ring4.yaml) opened 2x2
TOKEN_PARALLEL, DATA_PARALLEL = 4, 3  # the runtime's kDefaultTokenParallelCoreDim / kDefaultDataParallelCoreDim
WORKERS = [(x, y) for y in range(TOKEN_PARALLEL) for x in range(1, DATA_PARALLEL + 1)]  # the runtime's order
MUX = ((4, 0), (5, 3))
LINKS = 2


@dataclass(frozen=True)
class SelectiveCase:
    id: str
    experts_local: int
    batch: int
    seq: int
    hidden: int
    k: int
    buffers: tuple = ("l1", "l1", "l1")
    input_buffer: str = "l1"
    stride_extra: int = 0
    maps_rank3: bool = False
    axis: int = 0
    mesh: tuple = MESH


def _cases(rng: random.Random) -> list[SelectiveCase]:
    out = []
    for i in range(22):
        e = rng.choice([1, 2, 3, 4, 4, 8])
        b = rng.choice([8, 16, 32, 32, 64, 128])
        s = rng.choice([1, 1, 1, 2])
        h = rng.choice([2880, 2880, 1536, 3072, 768, 4032, 7680, 7168, 1024])
        k = rng.choice([1, 2, 4, 8])
        bufs = tuple(rng.choice(["l1", "l1", "dram"]) for _ in range(3))
        case = SelectiveCase(f"selective_reduce_combine/{i}", e, b, s, h, k, bufs)
        if i == 18:  # outside ttnn's contract: a dense input in DRAM
            case = SelectiveCase(case.id, e, b, s, 2880, k, bufs, input_buffer="dram")
        if i == 19:  # outside ttnn's contract: activations rows of the wrong stride
            case = SelectiveCase(case.id, e, b, s, 2880, k, bufs, stride_extra=4)
        if i == 20:  # token maps as [1, E, (T + 1) * s]: which dim gives the local experts
            case = SelectiveCase(case.id, e, b, s, 2880, k, bufs, maps_rank3=True)
        if i == 21:  # a hidden size above one fabric packet per data-parallel core
            case = SelectiveCase(case.id, e, b, s, 8192, k, bufs)
        out.append(case)
    # the runtime's axis-0 call on a mesh whose axis has one device, as the symmetric call (axis 1 of the 2x1 mesh)
    out.append(SelectiveCase("selective_reduce_combine/22", 4, 32, 1, 2880, 4, axis=1))
    return out


def _cases_2x2(rng: random.Random) -> list[SelectiveCase]:
    """On the 2x2 mesh: 2 devices on axis 0 of 4 in the mesh."""
    out = []
    for i in range(6):
        e = rng.choice([1, 2, 4])
        b = rng.choice([16, 32, 64])
        h = rng.choice([2880, 1536, 3072])
        k = rng.choice([2, 4, 8])
        bufs = tuple(rng.choice(["l1", "dram"]) for _ in range(3))
        out.append(SelectiveCase(f"selective_reduce_combine/{23 + i}", e, b, 1, h, k, bufs, mesh=MESH_2X2))
    return out


CASES = _cases(random.Random(1112)) + _cases_2x2(random.Random(1114))
