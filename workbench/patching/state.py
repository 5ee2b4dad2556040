"""What the Patching tab shows, without Qt: the inputs of a sweep and its result, filled layer by layer.

``PatchingState`` holds the clean and corrupted texts (or, ``corrupt_by`` "noise", the subject whose word
embeddings get ROME's noise instead of a second text), the target and contrast tokens (the clean answer and an
optional wrong one, as dla, ablate and ``patch --target/--contrast`` name them) and the site; ``request()``
is the typed ``PatchRequest`` (``lm_workbench.requests``, what ``lm-workbench patch`` builds too) that the
tab's jobs (``lm_workbench.patching.view_tasks``) hand to the engine's ``lm_workbench.engine.patching.tracing.patching_job`` takes. While a sweep runs, ``add_partial``
keeps the layers done so far (the engine's ``Partial`` values), ``finish`` the whole result; ``matrix()`` is
the [layers, tokens] effect with NaN for rows not computed yet. Events: ``inputs_changed``,
``result_changed`` (partial or whole), ``running_changed``.

``fast`` ("Fast (gradient)") runs attribution patching instead (``lm_workbench.engine.patching.attribution_patching``: one
forward and one backward pass); its result is kept as ``approximate`` and ``method`` is "attribution". A later
exact sweep of the same request ("Refine exactly") replaces the heatmap and sets ``comparison`` (the two
matrices' Pearson correlation and largest disagreements, ``lm_workbench.engine.patching.comparison``).

``set_family`` tells it the loaded model's family: ``sites`` are then the sites that model has
(``lm_workbench.engine.patching.names.sites_for``), and an encoder-decoder's request also carries ``output_position`` (the
decoder's output token whose metric is read, as Explain's); a site the new model lacks falls back to ``resid``.
"""

from __future__ import annotations

import math
from typing import Any

from lm_workbench.engine.patching.names import SITES, sites_for
from lm_workbench.observable import EventGroup
from lm_workbench.requests import PatchRequest

DEFAULT_SITE = "resid"
CORRUPT_BY = ("text", "noise")  # a second text, or noise on the subject's word embeddings (ROME)
# Preset and workspace keys of the patching target before issue 43: read forever, written as the new ones.
OLD_KEYS = {"answer": "target", "wrong": "contrast"}


def settings_in_new_form(settings: dict[str, Any]) -> dict[str, Any]:
    """A preset step's or workspace's patching settings with the old keys (``answer``, ``wrong``) read as
    ``target`` and ``contrast``; a new key given beside its old one wins. The dict given is not changed."""
    out = {k: v for k, v in settings.items() if k not in OLD_KEYS}
    for old, new in OLD_KEYS.items():
        if old in settings and new not in settings:
            out[new] = settings[old]
    return out


