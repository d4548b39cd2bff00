"""Host and runtime ops: metal traces, tensor I/O with files and the host, global semaphores.

None of these runs a device program of its own; each is recorded as such (family ``host``) so
that it is neither reported unknown nor guessed at.  How the tt-mlir runtime executes each
(``runtime/lib/ttnn/operations/{trace,debug,data_movement,global_semaphore,ccl}/*`` @19c86fca):

* ``begin_trace_capture`` / ``end_trace_capture`` -> ``ttnn::operations::trace::begin_trace_capture``
  / ``end_trace_capture`` on the mesh device: record the command queue into the trace region of
  DRAM (opened with ``trace_region_size``), no program; ``begin_trace_capture`` returns the trace id
  as a scalar ``tensor<ui32, #ttnn.trace_id>`` on the host.
* ``execute_trace`` -> ``ttnn::operations::trace::execute_trace``: replays the captured commands;
  the programs it replays are the ops of the capture function, analyzed where they are written.
* ``capture_or_execute_trace``: on the first call runs ``allocate_slots_callee`` and
  ``capture_callee``, then ``execute_callee``; its results are the trace's output slots, typed
  by the callee (unchecked here, like ``ttcore.load_cached``).
* ``dump_tensor`` / ``load_tensor`` -> ``ttnn::dump_tensor`` / ``ttnn::load_tensor``: host file
  I/O (``load_tensor`` then ``to_device`` when it has a device operand: a host write, no program).
* ``write_tensor`` -> ``tt::tt_metal::write_tensor``: a host-to-device copy into an existing
  device buffer (enqueue write, no program).
* ``create_global_semaphore`` / ``allocate_moe_compute_semaphore`` ->
  ``ttnn::global_semaphore::create_global_semaphore``: one ``uint32`` per core of its core range
  set in a sharded L1 buffer (one L1-aligned page per core); ``reset_global_semaphore`` writes it
  from the host.  No program; the allocator replay places the buffer (:func:`global_semaphore_buffer`) and keeps it
  to the end of the program (the IR never deallocates a semaphore).
"""

from __future__ import annotations

from .cb import CBContext, NoDeviceProgram
from .registry import register_cb, register_check, register_passive

_SRC = "tt-mlir include/ttmlir/Dialect/TTNN/IR/TTNNOps.td @19c86fca"
_RT = "tt-mlir runtime/lib/ttnn/operations @19c86fca"

# op -> (attributes read, what it does on the host)
HOST_OPS: dict[str, tuple[tuple[str, ...], str]] = {
    "ttnn.begin_trace_capture": (("cq_id",), "begins recording the command queue into the DRAM trace region"),
    "ttnn.end_trace_capture": (("cq_id",), "ends the trace recording"),
    "ttnn.execute_trace": (("cq_id", "blocking"), "replays a captured trace (its programs are those of the "
                                                  "capture function)"),
    "ttnn.capture_or_execute_trace": (("allocate_slots_callee", "capture_callee", "execute_callee",
                                       "operandSegmentSizes"),
                                      "captures the trace on first use, then replays it"),
    "ttnn.dump_tensor": (("file_path",), "writes a tensor to a file from the host"),
    "ttnn.load_tensor": (("file_path",), "reads a tensor from a file (then a host-to-device write)"),
    "ttnn.write_tensor": (("blocking", "cq_id"), "copies a host tensor into an existing device buffer "
                                                 "(enqueue write)"),
    "ttnn.create_global_semaphore": (("initial_value", "core_range_set"),
                                     "allocates a global semaphore: one uint32 per core of its core range set"),
    "ttnn.reset_global_semaphore": (("value",), "writes a global semaphore's value from the host"),
    "ttnn.allocate_moe_compute_semaphore": (("output_height_shard_dim", "hidden_size", "initial_value",
                                             "mux_core_range_set"),
                                            "allocates the global semaphore of moe_compute"),
}

for _name, (_attrs, _what) in HOST_OPS.items():
    register_passive((_name,), "host", _attrs, f"{_SRC} {_name.split('.')[1]}; {_RT}")

register_check(tuple(HOST_OPS), "none", f"{_RT}/{{trace,debug,data_movement,global_semaphore}}: host calls only")


@register_cb(tuple(HOST_OPS))
def host_program(ctx: CBContext):
    """No device program: the op is executed by the runtime on the host (module docstring).

    Raises:
        NoDeviceProgram: always; the message says what the op does.
    """
    raise NoDeviceProgram(f"{ctx.op.name} {HOST_OPS[ctx.op.name][1]}; no device program")


SEMAPHORE_OPS = {"ttnn.create_global_semaphore": "core_range_set",
                 "ttnn.allocate_moe_compute_semaphore": "mux_core_range_set"}
SEMAPHORE_BYTES = 4  # one uint32 per core


def global_semaphore_buffer(op) -> tuple[int, int, int] | None:
    """(bytes, page bytes, cores) of the L1 buffer a semaphore op allocates: tt-metal ``CreateGlobalSemaphore``
    (tt_metal/impl/buffers/global_semaphore.cpp, d80d9482) makes a HEIGHT_SHARDED L1 buffer of one 4-B page per core
    of the core range set (measured on the 1x2 mock mesh: the CCL programs' semaphores are 440-B L1 buffers of 4-B
    pages over 110 cores, measurements/ccl).  None when the op has no core range set to read."""
    crs = op.attrs.get(SEMAPHORE_OPS.get(op.name, ""))
    cores = getattr(crs, "num_cores", None)
    if not isinstance(cores, int) or cores <= 0:
        return None
    return SEMAPHORE_BYTES * cores, SEMAPHORE_BYTES, cores


__all__ = ["HOST_OPS", "SEMAPHORE_OPS", "global_semaphore_buffer", "host_program"]
