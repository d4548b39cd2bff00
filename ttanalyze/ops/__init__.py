"""Op models, one module per op family; importing this package registers them all."""

from . import argmax_topk, conv, creation, data_movement, eltwise, layout_conversion, matmul, reduction  # noqa: F401  (registration)
from .registry import REGISTRY, OpModel, ShapeError, cb_model, lookup, spec_model

__all__ = ["REGISTRY", "OpModel", "ShapeError", "cb_model", "lookup", "spec_model"]
