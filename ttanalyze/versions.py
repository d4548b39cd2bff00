"""tt-metal versions whose program factories ttanalyze models.

Circular-buffer formulas change between tt-metal versions; a CB model may
branch on :attr:`ttanalyze.ops.cb.CBContext.tt_metal`.  The default is the
version the models were measured against.
"""

from __future__ import annotations

TT_METAL_VERSIONS = {
    "0.81.1": (
        "ttnn 0.81.1 (tt-metal d80d9482, 2026), measured on a mock Blackhole P150; the factories compared also match "
        "the tt-metal 614f605f embedded in jax-tt-plugin 0.1.3"
    ),
    "2025-12": (
        "tt-metal of late December 2025 (the seed 001 build): the multi-core block untilize(-with-unpadding) factory "
        "sizes its blocks without an L1 limit (the limit arrived with tt-metal PR #35806, 2026-02)"
    ),
    "614f605f": (
        "tt-metal 614f605f embedded in jax-tt-plugin 0.1.3 (the real compiler's runtime, on a mock Blackhole P150): "
        "as 0.81.1, except a row-major concat's DFB entry (an output row plus the widest input's row, measured) and "
        "rms_norm, which the plugin's runtime reshards to L1 and runs width-sharded on 8 x 2 cores (measured)"
    ),
}
DEFAULT_TT_METAL = "0.81.1"


def check_version(version: str) -> str:
    """Return ``version`` if modeled.

    Raises:
        ValueError: an unknown version (the message lists the known ones).
    """
    if version not in TT_METAL_VERSIONS:
        raise ValueError(f"unknown tt-metal version '{version}': expected one of {', '.join(TT_METAL_VERSIONS)}")
    return version
