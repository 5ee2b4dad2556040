"""Encode texts into what the model computes: hidden states and attentions.

``encode_texts`` is a generator (progress after each batch, cancel between
batches) that returns one ``Encoding`` per text, in the order given:

- hidden states of every layer including the embedding layer's output,
  shape [layers + 1, tokens, hidden] (float32, on the CPU);
- attentions of every layer and head, shape [layers, heads, tokens, tokens]
  (row i = how token i attends to every token), when asked;
- for encoder-decoders, the decoder side too: the decoder is fed a target text
  (teacher forcing, shifted right) or, without one, the model's own greedy
  output (at most 64 tokens), and returns its hidden states, its causal
  self-attention and its cross-attention to the encoder, [layers, heads,
  decoder tokens, encoder tokens].

ELMo (family biLM) has no attention: its encodings carry hidden states only
(layer 0 is the character-CNN word vector, layers 1..L the biLSTM's).

A text longer than the window is cut to one window (``TokenizedText.truncated``, ``window``: "tokens a–b of
n"): ``encode`` (one text, as a view or command reads it) places the window by the rule of
``lm_workbench.engine.text_window`` (a decoder: its last window; an encoder: around its masks, else the first);
``encode_texts`` (corpora) keeps each text's first window unless told otherwise (``keep``).

Texts are sorted by length and batched under a token budget (length
bucketing), padded on the right, and unpadded again; results equal
one-at-a-time encoding to float rounding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generator, Sequence

import numpy as np
import torch

from lm_workbench.engine.decoding import _start_ids, decode_job
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Partial, Progress, run_to_completion
from lm_workbench.engine.text_window import keep_for
from lm_workbench.engine.tokens import TokenizedText, tokenize_many, tokenize_target

GREEDY_MAX_TOKENS = 64


@dataclass
class DecoderSide:
    ids: list[int]  # decoder inputs: the start token, then the target/output shifted right
    tokens: list[str]
    hidden_states: np.ndarray  # [decoder layers + 1, decoder tokens, hidden]
    attentions: np.ndarray | None  # [decoder layers, heads, decoder tokens, decoder tokens]
    cross_attentions: np.ndarray | None  # [decoder layers, heads, decoder tokens, encoder tokens]
    from_greedy: bool  # True when the model's own output was fed back
    output_ids: list[int]  # what the decoder is trained/asked to produce at each position


@dataclass
class Encoding:
    tokenized: TokenizedText
    hidden_states: np.ndarray  # [layers + 1, tokens, hidden] (the encoder's, for encoder-decoders)
    attentions: np.ndarray | None  # [layers, heads, tokens, tokens]
    decoder: DecoderSide | None = None

    @property
    def tokens(self) -> list[str]:
        return self.tokenized.tokens


def length_buckets(lengths: Sequence[int], batch_size: int, max_batch_tokens: int) -> list[list[int]]:
    """Indices grouped into batches of similar length (each padded batch under the token budget)."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        longest = lengths[i]  # sorted ascending: the newest is the longest
        if current and (len(current) >= batch_size or longest * (len(current) + 1) > max_batch_tokens):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches


def _pad(rows: list[list[int]], value: int, device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    width = max(len(r) for r in rows)
    ids = torch.full((len(rows), width), value, dtype=torch.long)
    mask = torch.zeros((len(rows), width), dtype=torch.long)
    for b, row in enumerate(rows):
        ids[b, : len(row)] = torch.tensor(row, dtype=torch.long)
        mask[b, : len(row)] = 1
    return ids.to(device), mask.to(device)


def _stack(layers: Sequence[torch.Tensor] | None, keep: Sequence[int] | None = None) -> np.ndarray | None:
    if not layers:
        return None
    chosen = layers if keep is None else [layers[k] for k in keep]
    return torch.stack([t.float() for t in chosen]).cpu().numpy()


def _decoder_inputs(loaded: LoadedModel, tok: TokenizedText, target: str | None, window: int | None,
                    cancel: CancelToken) -> tuple[list[int], list[int], bool]:
    """(decoder input ids, decoder output ids, from_greedy) for one encoder-decoder input."""
    start = _start_ids(loaded.model)
    if target is not None:
        outputs = tokenize_target(loaded.tokenizer, target, max_length=window)
        greedy = False
    else:
        outputs = run_to_completion(
            decode_job(loaded.model, Family.ENCODER_DECODER, tok.ids, tokenizer=loaded.tokenizer,
                         max_new_tokens=GREEDY_MAX_TOKENS, cancel=cancel)
        )
        greedy = True
    return [start] + outputs[:-1], outputs, greedy


def _fits(made: TokenizedText | None, window: int | None, model_window: int | None, keep: str) -> bool:
    """Whether an encoding made at the model's window is what tokenizing at ``window`` under ``keep`` gives."""
    if made is None:
        return False
    if not made.truncated and (window is None or len(made.ids) <= window):
        return True
    expected = "start" if made.pair is not None else keep  # a pair always keeps its start
    return made.keep == expected and (window is None or window == model_window)


def _reuse_or_tokenize(loaded: LoadedModel, texts: Sequence[str], pairs: list[str | None], window: int | None,
                       made: Sequence[TokenizedText | None] | None, keep: str = "start") -> list[TokenizedText]:
    """The encodings already ``made`` where they fit the cap; the others tokenized (in one call)."""
    made = list(made) if made is not None else [None] * len(texts)
    model_window = loaded.info.max_positions
    todo = [i for i, tok in enumerate(made) if not _fits(tok, window, model_window, keep)]
    if todo:
        fresh = tokenize_many(loaded.tokenizer, [texts[i] for i in todo], [pairs[i] for i in todo],
                              max_length=window, keep=keep)
        for i, tok in zip(todo, fresh):
            made[i] = tok
    return made


def encode_texts(
    loaded: LoadedModel,
    texts: Sequence[str],
    *,
    pairs: Sequence[str | None] | None = None,
    targets: Sequence[str | None] | None = None,
    attentions: bool = True,
    hidden_layers: Sequence[int] | None = None,
    batch_size: int = 16,
    max_batch_tokens: int = 8192,
    max_tokens: int | None = None,
    tokenized: Sequence[TokenizedText | None] | None = None,
    keep: str = "start",
    cancel: CancelToken = NEVER_CANCELLED,
) -> Generator[Progress | Partial, None, list[Encoding]]:
    """Encode many texts; yields Progress (and Partial batches), returns Encodings in input order.

    ``max_tokens`` cuts each text shorter than the model's window (a view's cap); the tokens say so
    (``TokenizedText.truncated``, ``full_length``) as they do at the window. ``tokenized`` (one per text, or
    None) are encodings already made of these texts and pairs with this model (the window's, cut at the
    model's window): they are used instead of tokenizing again wherever they fit the cap. ``keep``: where the
    window sits on a longer text (``lm_workbench.engine.tokens``; corpora keep their start)."""
    n = len(texts)
    pairs = list(pairs) if pairs is not None else [None] * n
    targets = list(targets) if targets is not None else [None] * n
    window = loaded.info.max_positions
    if max_tokens is not None:
        window = min(window, max_tokens) if window else max_tokens
    tokenized = _reuse_or_tokenize(loaded, texts, pairs, window, tokenized, keep)
    is_seq2seq = loaded.family is Family.ENCODER_DECODER
    yield Progress(0, n, "tokenized")
    if loaded.family is Family.BILM:
        return (yield from _encode_bilm(loaded, tokenized, hidden_layers, batch_size, max_batch_tokens, cancel))

    decoder_rows: list[tuple[list[int], list[int], bool]] = []
    if is_seq2seq:
        for i, tok in enumerate(tokenized):
            cancel.check()
            decoder_rows.append(_decoder_inputs(loaded, tok, targets[i], window, cancel))
            if targets[i] is None:
                yield Progress(0, n, f"generated the decoder side of text {i + 1}/{n}")

    results: list[Encoding | None] = [None] * n
    device = loaded.device.torch_device
    pad_id = loaded.tokenizer.pad_token_id if loaded.tokenizer.pad_token_id is not None else 0
    done = 0
    batches = length_buckets([len(t) for t in tokenized], batch_size, max_batch_tokens)
    attn_mode = loaded.attention_implementation("eager") if attentions else _nullcontext()
    with attn_mode, torch.inference_mode():
        for batch in batches:
            cancel.check()
            rows = [tokenized[i].ids for i in batch]
            ids, mask = _pad(rows, pad_id, device)
            kwargs: dict[str, Any] = dict(
                input_ids=ids, attention_mask=mask, output_hidden_states=True, output_attentions=attentions
            )
            for name in tokenized[batch[0]].extra_inputs:
                kwargs[name] = _pad([tokenized[i].extra_inputs[name] for i in batch], 0, device)[0]
            if is_seq2seq:
                dec_ids, dec_mask = _pad([decoder_rows[i][0] for i in batch], pad_id, device)
                kwargs.update(decoder_input_ids=dec_ids, decoder_attention_mask=dec_mask)
                out = loaded.model(**kwargs)
                enc_hidden, enc_attn = out.encoder_hidden_states, out.encoder_attentions
            else:
                out = loaded.base_model(**kwargs)
                enc_hidden, enc_attn = out.hidden_states, out.attentions
            if attentions and not enc_attn:
                raise WorkbenchError(
                    f"{loaded.info.spec} returned no attention weights: its attention implementation "
                    f"({getattr(loaded.model.config, '_attn_implementation', '?')}) cannot report them"
                )
            hidden = _stack(enc_hidden, hidden_layers)
            attn = _stack(enc_attn) if attentions else None
            if is_seq2seq:
                dec_hidden = _stack(out.decoder_hidden_states, hidden_layers)
                dec_attn = _stack(out.decoder_attentions) if attentions else None
                cross = _stack(out.cross_attentions) if attentions else None
            for b, i in enumerate(batch):
                t = len(tokenized[i])
                enc = Encoding(
                    tokenized=tokenized[i],
                    hidden_states=np.ascontiguousarray(hidden[:, b, :t]),
                    attentions=None if attn is None else np.ascontiguousarray(attn[:, b, :, :t, :t]),
                )
                if is_seq2seq:
                    d_ids, d_out, greedy = decoder_rows[i]
                    d = len(d_ids)
                    enc.decoder = DecoderSide(
                        ids=d_ids,
                        # an id past the tokenizer's vocabulary (T5's config has 28 more) has no name: its number
                        tokens=[t if t is not None else str(j)
                                for t, j in zip(loaded.tokenizer.convert_ids_to_tokens(d_ids), d_ids)],
                        hidden_states=np.ascontiguousarray(dec_hidden[:, b, :d]),
                        attentions=None if dec_attn is None else np.ascontiguousarray(dec_attn[:, b, :, :d, :d]),
                        cross_attentions=None if cross is None else np.ascontiguousarray(cross[:, b, :, :d, :t]),
                        from_greedy=greedy,
                        output_ids=d_out,
                    )
                results[i] = enc
            done += len(batch)
            yield Partial([(i, results[i]) for i in batch])
            yield Progress(done, n, f"encoded {done}/{n} texts")
    return [r for r in results if r is not None]


def _encode_bilm(loaded: LoadedModel, tokenized: list[TokenizedText], hidden_layers: Sequence[int] | None,
                 batch_size: int, max_batch_tokens: int, cancel: CancelToken
                 ) -> Generator[Progress | Partial, None, list[Encoding]]:
    """ELMo: every biLM layer per word (0 = character CNN, 1..L = [forward; backward]); no attentions."""
    from lm_workbench.engine.elmo.characters import batch_to_char_ids

    n = len(tokenized)
    results: list[Encoding | None] = [None] * n
    device = loaded.device.torch_device
    max_chars = loaded.config.max_characters_per_token
    done = 0
    with torch.inference_mode():
        for batch in length_buckets([len(t) for t in tokenized], batch_size, max_batch_tokens):
            cancel.check()
            ids = batch_to_char_ids([tokenized[i].tokens for i in batch], max_chars).to(device)
            out = loaded.model(ids)
            hidden = _stack(out.layers, hidden_layers)  # [layers, B, T, 2P]
            for b, i in enumerate(batch):
                t = len(tokenized[i])
                results[i] = Encoding(tokenized=tokenized[i], hidden_states=np.ascontiguousarray(hidden[:, b, :t]),
                                      attentions=None)
            done += len(batch)
            yield Partial([(i, results[i]) for i in batch])
            yield Progress(done, n, f"encoded {done}/{n} texts")
    return [r for r in results if r is not None]


class _nullcontext:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> bool:
        return False


def encode(
    loaded: LoadedModel,
    text: str,
    *,
    pair: str | None = None,
    target: str | None = None,
    attentions: bool = True,
    max_tokens: int | None = None,
    tokenized: TokenizedText | None = None,
    cancel: CancelToken = NEVER_CANCELLED,
) -> Encoding:
    """Encode one text (and optional pair / decoder target), cut at ``max_tokens`` when given, through the
    window the rule of ``lm_workbench.engine.text_window`` places; ``tokenized``: the encoding already made of
    this text and pair with this model (the window's), reused where it fits."""
    gen = encode_texts(loaded, [text], pairs=[pair], targets=[target], attentions=attentions, max_tokens=max_tokens,
                       tokenized=[tokenized], keep=keep_for(loaded), cancel=cancel)
    return run_to_completion(gen)[0]
