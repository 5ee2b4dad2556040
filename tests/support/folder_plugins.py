"""Folder plugins made on the spot: an ``echo`` objective with a manifest, broken in the ways a test asks."""

from __future__ import annotations

import json
from pathlib import Path

MANIFEST = {"name": "echo", "version": "1.0.0", "api_version": "3.0", "families": ["decoder"],
            "module": "echo_objective.py", "class": "Echo"}

PLUGIN_CODE = '''
import pathlib
from dataclasses import dataclass, field

from lm_workbench.engine.plugin_api import Family, Objective, PositionKind, Preview, Requirements, collate, vocab_info

pathlib.Path({marker!r}).write_text("imported")
{extra}

class Echo(Objective):
    name = {name!r}
    api_version = "3.0"
    families = frozenset({{Family.DECODER}})
    requires = Requirements(head="causal-lm")
    description = "Feeds the text as it is."
    paper = "none"

    @dataclass
    class Config:
        rate: float = field(default={rate!r}, metadata={{"help": "unused", "min": 0.0, "max": 1.0}})

    def make_batch(self, token_ids, tokenizer, rng, config, *, example_ids=None):
        {body}
        previews = [Preview(original=list(ids), input_ids=list(ids), labels=list(ids),
                            kinds=[PositionKind.UNCHANGED] * len(ids)) for ids in token_ids]
        return collate(previews, vocab_info(tokenizer).pad_id)
'''


def make_folder_plugin(root: Path, folder: str, *, manifest: dict | None = None, name: str = "echo",
                       rate: float = 0.5, extra: str = "", body: str = "pass") -> Path:
    """A folder plugin whose module writes ``<folder>/imported.marker`` when it is imported."""
    path = root / folder
    path.mkdir(parents=True)
    data = dict(MANIFEST, name=name) | (manifest or {})
    (path / "plugin.json").write_text(json.dumps(data), encoding="utf-8")
    code = PLUGIN_CODE.format(marker=str(path / "imported.marker"), name=name, rate=rate, extra=extra, body=body)
    (path / "echo_objective.py").write_text(code, encoding="utf-8")
    return path
