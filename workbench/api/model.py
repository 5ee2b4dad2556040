"""``lw.load(spec)``: a model held in the process, with a method per command that reads one model
(``ModelCommands``, generated from the typed requests) and the anatomy's hooks (``run_with_cache``,
``run_with_hooks``, ``hook_names``: ``lm_workbench.api.hooking``).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from lm_workbench.api.model_methods import ModelCommands
from lm_workbench.api.naming import LOAD_OPTIONS


class Model(ModelCommands):
    """A loaded model. ``spec`` as given to ``load``; ``loaded`` the workbench's ``LoadedModel`` (``.model``: the
    transformers model, ``.tokenizer``, ``.info``); ``options`` the load options every command runs with."""

    def __init__(self, spec: str, loaded: Any, options: dict[str, Any]):
        self.spec = spec
        self.loaded = loaded
        self.options = options

    def __repr__(self) -> str:
        info = self.loaded.info
        return (f"<lm_workbench.Model {self.spec!r}: {info.family}, {info.layers} layers, "
                f"{info.parameters:,} parameters>")

    @property
    def model(self) -> Any:
        """The transformers model (``torch.nn.Module``)."""
        return self.loaded.model

    @property
    def tokenizer(self) -> Any:
        """The tokenizer."""
        return self.loaded.tokenizer

    def _run(self, cls: type, arguments: dict[str, Any]) -> Any:
        """``cls``'s command on this model: ``arguments`` are a generated method's parameters (its ``locals()``,
        ``self`` among them), over the load options that the request takes and the model's spec."""
        from lm_workbench.api.runner import call

        names = {f.name for f in dataclasses.fields(cls)}
        given = {k: v for k, v in self.options.items() if k in names} | {"model": self.spec}
        return call(cls, given | {k: v for k, v in arguments.items() if k != "self"}, self.loaded)

    # -- hooks (the anatomy's hook points, TransformerLens's names) ----------------------------------------------
    def hook_names(self) -> list[str]:
        """Every hook point of this model (``blocks.{l}.hook_resid_post``, ``blocks.{l}.attn.hook_pattern``...;
        ``encoder.``/``decoder.`` stacks for BART and T5), in forward order; ``docs/model-anatomy.md``."""
        from lm_workbench.api.hooking import hook_names

        return hook_names(self.loaded)

    def run_with_cache(self, text: str, *, names: Any = None, target: str | None = None) -> tuple[Any, dict]:
        """``(logits, cache)``: the model's logits (torch, [1, tokens, vocab]; an encoder-decoder's decoder's)
        and ``cache[name]``, each named hook point's value (torch, detached; ``[1, tokens, hidden]``, a pattern
        ``[1, heads, queries, keys]``) for ``names`` (default: every hook point). ``target``: an
        encoder-decoder's decoder text (default: its start token). An ELMo: its layers as its views show them
        (``hook_embed``: the character CNN's ``[x; x]``, ``blocks.{l}.hook_resid_post``: biLSTM layer l + 1,
        ``[forward; backward]``, ``[1, words, 2 × projection]``) and no logits (None). Errors: an unknown name
        (the nearest named)."""
        from lm_workbench.api.hooking import run_with_cache

        return run_with_cache(self.loaded, text, names=names, target=target)

    def run_with_hooks(self, text: str, *, hooks: Any = (), target: str | None = None) -> Any:
        """The logits (torch, [1, tokens, vocab]) with ``hooks``, ``[(name, fn)]``, applied: ``fn(value, name)``
        sees the hook point's value and may return a replacement (None keeps it). The hooks are removed when the
        call ends, also when a hook raises (``WorkbenchError`` naming the hook). An ELMo's layers are read, not
        replaced: a ``WorkbenchError`` says so."""
        from lm_workbench.api.hooking import run_with_hooks

        return run_with_hooks(self.loaded, text, hooks=hooks, target=target)


def load(spec: str = "minilm", *, device: str | None = None, precision: str | None = None,
         dtype: str | None = None, offline: bool | None = None, threads: int | None = None,
         words: str | None = None, allow_pickle: bool | None = None,
         trust_remote_code: bool | None = None) -> Model:
    """The model ``spec`` names, loaded as the window and the CLI load it (``lm_workbench.models.loader``): a
    hub id, a folder, a cached hub id, ``course:<family>``, a run folder or ``minilm``. The options are the
    CLI's model options (``--device`` auto|cpu|cuda, ``--precision`` auto|float32|bfloat16|float16, ``dtype``
    an alias of it, ``--threads``, ``--words``, ``--offline``, ``--allow-pickle``, ``--trust-remote-code``);
    None keeps the user's setting. Errors: ``WorkbenchError`` with the CLI's line (``ModelNotFoundError``...)."""
    from lm_workbench.api.runner import ArgumentError
    from lm_workbench.cli.common import settings_for
    from lm_workbench.models.loader import load_model
    from lm_workbench.requests import InfoRequest

    if dtype is not None and precision is not None and dtype != precision:
        raise ArgumentError(f"dtype={dtype!r} and precision={precision!r} disagree (dtype is precision's alias)")
    precision = precision if precision is not None else _dtype_name(dtype)
    options = {"device": device, "precision": precision, "threads": threads, "words": words, "offline": offline,
               "allow_pickle": allow_pickle, "trust_remote_code": trust_remote_code}
    assert set(options) | {"model"} == set(LOAD_OPTIONS)
    request = InfoRequest(model=spec, **options)
    from lm_workbench.api.runner import parse

    parse(request)  # the CLI's checks of the options (choices), its one line when refused
    return Model(spec, load_model(spec, settings=settings_for(request)), options)


def _dtype_name(dtype: Any) -> str | None:
    """``torch.float16`` or ``"float16"`` as the CLI's precision name."""
    if dtype is None:
        return None
    return str(dtype).removeprefix("torch.")
