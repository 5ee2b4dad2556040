"""What each command's result holds: its matrices (read as numpy arrays), its table (for ``to_pandas``), and
the extra that brings pandas and matplotlib. Light: no imports."""

from __future__ import annotations

# command -> fields that are matrices (read as numpy arrays of float64)
ARRAYS: dict[str, tuple[str, ...]] = {
    "attention": ("weights",),  # [queries, keys], rows sum to 1
    "compare": ("cka",),  # [layers of A, layers of B], linear CKA in [0, 1]
    "dla": ("attn", "mlp"),  # logits (difference) per head [layers, heads] and per MLP [layers]
    "patch": ("effect",),  # restored fraction of the metric [layers, positions]
    "ablate": ("ablated_metric",),  # the metric with each component taken out
    "attribute": ("scores",),  # one score per input token [tokens]
}
# command -> its table for to_pandas(): the key of a list of rows (a nested list is flattened), or a tuple of
# keys of equally long lists (the columns)
TABLES: dict[str, str | tuple[str, ...]] = {
    "next-token": "candidates", "fill-mask": "masks", "retrieve": "results", "runs list": "runs",
    "plugins list": "plugins", "lens": "layers", "generate": "tokens", "dla": "rows", "ablate": "rows",
    "attribute": ("tokens", "scores"),
}
NOTEBOOK_EXTRA = "pip install 'lm-workbench[notebook]'"
