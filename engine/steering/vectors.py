"""Steering directions [d] at a hook point.

- ``feature_direction``: an SAE feature's decoder row W_dec[i] scaled to unit norm (strength is then in the
  site's own units);
- ``contrastive_direction``: contrastive activation addition's direction, the mean of the site's activation at
  each positive prompt's last non-special token minus the same mean over the negative prompts (not normalised: strength 1
  adds the mean difference itself);
- ``read_pairs`` / ``parse_pairs``: the pairs of a file (``steer --pairs``), or of text typed in the Features tab in
  the same line format: one reader for both.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.sae.activations import site_activations


def feature_direction(sae: Any, index: int) -> torch.Tensor:
    """Unit-norm decoder direction [d_in] of feature ``index``; a one-line error out of range."""
    if not 0 <= index < sae.d_sae:
        raise WorkbenchError(f"feature {index} is out of range: the SAE has features 0..{sae.d_sae - 1}")
    row = sae.W_dec[index].detach().float()
    norm = float(row.norm())
    if norm == 0.0:
        raise WorkbenchError(f"feature {index}'s decoder direction is zero")
    return row / norm


def last_token_activation(loaded: Any, site: Any, text: str) -> torch.Tensor:
    """The site's activation [d] at the last token of ``text`` that is not a special token (an encoder's [SEP],
    a T5's </s>; the last token when every one is special). One text per forward: no padding."""
    acts, mask, batch = site_activations(loaded, site, [text])
    special = set(loaded.tokenizer.all_special_ids)
    ids = batch["input_ids"][0][mask[0]].tolist()
    plain = [i for i, token in enumerate(ids) if token not in special]
    return acts[0, plain[-1] if plain else len(ids) - 1]


def contrastive_direction(loaded: Any, site: Any, positives: list[str], negatives: list[str]) -> torch.Tensor:
    """mean_p act(p) - mean_n act(n) [d], each act the site's activation at the prompt's last non-special token."""
    if not positives or not negatives:
        raise WorkbenchError("contrastive steering needs at least one positive and one negative prompt")
    pos = torch.stack([last_token_activation(loaded, site, t) for t in positives]).mean(0)
    neg = torch.stack([last_token_activation(loaded, site, t) for t in negatives]).mean(0)
    return pos - neg


def read_pairs(path: str | Path) -> tuple[list[str], list[str]]:
    """(positives, negatives) from a pairs file: JSON ``{"positive": [...], "negative": [...]}`` (a ``.json``
    file), or text lines ``positive<TAB>negative`` (one pair a line; ``parse_pairs``). A one-line error for a
    missing or unreadable file and for anything else."""
    file = Path(path)
    if not file.is_file():
        raise WorkbenchError(f"pairs file not found: {file}")
    from lm_workbench.engine.text_input import read_text_file

    return parse_pairs(read_text_file(file), str(file), as_json=file.suffix.lower() == ".json")


def parse_pairs(text: str, source: str, *, as_json: bool = False) -> tuple[list[str], list[str]]:
    """(positives, negatives) from a pairs file's text (or pairs typed in a window in the same line format):
    ``as_json`` ``{"positive": [...], "negative": [...]}``, else lines ``positive<TAB>negative`` (blank lines
    skipped, each side stripped). A one-line error naming ``source`` (and the line) otherwise, or with no pairs."""
    if as_json:
        try:
            data = json.loads(text)
            pos, neg = list(map(str, data["positive"])), list(map(str, data["negative"]))
        except (ValueError, KeyError, TypeError):
            raise WorkbenchError(f"{source}: a JSON pairs file is {{\"positive\": [...], \"negative\": [...]}}"
                                 ) from None
    else:
        from lm_workbench.engine.data.tsv_quoting import decide, rows

        def broken(number: int, reason: str) -> None:
            raise WorkbenchError(f"{source} line {number}: {reason}")

        # quoted as the project's other TSV files are read (lm_workbench.engine.data.tsv_quoting): pandas' and
        # Excel's "She said ""wow""" is read as She said "wow" (it kept its quotes); GLUE-style quotes stay text
        lines = text.splitlines(keepends=True)
        pos, neg = [], []
        for number, parts in rows(lines, decide(lines, "auto"), source, broken):
            if len(parts) != 2 or not parts[0].strip() or not parts[1].strip():
                raise WorkbenchError(f"{source} line {number}: a pair is 'positive<TAB>negative'")
            pos.append(parts[0].strip())
            neg.append(parts[1].strip())
    if not pos or not neg:
        raise WorkbenchError(f"{source} has no pairs")
    return pos, neg
