"""``sae train`` as a recorded run and ``sae eval --json`` against an independent computation from the saved
weights: plain transformers, a hand-written splice hook, the metrics' formulas written here. Bad input: one line,
exit 2."""

from __future__ import annotations

import json

import pytest
import torch
import torch.nn.functional as F
from safetensors.torch import load_file

from lm_workbench.cli.main import main
from tests.support.tiny_models import corpus_lines

pytestmark = pytest.mark.usefixtures("fresh_home")


def _cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def trained(tiny_models, tmp_path_factory):
    """A TopK SAE on the tiny GPT-2's blocks.0.hook_resid_post, trained by the CLI (a recorded run)."""
    import os

    root = tmp_path_factory.mktemp("sae")
    corpus = root / "corpus.txt"
    corpus.write_text("\n".join(corpus_lines(60)), encoding="utf-8")
    home = root / "home"
    old = os.environ.get("LM_WORKBENCH_HOME")
    os.environ["LM_WORKBENCH_HOME"] = str(home)
    try:
        from lm_workbench.paths import runs_db_path

        db = runs_db_path()
        code = main(["sae", "train", str(tiny_models["gpt2"]), "--site",
                     "blocks.0.hook_resid_post", "--corpus", str(corpus), "--out", str(root / "sae"), "--steps", "12",
                     "--batch", "64", "--buffer-tokens", "256", "--expansion", "2", "--sparsity", "6",
                     "--checkpoint-every", "5", "--json"])
    finally:
        if old is None:
            os.environ.pop("LM_WORKBENCH_HOME")
        else:
            os.environ["LM_WORKBENCH_HOME"] = old
    assert code == 0
    return root, db


def test_training_is_a_recorded_run_with_its_curves(trained):
    from lm_workbench.store import RunStore

    root, db = trained
    store = RunStore(db)
    (run,) = store.list_runs(kind="sae")
    assert run["status"] == "finished"
    names = set(store.metric_names(run["id"]))
    assert {"loss", "mse", "l0", "dead_fraction"} <= names
    assert [m["value"] for m in store.metrics(run["id"], "l0")][-1] <= 6
    assert any(a["path"] == str(root / "sae") for a in store.artifacts(run["id"]))
    assert not (root / "sae" / "checkpoint.pt").exists()  # removed once the run finished
    store.close()


def test_eval_matches_an_independent_computation_from_the_saved_weights(trained, tiny_models, capsys):
    from transformers import AutoTokenizer, GPT2LMHeadModel

    root, _ = trained
    lines = corpus_lines(10)
    corpus = root / "eval.txt"
    corpus.write_text("\n".join(lines), encoding="utf-8")
    code, out, _ = _cli(capsys, "sae", "eval", str(root / "sae"), "--model", str(tiny_models["gpt2"]), "--corpus",
                        str(corpus), "--max-tokens", "100000", "--json")
    assert code == 0
    got = json.loads(out)
    assert set(got) >= {"l0", "explained_variance", "mse", "ce_loss_recovered", "kl", "dead_fraction",
                        "dense_fraction"}

    w = load_file(str(root / "sae" / "sae_weights.safetensors"))
    k = json.loads((root / "sae" / "cfg.json").read_text())["k"]
    model = GPT2LMHeadModel.from_pretrained(tiny_models["gpt2"]).eval()
    tok = AutoTokenizer.from_pretrained(tiny_models["gpt2"])

    def sae(x):
        pre = (x - w["b_dec"]) @ w["W_enc"] + w["b_enc"]
        values, index = pre.topk(k, dim=-1)
        f = torch.zeros_like(pre).scatter(-1, index, values.clamp(min=0))
        return f, f @ w["W_dec"] + w["b_dec"]

    xs, fs, recs, ce, kl, n_loss = [], [], [], {"clean": 0.0, "spliced": 0.0, "zero": 0.0}, 0.0, 0
    block = model.transformer.h[0]
    for text in lines:
        ids = tok(text, return_tensors="pt", truncation=True, max_length=64)["input_ids"]
        with torch.no_grad():
            out_clean = model(ids, output_hidden_states=True)
            x = out_clean.hidden_states[1][0]
            f, rec = sae(x)
            xs.append(x), fs.append(f), recs.append(rec)
            logits = {"clean": out_clean.logits[0]}
            for name, change in (("spliced", lambda h: sae(h)[1]), ("zero", torch.zeros_like)):
                handle = block.register_forward_hook(lambda m, a, o, change=change: (change(o[0]), *o[1:])
                                                     if isinstance(o, tuple) else change(o))
                logits[name] = model(ids).logits[0]
                handle.remove()
        target = ids[0, 1:]
        for name in ce:
            ce[name] += float(F.cross_entropy(logits[name][:-1], target, reduction="sum"))
        p = logits["clean"][:-1].log_softmax(-1)
        q = logits["spliced"][:-1].log_softmax(-1)
        kl += float((p.exp() * (p - q)).sum())
        n_loss += len(target)
    x, f, rec = torch.cat(xs), torch.cat(fs), torch.cat(recs)
    density = (f > 0).float().mean(0)
    clean, spliced, zero = (ce[k] / n_loss for k in ("clean", "spliced", "zero"))
    expected = {
        "l0": float((f > 0).float().sum(1).mean()),
        "mse": float(((x - rec) ** 2).mean()),
        "explained_variance": float(1 - ((x - rec) ** 2).sum() / ((x - x.mean(0)) ** 2).sum()),
        "ce_loss_recovered": (zero - spliced) / (zero - clean),
        "kl": kl / n_loss,
        "dead_fraction": float((density == 0).float().mean()),
        "dense_fraction": float((density > 0.1).float().mean()),
    }
    for key, value in {"ce_clean": clean, "ce_spliced": spliced, "ce_zero": zero}.items():
        assert got[key] == pytest.approx(value, abs=1e-5), key
    # a random tiny model's zero-ablation gap is ~1e-3 nats: the ratio amplifies float32 rounding, so it is
    # checked as the formula of the three losses (each checked above) and loosely against the independent one
    assert got["ce_loss_recovered"] == pytest.approx((got["ce_zero"] - got["ce_spliced"]) /
                                                     (got["ce_zero"] - got["ce_clean"]), rel=1e-9)
    assert got["ce_loss_recovered"] == pytest.approx(expected.pop("ce_loss_recovered"), rel=0.05)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, rel=2e-3, abs=1e-6), key
    assert got["tokens"] == len(x)


