"""The tuned lens (Belrose et al. 2023): the logit lens with a learned affine translator per layer.

``config`` (the training settings, a form and the CLI are built from them), ``translators`` (one
``h + W h + b`` per layer, identity at start, saved as safetensors), ``train`` (the KL objective
through the workbench's one training loop, the model frozen) and ``lens`` (per-layer distributions and
the KL to the model's final distribution for both lenses).
"""
