"""Element-type emulation: the values a ttnn tensor of each tt ``DataType`` can hold.

Every array the reference interpreter passes between ops holds the *logical*
tensor (no tile padding, no layout) in a numpy storage type:

============================  ===============  ==========================================
tt DataType                   numpy storage    values
============================  ===============  ==========================================
``f32``                       float32          IEEE binary32
``bf16``                      float32          bfloat16 values, widened (exact)
``f16``                       float32          IEEE binary16 values, widened (exact)
``bfp_bf8``/``bfp_bf4``/...   float32          block-float values, widened (exact)
``si32``                      int32
``u32`` / ``u16`` / ``u8``    uint32 / uint16 / uint8
``i1``                        uint8            0 or 1
============================  ===============  ==========================================

:func:`quantize` turns any numeric array into the values of a data type the way
the device stores them; the interpreter applies it to every op result
(:mod:`ttanalyze.interp.run`).  The rules, and where they come from:

* **bf16**: round to nearest, ties to even, from the f32 bit pattern; NaN
  becomes the canonical quiet NaN 0x7FC0.  tt-metal
  ``tt_metal/api/tt-metalium/bfloat16.hpp`` @02406b25 (``bfloat16(T)`` "tie-to-even
  rounding", ``fp32_to_bf16_bits_round_to_nearest_even``).  Values are first
  rounded to f32 (numpy's float64 -> float32 cast, also ties to even), as the
  device computes in f32 at most.
* **bfp_bf8 / bfp_bf4 / bfp_bf2** (and the ``bfp_f*`` variants with a 5-bit
  shared exponent): tt-metal's host packer
  ``tt_metal/impl/data_format/blockfloat_common.cpp`` @034fc8c7
  (``pack_fp32_vec_as_bfp_tiles``, ``convert_u32_to_bfp<fmt, false>``,
  ``get_max_exp``).  A tile is four 16x16 faces; each face row of 16 values
  shares the largest 8-bit exponent of the 16 (a zero counts as exponent 0).
  Each value keeps its 24-bit significand (hidden bit included), shifted right
  by ``shared - own exponent`` (the shifted-out bits are lost), then rounded to
  ``W`` bits (7 for bfp8, 3 for bfp4, 1 for bfp2) to nearest, ties to even on
  the kept bits, saturating at ``2^W - 1`` (no carry into the exponent).  The
  value is ``(-1)^s * m * 2^(shared - 127 - (W - 1))``; a zero mantissa drops
  the sign.  In logical terms a face row is 16 consecutive elements of the last
  dim starting at a multiple of 16 (faces tile the last two dims and every
  tile row of a face is a row of the tensor), so the blocks are the last dim
  cut in 16s, the tail padded with zeros (tt-metal tilizes with zero padding,
  and zeros do not change a block's exponent).  The device packer (results of
  ops written in bfp8) is emulated by the same host algorithm.  NaN inputs stay
  NaN.
* **f16**: IEEE binary16, round to nearest even (numpy).
* **float -> integer** (typecast, and any float result declared as an integer
  type), following tt-llk's SFPU typecasts (``ckernel_sfpu_typecast.h``,
  ``_calculate_typecast_fp32_to_int32_`` / ``_fp32_to_uint16_``): ``si32``
  truncates toward zero and saturates to INT_MIN when ``|x| >= 2^31`` (NaN too);
  ``u16`` and ``u8`` clamp negatives to 0 and round to nearest even (SFP_STOCH_RND),
  saturating at the type's maximum; ``u32`` clamps negatives (and NaN) to 0,
  truncates, and saturates at 2^32 - 1 (chosen by analogy with the int32 path);
  ``i1`` is ``x != 0``.
* **integer -> integer**: saturates to the target range (a choice: tt-metal's
  int-to-int typecasts are not read here); **integer -> float**: exact in
  float64, then rounded as above.

:class:`InterpError` lives here, the lowest module of the package, so every
layer can raise it.
"""

from __future__ import annotations

import numpy as np

from ..errors import InputError, SourcePos
from ..ir.model import TensorType

