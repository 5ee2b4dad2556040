"""How long building a course model will take: an estimate, and where it comes from (no Qt, no torch).

From the last build of that family on this machine when there is one (the newest finished run of its name in
the run store: its wall time, scaled by the work its settings ask for now against what that run's asked), else
from a measurement on 2 quiet cores (issue 48: the five families in 222 s), scaled the same way. The work of a
build is steps x batch x positions x parameters (tokens seen times the weights each token passes through); the
build's fixed costs (a process, the tokenizer, packing the corpus) scale with it, which is the estimate's
error. A busy machine is slower than either figure unless the last build ran on one.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

# Seconds measured per family with the settings beside them (COURSE_SETTINGS as measured), on 2 quiet cores.
MEASURED: dict[str, tuple[float, dict[str, Any]]] = {
    "bert": (70.0, {"steps": 900, "batch_size": 32, "max_positions": 64, "hidden": 128, "layers": 2,
                    "vocab_size": 2000}),
    "gpt2": (30.0, {"steps": 300, "batch_size": 32, "max_positions": 64, "hidden": 128, "layers": 2,
                    "vocab_size": 2000}),
    "bart": (49.0, {"steps": 300, "batch_size": 32, "max_positions": 64, "hidden": 128, "layers": 2,
                    "vocab_size": 2000}),
    "t5": (39.0, {"steps": 300, "batch_size": 32, "max_positions": 64, "hidden": 128, "layers": 2,
                  "vocab_size": 2000}),
    "elmo": (32.0, {"steps": 300, "batch_size": 32, "max_positions": 32, "hidden": 32, "layers": 2,
                    "preset": "tiny"}),
}
MEASURED_WHERE = "a measurement on 2 quiet cores"
ELMO_WORDS = 20_000  # the ELMo's softmax, for the work only: about the Python documentation's distinct words


@dataclass(frozen=True)
class Estimate:
    """About ``seconds`` to build ``family``; ``source`` says where the figure comes from."""

    family: str
    seconds: float
    source: str

    def describe(self) -> str:
        """"about 1 min 10 s (an estimate from the last build here, run #12)"."""
        return f"about {format_duration(self.seconds)} (an estimate from {self.source})"


def format_duration(seconds: float) -> str:
    """``"45 s"``, ``"1 min 10 s"``, ``"12 min"``."""
    seconds = max(0, int(round(seconds)))
    if seconds < 60:
        return f"{seconds} s"
    minutes, rest = divmod(seconds, 60)
    return f"{minutes} min" if rest == 0 or minutes >= 10 else f"{minutes} min {rest} s"


def work(family: str, settings: dict[str, Any]) -> float:
    """steps x batch x positions x parameters of a build with ``settings`` (``COURSE_SETTINGS``' architecture
    and training keys, flat)."""
    from lm_workbench.runs import disk_space as space

    tokens = float(settings["steps"]) * float(settings["batch_size"]) * float(settings["max_positions"])
    if family == "elmo":
        from lm_workbench.engine.elmo.presets import ELMO_PRESETS

        cell = ELMO_PRESETS[settings.get("preset") or "tiny"].lstm_dim
        params = space.elmo_parameters(words=ELMO_WORDS, hidden=int(settings["hidden"]),
                                       layers=int(settings["layers"]), cell=cell)
    else:
        params = space.transformer_parameters(vocab=int(settings["vocab_size"]), hidden=int(settings["hidden"]),
                                              layers=int(settings["layers"]),
                                              positions=int(settings["max_positions"]),
                                              encoder_decoder=family in ("bart", "t5"))
    return tokens * params


def configured(family: str) -> dict[str, Any]:
    """The settings a build of ``family`` uses now (``COURSE_SETTINGS``), flat."""
    from lm_workbench.pretrain.course_models import COMMON_TRAINING, COURSE_SETTINGS

    _, arch, training = COURSE_SETTINGS[family]
    return {**arch, **COMMON_TRAINING, **training}


def _spec_settings(params: dict[str, Any]) -> dict[str, Any] | None:
    """A recorded run's spec (``PretrainSpec.to_dict``) as the flat settings ``work`` reads; None if incomplete."""
    training = params.get("training") or {}
    flat = {"steps": training.get("steps"), "batch_size": training.get("batch_size"),
            "max_positions": params.get("max_positions"), "hidden": params.get("hidden"),
            "layers": params.get("layers"), "vocab_size": params.get("vocab_size"), "preset": params.get("preset")}
    needed = ("steps", "batch_size", "max_positions", "hidden", "layers")
    return flat if all(isinstance(flat[k], (int, float)) and flat[k] for k in needed) else None


def last_build(family: str, store: Any = None) -> tuple[float, dict[str, Any], int] | None:
    """(wall seconds, settings, run id) of the newest finished build of ``family``'s course model recorded in
    the run store (``store``, default this machine's; none is created), or None."""
    from lm_workbench.pretrain.course_models import display_name

    if store is None:
        from lm_workbench.paths import runs_db_path

        path = runs_db_path()
        if not Path(path).is_file():
            return None
        from lm_workbench.store.run_store import RunStore

        with RunStore(path) as opened:
            return last_build(family, opened)
    name = display_name(family)
    for run in store.list_runs(kind="pretrain", status="finished", recover=False):
        if run.get("name") != name or not run.get("started_at") or not run.get("finished_at"):
            continue
        settings = _spec_settings(run.get("params") or {})
        if settings is not None and (settings.get("vocab_size") or family == "elmo"):
            return float(run["finished_at"]) - float(run["started_at"]), settings, int(run["id"])
    return None


def estimate_family(family: str, store: Any = None) -> Estimate:
    """About how long building ``family`` with today's settings takes here (see the module docstring)."""
    now = configured(family)
    try:
        last = last_build(family, store)
    except Exception:  # noqa: BLE001 - an unreadable run store leaves the measured figure
        last = None
    if last is not None:
        seconds, then, run_id = last
        return Estimate(family, seconds * work(family, now) / work(family, then),
                        f"the last build here, run #{run_id}")
    seconds, then = MEASURED[family]
    return Estimate(family, seconds * work(family, now) / work(family, then), MEASURED_WHERE)


def estimate_total(families: list[str], store: Any = None) -> tuple[float, list[Estimate]]:
    """(seconds, per family) for building ``families`` one after the other."""
    each = [estimate_family(f, store) for f in families]
    return sum(e.seconds for e in each), each
