"""Every family's hook points (``lm_workbench.engine.anatomy.points``) resolve on the tiny models, and what a
hook keeps there is what plain transformers computes (issue 43.2).

Independent references: ``output_hidden_states`` (block l's output is ``hidden_states[l + 1]``, its input
``hidden_states[l]``; the last entry is after a final norm in pre-norm stacks, so the last block is compared
only where there is none), ``output_attentions`` for ``hook_pattern``, and in pre-norm stacks the residual sum
resid_post = resid_pre + attention out (+ cross-attention out) + MLP out.
"""

from __future__ import annotations

import pytest
import torch

from lm_workbench.engine.anatomy.points import hook_points, resolve, site_point
from lm_workbench.engine.heads.anatomy import anatomy
from lm_workbench.engine.patching.names import sites_for
from lm_workbench.engine.patching.sites import site_modules
from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.engine.models.loading import load_source as load_model

TEXT = "the cat sat on the mat"
BLOCK_POINTS = ("hook_resid_pre", "hook_resid_post", "attn.hook_z", "attn.hook_pattern", "hook_attn_out",
                "hook_mlp_out")
CROSS_POINTS = ("cross_attn.hook_z", "cross_attn.hook_pattern", "hook_cross_attn_out")

# kind: (stacks, final norm per stack, pre-norm (a residual sum), the last block's output is hidden_states[-1])
FAMILIES = {
    "gpt2": ((None,), {None: True}, True, False),
    "llama": ((None,), {None: True}, True, False),
    "bert": ((None,), {None: False}, False, True),
    "bart": (("encoder", "decoder"), {"encoder": False, "decoder": False}, False, True),
    "t5": (("encoder", "decoder"), {"encoder": True, "decoder": True}, True, False),
}


@pytest.fixture(scope="module", params=sorted(FAMILIES))
def family(request, tiny_models):
    loaded = load_model(str(tiny_models[request.param]))
    loaded.model.eval()
    return request.param, loaded


def _layers(loaded, stack):
    config = loaded.config
    if stack == "decoder":
        return int(getattr(config, "num_decoder_layers", None) or getattr(config, "decoder_layers", None)
                   or config.num_layers)
    if stack == "encoder":
        return int(getattr(config, "encoder_layers", None) or config.num_layers)
    return int(config.num_hidden_layers)


def _expected(kind, loaded) -> list[str]:
    stacks, norms, _, _ = FAMILIES[kind]
    names = []
    for stack in stacks:
        prefix = f"{stack}." if stack else ""
        names.append(prefix + "hook_embed")
        for layer in range(_layers(loaded, stack)):
            points = BLOCK_POINTS + (CROSS_POINTS if stack == "decoder" else ())
            names += [f"{prefix}blocks.{layer}.{point}" for point in points]
        if norms[stack]:
            names.append(prefix + "ln_final")
    return names + ["unembed"]


def _run(kind, loaded, names):
    """Plain transformers outputs (hidden states and attentions, eager) and what each hook point kept."""
    ids = loaded.tokenizer(TEXT, return_tensors="pt")["input_ids"]
    extra = {"decoder_input_ids": ids[:, :4]} if FAMILIES[kind][0][0] else {}
    sites = [resolve(loaded, name) for name in names]
    with loaded.attention_implementation("eager"), torch.no_grad():
        from contextlib import ExitStack

        with ExitStack() as stack:
            kept = [stack.enter_context(site.keep()) for site in sites]
            out = loaded.model(input_ids=ids, output_hidden_states=True, output_attentions=True, **extra)
    return out, {name: values for name, values in zip(names, kept)}


def test_every_hook_point_resolves_to_a_module_of_the_model(family):
    kind, loaded = family
    names = hook_points(loaded)
    assert names == _expected(kind, loaded)
    modules = {id(m) for m in loaded.model.modules()}
    for name in names:
        site = resolve(loaded, name)
        assert id(site.module) in modules and site.at in ("input", "output"), name