@pytest.mark.parametrize("argv, says", [
    (["sae", "eval", "{tmp}/nowhere", "--model", "{gpt2}", "--corpus", "{tmp}/c.txt"], "no SAE folder"),
    (["sae", "train", "{gpt2}", "--corpus", "{tmp}/c.txt", "--out", "{tmp}/o", "--site", "blocks.9.hook_resid_post"],
     "blocks are 0..1"),
    (["sae", "train", "{gpt2}", "--corpus", "{tmp}/c.txt", "--out", "{tmp}/o", "--batch", "64", "--buffer-tokens",
      "32"], "must hold at least one batch"),
    (["sae", "eval", "{tmp}/nowhere", "--model", "{gpt2}", "--corpus", "{tmp}/bin.txt"], "not UTF-8 text"),
    (["steer", "{gpt2}", "--text", "a b", "--site", "blocks.0.hook_resid_post", "--strength", "1"],
     "exactly one of --vector"),
    (["steer", "{gpt2}", "--text", "a b", "--site", "blocks.0.cross_attn.hook_z", "--strength", "1", "--pairs",
      "{tmp}/p.tsv"], "one stack|only a decoder|no hook point"),
    (["steer", "{gpt2}", "--text", "a b", "--site", "blocks.0.hook_resid_post", "--strength", "1", "--pairs",
      "{tmp}/bad.tsv"], "a pair is 'positive<TAB>negative'"),
    (["steer", "{gpt2}", "--text", "a b", "--site", "blocks.0.hook_resid_post", "--strength", "1", "--feature",
      "x"], "SAE_DIR:IDX"),
])
def test_bad_input_is_one_line_and_exit_2(tmp_path, tiny_models, capsys, argv, says):
    import re

    (tmp_path / "c.txt").write_text("one line of text\n")
    (tmp_path / "p.tsv").write_text("good\tbad\n")
    (tmp_path / "bad.tsv").write_text("no tab here\n")
    (tmp_path / "bin.txt").write_bytes(b"text\x00\x7fbinary\n")
    argv = [a.format(tmp=tmp_path, gpt2=tiny_models["gpt2"]) for a in argv]
    code, _, err = _cli(capsys, *argv)
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and re.search(says, err), err


