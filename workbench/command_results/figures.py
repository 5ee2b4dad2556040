"""Figures of results, drawn with matplotlib's object API on the Agg canvas: no pyplot state, no Qt, no display
(a headless server works). Colours: the window's light theme (its label ink, frame and heat map ends).

``figure_of(result)`` dispatches on the command: ``attention`` a heat map of the head's weights (queries down, keys
across), ``next-token`` / ``fill-mask`` / ``retrieve`` bars of the candidates' probabilities or scores, ``compare``
the CKA heat map; any other result with a matrix field a heat map of it, with a table of numbers bars of its first
numeric column. ``WorkbenchError`` when there is nothing to draw; ``ImportError`` naming the ``[notebook]`` extra
without matplotlib.
"""

from __future__ import annotations

from typing import Any

INK, FRAME, BAR = "#3b4350", "#c3c8cf", "#3a78d6"  # the window's label ink, frame and accent
HEAT, SIGNED = "Blues", "RdBu_r"


def _figure(width: float = 6.0, height: float = 4.0) -> Any:
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as exc:
        from lm_workbench.command_results.shapes import NOTEBOOK_EXTRA

        raise ImportError(f"plot() needs matplotlib: {NOTEBOOK_EXTRA}") from exc
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)
    return fig


def _finished(fig: Any, ax: Any, title: str, xlabel: str, ylabel: str | None = None) -> Any:
    """``fig`` with ``ax``'s title, axis labels and frame in the window's colours, laid out."""
    ax.set_title(title, color=INK)
    ax.set_xlabel(xlabel, color=INK)
    if ylabel is not None:
        ax.set_ylabel(ylabel, color=INK)
    for spine in ax.spines.values():
        spine.set_color(FRAME)
    fig.tight_layout()
    return fig


def _heatmap(matrix: Any, rows: list[str] | None, cols: list[str] | None, title: str, xlabel: str,
             ylabel: str) -> Any:
    n, m = matrix.shape if matrix.ndim == 2 else (1, matrix.shape[0])
    fig = _figure(max(4.0, 0.35 * m + 2), max(3.0, 0.3 * n + 1.5))
    ax = fig.add_subplot()
    if matrix.ndim == 1:
        matrix = matrix[None, :]
        n, m = matrix.shape
    low, high = float(matrix.min()), float(matrix.max())
    if low < 0:  # signed values (logit contributions, effects): a diverging map centred on 0
        edge = max(abs(low), abs(high), 1e-12)
        image = ax.imshow(matrix, cmap=SIGNED, vmin=-edge, vmax=edge, aspect="auto")
    else:
        image = ax.imshow(matrix, cmap=HEAT, vmin=0.0, vmax=max(1e-12, high), aspect="auto")
    fig.colorbar(image, ax=ax)
    if rows and len(rows) == n:
        ax.set_yticks(range(n), rows, fontsize=8)
    if cols and len(cols) == m:
        ax.set_xticks(range(m), cols, rotation=90, fontsize=8)
    return _finished(fig, ax, title, xlabel, ylabel)


def _bars(labels: list[str], values: list[float], title: str, xlabel: str) -> Any:
    fig = _figure(6.0, max(2.0, 0.35 * len(values) + 1.0))
    ax = fig.add_subplot()
    ax.barh(range(len(values)), values, color=BAR)
    ax.set_yticks(range(len(values)), labels, fontsize=9)
    ax.invert_yaxis()
    return _finished(fig, ax, title, xlabel)


def figure_of(result: Any) -> Any:
    """A matplotlib ``Figure`` of ``result`` (``lm_workbench.command_results.results.Result``)."""
    from lm_workbench.command_results.shapes import ARRAYS
    from lm_workbench.engine.errors import WorkbenchError

    data, command = result.to_dict(), result.command
    if command == "attention":
        title = f"{data['kind']} attention, layer {data['layer']}, head {data['head']}"
        return _heatmap(result.weights, data["tokens"], data.get("key_tokens", data["tokens"]), title,
                        "key (attended to)", "query")
    if command == "patch":
        return _heatmap(result.effect, [str(layer) for layer in data["layers"]], data["tokens"],
                        f"activation patching ({data['site']}): restored fraction", "position", "layer")
    if command == "dla":
        return _heatmap(result.attn, None, None, f"direct logit attribution of {data['target']!r}: heads", "head",
                        "layer")
    if command == "attribute":
        return _bars(data["tokens"], data["scores"], f"attribution ({data['method']}) of {data['target']!r}",
                     "score")
    if command == "compare":
        return _heatmap(result.cka, None, None, "linear CKA, layer × layer", "model B layer", "model A layer")
    if command == "next-token":
        rows = data["candidates"]
        return _bars([repr(r["token"]) for r in rows], [r["prob"] for r in rows], "next token", "probability")
    if command == "fill-mask" and data["masks"]:
        rows = data["masks"][0]["candidates"]
        return _bars([repr(r["token"]) for r in rows], [r["prob"] for r in rows],
                     f"[MASK] at position {data['masks'][0].get('position')}", "probability")
    for name in ARRAYS.get(command, ()):
        return _heatmap(getattr(result, name), None, None, f"{command}: {name}", "", "")
    try:
        table = result.to_pandas()
    except (WorkbenchError, ImportError):
        table = None
    if table is not None and len(table):
        numeric = [c for c in table.columns if table[c].dtype.kind in "fi"]
        text = [c for c in table.columns if table[c].dtype.kind == "O"]
        if numeric:
            labels = [str(v) for v in (table[text[0]] if text else table.index)]
            return _bars(labels[:30], [float(v) for v in table[numeric[-1]][:30]], command, numeric[-1])
    raise WorkbenchError(f"the {command} result has nothing to draw")