def test_what_the_hooks_keep_is_what_transformers_computes(family):
    kind, loaded = family
    stacks, _, pre_norm, last_plain = FAMILIES[kind]
    names = [n for n in hook_points(loaded) if "blocks." in n]
    out, kept = _run(kind, loaded, names)
    for stack in stacks:
        prefix = f"{stack}." if stack else ""
        hidden = {None: getattr(out, "hidden_states", None), "encoder": getattr(out, "encoder_hidden_states", None),
                  "decoder": getattr(out, "decoder_hidden_states", None)}[stack]
        attentions = {None: getattr(out, "attentions", None), "encoder": getattr(out, "encoder_attentions", None),
                      "decoder": getattr(out, "decoder_attentions", None)}[stack]
        layers = _layers(loaded, stack)
        for layer in range(layers):
            point = f"{prefix}blocks.{layer}."
            (pre,), (post,) = kept[point + "hook_resid_pre"], kept[point + "hook_resid_post"]
            torch.testing.assert_close(pre, hidden[layer], msg=point + "hook_resid_pre")
            if layer < layers - 1 or last_plain:
                torch.testing.assert_close(post, hidden[layer + 1], msg=point + "hook_resid_post")
            torch.testing.assert_close(kept[point + "attn.hook_pattern"][0], attentions[layer])
            z = kept[point + "attn.hook_z"][0]
            assert z.shape[:2] == pre.shape[:2]
            if stack == "decoder":
                torch.testing.assert_close(kept[point + "cross_attn.hook_pattern"][0], out.cross_attentions[layer])
            if pre_norm:
                total = pre + kept[point + "hook_attn_out"][0] + kept[point + "hook_mlp_out"][0]
                if stack == "decoder":
                    total = total + kept[point + "hook_cross_attn_out"][0]
                torch.testing.assert_close(total, post, msg=point + "residual sum")


def test_patching_sites_and_head_rows_are_hook_points(family):
    """Patching's per-layer modules and Heads' per-head projections are the hook points' modules (one anatomy)."""
    kind, loaded = family
    for site in sites_for(loaded.family.value):
        for layer, module in enumerate(site_modules(loaded, site)):
            assert module is resolve(loaded, site_point(loaded, site, layer)).module, (site, layer)
    prefix = "decoder." if FAMILIES[kind][0][0] else ""
    for row in anatomy(loaded).rows:
        point = f"{prefix}blocks.{row.layer}.{'cross_attn' if row.kind == 'cross' else 'attn'}.hook_z"
        assert row.projection is resolve(loaded, point).module, point


def test_replacing_a_point_changes_the_forward(family):
    """Replacing block 0's resid_post with zeros changes block 1's input to zeros (the replace side works)."""
    kind, loaded = family
    prefix = "encoder." if FAMILIES[kind][0][0] else ""
    ids = loaded.tokenizer(TEXT, return_tensors="pt")["input_ids"]
    extra = {"decoder_input_ids": ids[:, :4]} if prefix else {}
    with torch.no_grad(), resolve(loaded, f"{prefix}blocks.0.hook_resid_post").replace(torch.zeros_like), \
            resolve(loaded, f"{prefix}blocks.1.hook_resid_pre").keep() as kept:
        loaded.model(input_ids=ids, **extra)
    assert kept and torch.count_nonzero(kept[0]) == 0


@pytest.mark.parametrize("name", ["blocks.99.hook_resid_post", "nonsense", "blocks.0.hook_nothing",
                                  "decoder.blocks.0.hook_resid_post"])
def test_an_unknown_point_is_a_one_line_error(tiny_models, name):
    loaded = load_model(str(tiny_models["gpt2"]))
    with pytest.raises(WorkbenchError) as caught:
        resolve(loaded, name)
    assert "\n" not in str(caught.value)


def test_elmo_has_no_hook_points_and_says_so(tmp_path):
    """ELMo (the biLM family: LSTMs, no attention) gets a one-line refusal, not a stack trace."""
    from tests.support.elmo_reference import tiny_elmo

    _, folder = tiny_elmo(tmp_path / "elmo")
    loaded = load_model(str(folder))
    with pytest.raises(WorkbenchError) as caught:
        hook_points(loaded)
    assert "no transformer hook points" in str(caught.value) and "\n" not in str(caught.value)