def test_steer_json_keys_and_a_saved_vector_steers_the_same(tmp_path, tiny_models, capsys):
    gpt2 = str(tiny_models["gpt2"])
    (tmp_path / "pairs.json").write_text(json.dumps({"positive": ["I love it", "so good"],
                                                     "negative": ["I hate it", "so bad"]}))
    args = ["steer", gpt2, "--text", "The cat sat", "--site", "blocks.1.hook_resid_post", "--strength", "3",
            "--generate", "3", "--json"]
    code, out, _ = _cli(capsys, *args, "--pairs", str(tmp_path / "pairs.json"), "--save-vector",
                        str(tmp_path / "v.safetensors"))
    assert code == 0
    first = json.loads(out)
    assert {"steered", "unsteered"} <= set(first)
    for side in ("steered", "unsteered"):
        assert set(first[side]) == {"top", "generation"} and len(first[side]["top"]) == 5
        assert set(first[side]["top"][0]) == {"token", "id", "probability"} and first[side]["generation"]
    code, out, _ = _cli(capsys, *args, "--vector", str(tmp_path / "v.safetensors"))
    assert code == 0
    again = json.loads(out)
    assert again["steered"] == first["steered"] and again["kl"] == pytest.approx(first["kl"])
    code, _, err = _cli(capsys, *[a if a != "blocks.1.hook_resid_post" else "blocks.0.hook_resid_post" for a in args],
                        "--vector", str(tmp_path / "v.safetensors"))
    assert code == 2 and "was made at blocks.1.hook_resid_post" in err


def _engine_grid(gpt2, layers, strengths, vector_at, concept, generate):
    """The grid from the engine's ``steering_grid`` called directly, as rows of the CLI's JSON."""
    from lm_workbench.engine.progress import drive
    from lm_workbench.engine.steering.grid import steering_grid

    grid = drive(steering_grid(gpt2, "The cat sat", layers, strengths, vector_at, concept,
                               generate_tokens=generate))
    return [{"layer": c.layer, "strength": c.strength, "concept_score": c.concept_score, "kl": c.kl,
             "top_token": c.top_token, "text": c.generation} for c in grid.cells]


def _same_rows(got, expected):
    assert len(got) == len(expected)
    for row, want in zip(got, expected):
        assert (row["layer"], row["strength"], row["top_token"], row["text"]) == \
            (want["layer"], want["strength"], want["top_token"], want["text"])
        assert row["concept_score"] == pytest.approx(want["concept_score"], abs=1e-5)
        assert row["kl"] == pytest.approx(want["kl"], abs=1e-6)


