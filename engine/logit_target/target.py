"""Which logit at which position: the prediction an attribution, a patch or an ablation measures, and its target
logit (or logit difference) as a function of the input word embeddings. Shared by attribution, patching,
attribution patching and heads/ablation.

- a decoder predicts the next token after the text: the position is the last token;
- a masked LM fills the one mask token of the text: the position is the mask's;
- an encoder-decoder (BART, T5) writes an output token: the position is that output position (default 0, the
  first output token), the decoder reading its start token and the model's own greedy output before it; the
  scores are over the encoder's input tokens (the gradient flows to the encoder's word embeddings only);
- a fine-tuned sequence classifier (``classifier``) gives a label's logit (kind ``classifier``);
- the target is the token a user names (``vocabulary_token``: one vocabulary token, else an error) or the
  model's top token at that position.
- a text longer than the model's window is read through the window the rule of
  ``lm_workbench.engine.text_window`` picks (a decoder: its last window; a masked LM or an encoder-decoder's
  input: the window around the mask); ``PredictionSite.notes`` says which tokens that was;
- ``site_from_ids`` takes the ids as given (a prompt template already filled, as prompt scoring reads it);
- a target may carry a foil (``contrast``: "why X and not Y"): the explained quantity is then the logit
  difference logit(X) − logit(Y) (``target_metric``), by linearity of every gradient method the difference of
  the two tokens' maps.

``target_logits`` runs the model from word embeddings (``inputs_embeds``): the rows of the input embedding
matrix, before the model adds position (and segment) embeddings and before any LayerNorm, so gradients and
integrated-gradient paths are taken with respect to exactly those rows.
"""

from __future__ import annotations

import inspect
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

import torch

from lm_workbench.engine.anatomy.hooks import replacing_inputs
from lm_workbench.engine.errors import MissingHeadError, WorkbenchError
from lm_workbench.engine.logit_target.names import MAX_OUTPUT_POSITION
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.predictions import GENERIC_MASK, with_model_mask
from lm_workbench.engine.text_input import require_text
from lm_workbench.engine.text_window import read_ids, read_text, window_notes
from lm_workbench.engine.tokens import TokenizedText

LOGIT_BUDGET = 2**25  # floats of full-vocabulary logits one forward pass may hold (128 MB in float32)


@dataclass(frozen=True)
class PredictionSite:
    """A tokenized text and the position whose prediction is explained."""

    tokenized: TokenizedText
    inputs: dict[str, torch.Tensor]  # input_ids and the tokenizer's extra inputs (token_type_ids), batch 1
    position: int  # seq2seq: the output position
    kind: str  # "next-token" (decoders), "mask" (masked LMs), "seq2seq" or "classifier"
    decoder_ids: torch.Tensor | None = None  # seq2seq: [1, position + 1], the start token and greedy output

    @property
    def tokens(self) -> list[str]:
        return self.tokenized.tokens

    @property
    def notes(self) -> list[str]:
        """"tokens a–b of n" when the window cut the text (else nothing)."""
        return window_notes(self.tokenized)


@dataclass(frozen=True)
class Target:
    """The token whose (pre-softmax) logit at ``site.position`` is explained."""

    site: PredictionSite
    id: int
    token: str
    contrast_id: int | None = None  # the foil Y: the explained quantity is logit(X) - logit(Y)
    contrast: str | None = None

    def with_contrast(self, contrast_id: int | None, contrast: str | None = None) -> "Target":
        """This target with the foil ``contrast_id`` (None: no foil); the foil may not be the target itself."""
        if contrast_id is not None and int(contrast_id) == self.id:
            raise WorkbenchError(f"the contrast {contrast or contrast_id!r} is the target itself: name another token")
        return Target(self.site, self.id, self.token, None if contrast_id is None else int(contrast_id),
                      None if contrast_id is None else contrast)


def logit_difference(logits: torch.Tensor, answer_id: int, contrast_id: int | None) -> torch.Tensor:
    """[B] from [B, vocab] logits: logit(answer), or logit(answer) − logit(contrast) when a contrast is named."""
    if contrast_id is None:
        return logits[:, answer_id]
    return logits[:, answer_id] - logits[:, contrast_id]


def target_metric(logits: torch.Tensor, target: Target) -> torch.Tensor:
    """[B] the explained quantity from [B, vocab] logits: logit(X), or logit(X) − logit(Y) with a foil Y."""
    return logit_difference(logits, target.id, target.contrast_id)


def _article(word: str) -> str:
    return "an" if word[0] in "aeiou" else "a"


def _check_head(loaded: LoadedModel, what: str) -> None:
    info, family = loaded.info, loaded.family
    if family in (Family.DECODER, Family.ENCODER_DECODER):
        if not info.has_lm_head:
            raise MissingHeadError(f"{what} needs an LM head, and the checkpoint of {info.spec} has none")
    elif family is Family.ENCODER:
        if not info.has_mlm_head:
            raise MissingHeadError(f"{what} needs a masked-LM (MLM) head, and the checkpoint of {info.spec} has none")
        if loaded.tokenizer.mask_token is None:
            raise MissingHeadError(f"the tokenizer of {info.spec} has no mask token")
    else:
        raise WorkbenchError(f"{what} covers decoders (the next token), masked LMs (the masked token) and "
                             f"encoder-decoders (an output token); {info.spec} is {_article(family.value)} "
                             f"{family.value} model")


