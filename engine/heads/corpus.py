"""What mean and resample ablation put in a site's place, read from a corpus the user chooses.

Every line of the corpus runs through the model (an encoder-decoder's decoder reads the line itself, shifted
right, as in training); each site (a head row's output-projection input, an MLP's output) is kept at every
token. Mean ablation replaces the site by its mean over all the corpus's tokens; resample ablation replaces
the site at each position of the text by its value at one corpus token drawn uniformly (seeded; the same
draws for every site, so a set of sites is replaced from the same tokens). A line longer than the model's
window is cut to its first window and counted (``Replacements.notes``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generator

import torch

from lm_workbench.engine.anatomy.hooks import keeping_inputs, keeping_outputs
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.heads.anatomy import Anatomy
from lm_workbench.engine.heads.names import MAX_CORPUS_LINES, MEAN, RESAMPLE
from lm_workbench.engine.models.families import Family
from lm_workbench.engine.models.loading import LoadedModel
from lm_workbench.engine.progress import NEVER_CANCELLED, CancelToken, Progress


@dataclass(frozen=True)
class Replacements:
    """Per head row: [in] (mean) or [T, in] (resample); per MLP: [H] or [T, H]."""

    how: str
    rows: list[torch.Tensor]
    mlps: list[torch.Tensor]
    tokens: int  # the corpus's tokens read
    notes: list[str] = field(default_factory=list)  # lines cut to the window, counted


def _encoded(loaded: LoadedModel, lines: list[str]) -> tuple[list[dict[str, torch.Tensor]], int]:
    """The lines' model inputs (each cut to the window) and how many lines were cut."""
    device = loaded.device.torch_device
    limit = loaded.info.max_positions or 512
    runs, cut = [], 0
    for line in lines[:MAX_CORPUS_LINES]:
        cut += len(loaded.tokenizer(line)["input_ids"]) > limit
        enc = loaded.tokenizer(line, truncation=True, max_length=limit, return_tensors="pt")
        inputs = {k: v.to(device) for k, v in enc.items() if k in ("input_ids", "attention_mask", "token_type_ids")}
        if inputs["input_ids"].shape[1] == 0:
            continue
        if loaded.family is Family.ENCODER_DECODER:
            inputs["decoder_input_ids"] = loaded.model.prepare_decoder_input_ids_from_labels(labels=inputs["input_ids"])
        runs.append(inputs)
    return runs, cut


def corpus_replacements_job(loaded: LoadedModel, parts: Anatomy, lines: list[str], how: str, positions: int,
                              seed: int = 0, cancel: CancelToken = NEVER_CANCELLED
                              ) -> Generator[Progress, None, Replacements]:
    """The replacements ``how`` (mean or resample) needs for a text of ``positions`` tokens; a job."""
    lines = [line.strip() for line in lines if line.strip()]
    if not lines:
        raise WorkbenchError(f"{how} ablation reads a corpus, and it has no text: give a file of lines (--corpus F)")
    runs, cut = _encoded(loaded, lines)
    lengths = [int(r["input_ids"].shape[1]) for r in runs] if loaded.family is not Family.ENCODER_DECODER else \
        [int(r["decoder_input_ids"].shape[1]) for r in runs]
    total = sum(lengths)
    if total == 0:
        raise WorkbenchError("the corpus gives no tokens for this model")
    draws = None
    if how == RESAMPLE:
        generator = torch.Generator().manual_seed(seed)
        draws = torch.randint(0, total, (positions,), generator=generator)
    elif how != MEAN:
        raise WorkbenchError(f"corpus replacements are for mean or resample ablation, not {how!r}")
    projections = [row.projection for row in parts.rows]
    sums = None
    picked: list[list[torch.Tensor | None]] | None = None
    offset = 0
    for index, (inputs, length) in enumerate(zip(runs, lengths)):
        cancel.check()
        with torch.inference_mode(), keeping_inputs(projections) as ins, keeping_outputs(parts.mlps) as outs:
            loaded.model(**inputs)
        sites = [k[0][0].double() for k in ins] + [k[0][0].double() for k in outs]  # each [length, width]
        if how == MEAN:
            here = [s.sum(0) for s in sites]
            sums = here if sums is None else [a + b for a, b in zip(sums, here)]
        else:
            if picked is None:
                picked = [[None] * positions for _ in sites]
            for t, token in enumerate(draws.tolist()):
                if offset <= token < offset + length:
                    for i, s in enumerate(sites):
                        picked[i][t] = s[token - offset]
        offset += length
        yield Progress(index + 1, len(runs), f"{how} ablation: reading the corpus")
    if how == MEAN:
        values = [s / total for s in sums]
    else:
        values = [torch.stack(column) for column in picked]
    n = len(projections)
    window = loaded.info.max_positions or 512
    notes = [f"{cut} of {len(runs)} corpus lines were longer than the model's window of {window} tokens and were "
             "cut to it"] if cut else []
    return Replacements(how, values[:n], values[n:], total, notes)
