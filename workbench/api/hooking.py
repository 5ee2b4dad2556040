"""Hooks and caches on the anatomy's hook points (``lm_workbench.engine.anatomy.points``), TransformerLens's way:
``run_with_cache`` keeps only the named points' values, ``run_with_hooks`` lets ``fn(value, name)`` read or
replace one. Every hook is removed when the call ends, also on an error (``contextlib.ExitStack``). Method:
forward hooks of PyTorch (``register_forward_hook`` / ``register_forward_pre_hook``), as TransformerLens's
``HookPoint`` and nnsight's envoys use them.
"""

from __future__ import annotations

import difflib
from contextlib import ExitStack
from typing import Any, Callable, Iterable

from lm_workbench.engine.errors import WorkbenchError


def _is_elmo(loaded: Any) -> bool:
    from lm_workbench.engine.models.families import Family

    return getattr(loaded, "family", None) is Family.BILM


def elmo_names(loaded: Any) -> list[str]:
    """An ELMo's points, the layers its views show: ``hook_embed`` (layer 0, the character CNN's token vector
    ``[x; x]``) and ``blocks.{l}.hook_resid_post`` (biLSTM layer l + 1, ``[forward; backward]``)."""
    layers = int(loaded.model.config.n_layers)
    return ["hook_embed"] + [f"blocks.{layer}.hook_resid_post" for layer in range(layers)]


def hook_names(loaded: Any) -> list[str]:
    """Every hook point name of ``loaded``, in forward order per stack (an ELMo's: ``elmo_names``)."""
    from lm_workbench.engine.anatomy.points import hook_points

    return elmo_names(loaded) if _is_elmo(loaded) else hook_points(loaded)


def _elmo_cache(loaded: Any, text: str, wanted: list[str]) -> tuple[None, dict[str, Any]]:
    """An ELMo's layers for ``text`` (its words as the model's ``words`` setting splits them), read from the
    biLM's own forward (``ElmoModel.forward``'s layers, as every ELMo view reads them): no logits (a biLM's
    softmax predicts the next and the previous word, not one distribution per position)."""
    import torch

    from lm_workbench.engine.analysis import encode

    known = elmo_names(loaded)
    for name in wanted:
        if name not in known:
            _site(loaded, name, known)  # the one-line error with the nearest names
    hidden = encode(loaded, text, attentions=False).hidden_states  # [layers + 1, words, 2P]
    return None, {name: torch.from_numpy(hidden[known.index(name)]).unsqueeze(0) for name in wanted}


def _site(loaded: Any, name: str, known: list[str]) -> Any:
    from lm_workbench.engine.anatomy.points import resolve

    if name not in known:
        near = difflib.get_close_matches(name, known, n=3, cutoff=0.5)
        hint = f"; nearest: {', '.join(near)}" if near else f"; {len(known)} points: m.hook_names() lists them"
        raise WorkbenchError(f"no hook point is called {name!r}{hint}")
    return resolve(loaded, name)


def _inputs(loaded: Any, text: str, target: str | None) -> dict[str, Any]:
    import torch

    import warnings

    from lm_workbench.engine.text_window import model_inputs, read_text, window_notes

    device = next(loaded.model.parameters()).device
    read = read_text(loaded, text)  # a text longer than the window: the window rule, said (as every command does)
    for note in window_notes(read):
        warnings.warn(note, stacklevel=3)
    inputs = {k: v.to(device) for k, v in model_inputs(loaded, read).items()}
    if loaded.info.family == "encoder-decoder":
        if target is None:
            start = loaded.model.config.decoder_start_token_id
            inputs["decoder_input_ids"] = torch.tensor([[start]], device=device)
        else:
            target_ids = loaded.tokenizer(text_target=target, return_tensors="pt")["input_ids"]
            inputs["decoder_input_ids"] = target_ids.to(device)
    return inputs


def _forward(loaded: Any, inputs: dict[str, Any], patterns: bool) -> Any:
    import torch

    with torch.no_grad():
        if patterns:
            with loaded.attention_implementation("eager"):
                output = loaded.model(**inputs, output_attentions=True)
        else:
            output = loaded.model(**inputs)
    return getattr(output, "logits", None) if getattr(output, "logits", None) is not None else output[0]


def run_with_cache(loaded: Any, text: str, *, names: Iterable[str] | None = None,
                   target: str | None = None) -> tuple[Any, dict[str, Any]]:
    """``(logits, cache)``; see ``Model.run_with_cache``. A point called more than once in the forward keeps its
    last value."""
    known = hook_names(loaded)
    wanted = list(known if names is None else ([names] if isinstance(names, str) else names))
    if _is_elmo(loaded):
        return _elmo_cache(loaded, text, wanted)
    sites = [_site(loaded, name, known) for name in wanted]
    kept: dict[str, list] = {}
    with ExitStack() as stack:
        for site in sites:
            kept[site.name] = stack.enter_context(site.keep())
        logits = _forward(loaded, _inputs(loaded, text, target), any(n.endswith("hook_pattern") for n in wanted))
    return logits, {name: values[-1] for name, values in kept.items() if values}


def run_with_hooks(loaded: Any, text: str, *, hooks: Iterable[tuple[str, Callable]] = (),
                   target: str | None = None) -> Any:
    """The logits with ``hooks`` applied; see ``Model.run_with_hooks``."""
    import torch

    if _is_elmo(loaded):
        raise WorkbenchError(f"{loaded.info.spec} is an ELMo: its layers can be read (m.run_with_cache), not "
                             "replaced (its biLSTMs run both directions in one loop, with no hook point between)")
    known = hook_names(loaded)
    pairs = list(hooks)
    sites = [(_site(loaded, name, known), fn) for name, fn in pairs]

    def wrapped(name: str, fn: Callable) -> Callable:
        def change(value: torch.Tensor) -> torch.Tensor:
            try:
                out = fn(value, name)
            except Exception as exc:  # noqa: BLE001 - one line naming the hook; the model is unhooked on exit
                raise WorkbenchError(f"the hook on {name} raised {type(exc).__name__}: {exc}") from exc
            return value if out is None else out

        return change

    with ExitStack() as stack:
        for site, fn in sites:
            if site.index:  # a read-only element (an attention pattern): fn sees it, cannot replace it
                values = stack.enter_context(site.keep())
                stack.callback(lambda v=values, s=site, f=fn: [wrapped(s.name, f)(x) for x in v])
                continue
            stack.enter_context(site.replace(wrapped(site.name, fn)))
        patterns = any(site.index for site, _ in sites)
        return _forward(loaded, _inputs(loaded, text, target), patterns)