def _inputs(loaded: LoadedModel, tok: TokenizedText) -> dict[str, torch.Tensor]:
    from lm_workbench.engine.text_window import model_inputs

    return model_inputs(loaded, tok)



def greedy_decoder_ids(loaded: LoadedModel, inputs: dict[str, torch.Tensor], position: int) -> torch.Tensor:
    """[1, position + 1]: the decoder's start token and the model's first ``position`` greedy output tokens."""
    from lm_workbench.engine.decoding import _start_ids

    if not 0 <= position <= MAX_OUTPUT_POSITION:
        raise WorkbenchError(f"the output position is between 0 and {MAX_OUTPUT_POSITION}, not {position}")
    ids = torch.tensor([[_start_ids(loaded.model)]], device=loaded.device.torch_device)
    with torch.inference_mode():
        encoded = loaded.model.get_encoder()(**inputs)
        for _ in range(position):
            logits = loaded.model(encoder_outputs=encoded, decoder_input_ids=ids).logits[:, -1]
            ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=1)
    return ids.clone()


def prediction_site(loaded: LoadedModel, text: str, what: str = "attribution",
                    output_position: int = 0) -> PredictionSite:
    """The text tokenized for ``loaded`` and the position it predicts; a one-line error for what cannot be.
    ``output_position``: an encoder-decoder's output token to explain (0: the first)."""
    require_text(text)
    _check_head(loaded, what)
    family = loaded.family
    if family is Family.ENCODER:
        text = with_model_mask(text, loaded.tokenizer)
    tok = read_text(loaded, text)  # the window holding the position (see the module)
    if all(tok.special):
        raise WorkbenchError("the text gives no tokens for this model (only special tokens are left)")
    inputs = _inputs(loaded, tok)
    if family is Family.ENCODER_DECODER:
        return PredictionSite(tok, inputs, output_position, "seq2seq",
                              greedy_decoder_ids(loaded, inputs, output_position))
    if family is Family.DECODER:
        return PredictionSite(tok, inputs, len(tok.ids) - 1, "next-token")
    masks = [i for i, t in enumerate(tok.ids) if t == loaded.tokenizer.mask_token_id]
    if len(masks) != 1:
        raise WorkbenchError(f"{what} on a masked LM needs exactly one mask token in the text "
                             f"({GENERIC_MASK} or {loaded.tokenizer.mask_token}); it has {len(masks)}")
    return PredictionSite(tok, inputs, masks[0], "mask")


def site_from_ids(loaded: LoadedModel, ids: list[int], position: int | None = None,
                  what: str = "attribution") -> PredictionSite:
    """A site for token ids as given: decoders predict after the last id (a prompt longer than the window:
    through its last window), masked LMs at ``position`` (the mask's index), encoder-decoders their first
    output token."""
    _check_head(loaded, what)
    ids = [int(i) for i in ids]
    window = None
    if loaded.family is Family.DECODER:  # a prompt kept whole (the Predictions view's): its last window
        ids, window = read_ids(loaded, ids)
    tokens = [t if t is not None else str(i) for t, i in zip(loaded.tokenizer.convert_ids_to_tokens(ids), ids)]
    special = set(loaded.tokenizer.all_special_ids)
    n = len(ids)
    tok = TokenizedText("", None, ids, tokens, [(0, 0)] * n, [None] * n, [0] * n, [i in special for i in ids],
                        truncated=bool(window and window.cut), window=window)
    inputs = _inputs(loaded, tok)
    if loaded.family is Family.ENCODER_DECODER:
        return PredictionSite(tok, inputs, 0, "seq2seq", greedy_decoder_ids(loaded, inputs, 0))
    if loaded.family is Family.DECODER:
        return PredictionSite(tok, inputs, n - 1, "next-token")
    if position is None or not 0 <= position < n:
        raise WorkbenchError(f"a masked LM's position is one of the {n} tokens, not {position}")
    return PredictionSite(tok, inputs, position, "mask")


def vocabulary_token(loaded: LoadedModel, token: str, flag: str = "--target") -> int:
    """The id of the one vocabulary token ``token`` names: a token exactly as the vocabulary spells it
    (``Ġcat``, ``##ing``), else a text the tokenizer turns into exactly one token; else a one-line error."""
    tokenizer = loaded.tokenizer
    if not token:
        raise WorkbenchError(f"{flag} is empty: name one vocabulary token")
    vocab = tokenizer.get_vocab()
    if token in vocab:
        return int(vocab[token])
    ids = tokenizer(token, add_special_tokens=False)["input_ids"]
    if len(ids) == 1:
        return int(ids[0])
    pieces = tokenizer.convert_ids_to_tokens(ids)
    raise WorkbenchError(f"{flag} {token!r} is {len(ids)} tokens for this model ({' '.join(pieces)}), "
                         "not one; name a single vocabulary token")


