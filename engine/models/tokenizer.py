"""Load only a model's tokenizer, fast: no config checks, no weights.

For views and commands that corrupt or tokenize text without running the
model (``lm-workbench corrupt``). The spec is resolved like a model's
(default, folder, cache, hub) and the fast tokenizer loaded from the folder.
"""

from __future__ import annotations

from typing import Any

from lm_workbench.engine.errors import ModelFormatError
from lm_workbench.engine.models.sources import resolve_model


def load_tokenizer(spec: str, *, trust_remote_code: bool = False) -> Any:
    """The fast tokenizer of a model spec; ``WorkbenchError`` with one line when it cannot be loaded."""
    import transformers
    from transformers import AutoTokenizer

    transformers.logging.set_verbosity_error()
    source = resolve_model(spec)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source.folder, trust_remote_code=trust_remote_code)
    except Exception as exc:  # transformers raises many types here
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ModelFormatError(f"cannot load the tokenizer of {source.spec}: {first}") from None
    if not getattr(tokenizer, "is_fast", False):
        raise ModelFormatError(f"the tokenizer of {source.spec} has no fast (tokenizers) version")
    return tokenizer
