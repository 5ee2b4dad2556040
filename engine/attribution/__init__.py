"""Which input tokens a prediction rests on (no Qt).

``targets`` finds the prediction an attribution explains (a decoder's next token, an MLM's masked token) and
reads the target logit from the input word embeddings; ``grad_input`` and ``integrated_gradients`` attribute
it by gradients; ``rollout`` by the attention weights (rollout and flow, Abnar & Zuidema 2020); ``result``
is the one shape they return; ``attribute`` picks a method by name; ``names`` holds the torch-free names.
"""
