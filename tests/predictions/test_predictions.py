"""Fill-mask, next token, infilling and the logit lens against independent computations."""

from __future__ import annotations

import json

import numpy as np
import pytest
import torch

from lm_workbench.engine.errors import MissingHeadError, WorkbenchError
from lm_workbench.engine.lens.logit import logit_lens
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.predictions import fill_mask, infill, next_token
from lm_workbench.cli.main import main


@pytest.fixture(scope="module")
def models(tiny_models):
    return {k: load_model(str(tiny_models[k])) for k in ("bert", "gpt2", "llama", "bart", "t5")}


def softmax(x):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def test_fill_mask_probabilities_equal_independent_softmax(models):
    import transformers as tf

    loaded = models["bert"]
    text = "The [MASK] of the statement is [MASK]."
    tok, preds = fill_mask(loaded, text, k=5)
    ref_model = tf.AutoModelForMaskedLM.from_pretrained(loaded.info.folder).eval()
    ref_tok = tf.AutoTokenizer.from_pretrained(loaded.info.folder)
    enc = ref_tok(text, return_tensors="pt")
    with torch.no_grad():
        logits = ref_model(**enc).logits[0].numpy()
    positions = [i for i, t in enumerate(enc["input_ids"][0].tolist()) if t == ref_tok.mask_token_id]
    assert [p.position for p in preds] == positions and len(positions) == 2
    for pred in preds:
        p = softmax(logits[pred.position])
        expected = np.argsort(-p, kind="stable")[:5]
        assert [c.id for c in pred.candidates] == expected.tolist()
        assert np.allclose([c.prob for c in pred.candidates], p[expected], atol=1e-6)


def test_next_token_probabilities_equal_independent_softmax(models):
    import transformers as tf

    for kind in ("gpt2", "llama"):
        loaded = models[kind]
        cands = next_token(loaded, "The statement is", k=4)
        ref = tf.AutoModelForCausalLM.from_pretrained(loaded.info.folder).eval()
        ids = tf.AutoTokenizer.from_pretrained(loaded.info.folder)("The statement is", return_tensors="pt")
        with torch.no_grad():
            p = softmax(ref(**ids).logits[0, -1].numpy())
        expected = np.argsort(-p, kind="stable")[:4]
        assert [c.id for c in cands] == expected.tolist()
        assert np.allclose([c.prob for c in cands], p[expected], atol=1e-6)


def test_missing_heads_and_bad_requests_are_refused(minilm, models):
    with pytest.raises(MissingHeadError, match="MLM"):
        fill_mask(minilm, "The [MASK] sat.")
    with pytest.raises(MissingHeadError, match="decoder"):
        next_token(minilm, "The cat")
    with pytest.raises(MissingHeadError, match="MLM head"):
        logit_lens(minilm, "The cat")
    with pytest.raises(WorkbenchError, match="no mask token"):
        fill_mask(models["bert"], "No mask here.")
    with pytest.raises(WorkbenchError, match="no tokens"):
        fill_mask(models["bert"], "\u200b\u200b")
    with pytest.raises(WorkbenchError, match="no mask token"):
        infill(models["bart"], "Nothing is missing.")
    with pytest.raises(MissingHeadError, match="sentinel"):
        infill(models["t5"], "The <extra_id_0> is here.")


def test_model_own_mask_token_is_accepted(models):
    tok_generic, generic = fill_mask(models["bert"], "The [MASK] is true.", k=3)
    assert generic[0].candidates  # BERT's own token is [MASK]
    result = infill(models["bart"], "The statement <mask> true.", max_new_tokens=8)
    generic_result = infill(models["bart"], "The statement [MASK] true.", max_new_tokens=8)
    assert result.output_ids == generic_result.output_ids


def test_infill_equals_generate(models):
    loaded = models["bart"]
    result = infill(loaded, "The statement <mask> is true.", max_new_tokens=10)
    ids = loaded.tokenizer("The statement <mask> is true.", return_tensors="pt")
    with torch.no_grad():
        ref = loaded.model.generate(**ids, do_sample=False, num_beams=1, max_new_tokens=10)[0].tolist()[1:]
    assert result.output_ids == ref[: len(result.output_ids)]


@pytest.mark.parametrize("kind", ["bert", "gpt2", "llama", "bart", "t5"])
def test_lens_last_layer_is_the_model_output(models, kind):
    loaded = models[kind]
    target = "A target." if kind in ("bart", "t5") else None
    table = logit_lens(loaded, "The statement is true.", target=target, k=3)
    tok = loaded.tokenizer
    enc = tok("The statement is true.", return_tensors="pt")
    with torch.no_grad():
        if target:
            labels = tok(text_target=target, return_tensors="pt")["input_ids"]
            dec = loaded.model.prepare_decoder_input_ids_from_labels(labels=labels)
            logits = loaded.model(**enc, decoder_input_ids=dec).logits[0].numpy()
        else:
            logits = loaded.model(**enc).logits[0].numpy()
    p = softmax(logits)
    assert len(table.layer_names) == 3 and len(table.top[-1]) == p.shape[0]
    for pos, cands in enumerate(table.top[-1]):
        assert cands[0].id == int(np.argmax(p[pos]))
        assert abs(cands[0].prob - p[pos].max()) < 1e-5


