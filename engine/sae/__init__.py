"""Sparse autoencoders on any hook point of any family (issue 47).

- ``kinds``: the three architectures (``standard`` = ReLU with an L1 penalty, ``topk``, ``jumprelu``): forward,
  loss, decoder unit norm where the kind requires it;
- ``activations``: a hook point's activations streamed from a corpus in chunks through a bounded buffer;
- ``train``: the training loop, a job generator (progress, cancel, checkpoint and resume);
- ``files``: SAELens v6's folder layout (``cfg.json`` + ``sae_weights.safetensors``) with the model's fingerprint;
- ``evaluate``: L0, explained variance, MSE, CE loss recovered, KL, dead and dense fractions;
- ``features``: features on a text, a feature's top contexts, histogram and logit effect.

Nothing is imported here: ``from lm_workbench.engine.sae.kinds import SparseAutoencoder``.
"""
