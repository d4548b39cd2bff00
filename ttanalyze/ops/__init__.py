"""Op models, one module per op family; importing this package registers them all."""

from . import (argmax_topk, attention, conv, creation, data_movement, eltwise, host,  # noqa: F401  (registration)
               kv_cache, layout_conversion, matmul, reduction, tensor_spec, transformer)
from .registry import REGISTRY, OpModel, ShapeError, cb_model, lookup, spec_model

__all__ = ["REGISTRY", "OpModel", "ShapeError", "cb_model", "lookup", "spec_model"]
