"""ELMo's scalar mix over any model's layers, trained with a small task model through the training loop.

``ScalarMix`` is ``gamma * sum_j softmax(s)_j h_j`` (Peters et al. 2018);
``train_scalar_mix`` fits it jointly with a linear classifier on frozen
per-layer features (token tagging or sentence classification) and reports the
learned weights and the expected layer ``sum_j j * s_j`` (Tenney et al. 2019).
"""
