"""Replay the measured allocation sequences through ``ttanalyze.allocator`` and score the agreement.

Reads the raw results of ``measure.py`` (ttnn 0.81.1 on the mock P150) and, for every
step, compares the model with tt-metal:

* bank sizes for each ``open_device`` configuration;
* per allocation: the buffer's address (``buffer_address``), or tt-metal's out-of-memory
  message, to the byte (the model's :meth:`OutOfMemory.message`);
* after every step: the allocator statistics of L1 and DRAM (allocated, free, largest
  free block per bank).

Rerun (the analyzer's environment, no device needed):

    .venv/bin/python measurements/allocator/compare.py measurements/allocator/raw.jsonl.gz \\
        --reshape-map measurements/allocator/reshape_map.jsonl --json measurements/allocator/results.json
"""

from __future__ import annotations

import argparse
import gzip
import json
import sys
from dataclasses import replace
from math import prod
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from ttanalyze.allocator import DeviceAllocator, OutOfMemory, bank_configs  # noqa: E402
from ttanalyze.arch import MOCK_P150_TTNN_0_81_1  # noqa: E402

ESIZE = {"bf16": 2, "f32": 4}


def buffer_of(spec: dict) -> tuple[str, int, int, int | None]:
    """(buffer type, size, page size, shards) of a ``ttnn.empty`` spec, as tt-metal's Buffer sees them."""
    e = ESIZE[spec["dtype"]]
    shape = spec["shape"]
    bt = spec["buffer_type"]
    if spec["layout"] == "tile":
        page = 1024 * e
        rows = prod(shape[:-1])
        pages = (-(-rows // 32)) * (-(-shape[-1] // 32))
    else:
        page = shape[-1] * e
        pages = prod(shape[:-1])
    if spec["memory_layout"] == "interleaved":
        return bt, pages * page, page, None
    cx, cy = spec["cores"]
    sh, sw = spec["shard"]
    shard_pages = (sh // 32) * (sw // 32)
    return bt, shard_pages * cx * cy * page, page, cx * cy


def arch_for(open_kwargs: dict):
    return replace(MOCK_P150_TTNN_0_81_1, l1_small_size=int(open_kwargs.get("l1_small_size", 0)))


def reshape_maps(path: Path) -> list[dict]:
    """The tiled reshape's kept DRAM page-mapping tensor, measured (growth of the DRAM left allocated once the
    input and output are freed, program cache on) and modeled (``reshape_tiled_program`` ``device_buffers``
    through :func:`ttanalyze.allocator.size_per_bank` and the 64-B block)."""
    from ttanalyze.allocator import round_up, size_per_bank
    from ttanalyze.ir.attrs import DataType
    from ttanalyze.layout import tile_padded_shape
    from ttanalyze.ops.data_movement import reshape_tiled_program
    from ttanalyze.ops.tensors import MemCfg, Tensor

    arch = MOCK_P150_TTNN_0_81_1
    rows = [json.loads(line) for line in path.read_text().splitlines()]
    out, kept = [], 0
    for r in rows:
        if "input" not in r or not r["program_cache"]:
            continue
        measured = r["kept_after_all_freed"] - kept
        kept = r["kept_after_all_freed"]
        mk = lambda shape: Tensor(tuple(shape), tile_padded_shape(tuple(shape)), DataType("bf16"), "tile",
                                  MemCfg("dram", "interleaved"), arch.l1_alignment, arch.dram_alignment)
        x, y = mk(r["input"]), mk(r["output"])
        [db] = reshape_tiled_program(x, tuple(r["output"]), y, arch.grid).device_buffers
        model = round_up(size_per_bank(db.size, db.page_size, arch.num_dram_channels, arch.dram_alignment),
                         arch.dram_alignment)
        out.append({"input": r["input"], "output": r["output"], "measured": measured, "model": model})
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("raw")
    ap.add_argument("--json", help="write the summary here")
    ap.add_argument("--reshape-map", help="raw results of measure_reshape_map.py")
    args = ap.parse_args(argv)
    records = [json.loads(line) for line in gzip.open(args.raw, "rt")]
    summary = {"bank_sizes": [], "allocations": 0, "address_equal": 0, "oom_measured": 0, "oom_predicted": 0,
               "oom_both": 0, "oom_message_equal": 0, "fragmentation_ooms": 0, "stats_checked": 0, "stats_equal": 0,
               "by_kind": {}, "mismatches": []}
    for r in records:
        if r["kind"] == "bank_sizes":
            arch = arch_for(r["open_kwargs"])
            cfg = bank_configs(arch, int(r["open_kwargs"].get("trace_region_size", 0)))
            row = {"open_kwargs": r["open_kwargs"],
                   "l1": [r["l1"]["bank_size"], cfg["l1"].bank_size],
                   "l1_small": [r["l1_small"]["bank_size"], cfg["l1_small"].bank_size if r["l1_small"]["num_banks"] else 0],
                   "dram": [r["dram"]["bank_size"], cfg["dram"].bank_size]}
            row["equal"] = all(a == b for a, b in (row["l1"], row["l1_small"], row["dram"]))
            summary["bank_sizes"].append(row)
            continue
        if r["kind"] not in ("probe", "random"):
            continue
        arch = arch_for(r["open_kwargs"])
        alloc = DeviceAllocator(arch, int(r["open_kwargs"].get("trace_region_size", 0)))
        live = {}
        name = r.get("name", f"seed {r.get('seed')}")
        for i, step in enumerate(r["steps"]):
            if step["op"] == "alloc":
                bt, size, page, shards = buffer_of(step["spec"])
                kind = f"{bt}/{step['spec']['memory_layout']}"
                k = summary["by_kind"].setdefault(kind, {"allocations": 0, "agree": 0, "oom_measured": 0})
                k["allocations"] += 1
                summary["allocations"] += 1
                got = alloc.allocate(bt, size, page, shards)
                measured_oom = step.get("oom")
                ok = False
                if isinstance(got, OutOfMemory):
                    summary["oom_predicted"] += 1
                    if measured_oom:
                        summary["oom_both"] += 1
                        ok = got.message() == measured_oom.strip()
                        summary["oom_message_equal"] += ok
                        summary["fragmentation_ooms"] += got.fragmentation
                    detail = {"model": got.message(), "measured": measured_oom or step.get("address")}
                else:
                    live[step["id"]] = got
                    if "address" in step:
                        ok = got.address == step["address"]
                        summary["address_equal"] += ok
                    detail = {"model": got.address, "measured": measured_oom or step.get("error") or step.get("address")}
                if measured_oom:
                    summary["oom_measured"] += 1
                    k["oom_measured"] += 1
                k["agree"] += ok
                if not ok:
                    summary["mismatches"].append({"sequence": name, "step": i, "spec": step["spec"], **detail})
            else:
                a = live.pop(step["id"], None)
                if a is not None:
                    alloc.deallocate(a)
            for bt in ("l1", "dram"):
                s = alloc.managers[bt].statistics()
                m = step["stats"][bt]
                summary["stats_checked"] += 1
                eq = (s.allocated, s.free, s.largest_free) == (m["allocated"], m["free"], m["largest_free"])
                summary["stats_equal"] += eq
                if not eq and len(summary["mismatches"]) < 200:
                    summary["mismatches"].append({"sequence": name, "step": i, "stats": bt,
                                                  "model": [s.allocated, s.free, s.largest_free],
                                                  "measured": [m["allocated"], m["free"], m["largest_free"]]})
    meta = next((r for r in records if r["kind"] == "meta"), {})
    summary["ttnn_version"] = meta.get("ttnn_version", "")
    print(f"bank sizes: {sum(b['equal'] for b in summary['bank_sizes'])} of {len(summary['bank_sizes'])} "
          f"configurations equal")
    for b in summary["bank_sizes"]:
        print(f"  {b['open_kwargs']}: L1 {b['l1']}, L1_SMALL {b['l1_small']}, DRAM {b['dram']} (measured, model)")
    agree = summary["address_equal"] + summary["oom_message_equal"]
    print(f"allocations: {summary['allocations']}; agree {agree} "
          f"(addresses equal {summary['address_equal']}, OOM messages equal {summary['oom_message_equal']} of "
          f"{summary['oom_measured']} measured OOMs, {summary['oom_predicted']} predicted; "
          f"{summary['fragmentation_ooms']} of them fragmentation)")
    for kind, k in sorted(summary["by_kind"].items()):
        print(f"  {kind}: {k['agree']} of {k['allocations']} ({k['oom_measured']} OOM)")
    print(f"statistics after each step: {summary['stats_equal']} of {summary['stats_checked']} equal")
    for m in summary["mismatches"][:10]:
        print("  mismatch:", json.dumps(m)[:400])
    maps_ok = True
    if args.reshape_map:
        summary["reshape_map"] = reshape_maps(Path(args.reshape_map))
        eq = sum(m["measured"] == m["model"] for m in summary["reshape_map"])
        maps_ok = eq == len(summary["reshape_map"])
        print(f"reshape page-mapping tensors kept by the program cache: {eq} of {len(summary['reshape_map'])} "
              "equal per DRAM bank")
        for m in summary["reshape_map"]:
            print(f"  {m['input']} -> {m['output']}: measured {m['measured']} B, model {m['model']} B")
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=1) + "\n")
    ok = agree == summary["allocations"] and summary["stats_equal"] == summary["stats_checked"] and maps_ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