class PatchingState:
    def __init__(self) -> None:
        self.clean = ""
        self.corrupt = ""
        self.target = ""  # the clean answer: one vocabulary token
        self.contrast = ""  # a wrong answer (optional): the metric becomes logit(target) - logit(contrast)
        self.site = DEFAULT_SITE
        self.corrupt_by = "text"
        self.subject = ""
        self.fast = False  # "Fast (gradient)": attribution patching first
        self.sites: tuple[str, ...] = SITES  # the loaded model's sites
        self.encoder_decoder = False  # the loaded model is an encoder-decoder: the request has output_position
        self.output_position = 0
        self.method = "exact"  # what ``result`` is: "exact" (the sweep) or "attribution" (the approximation)
        self.approximate: Any = None  # the last attribution-patching result (an engine Patching)
        self.approximate_request: PatchRequest | None = None  # the request it answered
        self.comparison: Any = None  # an engine Comparison of ``approximate`` and the exact result
        self.result: Any = None  # an engine Patching (partial while ``running``)
        self.layers_total = 0
        self.running = False
        self.events = EventGroup("inputs_changed", "result_changed", "running_changed")

    # ---------------------------------------------------------------- inputs
    def set_inputs(self, clean: str | None = None, corrupt: str | None = None, target: str | None = None,
                   contrast: str | None = None, site: str | None = None, corrupt_by: str | None = None,
                   subject: str | None = None, fast: bool | None = None, output_position: int | None = None) -> None:
        if corrupt_by is not None and corrupt_by not in CORRUPT_BY:
            raise ValueError(f"corrupt_by is one of {', '.join(CORRUPT_BY)}, not {corrupt_by!r}")
        for name, value in (("clean", clean), ("corrupt", corrupt), ("target", target), ("contrast", contrast),
                            ("site", site), ("corrupt_by", corrupt_by), ("subject", subject)):
            if value is not None:
                setattr(self, name, value)
        if fast is not None:
            self.fast = bool(fast)
        if output_position is not None:
            if output_position < 0:
                raise ValueError(f"output_position is at least 0, not {output_position}")
            self.output_position = int(output_position)
        self.events.inputs_changed.emit()

    def set_family(self, family: str | None) -> None:
        """The loaded model's family (an ``lm_workbench.engine.models.families.Family`` value; None: no model)."""
        self.encoder_decoder = family == "encoder-decoder"
        self.sites = sites_for(family or "")
        if not self.encoder_decoder:
            self.output_position = 0
        if self.site not in self.sites:
            self.site = DEFAULT_SITE
        self.events.inputs_changed.emit()

    def problem(self) -> str | None:
        """Why Run cannot start yet (None: it can)."""
        if not self.clean.strip():
            return "Write the clean text."
        if self.corrupt_by == "noise" and not self.subject.strip():
            return "Name the subject: the words of the clean text whose embeddings get the noise."
        if self.corrupt_by == "text" and not self.corrupt.strip():
            return "Write the corrupted text (as many tokens as the clean one)."
        if not self.target:
            return "Name the answer: one vocabulary token the clean text leads to."
        return None

    def request(self, model: str = "") -> PatchRequest:
        """The form as the typed request ``lm-workbench patch`` builds (``model``: the loaded model's spec, when
        the caller knows it; the job takes the loaded model itself). The noise's scale, draws and seed are the
        CLI's defaults; ``output_position`` is 0 unless the model is an encoder-decoder; Fast is the view's
        choice of job, not part of the request (an approximate result refines with the same request)."""
        noise = self.corrupt_by == "noise"
        return PatchRequest(model=model, clean=self.clean, corrupt=None if noise else self.corrupt,
                            subject=self.subject if noise else None, target=self.target,
                            contrast=self.contrast or None, site=self.site,
                            output_position=self.output_position if self.encoder_decoder else 0)

    # ---------------------------------------------------------------- result
    def start(self, method: str = "exact") -> None:
        """A run begins: ``method`` "attribution" (the fast pass) or "exact" (the sweep; an earlier approximate
        result of the same request stays, to be compared when the sweep ends)."""
        self.result, self.layers_total, self.running, self.method = None, 0, True, method
        self.comparison = None
        if method == "attribution" or self.approximate_request != self.request():
            self.approximate, self.approximate_request = None, None
        self.events.running_changed.emit(True)
        self.events.result_changed.emit()

    def add_partial(self, partial: Any) -> None:
        self.result, self.layers_total = partial, len(partial.layers)
        self.events.result_changed.emit()

    def finish(self, result: Any) -> None:
        self.result, self.layers_total, self.running = result, len(result.layers), False
        if self.method == "attribution":
            self.approximate, self.approximate_request = result, self.request()
        elif self.approximate is not None:
            from lm_workbench.engine.patching.comparison import compare  # plain Python: no torch

            self.comparison = compare(self.approximate.effect, result.effect, result.tokens)
        self.events.running_changed.emit(False)
        self.events.result_changed.emit()

    def stop(self) -> None:
        """Cancelled or failed: the layers done so far stay."""
        self.running = False
        self.events.running_changed.emit(False)

    def clear(self) -> None:
        """Another model: no result, nothing to refine or compare."""
        self.result, self.method, self.comparison = None, "exact", None
        self.approximate, self.approximate_request = None, None
        self.events.result_changed.emit()

    def layers_done(self) -> int:
        return 0 if self.result is None else len(self.result.effect)

    def has_result(self) -> bool:
        """True when a result (finished or the layers a cancel kept) is there to show."""
        return self.result is not None

    def matrix(self) -> list[list[float]]:
        """[layers][tokens] effect; rows not computed yet are NaN."""
        if self.result is None:
            return []
        width = len(self.result.tokens)
        rows = [list(r) for r in self.result.effect]
        return rows + [[math.nan] * width for _ in range(self.layers_total - len(rows))]

    def can_refine(self) -> bool:
        """Whether "Refine exactly" has an approximate result of the current inputs to refine."""
        return not self.running and self.method == "attribution" and self.approximate is not None \
            and self.approximate_request == self.request()

    def to_settings(self) -> dict[str, Any]:
        """The form as a preset or workspace saves it (``target``/``contrast``: the new form; the old ``answer``/
        ``wrong`` are read by ``settings_in_new_form``); ``fast`` only when set (older presets mean the exact sweep)."""
        settings: dict[str, Any] = {"clean": self.clean, "corrupt": self.corrupt, "target": self.target,
                                    "contrast": self.contrast, "site": self.site, "corrupt_by": self.corrupt_by,
                                    "subject": self.subject}
        if self.fast:
            settings["fast"] = True
        if self.output_position:
            settings["output_position"] = self.output_position
        return settings
