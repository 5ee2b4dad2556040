"""The Heads tab's state hands its tasks the typed requests the CLI builds (issue 43.5): the form equals the
parsed ``lm-workbench ablate --all-heads`` / ``lm-workbench dla`` command line with the same settings."""

from __future__ import annotations

import pytest

from lm_workbench.cli.parser import build_parser
from lm_workbench.heads.state import HeadsState
from lm_workbench.requests import AblateRequest, DlaRequest, request_of

ROWS = [  # (target, contrast, how, corpus, output_position)
    (" Paris", " Rome", "zero", "", 0),
    (" list", "", "mean", "texts.txt", 0),
    ("dog", "cat", "resample", "other.txt", 2),
]


@pytest.mark.parametrize(("target", "contrast", "how", "corpus", "position"), ROWS)
def test_heads_form_is_the_cli_request(target, contrast, how, corpus, position):
    state = HeadsState()
    state.set_inputs(target, contrast, how, corpus, position)
    text = "The capital of France is"
    argv = ["ablate", "minilm", "--text", text, "--target", target, "--all-heads", "--how", how,
            "--output-position", str(position)] + (["--contrast", contrast] if contrast else []) + (
        ["--corpus", corpus] if corpus else [])
    ablate = state.request(text, model="minilm")
    assert isinstance(ablate, AblateRequest)
    assert ablate == request_of(build_parser().parse_args(argv))
    dla_argv = ["dla", "minilm", "--text", text, "--target", target, "--output-position", str(position)] + (
        ["--contrast", contrast] if contrast else [])
    dla = state.dla_request(text, model="minilm")
    assert isinstance(dla, DlaRequest) and dla == request_of(build_parser().parse_args(dla_argv))
    with pytest.raises(AttributeError):  # frozen: a task cannot change what the form asked
        dla.text = "other"  # type: ignore[misc]
