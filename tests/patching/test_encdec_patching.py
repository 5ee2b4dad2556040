"""Activation patching of encoder-decoders (BART, T5) checked against plain forward passes written here: the
decoder prefix decoded greedily here, metrics from ``model(input_ids, decoder_input_ids)``, a cross-attention
patch through a hook of the test's own, attribution patching from torch.autograd.grad; the CLI's JSON; decoder-only
models refusing an encoder-decoder's site in one line."""

from __future__ import annotations

import json

import pytest
import torch

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model
from lm_workbench.engine.patching.attribution_patching import attribution_patch
from lm_workbench.engine.patching.tracing import patch, patching_job, restored_metric
from lm_workbench.engine.progress import run_to_completion
from tests.support.patching_rounding import effect_tolerance
from lm_workbench.cli.main import main

CLEAN, CORRUPT = "The name of the", "The value of the"  # as many tokens for the tiny BART and T5
POSITION = 2  # the decoder's output position the metric is read at: a prefix of 3 decoder tokens
KEYS = {"site", "layers", "tokens", "clean_metric", "corrupt_metric", "effect"}
ENCDEC_KEYS = {"columns", "encoder_tokens", "decoder_tokens", "output_position"}


@pytest.fixture(scope="module")
def models(tiny_models):
    return {kind: load_model(str(tiny_models[kind])) for kind in ("bart", "t5")}


def _ids(loaded, text: str) -> torch.Tensor:
    return torch.tensor([loaded.tokenizer(text)["input_ids"]])


def _greedy(model, input_ids: torch.Tensor, steps: int) -> torch.Tensor:
    """[1, steps + 1]: the decoder's start token and ``steps`` greedy output tokens, a full forward per step."""
    decoder = torch.tensor([[model.config.decoder_start_token_id]])
    with torch.no_grad():
        for _ in range(steps):
            nxt = model(input_ids=input_ids, decoder_input_ids=decoder).logits[0, -1].argmax()
            decoder = torch.cat([decoder, nxt.view(1, 1)], dim=1)
    return decoder


def _logits(model, input_ids, decoder_ids, module=None, position=None, value=None) -> torch.Tensor:
    """The last decoder position's logits (float64); with ``module``, its output's first element at decoder (or
    encoder) ``position`` replaced by ``value``."""
    def hook(_m, _inputs, output):
        first = (output[0] if isinstance(output, tuple) else output).clone()
        first[0, position] = value
        return (first, *output[1:]) if isinstance(output, tuple) else first

    handle = module.register_forward_hook(hook) if module is not None else None
    try:
        with torch.no_grad():
            return model(input_ids=input_ids, decoder_input_ids=decoder_ids).logits[0, -1].double()
    finally:
        if handle is not None:
            handle.remove()


def _kept_output(model, module, input_ids, decoder_ids) -> torch.Tensor:
    kept = {}

    def hook(_m, _inputs, output):
        kept["out"] = (output[0] if isinstance(output, tuple) else output)[0].detach().clone()

    handle = module.register_forward_hook(hook)
    with torch.no_grad():
        model(input_ids=input_ids, decoder_input_ids=decoder_ids)
    handle.remove()
    return kept["out"]


def _cross_attention(model, kind: str, layer: int):
    if kind == "bart":
        return model.model.decoder.layers[layer].encoder_attn
    return model.decoder.block[layer].layer[1].EncDecAttention


def _setup(loaded):
    """(clean ids, corrupt ids, the clean decoder prefix, answer, wrong): the answer and wrong tokens are where
    the two encoder inputs move the logits most apart (the tiny random models barely read their input)."""
    model = loaded.model
    clean, corrupt = _ids(loaded, CLEAN), _ids(loaded, CORRUPT)
    prefix = _greedy(model, clean, POSITION)
    delta = _logits(model, clean, prefix) - _logits(model, corrupt, prefix)
    return clean, corrupt, prefix, int(delta.argmax()), int(delta.argmin())


def _names(loaded, *ids):
    return [loaded.tokenizer.convert_ids_to_tokens(int(i)) for i in ids]


