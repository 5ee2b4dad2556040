"""Which logit at which position: the prediction a method measures (``target``) and its limits (``names``).

Attribution, activation and attribution patching, and heads/ablation all read the same target: the position
(a decoder's last token, a masked LM's mask, an encoder-decoder's output position) and the logit, or the logit
difference answer − contrast, there. Nothing is imported here, so ``names`` stays free of torch.
"""
