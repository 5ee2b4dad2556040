"""Activation patching (causal tracing, Meng et al. 2022), no Qt.

``sites`` finds, per architecture, the module whose output is a block's residual stream (``resid``), its
attention output (``attn``) or its MLP output (``mlp``); ``tracing`` restores one site at one layer and one
position from a clean run into a corrupted run, for every layer and position, and reports the recovered
fraction of the metric; ``encoder_decoder`` finds BART's and T5's sites (the encoder's and the decoder's, cross-
attention among them) and makes the corrupted run decode the clean run's output; ``names`` holds the torch-free
names.
"""