@pytest.mark.parametrize("kind", ["bart", "t5"])
def test_the_last_decoder_layer_at_the_last_position_gives_the_clean_metric(models, kind):
    loaded = models[kind]
    clean, corrupt, prefix, answer, wrong = _setup(loaded)
    a, w = _names(loaded, answer, wrong)
    result = patch(loaded, CLEAN, CORRUPT, a, w, "resid", output_position=POSITION)
    model = loaded.model
    clean_logits, corrupt_logits = _logits(model, clean, prefix), _logits(model, corrupt, prefix)
    clean_metric = float(clean_logits[answer] - clean_logits[wrong])
    corrupt_metric = float(corrupt_logits[answer] - corrupt_logits[wrong])  # the corrupted input, the CLEAN prefix
    assert result.clean_metric == pytest.approx(clean_metric, abs=1e-5)
    assert result.corrupt_metric == pytest.approx(corrupt_metric, abs=1e-5)
    assert result.columns == "decoder" and result.position == POSITION
    assert result.tokens == result.decoder_tokens == _names(loaded, *prefix[0].tolist())
    assert result.encoder_tokens == _names(loaded, *clean[0].tolist())
    assert len(result.effect) == (model.config.decoder_layers if kind == "bart" else model.config.num_decoder_layers)
    tolerance = effect_tolerance(clean_metric, corrupt_metric)
    assert result.effect[-1][-1] == pytest.approx(1.0, abs=tolerance)
    # the last decoder layer's earlier positions never reach the last position's logits: exactly nothing
    assert result.effect[-1][:-1] == [0.0] * POSITION
    # the same cell restored on its own: the clean metric, computed here from the clean ids alone
    restored, _ = restored_metric(loaded, CLEAN, CORRUPT, a, w, "resid", len(result.layers) - 1, [POSITION],
                                  output_position=POSITION)
    assert restored == pytest.approx(clean_metric, abs=1e-5)


@pytest.mark.parametrize("kind", ["bart", "t5"])
def test_restoring_every_encoder_position_of_the_last_encoder_layer_gives_the_clean_metric(models, kind):
    loaded = models[kind]
    clean, corrupt, prefix, answer, wrong = _setup(loaded)
    a, w = _names(loaded, answer, wrong)
    layers = len(loaded.model.get_encoder().layers if kind == "bart" else loaded.model.get_encoder().block)
    metric, header = restored_metric(loaded, CLEAN, CORRUPT, a, w, "enc-resid", layers - 1, None,
                                     output_position=POSITION)
    logits = _logits(loaded.model, clean, prefix)
    assert header.clean_metric != header.corrupt_metric and header.columns == "encoder"
    assert header.tokens == _names(loaded, *clean[0].tolist())  # the encoder input's tokens
    assert metric == pytest.approx(float(logits[answer] - logits[wrong]), abs=1e-5)
    # the sweep's encoder columns: one per encoder token
    sweep = patch(loaded, CLEAN, CORRUPT, a, w, "enc-resid", output_position=POSITION)
    assert [len(row) for row in sweep.effect] == [clean.shape[1]] * layers


@pytest.mark.parametrize("kind, layer, position", [("bart", 1, 2), ("t5", 0, 2), ("t5", 1, 2)])
def test_one_cross_attention_cell_equals_a_patch_made_here_with_a_plain_hook(models, kind, layer, position):
    loaded = models[kind]
    clean, corrupt, prefix, answer, wrong = _setup(loaded)
    result = patch(loaded, CLEAN, CORRUPT, *_names(loaded, answer, wrong), "cross-attn", output_position=POSITION)
    model = loaded.model
    module = _cross_attention(model, kind, layer)
    metric = lambda logits: float(logits[answer] - logits[wrong])  # noqa: E731
    clean_metric = metric(_logits(model, clean, prefix))
    corrupt_metric = metric(_logits(model, corrupt, prefix))
    value = _kept_output(model, module, clean, prefix)[position]
    patched = metric(_logits(model, corrupt, prefix, module, position, value))
    expected = (patched - corrupt_metric) / (clean_metric - corrupt_metric)
    assert abs(expected) > 0.05  # a cell that moves the metric, not a trivial zero
    assert result.effect[layer][position] == pytest.approx(expected, abs=effect_tolerance(clean_metric,
                                                                                          corrupt_metric))