def test_steer_grid_with_a_feature_equals_the_engine_grid(trained, tiny_models, capsys):
    """``steer --grid --feature``: the feature's unit decoder row (read here from the saved weights) at every block."""
    from lm_workbench.engine.anatomy.points import resolve
    from lm_workbench.engine.models.loading import load_source

    root, _ = trained
    weights = load_file(str(root / "sae" / "sae_weights.safetensors"))
    direction = weights["W_dec"][3] / weights["W_dec"][3].norm()
    code, out, _ = _cli(capsys, "steer", str(tiny_models["gpt2"]), "--text", "The cat sat", "--site",
                        "blocks.0.hook_resid_post", "--feature", f"{root / 'sae'}:3", "--strength", "2", "--grid",
                        "--grid-strengths", "0", "2", "8", "--concept", "the,a", "--generate", "2", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["layers"] == [0, 1] and data["strengths"] == [0.0, 2.0, 8.0]
    assert data["site"] == "blocks.{layer}.hook_resid_post"
    gpt2 = load_source(str(tiny_models["gpt2"]))
    expected = _engine_grid(gpt2, [0, 1], [0.0, 2.0, 8.0],
                            lambda layer: (resolve(gpt2, f"blocks.{layer}.hook_resid_post"), direction),
                            ["the", "a"], 2)
    _same_rows(data["grid"], expected)
    assert all(row["text"] for row in data["grid"])


def test_steer_grid_with_pairs_takes_each_blocks_own_direction(tmp_path, tiny_models, capsys):
    """Contrastive pairs are averaged again at each block's site (the mean difference computed here)."""
    from lm_workbench.engine.anatomy.points import resolve
    from lm_workbench.engine.models.loading import load_source
    from transformers import AutoTokenizer, GPT2LMHeadModel

    folder = str(tiny_models["gpt2"])
    (tmp_path / "pairs.tsv").write_text("I love it\tI hate it\nso good\tso bad\n")
    code, out, _ = _cli(capsys, "steer", folder, "--text", "The cat sat", "--site", "blocks.1.hook_resid_post",
                        "--pairs", str(tmp_path / "pairs.tsv"), "--strength", "1", "--grid", "--grid-layers", "-1",
                        "0", "--concept", "the", "--json")
    assert code == 0
    data = json.loads(out)
    assert data["layers"] == [1, 0] and data["strengths"] == [-1.0, 0.0, 0.5, 1.0, 2.0, 4.0]
    tok, model = AutoTokenizer.from_pretrained(folder), GPT2LMHeadModel.from_pretrained(folder).eval()

    def last(text, layer):  # the block's output (hidden_states[-1] would carry the final norm)
        seen = []
        handle = model.transformer.h[layer].register_forward_hook(lambda m, a, out: seen.append((out[0] if isinstance(out, tuple) else out)[0, -1]))
        try:
            with torch.no_grad():
                model(**tok(text, return_tensors="pt"))
        finally:
            handle.remove()
        return seen[0]

    gpt2 = load_source(folder)
    vectors = {layer: torch.stack([last(t, layer) for t in ("I love it", "so good")]).mean(0)
               - torch.stack([last(t, layer) for t in ("I hate it", "so bad")]).mean(0) for layer in (0, 1)}
    expected = _engine_grid(gpt2, [1, 0], data["strengths"],
                            lambda layer: (resolve(gpt2, f"blocks.{layer}.hook_resid_post"), vectors[layer]),
                            ["the"], 0)
    _same_rows(data["grid"], expected)
    assert all(row["text"] is None for row in data["grid"])


@pytest.mark.parametrize("extra, says", [
    (["--grid", "--grid-layers", "5"], "--grid-layers 5: .* has blocks 0-1"),
    (["--concept", "the"], "go with --grid"),
    (["--grid", "--save-vector", "{tmp}/v.safetensors"], "does not go with --grid"),
])
def test_steer_grid_bad_input_is_one_line(tmp_path, tiny_models, capsys, extra, says):
    import re

    (tmp_path / "p.tsv").write_text("good\tbad\n")
    code, _, err = _cli(capsys, "steer", str(tiny_models["gpt2"]), "--text", "a b", "--site",
                        "blocks.0.hook_resid_post", "--strength", "1", "--pairs", str(tmp_path / "p.tsv"),
                        *[a.format(tmp=tmp_path) for a in extra])
    assert code == 2 and len(err.strip().splitlines()) == 1 and re.search(says, err), err


def test_sae_search_lists_the_features_promoting_a_token_as_the_saved_weights_say(trained, tiny_models, capsys):
    """``sae search``: the features whose logit effect on the token is largest equal W_dec @ W_U[token] computed
    here from the saved weights and the model's own unembedding; with --corpus, a feature whose strongest context
    (``sae show``) peaks on the token is among those said to fire on it; a token of several pieces is searched by
    its first, said."""
    import json as _json

    from safetensors.torch import load_file
    from transformers import AutoTokenizer, GPT2LMHeadModel

    root, _db = trained
    gpt2, sae, corpus = str(tiny_models["gpt2"]), str(root / "sae"), str(root / "corpus.txt")
    tok, model = AutoTokenizer.from_pretrained(gpt2), GPT2LMHeadModel.from_pretrained(gpt2)
    code, out, _ = _cli(capsys, "sae", "show", sae, "--model", gpt2, "--feature", "0", "--corpus", corpus,
                        "--contexts", "1", "--json")
    [ctx] = _json.loads(out)["contexts"]
    text = ctx["tokens"][ctx["peak"]]  # the token feature 0 fires on most
    code, out, err = _cli(capsys, "sae", "search", sae, "--model", gpt2, "--token", text, "--corpus", corpus,
                          "--top", "3", "--json")
    assert code == 0, err
    data = _json.loads(out)
    token_id = tok(text, add_special_tokens=False)["input_ids"][0]
    w_dec = load_file(str(root / "sae" / "sae_weights.safetensors"))["W_dec"].float()
    values, index = (w_dec @ model.get_output_embeddings().weight.detach()[token_id]).topk(3)
    assert [p["feature"] for p in data["promoting"]] == index.tolist()
    assert [p["effect"] for p in data["promoting"]] == pytest.approx(values.tolist(), rel=1e-5)
    assert data["token_id"] == token_id
    assert data["firing"][0] == 0  # feature 0 peaks on it (and is the first feature looked at)
    code, out, _ = _cli(capsys, "sae", "search", sae, "--model", gpt2, "--token", "Zq xv", "--json")
    data = _json.loads(out)
    assert code == 0 and data["firing"] is None and any("searched by its first" in n for n in data["notes"])
