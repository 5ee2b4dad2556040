"""Result objects of the Python API: one per call, holding what the command's ``--json`` prints.

``Result.to_dict()`` is the command's ``--json`` payload exactly (same keys and values, as JSON reads them back);
fields read as attributes (``r.tokens``), matrices as numpy arrays (``r.weights``: float64 [queries, keys] for
``attention``; shapes in each command's ``ARRAYS`` entry below); ``to_pandas()`` gives the result's table (pandas
is optional: ``ImportError`` names the ``[notebook]`` extra); ``plot()`` draws the data with matplotlib's Agg
backend (no Qt, no display) and a notebook shows it inline (``_repr_png_``). A command that writes a file on the
CLI (``encode``, ``project``) keeps the data, and ``save(path)`` writes the file the CLI writes. Light: numpy,
pandas and matplotlib are imported when used.
"""

from __future__ import annotations

import copy
import io
from pathlib import Path
from typing import Any, Callable

from lm_workbench.command_results.shapes import ARRAYS, NOTEBOOK_EXTRA, TABLES

EXIT_INTERRUPTED = 130  # a cancelled long run's exit code (the CLI's, and the result's ``exit_code``)


class Result:
    """A command's result. ``command`` is the command as typed (``"fill-mask"``); ``exit_code`` what the CLI would
    exit with (130 for a long run stopped by Ctrl-C: it was marked cancelled and can be resumed)."""

    def __init__(self, command: str, data: Any, *, exit_code: int = 0, file: bytes | None = None,
                 engine_result: Any = None):
        self.command = command
        self.exit_code = exit_code
        self._data = data
        self._file = file
        self.engine_result = engine_result  # the engine's own result object, when computed here (the CLI's text)

    # -- the data ------------------------------------------------------------------------------------------------
    def to_dict(self) -> Any:
        """The command's ``--json`` payload (a copy): a dict (a list for ``presets list``)."""
        return copy.deepcopy(self._data)

    def keys(self) -> list[str]:
        """The payload's keys, in the CLI's order (none when the payload is a list)."""
        return list(self._data) if isinstance(self._data, dict) else []

    def __getitem__(self, key: str) -> Any:
        return self._data[key]

    def __getattr__(self, name: str) -> Any:
        data = self.__dict__.get("_data")
        if not isinstance(data, dict) or name.startswith("_") or name not in data:
            raise AttributeError(f"{type(self).__name__} of {self.__dict__.get('command')!r} has no field {name!r}"
                                 f" (fields: {', '.join(data or ())})")
        value = data[name]
        if name in ARRAYS.get(self.command, ()) and value is not None:
            import numpy as np

            return np.asarray(value, dtype=float)
        return copy.deepcopy(value)

    def __dir__(self) -> list[str]:
        return sorted(set(super().__dir__()) | set(self.keys()))

    def __repr__(self) -> str:
        if isinstance(self._data, list):
            return f"<{self.command} result: {len(self._data)} rows>"
        shown = ", ".join(f"{k}={_short(v)}" for k, v in list(self._data.items())[:6])
        return f"<{self.command} result: {shown}{', …' if len(self._data) > 6 else ''}>"

    # -- tables --------------------------------------------------------------------------------------------------
    def to_pandas(self) -> Any:
        """The result's table as a ``pandas.DataFrame`` (one row per item of its list; nested lists flattened,
        their parent's fields repeated). ``WorkbenchError`` when the result has no table; ``ImportError`` (naming
        the extra) without pandas."""
        from lm_workbench.engine.errors import WorkbenchError

        try:
            import pandas as pd
        except ImportError as exc:  # pragma: no cover - pandas is in the [notebook] extra
            raise ImportError(f"to_pandas() needs pandas: {NOTEBOOK_EXTRA}") from exc
        if isinstance(self._data, list):  # a payload that is a list of rows (presets list)
            return pd.DataFrame(_flatten(self._data))
        key = TABLES.get(self.command)
        if isinstance(key, tuple):
            return pd.DataFrame({name: self._data[name] for name in key})
        if self.command in ARRAYS and key is None:
            name = ARRAYS[self.command][0]
            matrix = getattr(self, name)
            rows = self._data.get("tokens")
            cols = self._data.get("key_tokens", rows)
            return pd.DataFrame(matrix, index=_labels(rows, len(matrix)),
                                columns=_labels(cols, matrix.shape[1] if matrix.ndim > 1 else 1))
        key = key or _first_table(self._data)
        if key is None or not isinstance(self._data.get(key), list):
            raise WorkbenchError(f"the {self.command} result has no table (fields: {', '.join(self._data)})")
        return pd.DataFrame(_flatten(self._data[key]))

    # -- figures -------------------------------------------------------------------------------------------------
    def plot(self) -> Any:
        """A matplotlib ``Figure`` of the result (Agg backend; no window). ``WorkbenchError`` for a result with
        nothing to draw; ``ImportError`` (naming the extra) without matplotlib."""
        from lm_workbench.command_results.figures import figure_of

        return figure_of(self)

    def _repr_png_(self) -> bytes | None:
        """PNG bytes for a notebook (None when the result has nothing to draw or matplotlib is missing)."""
        try:
            fig = self.plot()
        except Exception:  # noqa: BLE001 - a notebook then shows the repr text instead
            return None
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=100, bbox_inches="tight")
        return buffer.getvalue()

    # -- files ---------------------------------------------------------------------------------------------------
    def save(self, path: str | Path) -> Path:
        """Write the file the CLI writes with ``--out path`` (``encode``: an .npz, ``project``: a CSV); the path.
        ``WorkbenchError`` for a result that has no file, or a folder that does not exist."""
        from lm_workbench.engine.errors import WorkbenchError

        if self._file is None:
            raise WorkbenchError(f"the {self.command} result has no file to save")
        out = Path(path)
        if not out.parent.exists():
            raise WorkbenchError(f"the folder for the file does not exist: {out.parent}")
        try:
            out.write_bytes(self._file)
        except OSError as exc:
            raise WorkbenchError(f"cannot write {out}: {exc.strerror}") from None
        return out


