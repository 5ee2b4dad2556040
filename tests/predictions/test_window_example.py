"""Issue 42's example (kind 1): next-token on a text longer than a decoder's window answers after the text's
last token, as plain ``transformers`` does on the last 128 tokens, and says "tokens 144–271 of 271"."""

from __future__ import annotations

import json

import pytest
import torch

from lm_workbench.cli.main import main
from tests.support.window_reference import REPORTED_TEXT, build_gpt2_with_128_window


@pytest.fixture(scope="module")
def gpt2_128(tmp_path_factory):
    return build_gpt2_with_128_window(tmp_path_factory.mktemp("gpt2-128"))


def test_next_token_reads_the_last_window_and_says_so(capsys, gpt2_128):
    import transformers as tf

    code = main(["next-token", str(gpt2_128), "--text", REPORTED_TEXT, "--k", "5", "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    data = json.loads(out)
    assert data["notes"] == ["tokens 144–271 of 271"]
    assert "tokens 144–271 of 271" in err

    tokenizer = tf.AutoTokenizer.from_pretrained(gpt2_128)
    model = tf.AutoModelForCausalLM.from_pretrained(gpt2_128).eval()
    ids = tokenizer(REPORTED_TEXT)["input_ids"]
    assert len(ids) == 271
    with torch.no_grad():
        last = torch.softmax(model(torch.tensor([ids[-128:]])).logits[0, -1].double(), -1)
        first = torch.softmax(model(torch.tensor([ids[:128]])).logits[0, -1].double(), -1)
    expected = torch.argsort(-last, stable=True)[:5].tolist()
    assert [c["id"] for c in data["candidates"]] == expected
    assert [c["prob"] for c in data["candidates"]] == pytest.approx(last[expected].tolist(), abs=1e-6)
    assert expected != torch.argsort(-first, stable=True)[:5].tolist()  # the old answer (position 127) differs
