"""Op models, one module per op family; importing this package registers them all."""

from . import (argmax_topk, attention, ccl, conv, conv_extra, copies, creation, data_movement,  # noqa: F401
               eltwise, eltwise_extra, generic, host, kv_cache, dit_norm, layout_conversion, matmul, moe, moe_compute, moe_fabric,
               moe_metadata, norm_distributed,
               norm_extra, quantization, random, reduction, sampling, sort_scatter, sparse_matmul, tensor_spec, training,
               transformer, tt_train)  # (registration)
from . import indexer_score, moe_prepare, pool_global  # noqa: F401  (registration)
from .registry import REGISTRY, OpModel, ShapeError, cb_model, lookup, spec_model

__all__ = ["REGISTRY", "OpModel", "ShapeError", "cb_model", "lookup", "spec_model"]
