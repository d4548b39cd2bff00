"""Op models, one module per op family; importing this package registers them all."""

from . import (argmax_topk, conv, creation, data_movement, eltwise, host, layout_conversion, matmul,  # noqa: F401
               reduction, tensor_spec)  # (registration)
from .registry import REGISTRY, OpModel, ShapeError, cb_model, lookup, spec_model

__all__ = ["REGISTRY", "OpModel", "ShapeError", "cb_model", "lookup", "spec_model"]
