"""The Features tab's contrastive-pairs jobs without Qt: typed pairs and a pairs file read by one reader (the CLI's
``--pairs``), the sites offered, and the one-line refusals of a model that cannot be steered."""

from __future__ import annotations

import pytest

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source
from lm_workbench.engine.progress import NEVER_CANCELLED, drive
from lm_workbench.engine.steering.vectors import parse_pairs, read_pairs
from lm_workbench.sae.state import PAIRS, FeaturesState
from lm_workbench.sae.view_tasks import pairs_grid_job, pairs_steer_job, steering_sites, view_pairs

TYPED = "I love it\tI hate it\n\n  good day \tbad day\n"


@pytest.mark.parametrize("typed, message", [
    ("", "No pairs"),
    ("   \n", "No pairs"),
    ("I love it I hate it", "typed pairs line 1: a pair is 'positive<TAB>negative'"),
    ("a\tb\nc\t\n", "typed pairs line 2: a pair is 'positive<TAB>negative'"),
    ("a\tb\tc", "typed pairs line 1"),
    (TYPED, None),
])
def test_typed_pairs_are_checked_by_the_engines_reader(typed, message):
    state = FeaturesState()
    state.set_sites(["blocks.0.hook_resid_post", "blocks.1.hook_resid_post"], "blocks.1.hook_resid_post")
    state.set_pairs(PAIRS, text=typed)
    problem = state.pairs_problem("The cat sat")
    assert (problem is None) if message is None else (message in problem), problem
    assert state.pairs_site == "blocks.1.hook_resid_post" and state.pairs_given() == ("typed", typed)


def test_typed_and_file_pairs_read_alike(tmp_path):
    path = tmp_path / "love.tsv"
    path.write_text(TYPED, encoding="utf-8")
    expected = (["I love it", "good day"], ["I hate it", "bad day"])
    assert read_pairs(path) == parse_pairs(TYPED, "typed pairs") == expected
    assert view_pairs(("file", str(path))) == (*expected, "2 pairs, love.tsv")
    assert view_pairs(("typed", TYPED)) == (*expected, "2 pairs, typed pairs")
    (tmp_path / "uneven.json").write_text('{"positive": ["a", "b"], "negative": ["c"]}', encoding="utf-8")
    assert view_pairs(("file", str(tmp_path / "uneven.json")))[2] == "2 positive and 1 negative prompts, uneven.json"


def test_the_sites_are_every_blocks_points_but_the_pattern(tiny_models):
    gpt2 = load_source(str(tiny_models["gpt2"]))
    sites, default = steering_sites(gpt2)
    assert default == "blocks.1.hook_resid_post" and sites[:2] == ["blocks.0.hook_resid_pre",
                                                                  "blocks.0.hook_resid_post"]
    assert all(s.startswith("blocks.") and not s.endswith("hook_pattern") for s in sites)
    assert {f"blocks.{i}.hook_mlp_out" for i in range(2)} <= set(sites)


def test_a_model_that_cannot_be_steered_is_refused_in_one_line(tiny_models, tmp_path):
    import transformers as tf

    bert = str(tiny_models["bert"])
    tf.BertModel.from_pretrained(bert).save_pretrained(tmp_path / "headless")  # an encoder without its MLM head
    tf.AutoTokenizer.from_pretrained(bert).save_pretrained(tmp_path / "headless")
    rows = [(load_source(str(tmp_path / "headless")), "the cat [MASK]", "has no masked-LM head"),
            (load_source(bert), "the cat sat", "needs exactly one [MASK]")]
    for loaded, text, message in rows:
        with pytest.raises(WorkbenchError, match=message.replace("[", r"\[").replace("]", r"\]")):
            pairs_steer_job(loaded, ("typed", TYPED), "blocks.0.hook_resid_post", text, 4.0, NEVER_CANCELLED)
        with pytest.raises(WorkbenchError, match=message.replace("[", r"\[").replace("]", r"\]")):
            drive(pairs_grid_job(loaded, ("typed", TYPED), "blocks.0.hook_resid_post", text, 4.0, "",
                                 NEVER_CANCELLED))


@pytest.mark.parametrize("writer, expected", [
    # pandas: a field holding a quote is written quoted, its quotes doubled; read back as typed
    ("pandas", (['She said "wow"', "fine"], ["She said nothing", 'a "so-so" day'])),
    # a GLUE-style file: a stray quote is text, kept as it stands
    ("literal", (['"Yes," she said', "fine"], ["no", "bad"])),
])
def test_a_pairs_file_is_read_as_the_tool_that_wrote_it_meant(tmp_path, writer, expected):
    import pandas as pd

    path = tmp_path / "pairs.tsv"
    if writer == "pandas":
        pd.DataFrame({"p": expected[0], "n": expected[1]}).to_csv(path, sep="\t", header=False, index=False)
        assert '""wow""' in path.read_text(encoding="utf-8")  # the quoting this test is about
    else:
        path.write_text("".join(f"{p}\t{n}\n" for p, n in zip(*expected)), encoding="utf-8")
    assert read_pairs(path) == expected