FLOAT_TYPES = ("f32", "bf16", "f16", "bfp_bf8", "bfp_bf4", "bfp_bf2", "bfp_f8", "bfp_f4", "bfp_f2")
INT_TYPES: dict[str, type] = {"si32": np.int32, "u32": np.uint32, "u16": np.uint16, "u8": np.uint8, "i1": np.uint8}
# Block-float formats: (mantissa bits W including the hidden bit, 5-bit "exp_a" exponent).
# tt-metal blockfloat_common.cpp: MANTISSA_BFP_WIDTH 7 / 3 / 1; Bfp*_b use the 8-bit float32 exponent.
BLOCK_FLOAT = {"bfp_bf8": (7, False), "bfp_bf4": (3, False), "bfp_bf2": (1, False),
               "bfp_f8": (7, True), "bfp_f4": (3, True), "bfp_f2": (1, True)}
BLOCK = 16  # values sharing one exponent: one row of a 16x16 face


class InterpError(InputError):
    """The reference interpreter cannot run the program.

    Raised for an op without reference semantics, operands or attributes the
    semantics reject, a value used after its ``ttnn.deallocate``, and bad inputs
    (wrong count, shape or dtype).  Printed as ``file:line:col: error: message``
    with the op's position (``Op.pos``) when there is one.
    """

    def __init__(self, message: str, path: str = "<string>", pos: SourcePos | None = None):
        super().__init__(message, path, pos)


def dtype_of(t: TensorType) -> str:
    """The tt data type a tensor holds: its layout's (a tile's) data type, else the element type.

    tt-mlir keeps ``bf16`` as the element type of block-float tensors and puts
    ``!ttcore.tile<32x32, bfp_bf8>`` in the layout, so the layout decides.
    """
    return t.layout.dtype.name if t.layout is not None else t.element.name


def is_float(dtype: str) -> bool:
    """Whether ``dtype`` (a tt DataType name) holds floating-point values."""
    return dtype in FLOAT_TYPES


def storage(dtype: str) -> np.dtype:
    """The numpy type the interpreter stores ``dtype`` values in (module table).

    Raises:
        InterpError: a data type the interpreter does not know.
    """
    if dtype in FLOAT_TYPES:
        return np.dtype(np.float32)
    if dtype in INT_TYPES:
        return np.dtype(INT_TYPES[dtype])
    raise InterpError(f"data type '{dtype}' has no reference semantics")


def round_bf16(x: np.ndarray) -> np.ndarray:
    """float32 values rounded to bfloat16 (nearest, ties to even; NaN -> 0x7FC0), as float32."""
    x = np.ascontiguousarray(x, dtype=np.float32)
    bits = x.view(np.uint32)
    rounded = bits >> np.uint32(16)  # in place from here: one temporary of x's size
    rounded &= np.uint32(1)
    rounded += np.uint32(0x7FFF)
    rounded += bits
    rounded &= np.uint32(0xFFFF0000)
    rounded[np.isnan(x)] = np.uint32(0x7FC00000)
    return rounded.view(np.float32)


