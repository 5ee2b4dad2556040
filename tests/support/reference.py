"""Independent reference computations: a plain ``transformers`` forward pass.

These never call the engine: they load the folder with the library's own
auto classes in eager attention and run one text, the way a user would in a
notebook, so the engine is checked against the library, not against itself.
"""

from __future__ import annotations

import numpy as np
import torch


def plain_forward(folder, text, pair=None, target=None):
    """Hidden states and attentions from a plain transformers forward (eager, float32, CPU)."""
    import transformers as tf

    tokenizer = tf.AutoTokenizer.from_pretrained(folder)
    config = tf.AutoConfig.from_pretrained(folder)
    inputs = tokenizer(text, pair, return_tensors="pt")
    with torch.no_grad():
        if config.is_encoder_decoder:
            model = tf.AutoModelForSeq2SeqLM.from_pretrained(folder, attn_implementation="eager").eval()
            labels = tokenizer(text_target=target, return_tensors="pt")["input_ids"]
            decoder_input_ids = model.prepare_decoder_input_ids_from_labels(labels=labels)
            out = model(**inputs, decoder_input_ids=decoder_input_ids,
                        output_hidden_states=True, output_attentions=True)
            return {
                "ids": inputs["input_ids"][0].tolist(),
                "hidden_states": _np(out.encoder_hidden_states),
                "attentions": _np(out.encoder_attentions),
                "decoder_ids": decoder_input_ids[0].tolist(),
                "decoder_hidden_states": _np(out.decoder_hidden_states),
                "decoder_attentions": _np(out.decoder_attentions),
                "cross_attentions": _np(out.cross_attentions),
            }
        model = tf.AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
        out = model(**inputs, output_hidden_states=True, output_attentions=True)
        return {
            "ids": inputs["input_ids"][0].tolist(),
            "hidden_states": _np(out.hidden_states),
            "attentions": _np(out.attentions),
        }


def _np(layers):
    return torch.stack([t[0] for t in layers]).float().numpy()


def max_abs(a, b) -> float:
    assert a.shape == b.shape, (a.shape, b.shape)
    return float(np.abs(a - b).max())
