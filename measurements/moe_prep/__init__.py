"""The MoE weight-preparation ops (prepare_moe_compute_w0_w1_weights / _w2_weights) measured on the mock P150."""
