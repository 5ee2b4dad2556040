"""Both lenses in one package: ``logit`` (the logit lens: each layer's hidden state read through the model's own
final norm and unembedding) and ``tuned`` (the tuned lens, Belrose et al. 2023: a learned affine translator per
layer before that read-out; its config, translators, training and per-layer distributions)."""
