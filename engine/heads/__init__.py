"""Heads: which attention heads and MLPs move a prediction (no Qt).

``anatomy`` finds where each family's heads and MLPs write into the residual stream; ``dla`` splits the logit
(difference) into the embeddings', each head's and each MLP's direct share through the final norm (frozen at
the run's scale); ``ablation`` zeroes, mean- or resample-ablates heads and MLPs and sweeps every head;
``corpus`` gives the activations mean and resample ablation replace a site with; ``names`` holds the torch-free
names and the head list syntax.
"""
