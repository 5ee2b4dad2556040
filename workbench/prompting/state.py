"""What the Prompting tab shows, as a plain object: the prompt being designed and what came of it.

The tab's widgets change a ``PromptingState`` only through its methods and
repaint on its events, so the flow (type a template, score one input,
evaluate on a file, build few-shot prompts, generate) can be driven and
checked without Qt. The engine does the work (``lm_workbench.engine.prompting``); this
object keeps the choices and the results the tab shows.

Events (arguments in brackets):
- ``prompt_changed`` []: the template, verbalizer, inputs or scoring options changed.
- ``score_changed`` []: a scored prompt came in (or was cleared).
- ``comparison_changed`` []: the list of prompts evaluated side by side changed.
- ``evaluation_changed`` []: evaluation results were cleared or (partly) came in.
- ``fewshot_changed`` []: the few-shot choices, the built prompt or the accuracy-against-k curve changed.
- ``generation_changed`` []: generation settings changed, tokens streamed in, or generation ended.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lm_workbench.engine.prompting.names import MULTI_TOKEN, ORDERS, SELECTIONS
from lm_workbench.observable import EventGroup

MULTI_TOKEN_MODES = MULTI_TOKEN  # MLM answers of several subwords: masks filled in order, or PLL
DEFAULT_TEMPLATE = "[x] Overall, it was a [z] movie."
DEFAULT_PREFIX_TEMPLATE = "[x] Overall, this movie is [z]"
DEFAULT_VERBALIZER = "pos=great,good;neg=terrible,bad"
DEFAULT_INPUT = "I loved every minute of this film."


@dataclass(frozen=True)
class GenerationSettings:
    greedy: bool = True
    temperature: float = 1.0
    top_k: int = 0
    top_p: float = 1.0
    max_new_tokens: int = 20
    seed: int = 0
    stop: tuple[str, ...] = ()


@dataclass
class EvaluationRow:
    """One prompt (template + verbalizer) of the comparison and, once evaluated, its numbers."""

    template: str
    verbalizer: str
    result: Any = None  # the engine's PromptEvaluation of this prompt (None until evaluated)
    run_id: int | None = None


@dataclass
class FewShotState:
    k: int = 0
    selection: str = "random"
    order: str = "as-chosen"
    seed: int = 0
    separator: str = "\n\n"
    prompt: str = ""  # the final prompt, demonstrations included, as the model reads it
    demonstrations: list[Any] = field(default_factory=list)
    curve: dict[int, list[float]] = field(default_factory=dict)  # k -> accuracy per seed


class PromptingState:
    def __init__(self) -> None:
        self.events = EventGroup("prompt_changed", "score_changed", "comparison_changed", "evaluation_changed",
                                 "fewshot_changed", "generation_changed")
        self.template = DEFAULT_TEMPLATE
        self.verbalizer = DEFAULT_VERBALIZER
        self.x = DEFAULT_INPUT
        self.x2 = ""
        self.mode = "cloze"  # cloze (a masked LM) or prefix (a left-to-right LM or an encoder-decoder)
        self.multi_token = MULTI_TOKEN_MODES[0]
        self.length_normalise = False
        self.top_k = 10
        self.scored: Any = None  # the engine's ScoredPrompt for the current prompt and input
        self.scored_calibrated: list[float] | None = None  # its label probabilities after contextual calibration
        self.data_path = ""
        self.calibrate = True
        self.rows: list[EvaluationRow] = []
        self.selected_row = 0
        self.fewshot = FewShotState()
        self.generation = GenerationSettings()
        self.generated: list[tuple[int, str, float]] = []  # (token id, text, probability) as they came
        self.generation_prompt = ""
        self.generation_end = ""  # "" while running or before; else why it stopped
        self.set_name = ""

    # -- the prompt ----------------------------------------------------------------------------------
    def set_template(self, text: str) -> None:
        if text != self.template:
            self.template = text
            self._prompt_changed()

    def set_verbalizer(self, text: str) -> None:
        if text != self.verbalizer:
            self.verbalizer = text
            self._prompt_changed()

    def set_inputs(self, x: str, x2: str = "") -> None:
        if (x, x2) != (self.x, self.x2):
            self.x, self.x2 = x, x2
            self._prompt_changed()

    def set_mode(self, mode: str) -> None:
        """cloze or prefix: follows the loaded model's family. An untouched default template follows too."""
        if mode != self.mode:
            self.mode = mode
            defaults = {"cloze": DEFAULT_TEMPLATE, "prefix": DEFAULT_PREFIX_TEMPLATE}
            if self.template in defaults.values():
                self.template = defaults[mode]
            self._prompt_changed()

    def set_scoring(self, multi_token: str | None = None, length_normalise: bool | None = None) -> None:
        if multi_token is not None:
            if multi_token not in MULTI_TOKEN_MODES:
                raise ValueError(f"multi-token mode must be one of {MULTI_TOKEN_MODES}")
            self.multi_token = multi_token
        if length_normalise is not None:
            self.length_normalise = bool(length_normalise)
        self._prompt_changed()

    def _prompt_changed(self) -> None:
        self.scored = self.scored_calibrated = None  # what was scored belongs to the old prompt
        self.events.prompt_changed.emit()
        self.events.score_changed.emit()

    def template_problems(self) -> list[Any]:
        """What is wrong with the template (each with ``start``, ``end``, ``message``); [] when it is usable."""
        from lm_workbench.engine.prompting.template import problems

        return problems(self.template, self.mode)

    def verbalizer_problem(self) -> str:
        """Why the verbalizer cannot be used ("" when it can)."""
        from lm_workbench.engine.errors import WorkbenchError
        from lm_workbench.engine.prompting.verbalizer import Verbalizer

        try:
            Verbalizer.parse(self.verbalizer)
        except WorkbenchError as exc:
            return str(exc)
        return ""

    def text_before_answer(self) -> str:
        """The template up to [z] with the input filled in ("" when the template has problems)."""
        from lm_workbench.engine.prompting.template import Template

        if self.template_problems():
            return ""
        return Template(self.template, self.mode).split(self.x, self.x2 or "")[0]

    def usable(self) -> bool:
        return not self.template_problems() and not self.verbalizer_problem()

    # -- scoring -------------------------------------------------------------------------------------
    def set_scored(self, scored: Any, calibrated: list[float] | None = None) -> None:
        self.scored, self.scored_calibrated = scored, calibrated
        self.events.score_changed.emit()

    # -- the comparison and its evaluation -----------------------------------------------------------
    def add_current_to_comparison(self) -> bool:
        """Add the current template and verbalizer as a row (False when that pair is there already)."""
        if any(r.template == self.template and r.verbalizer == self.verbalizer for r in self.rows):
            return False
        self.rows.append(EvaluationRow(self.template, self.verbalizer))
        self.events.comparison_changed.emit()
        return True

    def remove_row(self, index: int) -> None:
        if 0 <= index < len(self.rows):
            del self.rows[index]
            self.selected_row = min(self.selected_row, max(0, len(self.rows) - 1))
            self.events.comparison_changed.emit()

    def prompts_to_evaluate(self) -> list[tuple[str, str]]:
        """(template, verbalizer) of every row; the current prompt alone when the comparison is empty."""
        if not self.rows:
            self.add_current_to_comparison()
        return [(r.template, r.verbalizer) for r in self.rows]

    def set_data(self, path: str) -> None:
        self.data_path = str(path)
        self.events.evaluation_changed.emit()

    def set_calibrate(self, on: bool) -> None:
        self.calibrate = bool(on)
        self.events.evaluation_changed.emit()

    def clear_results(self) -> None:
        for row in self.rows:
            row.result, row.run_id = None, None
        self.events.evaluation_changed.emit()

    def set_row_result(self, index: int, result: Any, run_id: int | None = None) -> None:
        """A row's evaluation (as it arrives) and, once stored, its run."""
        self.rows[index].result = result
        self.rows[index].run_id = run_id
        self.events.evaluation_changed.emit()

    def select_row(self, index: int) -> None:
        if 0 <= index < len(self.rows) and index != self.selected_row:
            self.selected_row = index
            self.events.evaluation_changed.emit()

    # -- few-shot ------------------------------------------------------------------------------------
    def set_fewshot(self, *, k: int | None = None, selection: str | None = None, order: str | None = None,
                    seed: int | None = None, separator: str | None = None) -> None:
        f = self.fewshot
        if selection is not None and selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {SELECTIONS}")
        if order is not None and order not in ORDERS:
            raise ValueError(f"order must be one of {ORDERS}")
        f.order = f.order if order is None else order
        f.k = f.k if k is None else max(0, int(k))
        f.selection = f.selection if selection is None else selection
        f.seed = f.seed if seed is None else int(seed)
        f.separator = f.separator if separator is None else separator
        f.prompt, f.demonstrations = "", []
        self.events.fewshot_changed.emit()

    def set_fewshot_prompt(self, prompt: str, demonstrations: list[Any]) -> None:
        self.fewshot.prompt, self.fewshot.demonstrations = prompt, list(demonstrations)
        self.events.fewshot_changed.emit()

    def clear_curve(self) -> None:
        self.fewshot.curve = {}
        self.events.fewshot_changed.emit()

    def add_curve_point(self, k: int, accuracies: list[float]) -> None:
        self.fewshot.curve[int(k)] = [float(a) for a in accuracies]
        self.events.fewshot_changed.emit()

    def curve_band(self) -> tuple[list[int], list[float], list[float], list[float]]:
        """(ks, mean, min, max) of the accuracy against k over the seeds, k ascending."""
        ks = sorted(self.fewshot.curve)
        accs = [self.fewshot.curve[k] for k in ks]
        return (ks, [sum(a) / len(a) for a in accs], [min(a) for a in accs], [max(a) for a in accs])

    # -- generation ----------------------------------------------------------------------------------
    def set_generation(self, settings: GenerationSettings) -> None:
        self.generation = settings
        self.events.generation_changed.emit()

    def start_generation(self, prompt: str) -> None:
        self.generation_prompt, self.generated, self.generation_end = prompt, [], ""
        self.events.generation_changed.emit()

    def add_generated(self, token_id: int, text: str, probability: float) -> None:
        self.generated.append((int(token_id), text, float(probability)))
        self.events.generation_changed.emit()

    def end_generation(self, why: str) -> None:
        self.generation_end = why
        self.events.generation_changed.emit()

    def generated_text(self) -> str:
        return "".join(text for _, text, _ in self.generated)

    # -- prompt sets ---------------------------------------------------------------------------------
    def apply_prompt_set(self, prompt_set: Any, data_path: str | Path | None = None) -> None:
        """Take a prompt set's prompts: its templates of the current mode (all when none is) with every
        verbalizer become the comparison; the first pair becomes the prompt; its example data (if given) the
        data."""
        templates = [t for t in prompt_set.templates if t.mode == self.mode] or list(prompt_set.templates)
        self.rows = [EvaluationRow(t.text, v.spec) for t in templates for v in prompt_set.verbalizers]
        self.selected_row = 0
        self.template, self.verbalizer = templates[0].text, prompt_set.verbalizers[0].spec
        self.set_name = prompt_set.name
        if data_path:
            self.data_path = str(data_path)
        self._prompt_changed()
        self.events.comparison_changed.emit()
        self.events.evaluation_changed.emit()

    def to_prompt_set(self, name: str, title: str = "") -> Any:
        """The comparison's prompts and the current one as a prompt-set file's content (with the data's examples
        when a file is chosen), ready for ``lm_workbench.prompting.files.save_prompt_set``."""
        from lm_workbench.engine.data.tasks import read_classification
        from lm_workbench.engine.prompting.prompt_set import NamedTemplate, NamedVerbalizer
        from lm_workbench.prompting.files import PromptSetFile

        pairs = [(r.template, r.verbalizer) for r in self.rows]
        if self.usable():
            pairs.append((self.template, self.verbalizer))
        if not pairs:
            from lm_workbench.engine.errors import WorkbenchError

            raise WorkbenchError("nothing to save: fix the template (its problems are shown under it)")
        templates = list(dict.fromkeys(t for t, _ in pairs))
        verbalizers = list(dict.fromkeys(v for _, v in pairs))
        examples = []
        if self.data_path:
            examples = [{"text": e.text, "label": e.label, **({"text_pair": e.text_pair} if e.text_pair else {})}
                        for e in read_classification(self.data_path).examples]
        return PromptSetFile(name, title or name, "", [NamedTemplate(f"template {i + 1}", t, self.mode)
                                                       for i, t in enumerate(templates)],
                             [NamedVerbalizer(f"verbalizer {i + 1}", v) for i, v in enumerate(verbalizers)], examples)

    # -- tables for export ---------------------------------------------------------------------------
    def comparison_table(self) -> tuple[list[str], list[list[Any]]]:
        """One line per evaluated prompt: raw and (when computed) calibrated accuracy and macro-F1."""
        header = ["template", "verbalizer", "accuracy", "macro_f1", "calibrated_accuracy", "calibrated_macro_f1",
                  "examples", "run_id"]
        rows = []
        for row in self.rows:
            r = row.result
            if r is None:
                continue
            cal = r.calibrated
            rows.append([row.template, row.verbalizer, r.raw.accuracy, r.raw.macro_f1,
                         "" if cal is None else cal.accuracy, "" if cal is None else cal.macro_f1,
                         len(r.gold), "" if row.run_id is None else row.run_id])
        return header, rows

    def curve_table(self) -> tuple[list[str], list[list[Any]]]:
        ks, mean, low, high = self.curve_band()
        return ["k", "mean_accuracy", "min_accuracy", "max_accuracy", "seeds"], [
            [k, m, lo, hi, len(self.fewshot.curve[k])] for k, m, lo, hi in zip(ks, mean, low, high)]