class EncodeResult(Result):
    """``encode``'s result: ``arrays`` maps the .npz file's names to numpy arrays (``hidden_states`` float32
    [layers + 1, tokens, hidden]; ``attentions`` float32 [layers, heads, tokens, tokens]; ``tokens``, ``ids``,
    ``offsets`` [tokens, 2], ``word_ids``, ``segment_ids`` and, for encoder-decoders, the decoder's);
    ``to_dict()`` is the CLI's summary (``out``: the file written, None when none was)."""

    def __init__(self, data: dict[str, Any], arrays: dict[str, Any]):
        super().__init__("encode", data)
        self.arrays = arrays

    def save(self, path: str | Path) -> Path:
        import numpy as np

        from lm_workbench.command_results.checks import output_file, write_or_fail

        out = output_file(str(path), ".npz", "an .npz file")
        write_or_fail(out, lambda: np.savez(out, **self.arrays))
        return out


class RunResult(Result):
    """A recorded long run's result (``finetune``, ``pretrain``, ``tuned-lens``): it is in the run store (the
    window's Runs tab lists it, ``lw.runs()`` too). ``run_id``; ``folder`` (its output folder); ``cancelled``
    (Ctrl-C or Jupyter's interrupt stopped it: a checkpoint was saved and ``resume=`` continues it)."""

    @property
    def run_id(self) -> int | None:
        return self._data.get("run_id") if isinstance(self._data, dict) else None

    @property
    def folder(self) -> str | None:
        return self._data.get("out_dir") or self._data.get("out") if isinstance(self._data, dict) else None

    @property
    def cancelled(self) -> bool:
        return bool(self._data.get("cancelled")) if isinstance(self._data, dict) else False

    def curves(self) -> Any:
        """The run's logged metrics as a ``pandas.DataFrame``: one row per step, one column per metric (loss,
        lr, validation_loss, ...), from the run store."""
        import pandas as pd

        from lm_workbench.paths import runs_db_path
        from lm_workbench.store import RunStore

        with RunStore(runs_db_path()) as store:
            rows = store.metrics(int(self.run_id))
        if not rows:
            return pd.DataFrame()
        table = pd.DataFrame(rows).pivot_table(index="step", columns="name", values="value", aggfunc="last")
        table.columns.name = None
        return table

    def predict(self, text: str, *, text2: str | None = None, context: str | None = None) -> Result:
        """``lm-workbench predict FOLDER --text ...`` on this (fine-tuning) run's folder."""
        return _public().predict(self.folder, text=text, text2=text2, context=context)

    def model(self, **options: Any) -> Any:
        """The run's model, loaded (``lw.load(folder, **options)``): a pre-training run's, a fine-tuning run that
        trained every weight; a run that saved only an adapter fails with the loader's line (merge it first:
        ``lw.finetune_merge``)."""
        return _public().load(self.folder, **options)


def _public() -> Any:
    """The public facade (``lm_workbench.api``), bound when a run's shortcut is called: results are made by the
    runner, which the facade's functions call, so a static import here would be a loop."""
    import importlib

    return importlib.import_module("lm_workbench.api")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "…"


def _labels(tokens: Any, n: int) -> list[str]:
    if isinstance(tokens, list) and len(tokens) == n:
        return [f"{i}:{t}" for i, t in enumerate(tokens)]
    return [str(i) for i in range(n)]


def _first_table(data: dict[str, Any]) -> str | None:
    return next((k for k, v in data.items() if isinstance(v, list) and v and isinstance(v[0], dict)), None)


def _flatten(rows: list[Any]) -> list[dict[str, Any]]:
    flat: list[dict[str, Any]] = []
    for row in rows:
        if not isinstance(row, dict):
            flat.append({"value": row})
            continue
        nested = [k for k, v in row.items() if isinstance(v, list) and v and isinstance(v[0], dict)]
        if not nested:
            flat.append(row)
            continue
        key = nested[0]
        parent = {k: v for k, v in row.items() if k != key}
        for rank, child in enumerate(row[key]):
            flat.append(parent | {"rank": rank} | child)
    return flat


RESULTS: dict[str, Callable[..., Result]] = {"finetune": RunResult, "pretrain": RunResult, "tuned-lens": RunResult}


def result_for(command: str, data: Any, *, exit_code: int = 0, file: bytes | None = None,
               engine_result: Any = None) -> Result:
    """The result object of ``command`` holding its ``--json`` payload ``data`` (and the engine's result object
    it was made from, when there is one)."""
    return RESULTS.get(command, Result)(command, data, exit_code=exit_code, file=file, engine_result=engine_result)