def _layer_norm(h, weight, bias, eps):
    mu = h.mean(-1, keepdims=True)
    var = ((h - mu) ** 2).mean(-1, keepdims=True)
    return (h - mu) / np.sqrt(var + eps) * weight + bias


def test_lens_intermediate_layers_apply_the_final_norm_once(models):
    """GPT-2: layer i < L reads ln_f(h_i) @ wte^T, computed here in numpy from the weights."""
    import transformers as tf

    loaded = models["gpt2"]
    table = logit_lens(loaded, "The statement is true.", k=1)
    ref = tf.AutoModel.from_pretrained(loaded.info.folder).eval()
    ids = tf.AutoTokenizer.from_pretrained(loaded.info.folder)("The statement is true.", return_tensors="pt")
    with torch.no_grad():
        hidden = [h[0].numpy().astype(np.float64) for h in ref(**ids, output_hidden_states=True).hidden_states]
    sd = {k: v.numpy().astype(np.float64) for k, v in ref.state_dict().items()}
    for layer in (0, 1):
        normed = _layer_norm(hidden[layer], sd["ln_f.weight"], sd["ln_f.bias"], ref.config.layer_norm_epsilon)
        p = softmax(normed @ sd["wte.weight"].T)
        got = [(c[0].id, c[0].prob) for c in table.top[layer]]
        assert [g[0] for g in got] == np.argmax(p, -1).tolist()
        assert np.allclose([g[1] for g in got], p.max(-1), atol=1e-5)


def test_lens_t5_rescales_before_the_tied_head(models):
    import transformers as tf

    loaded = models["t5"]
    table = logit_lens(loaded, "The statement is true.", target="A target.", k=1)
    model = tf.AutoModelForSeq2SeqLM.from_pretrained(loaded.info.folder).eval()
    tok = tf.AutoTokenizer.from_pretrained(loaded.info.folder)
    enc = tok("The statement is true.", return_tensors="pt")
    dec = model.prepare_decoder_input_ids_from_labels(labels=tok(text_target="A target.", return_tensors="pt")["input_ids"])
    with torch.no_grad():
        h1 = model(**enc, decoder_input_ids=dec, output_hidden_states=True).decoder_hidden_states[1][0].numpy()
    h1 = h1.astype(np.float64)
    w = model.decoder.final_layer_norm.weight.detach().numpy().astype(np.float64)
    eps = model.config.layer_norm_epsilon
    rms = h1 / np.sqrt((h1 ** 2).mean(-1, keepdims=True) + eps) * w
    emb = model.get_output_embeddings().weight.detach().numpy().astype(np.float64)
    p = softmax((rms * model.config.d_model ** -0.5) @ emb.T)
    assert [c[0].id for c in table.top[1]] == np.argmax(p, -1).tolist()
    assert np.allclose([c[0].prob for c in table.top[1]], p.max(-1), atol=1e-5)


def test_cli_prediction_commands(capsys, models, minilm):
    from tests.support.reference import plain_forward

    code = main(["attention", "minilm", "--text", "The cat sat.", "--layer", "2", "--head", "5", "--json"])
    out = json.loads(capsys.readouterr().out)
    ref = plain_forward(minilm.info.folder, "The cat sat.")
    assert code == 0 and out["tokens"][0] == "[CLS]"
    assert np.allclose(out["weights"], ref["attentions"][2, 5], atol=1e-6)
    assert main(["fill-mask", models["bert"].info.folder, "--text", "The [MASK] is.", "--k", "2", "--json"]) == 0
    masks = json.loads(capsys.readouterr().out)["masks"]
    assert masks[0]["position"] == 2 and len(masks[0]["candidates"]) == 2
    assert set(masks[0]["candidates"][0]) == {"token", "id", "prob"}
    assert main(["next-token", models["gpt2"].info.folder, "--text", "The", "--k", "3", "--json"]) == 0
    assert len(json.loads(capsys.readouterr().out)["candidates"]) == 3
    assert main(["lens", models["gpt2"].info.folder, "--text", "The statement", "--json"]) == 0
    lens = json.loads(capsys.readouterr().out)
    assert len(lens["layers"]) == 3 and {"token", "prob"} <= set(lens["layers"][0]["positions"][0])
    for argv, needle in ([["fill-mask", "minilm", "--text", "a [MASK]"], "MLM"],
                         [["next-token", "minilm", "--text", "a"], "decoder"],
                         [["fill-mask", models["bert"].info.folder, "--text", "no mask"], "no mask token"],
                         [["attention", "minilm", "--text", "a", "--layer", "0", "--head", "12"], "head 12"],
                         [["attention", "minilm", "--text", "a", "--layer", "0", "--head", "0", "--kind", "cross"],
                          "encoder-decoders"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and needle in err, err
