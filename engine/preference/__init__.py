"""Preference tuning (``--task preference``): DPO (Rafailov et al. 2023) on ``{prompt, chosen, rejected}`` pairs.

``data`` reads the pairs, ``encoding`` turns each into a chosen and a rejected sequence whose labels are the
answer tokens only, ``logprobs`` sums a model's log-probabilities over those tokens, ``dpo`` is the loss and its
metrics, ``reference`` the frozen reference model (a copy, or LoRA's disabled adapter), ``job`` the run.
"""
