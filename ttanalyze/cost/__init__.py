"""Cost model: per-device-op latency (ns) from TTNN IR or profiler rows, calibrated on measured traces."""