def round_block_float(x: np.ndarray, dtype: str) -> np.ndarray:
    """float32 values as tt-metal packs them into block-float tiles (module docstring), as float32.

    Args:
        x: float32 array of any shape; blocks are 16 consecutive elements of the last dim.
        dtype: ``bfp_bf8``, ``bfp_bf4``, ``bfp_bf2`` or a ``bfp_f*`` variant.
    """
    width, exp_a = BLOCK_FLOAT[dtype]
    x = np.ascontiguousarray(x, dtype=np.float32)
    shape = x.shape
    flat = x.reshape(1, -1) if x.ndim == 0 else x.reshape(-1, shape[-1])
    pad = (-flat.shape[1]) % BLOCK
    if pad:
        flat = np.pad(flat, ((0, 0), (0, pad)))
    blocks = flat.reshape(flat.shape[0], -1, BLOCK)
    bits = blocks.view(np.uint32).astype(np.int64)
    is_zero = (bits & 0x7FFFFFFF) == 0
    sign = bits >> 31
    exp = (bits >> 23) & 0xFF
    man = bits & 0x7FFFFF
    if exp_a:  # rebias to a 5-bit exponent, saturating (convert_u32_to_bfp is_exp_a)
        se = exp - 127 + 15
        man = np.where(se > 31, 0x7FFFFF, np.where(se < 0, 0, man))
        exp = np.clip(se, 0, 31)
    shared = exp.max(axis=-1, keepdims=True)
    sig = man | (1 << 23)
    diff = shared - exp
    sig = np.where(diff >= 32, 0, sig >> np.minimum(diff, 31))
    shift = 24 - width
    round_value = sig & ((1 << shift) - 1)
    kept = sig >> shift
    tie = 1 << (shift - 1)
    kept = kept + ((round_value > tie) | ((round_value == tie) & ((kept & 1) == 1)))
    kept = np.minimum(kept, (1 << width) - 1)
    kept = np.where(is_zero, 0, kept)
    bias = 15 if exp_a else 127
    value = np.ldexp(kept.astype(np.float64), (shared - bias - (width - 1)).astype(np.int32))
    value = np.where((sign == 1) & (kept != 0), -value, value)
    value = np.where(np.isnan(blocks), np.nan, value)
    out = value.reshape(flat.shape)[:, :flat.shape[1] - pad].astype(np.float32)
    return out.reshape(shape)


def _float_to_int(x: np.ndarray, dtype: str) -> np.ndarray:
    """Float values converted to an integer type as the SFPU typecasts do (module docstring)."""
    x = np.asarray(x, dtype=np.float64)
    if dtype == "i1":
        return (x != 0).astype(np.uint8)
    if dtype == "si32":
        bad = np.isnan(x) | (np.abs(x) >= 2.0 ** 31)
        return np.where(bad, np.iinfo(np.int32).min, np.trunc(np.where(bad, 0, x))).astype(np.int32)
    hi = float(np.iinfo(INT_TYPES[dtype]).max)
    clean = np.where(np.isnan(x), 0.0, np.maximum(x, 0.0))
    clean = np.trunc(clean) if dtype == "u32" else np.rint(clean)
    return np.minimum(clean, hi).astype(INT_TYPES[dtype])


def quantize(x: np.ndarray | float | int, dtype: str) -> np.ndarray:
    """``x`` as a tensor of tt data type ``dtype`` holds it, in the storage type of :func:`storage`.

    Idempotent: quantizing values already of ``dtype`` returns them unchanged
    (block-float values only when their blocks are unchanged).

    Raises:
        InterpError: an unknown data type.
    """
    target = storage(dtype)
    x = np.asarray(x)
    if dtype in INT_TYPES:
        if x.dtype.kind == "f":
            return _float_to_int(x, dtype)
        if x.dtype.kind == "b" or dtype == "i1":
            return (x != 0).astype(np.uint8)
        info = np.iinfo(target)
        if x.dtype == target:
            return x
        return np.clip(x.astype(np.int64), info.min, info.max).astype(target)
    if x.dtype.kind in "iub":
        x = x.astype(np.float64)
    x32 = np.asarray(x, dtype=np.float32)
    if dtype == "f32":
        return x32
    if dtype == "bf16":
        return round_bf16(x32)
    if dtype == "f16":
        return x32.astype(np.float16).astype(np.float32)
    return round_block_float(x32, dtype)


def random_values(shape: tuple[int, ...], dtype: str, rng: np.random.Generator, high: int = 16) -> np.ndarray:
    """Random values of ``dtype``: floats uniform in [-1, 1) then quantized; integers uniform in [0, high).

    ``i1`` draws 0 or 1.  ``high`` is clipped to the type's range.
    """
    if is_float(dtype):
        x = rng.random(shape, dtype=np.float32)
        x *= 2.0
        x -= 1.0
        return quantize(x, dtype)
    top = 2 if dtype == "i1" else min(high, int(np.iinfo(storage(dtype)).max) + 1)
    return rng.integers(0, max(top, 1), size=shape).astype(storage(dtype))