def token_name(loaded: LoadedModel, token_id: int) -> str:
    name = loaded.tokenizer.convert_ids_to_tokens([int(token_id)])[0]
    return name if name is not None else str(token_id)


def input_embedding_module(loaded: LoadedModel) -> torch.nn.Module:
    """The module that turns input ids into word embeddings (an encoder-decoder's: its encoder's, which for
    BART includes the embedding scale)."""
    model = loaded.model
    if loaded.family is Family.ENCODER_DECODER:
        return model.get_encoder().get_input_embeddings()
    return model.get_input_embeddings()


def word_embeddings(loaded: LoadedModel, site: PredictionSite) -> torch.Tensor:
    """[1, T, H]: the text's rows of the input (word) embedding matrix, detached."""
    with torch.no_grad():
        return input_embedding_module(loaded)(site.inputs["input_ids"]).detach()


def _keeps_last_logits(model) -> bool:
    try:
        return "logits_to_keep" in inspect.signature(model.forward).parameters
    except (TypeError, ValueError):
        return False


@contextmanager
def _head_reads_only(loaded: LoadedModel, position: int) -> Iterator[bool]:
    """Within the block the output embedding (the vocabulary projection) reads only ``position``'s hidden
    state, so a masked LM or a seq2seq decoder computes one row of full-vocabulary logits per text instead of
    one per token; yields whether it does (then the logits have one position)."""
    head = loaded.model.get_output_embeddings() if hasattr(loaded.model, "get_output_embeddings") else None
    if not isinstance(head, torch.nn.Module):
        yield False
        return

    with replacing_inputs({head: lambda hidden: hidden[:, position:position + 1]}):
        yield True


def position_logits(loaded: LoadedModel, site: PredictionSite, embeddings: torch.Tensor) -> torch.Tensor:
    """[B, vocab] logits at ``site.position`` for a batch of word embeddings [B, T, H] (grad flows through)."""
    batch = embeddings.shape[0]
    extra = {name: values.expand(batch, -1) for name, values in site.inputs.items() if name != "input_ids"}
    if site.kind == "classifier":
        mask = torch.ones(embeddings.shape[:2], dtype=torch.long, device=embeddings.device)
        return loaded.model(inputs_embeds=embeddings, attention_mask=mask, **extra).logits
    if site.kind == "seq2seq":
        mask = torch.ones(embeddings.shape[:2], dtype=torch.long, device=embeddings.device)
        with _head_reads_only(loaded, site.position) as sliced:
            out = loaded.model(inputs_embeds=embeddings, attention_mask=mask, **extra,
                               decoder_input_ids=site.decoder_ids.expand(batch, -1))
        return out.logits[:, 0 if sliced else site.position]
    last = site.position == embeddings.shape[1] - 1
    if loaded.family is Family.DECODER and last and _keeps_last_logits(loaded.model):
        return loaded.model(inputs_embeds=embeddings, logits_to_keep=1, **extra).logits[:, -1]
    with _head_reads_only(loaded, site.position) as sliced:
        logits = loaded.model(inputs_embeds=embeddings, **extra).logits
    return logits[:, 0 if sliced else site.position]


def rows_per_pass(loaded: LoadedModel, site: PredictionSite, most: int = 16) -> int:
    """How many copies of the text one forward pass takes, within ``LOGIT_BUDGET`` full-vocabulary logits."""
    per_row = len(site.tokenized.ids) * max(1, loaded.info.vocab_size)
    return max(1, min(most, LOGIT_BUDGET // per_row))


def resolve_target(loaded: LoadedModel, site: PredictionSite, target: str | None = None,
                   contrast: str | None = None) -> Target:
    """The token ``target`` names (one vocabulary token), or the model's top token at the site; with
    ``contrast`` (one vocabulary token) the foil Y of "why X and not Y"."""
    if target is not None:
        token_id = vocabulary_token(loaded, target)
    else:
        with torch.no_grad():
            logits = position_logits(loaded, site, word_embeddings(loaded, site))[0]
        token_id = int(torch.argmax(logits.float()))
    chosen = Target(site, token_id, token_name(loaded, token_id))
    if contrast is None:
        return chosen
    contrast_id = vocabulary_token(loaded, contrast, "--contrast")
    return chosen.with_contrast(contrast_id, token_name(loaded, contrast_id))


def second_choice(loaded: LoadedModel, site: PredictionSite, token_id: int) -> int:
    """The model's best token at the site other than ``token_id`` (the default foil: its second choice when
    ``token_id`` is its first)."""
    with torch.no_grad():
        logits = position_logits(loaded, site, word_embeddings(loaded, site))[0].float().clone()
    logits[int(token_id)] = float("-inf")
    return int(torch.argmax(logits))
