"""Steering: add a vector to a hook point's activations while the model predicts or generates (issue 47).

- ``vectors``: a feature's decoder direction, a contrastive-pair direction (mean activation difference);
- ``apply``: steered and unsteered predictions and generations side by side, NaN caught;
- ``grid``: a layer × strength grid with each cell's concept score and KL to the unsteered model.
"""
