"""The Features tab: an SAE's features on the current text, one feature's contexts, histogram and logit effect,
and steering with it (issue 47)."""