def test_the_corrupted_run_decodes_the_clean_prefix(models):
    """T5's greedy output differs for the two texts here: every decoder pass of the sweep reads the clean one."""
    loaded = models["t5"]
    clean, corrupt, prefix, answer, wrong = _setup(loaded)
    own = _greedy(loaded.model, corrupt, POSITION)
    assert not torch.equal(own, prefix)  # otherwise this test would prove nothing
    seen = []

    def keep(_module, _args, kwargs):
        seen.append(kwargs["input_ids"].detach().clone())

    handle = loaded.model.get_decoder().register_forward_pre_hook(keep, with_kwargs=True)
    try:
        result = patch(loaded, CLEAN, CORRUPT, *_names(loaded, answer, wrong), "mlp", output_position=POSITION)
    finally:
        handle.remove()
    # the greedy decoding reads prefixes of 1 .. POSITION tokens; every pass after it, clean, corrupted or patched,
    # reads POSITION + 1: each of their rows is the clean prefix
    rows = torch.cat([ids for ids in seen if ids.shape[1] == POSITION + 1])
    assert len(rows) > 2 * len(result.layers) and (rows == prefix).all()
    assert result.decoder_tokens == _names(loaded, *prefix[0].tolist())


def test_noise_goes_on_the_encoders_word_embeddings(models):
    loaded = models["t5"]
    model, samples, seed = loaded.model, 3, 5
    clean, _, prefix, answer, wrong = _setup(loaded)
    result = run_to_completion(patching_job(loaded, CLEAN, None, *_names(loaded, answer, wrong), "enc-resid",
                                            subject="name", samples=samples, seed=seed, output_position=POSITION))
    table = model.get_encoder().get_input_embeddings().weight.detach()
    nu = 3.0 * float(table.double().std())
    assert result.noise.positions == [1] and result.noise.sigma * 3.0 == pytest.approx(nu)
    embeds = table[clean[0]].unsqueeze(0).repeat(samples, 1, 1)
    embeds[:, [1]] += torch.randn(samples, 1, table.shape[1], generator=torch.Generator().manual_seed(seed)) * nu
    with torch.no_grad():
        logits = model(inputs_embeds=embeds, decoder_input_ids=prefix.expand(samples, -1)).logits[:, -1].double()
    assert result.corrupt_metric == pytest.approx(float((logits[:, answer] - logits[:, wrong]).mean()), abs=1e-5)


def _sites_by_hand(model, kind):
    if kind == "bart":
        enc, dec = model.model.encoder.layers, model.model.decoder.layers
        return {"enc-resid": list(enc), "cross-attn": [b.encoder_attn for b in dec], "mlp": [b.fc2 for b in dec]}
    enc, dec = model.encoder.block, model.decoder.block
    return {"enc-resid": list(enc), "cross-attn": [b.layer[1].EncDecAttention for b in dec],
            "mlp": [b.layer[2].DenseReluDense for b in dec]}


