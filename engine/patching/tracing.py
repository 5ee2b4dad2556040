"""Causal tracing by activation patching (Meng, Bau, Andonian and Belinkov 2022, "Locating and Editing Factual
Associations in GPT").

A clean text and a corrupted one of the same token length run through the model. For every layer l and
position t, the corrupted run is repeated with one site (``sites``: the block's output, its attention's
output or its MLP's output) at layer l and position t restored from the clean run. The metric is read at
the predicted position (decoders: the last token; masked LMs: the mask):

    metric = logit(answer) − logit(wrong), or logit(answer) when no wrong token is given,

and ``effect[l][t] = (patched − corrupt) / (clean − corrupt)``: 1 where restoring that one activation gives
back all of the clean metric, 0 where it gives back none. When |clean − corrupt| is under ``WEAK_CONTRAST`` (0.5
logits) every cell is a ratio of small numbers: the result's ``note`` says so and ``weak_contrast`` is set.
When the two runs give the same metric (to within ``SAME_METRIC_TOLERANCE`` of the larger one, float32
rounding: a ratio over a difference of rounding errors would be noise) there is nothing to recover: every effect is 0 and the result's ``note`` says why. Each
layer's positions run as one batch (a row per position), so the work is ``layers`` forward passes of
``tokens`` rows, with progress and the rows so far (a ``Partial`` holding a ``Patching``) after each.

A patched row's ``patched − corrupt`` subtracts the corrupted metric of the same row of an unpatched batch of
the same shape, not the reference pass's (a batch of 2 rows): a matrix product over another number of rows may
sum in another order, and that rounding, divided by a small clean − corrupt gap, made cells that restore nothing
(a position the corruption never reached) come out at 1e-6 .. 2e-4 depending on the CPU. With the same batch
shape a patch that changes nothing gives exactly 0 on any CPU.

Instead of a second text, the corrupted run may be ROME's: the clean text with Gaussian noise on the
subject's word embeddings (``noise``; ``subject=``), the metric averaged over the noise draws.

``restored_metric`` restores several positions at once at one layer, also at the block's input (the residual
stream entering block l; at l = 0 the embeddings' output): restoring every position there is the clean run.

Encoder-decoders (BART, T5; ``encoder_decoder``): the metric is read at the decoder's output position (Explain's
``output_position``), the clean run decoding its own greedy output before it and the corrupted run the same
decoder prefix; the encoder's sites (``enc-resid``, ``enc-attn``, ``enc-mlp``) have a column per encoder token, the
decoder's (``resid``, ``attn``, ``cross-attn``, ``mlp``) one per decoder token, and the result says which
(``columns``). Their block input (``restored_metric``'s ``"input"``) is the encoder's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generator, Sequence

import torch

from lm_workbench.engine.anatomy.hooks import recording, recording_inputs, replacing, replacing_input
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.logit_target.target import (
    PredictionSite, logit_difference, position_logits, prediction_site, rows_per_pass, token_name, vocabulary_token,
    word_embeddings,
)
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.patching.encoder_decoder import corrupted_site, decoder_tokens
from lm_workbench.engine.patching.names import DEFAULT_SITE, is_encoder_site
from lm_workbench.engine.patching.noise import DEFAULT_SAMPLES, DEFAULT_SCALE, Noise, embedding_sigma, noised, subject_positions
from lm_workbench.engine.patching.sites import check_site, site_modules, transformer_blocks
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Partial, Progress, run_to_completion
from lm_workbench.engine.wording import with_article

WHAT = "activation patching"
BLOCK_INPUT = "input"  # restored_metric only: the residual stream entering block l
SAME_METRIC_TOLERANCE = 1e-5  # relative to max(1, |clean|, |corrupt|)
SAME_METRIC_NOTE = ("the clean and corrupted runs give the same metric (to within rounding), so there is nothing "
                    "to recover: every effect is 0")
WEAK_CONTRAST = 0.5  # logit units: a smaller |clean - corrupt| makes every recovered fraction a ratio of small numbers


def gap_text(gap: float) -> str:
    """A small difference written so that it never reads as 0 (0.0002 was "0.000"): three decimals, or two
    significant digits below 0.001."""
    return f"{gap:.3f}" if gap >= 0.001 or gap == 0 else f"{gap:.2g}"


def weak_contrast_note(clean: float, corrupt: float) -> str:
    return (f"weak contrast: the clean and corrupted metrics differ by only {gap_text(abs(clean - corrupt))} (under "
            f"{WEAK_CONTRAST} logits), so every cell divides by that small difference and fractions far outside "
            "0..1 are noise, not findings; choose texts whose answers differ more")


@dataclass(frozen=True)
class Patching:
    """The recovered fraction of the metric for every layer (rows) and position (columns)."""

    site: str
    layers: list[int]  # 0..L-1: effect row l patches the output of block l
    tokens: list[str]  # the columns' tokens: the clean text's (an encoder-decoder's decoder sites: the decoder's)
    corrupt_tokens: list[str]
    position: int  # where the metric is read
    answer: str
    answer_id: int
    wrong: str | None
    wrong_id: int | None
    clean_metric: float
    corrupt_metric: float
    clean_prediction: str  # the top token at ``position`` in the clean run
    corrupt_prediction: str
    effect: list[list[float]]  # [layers][tokens]; a Partial's holds only the layers done so far
    note: str | None = None  # why the effect is what it is (the same metric; a weak contrast)
    noise: Noise | None = None  # the corrupted run is the clean text with noise on the subject (ROME)
    weak_contrast: bool = False  # |clean - corrupt| < WEAK_CONTRAST (and not the same metric): the note says so
    # encoder-decoders only (None otherwise): what the columns are ("encoder" or "decoder" tokens; ``tokens``
    # holds them), the clean encoder input's tokens and the decoder's tokens (its start token and the clean
    # output before ``position``, the output position, which both runs decode)
    columns: str | None = None
    encoder_tokens: list[str] | None = None
    decoder_tokens: list[str] | None = None
    notes: list[str] = field(default_factory=list)  # which tokens of a text longer than the window were read

    def to_dict(self) -> dict:
        data = {"site": self.site, "layers": self.layers, "tokens": self.tokens, "clean_metric": self.clean_metric,
                "corrupt_metric": self.corrupt_metric, "effect": self.effect}
        if self.columns is not None:
            data.update({"columns": self.columns, "encoder_tokens": self.encoder_tokens,
                         "decoder_tokens": self.decoder_tokens, "output_position": self.position})
        if self.note is not None:
            data["note"] = self.note
        if self.weak_contrast:
            data["weak_contrast"] = True
        if self.noise is not None:
            data["noise"] = self.noise.to_dict()
        if self.notes:
            data["notes"] = list(self.notes)
        return data


def _same_shape(clean: PredictionSite, corrupt: PredictionSite) -> None:
    a, b = len(clean.tokenized.ids), len(corrupt.tokenized.ids)
    if a != b:
        raise WorkbenchError(f"the clean and corrupted texts must have the same number of tokens: the clean text "
                             f"has {a}, the corrupted text has {b}")
    if clean.position != corrupt.position:
        raise WorkbenchError(f"the mask must be at the same position in both texts: it is at token {clean.position} "
                             f"of the clean text and token {corrupt.position} of the corrupted one")


def _metric(logits: torch.Tensor, answer_id: int, wrong_id: int | None) -> torch.Tensor:
    """[B] metric from [B, vocab] logits, in float64."""
    return logit_difference(logits.double(), answer_id, wrong_id)


@dataclass(frozen=True)
class _Runs:
    """Both texts run once: what every patch needs."""

    modules: list[torch.nn.Module]
    clean_site: PredictionSite
    corrupt_site: PredictionSite
    corrupt_embeddings: torch.Tensor  # [S, T, H]: the corrupted run (S noise draws; a second text: S = 1)
    answer_id: int
    wrong_id: int | None
    clean_metric: float
    corrupt_metric: float
    top: list[str]  # the clean and the corrupted run's top token at the position
    clean_outputs: list[torch.Tensor]  # [layers] of [T, H]: the site's clean output
    noise: Noise | None = None
    columns: int = 0  # positions patched per layer: the text's tokens (an encoder-decoder's decoder sites: its)


@dataclass(frozen=True)
class Corruption:
    """How the corrupted run is made: ``text`` (as many tokens as the clean one), or noise on ``subject``'s
    word embeddings (ROME): ν = ``scale`` × σ, averaged over ``samples`` draws from ``seed``."""

    text: str | None = None
    subject: str | None = None
    scale: float = DEFAULT_SCALE
    samples: int = DEFAULT_SAMPLES
    seed: int = 0


def _corrupted(loaded: LoadedModel, clean_site: PredictionSite, how: Corruption
               ) -> tuple[PredictionSite, torch.Tensor, Noise | None]:
    """(the corrupted run's site, its word embeddings [S, T, H], the noise used or None); an encoder-decoder's
    corrupted site decodes the clean site's decoder prefix, and its noise goes on the encoder's embeddings."""
    if (how.text is None) == (how.subject is None):
        raise WorkbenchError("corrupt with a second text or with noise on a subject of the clean text, not "
                             + ("both" if how.text is not None else "neither"))
    if how.text is not None:
        corrupt_site = (corrupted_site(loaded, clean_site, how.text, WHAT) if clean_site.kind == "seq2seq"
                        else prediction_site(loaded, how.text, WHAT))
        _same_shape(clean_site, corrupt_site)
        return corrupt_site, word_embeddings(loaded, corrupt_site), None
    if how.scale < 0:
        raise WorkbenchError(f"the noise scale is at least 0, not {how.scale}")
    positions = subject_positions(clean_site, how.subject)
    sigma = embedding_sigma(loaded)
    noise = Noise(how.subject.strip(), positions, sigma, how.scale, how.samples, how.seed)
    return clean_site, noised(word_embeddings(loaded, clean_site), positions, how.scale * sigma, how.samples,
                              how.seed), noise


def check_family(loaded: LoadedModel, output_position: int, what: str = WHAT) -> None:
    """A one-line error for a family patching does not cover, or an output position given to a model that has
    no decoder output to choose from."""
    if loaded.family not in (Family.DECODER, Family.ENCODER, Family.ENCODER_DECODER):
        raise WorkbenchError(f"{what} covers decoders, masked LMs and encoder-decoders; {loaded.info.spec} is a "
                             f"{loaded.family.value} model, which it does not cover")
    if output_position and loaded.family is not Family.ENCODER_DECODER:
        raise WorkbenchError(f"the output position is an encoder-decoder's (BART, T5) output token; "
                             f"{loaded.info.spec} is {with_article(loaded.family.value)} model, read at "
                             + ("its last token" if loaded.family is Family.DECODER else "its mask"))


def column_tokens(loaded: LoadedModel, site: str, clean_site: PredictionSite, corrupt_site: PredictionSite
                  ) -> dict:
    """The ``Patching`` fields that name the columns: ``tokens`` and ``corrupt_tokens`` (the patched positions'
    tokens in each run), for an encoder-decoder ``columns``, ``encoder_tokens`` and ``decoder_tokens``, and
    ``notes``: which tokens of a text longer than the window each run read ("clean text: tokens a–b of n")."""
    notes = [f"clean text: {n}" for n in clean_site.notes]
    if corrupt_site is not clean_site:
        notes += [f"corrupted text: {n}" for n in corrupt_site.notes]
    if clean_site.kind != "seq2seq":
        return {"tokens": clean_site.tokens, "corrupt_tokens": corrupt_site.tokens, "notes": notes}
    decoder = decoder_tokens(loaded, clean_site)
    encoder = site == BLOCK_INPUT or is_encoder_site(site)
    return {"tokens": clean_site.tokens if encoder else decoder,
            "corrupt_tokens": corrupt_site.tokens if encoder else decoder,
            "columns": "encoder" if encoder else "decoder", "encoder_tokens": clean_site.tokens,
            "decoder_tokens": decoder, "notes": notes}


def _runs(loaded: LoadedModel, clean: str, how: Corruption, answer: str, wrong: str | None, site: str,
          output_position: int = 0) -> _Runs:
    check_family(loaded, output_position)
    if site != BLOCK_INPUT:
        check_site(loaded, site)
    modules = transformer_blocks(loaded) if site == BLOCK_INPUT else site_modules(loaded, site)
    clean_site = prediction_site(loaded, clean, WHAT, output_position)
    corrupt_site, corrupt_embeddings, noise = _corrupted(loaded, clean_site, how)
    answer_id = vocabulary_token(loaded, answer, "--answer")
    wrong_id = vocabulary_token(loaded, wrong, "--wrong") if wrong is not None else None
    both = torch.cat([word_embeddings(loaded, clean_site), corrupt_embeddings])
    keep = recording_inputs(modules) if site == BLOCK_INPUT else recording(modules)
    with torch.inference_mode():
        with keep as kept:
            both_logits = position_logits(loaded, clean_site, both)  # one pass: clean, then the corrupted rows
        clean_outputs = [k[0] for k in kept]
    metrics = _metric(both_logits, answer_id, wrong_id)
    corrupt_logits = both_logits[1:].double().mean(0)
    top = [token_name(loaded, int(torch.argmax(row.float()))) for row in (both_logits[0], corrupt_logits)]
    return _Runs(modules, clean_site, corrupt_site, corrupt_embeddings, answer_id, wrong_id, float(metrics[0]),
                 float(metrics[1:].mean()), top, clean_outputs, noise, int(clean_outputs[0].shape[0]))


def _unpatched_metrics(loaded: LoadedModel, runs: _Runs, batch: int) -> torch.Tensor:
    """[batch] metrics of the corrupted run repeated in a batch of the shape ``_patched_metrics`` runs for
    ``batch`` runs, nothing restored: what each patched row is measured against (same shape, same rounding)."""
    draws = runs.corrupt_embeddings.shape[0]
    embeddings = (runs.corrupt_embeddings.expand(batch, -1, -1) if draws == 1
                  else runs.corrupt_embeddings.repeat(batch, 1, 1))
    with torch.inference_mode():
        logits = position_logits(loaded, runs.corrupt_site, embeddings)
    return _metric(logits, runs.answer_id, runs.wrong_id).view(batch, draws).mean(1).cpu()


def _patched_metrics(loaded: LoadedModel, runs: _Runs, module: torch.nn.Module, restored: torch.Tensor,
                     rows: torch.Tensor, positions: torch.Tensor, block_input: bool = False) -> torch.Tensor:
    """[R] metrics of R corrupted runs where run ``rows[i]`` gets ``restored[i]`` [H] at ``positions[i]``; a
    noised run is its S draws (batch rows r·S .. r·S + S − 1), its metric their mean."""
    draws = runs.corrupt_embeddings.shape[0]
    batch = int(rows.max()) + 1
    if draws > 1:
        rows = (rows[:, None] * draws + torch.arange(draws)).reshape(-1)
        positions = positions.repeat_interleave(draws)
        restored = restored.repeat_interleave(draws, dim=0)

    def restore(output: torch.Tensor) -> torch.Tensor:
        output = output.clone()
        output[rows, positions] = restored.to(output.dtype)
        return output

    embeddings = (runs.corrupt_embeddings.expand(batch, -1, -1) if draws == 1
                  else runs.corrupt_embeddings.repeat(batch, 1, 1))
    patching = replacing_input(module, restore) if block_input else replacing(module, restore)
    with torch.inference_mode(), patching:
        logits = position_logits(loaded, runs.corrupt_site, embeddings)
    return _metric(logits, runs.answer_id, runs.wrong_id).view(batch, draws).mean(1).cpu()


def _result(loaded: LoadedModel, runs: _Runs, site: str, effect: list[list[float]], note: str | None,
            weak: bool = False) -> Patching:
    return Patching(site=site, layers=list(range(len(runs.modules))), position=runs.clean_site.position,
                    answer=token_name(loaded, runs.answer_id), answer_id=runs.answer_id,
                    wrong=token_name(loaded, runs.wrong_id) if runs.wrong_id is not None else None,
                    wrong_id=runs.wrong_id, clean_metric=runs.clean_metric, corrupt_metric=runs.corrupt_metric,
                    clean_prediction=runs.top[0], corrupt_prediction=runs.top[1], effect=effect, note=note,
                    noise=runs.noise, weak_contrast=weak,
                    **column_tokens(loaded, site, runs.clean_site, runs.corrupt_site))


def patching_job(loaded: LoadedModel, clean: str, corrupt: str | None, answer: str, wrong: str | None = None,
                   site: str = DEFAULT_SITE, cancel: CancelToken = NEVER_CANCELLED, *, subject: str | None = None,
                   noise_scale: float = DEFAULT_SCALE, samples: int = DEFAULT_SAMPLES, seed: int = 0,
                   output_position: int = 0) -> Generator[Progress | Partial, None, Patching]:
    """Patch ``site`` at every layer and position from ``clean`` into ``corrupt`` (or, with ``subject`` instead,
    into the clean text with noise on the subject's word embeddings); a job that yields Progress and a
    ``Partial`` (the ``Patching`` of the layers done so far) per layer and returns the ``Patching``.
    ``answer`` and ``wrong`` each name one vocabulary token; ``output_position``: an encoder-decoder's output
    token whose metric is read (0: the first)."""
    check_family(loaded, output_position)
    check_site(loaded, site)
    how = Corruption(corrupt, subject, noise_scale, samples, seed)
    runs = _runs(loaded, clean, how, answer, wrong, site, output_position)
    tokens, layers = runs.columns, len(runs.modules)
    scale = max(1.0, abs(runs.clean_metric), abs(runs.corrupt_metric))
    if abs(runs.clean_metric - runs.corrupt_metric) <= SAME_METRIC_TOLERANCE * scale:
        return _result(loaded, runs, site, [[0.0] * tokens for _ in range(layers)], SAME_METRIC_NOTE)
    span = runs.clean_metric - runs.corrupt_metric
    weak = abs(span) < WEAK_CONTRAST
    note = weak_contrast_note(runs.clean_metric, runs.corrupt_metric) if weak else None
    draws = runs.corrupt_embeddings.shape[0]
    chunk = max(2, rows_per_pass(loaded, runs.corrupt_site, most=64) // draws)
    effect = torch.zeros(layers, tokens, dtype=torch.float64)
    unpatched: dict[int, torch.Tensor] = {}  # batch rows -> each row's corrupted metric in a batch of that shape
    for layer, module in enumerate(runs.modules):
        for start in range(0, tokens, chunk):
            cancel.check()
            positions = torch.arange(start, min(start + chunk, tokens))
            padded = positions if len(positions) > 1 else positions.repeat(2)  # at least two rows
            restored = runs.clean_outputs[layer][padded]  # [B, H]: row b restores position padded[b]
            patched = _patched_metrics(loaded, runs, module, restored, torch.arange(len(padded)), padded)
            if len(padded) not in unpatched:
                unpatched[len(padded)] = _unpatched_metrics(loaded, runs, len(padded))
            baseline = unpatched[len(padded)]
            effect[layer, positions] = (patched[:len(positions)] - baseline[:len(positions)]) / span
        yield Progress(layer + 1, layers, f"{WHAT}: layer {layer + 1} of {layers}")
        yield Partial(_result(loaded, runs, site, (effect[:layer + 1] + 0.0).tolist(), note, weak))
    return _result(loaded, runs, site, (effect + 0.0).tolist(), note, weak)  # + 0.0: no -0.0


def restored_metric(loaded: LoadedModel, clean: str, corrupt: str, answer: str, wrong: str | None = None,
                    site: str = BLOCK_INPUT, layer: int = 0, positions: Sequence[int] | None = None,
                    output_position: int = 0) -> tuple[float, Patching]:
    """(the metric of the corrupted run with ``site`` at ``layer`` restored from the clean run at every one of
    ``positions`` (default: all) at once, the ``Patching`` header: both runs' metrics and predictions).
    ``site`` is ``"input"`` (the residual stream entering block ``layer``; an encoder-decoder's encoder block)
    or one of the sweep's sites."""
    runs = _runs(loaded, clean, Corruption(corrupt), answer, wrong, site, output_position)
    if not 0 <= layer < len(runs.modules):
        raise WorkbenchError(f"the layer is between 0 and {len(runs.modules) - 1}, not {layer}")
    tokens = runs.columns
    where = torch.tensor(list(range(tokens)) if positions is None else list(positions), dtype=torch.long)
    clean_output = runs.clean_outputs[layer]
    # two identical rows, as in the reference pass of two rows, so the head's matmul rounds the same way
    rows = torch.arange(2).repeat_interleave(len(where))
    patched = _patched_metrics(loaded, runs, runs.modules[layer], clean_output[where.repeat(2)], rows,
                               where.repeat(2), block_input=site == BLOCK_INPUT)
    return float(patched[0]), _result(loaded, runs, site, [], None)


def patch(loaded: LoadedModel, clean: str, corrupt: str, answer: str, wrong: str | None = None,
          site: str = DEFAULT_SITE, output_position: int = 0) -> Patching:
    """``patching_job`` run to its end."""
    return run_to_completion(patching_job(loaded, clean, corrupt, answer, wrong, site,
                                          output_position=output_position))