@pytest.mark.parametrize("kind", ["bart", "t5"])
def test_attribution_patching_equals_gradient_times_difference_computed_here(models, kind):
    loaded = models[kind]
    model = loaded.model
    clean, corrupt, prefix, answer, wrong = _setup(loaded)
    sites = _sites_by_hand(model, kind)
    results = attribution_patch(loaded, CLEAN, CORRUPT, *_names(loaded, answer, wrong), tuple(sites),
                                output_position=POSITION)
    modules = [m for site in sites for m in sites[site]]
    embed = model.get_encoder().get_input_embeddings()

    def run(ids, grad):
        kept = {}
        handles = [m.register_forward_hook(
            lambda _m, _i, out, i=i: kept.__setitem__(i, out[0] if isinstance(out, tuple) else out))
            for i, m in enumerate(modules)]
        try:
            with torch.set_grad_enabled(grad):
                embeds = embed(ids).detach().requires_grad_(grad)
                logits = model(inputs_embeds=embeds, decoder_input_ids=prefix).logits[0, -1].double()
                metric = logits[answer] - logits[wrong]
        finally:
            for handle in handles:
                handle.remove()
        return metric, [kept[i] for i in range(len(modules))]

    clean_metric, clean_acts = run(clean, False)
    corrupt_metric, corrupt_acts = run(corrupt, True)
    grads = torch.autograd.grad(corrupt_metric, corrupt_acts)
    span = float(clean_metric) - float(corrupt_metric.detach())
    index = 0
    for site, site_modules in sites.items():
        got = torch.tensor(results[site].effect, dtype=torch.float64)
        for layer in range(len(site_modules)):
            c, k, g = clean_acts[index], corrupt_acts[index], grads[index]
            expected = ((c[0].double() - k[0].detach().double()) * g[0].double()).sum(-1) / span
            assert torch.allclose(got[layer], expected, atol=1e-4 * max(1.0, float(expected.abs().max())),
                                  rtol=1e-4), (site, layer)
            index += 1
        assert results[site].columns == ("encoder" if site == "enc-resid" else "decoder")
    assert max(abs(v) for row in results["cross-attn"].effect for v in row) > 0.1  # not trivially zero


def test_patch_json_for_an_encoder_decoder(tiny_models, models, capsys):
    loaded = models["t5"]
    clean, corrupt, prefix, answer, wrong = _setup(loaded)
    a, w = _names(loaded, answer, wrong)
    argv = ["patch", str(tiny_models["t5"]), "--clean", CLEAN, "--corrupt", CORRUPT, "--answer", a, "--wrong", w,
            "--output-position", str(POSITION), "--json"]
    assert main([*argv, "--site", "cross-attn"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert KEYS | ENCDEC_KEYS <= set(data) <= KEYS | ENCDEC_KEYS | {"note", "weak_contrast"}
    decoder = _names(loaded, *prefix[0].tolist())
    assert data["site"] == "cross-attn" and data["columns"] == "decoder" and data["output_position"] == POSITION
    assert data["tokens"] == data["decoder_tokens"] == decoder
    assert data["encoder_tokens"] == _names(loaded, *clean[0].tolist())
    assert [len(row) for row in data["effect"]] == [POSITION + 1] * 2
    logits = _logits(loaded.model, clean, prefix)
    assert data["clean_metric"] == pytest.approx(float(logits[answer] - logits[wrong]), abs=1e-5)
    assert main([*argv, "--site", "enc-resid", "--approx"]) == 0
    approx = json.loads(capsys.readouterr().out)
    assert approx["method"] == "attribution" and approx["columns"] == "encoder"
    assert approx["tokens"] == approx["encoder_tokens"] and len(approx["effect"][0]) == clean.shape[1]


def test_decoder_only_models_refuse_an_encoder_decoders_site_in_one_line(tiny_models, capsys):
    gpt2 = str(tiny_models["gpt2"])
    for extra, needles in ((["--site", "cross-attn"], ["cross-attn", "encoder-decoder", "resid, attn, mlp"]),
                           (["--site", "enc-resid", "--approx"], ["enc-resid", "encoder-decoder"]),
                           (["--output-position", "1"], ["output position", "encoder-decoder"])):
        code = main(["patch", gpt2, "--clean", CLEAN, "--corrupt", CORRUPT, "--answer", "Ġlist", *extra, "--json"])
        out, err = capsys.readouterr()
        assert code == 2 and out == "" and len(err.strip().splitlines()) == 1, err
        assert all(n in err for n in needles), err
    bert = load_model(str(tiny_models["bert"]))
    with pytest.raises(WorkbenchError, match="encoder-decoder's"):
        patch(bert, "a class is the [MASK]", "a is is the [MASK]", "list", site="enc-mlp")
