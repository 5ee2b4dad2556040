"""The Runs tab's Merge… dialog: how the selected fine-tuning runs combine (how, weights, density, seed, fold, out).

One run is folded into its base weights; several are combined into one adapter
(``lm_workbench.engine.finetune.merging``): ``linear`` exactly Σ wᵢ·ΔWᵢ, the other rules as peft's
``add_weighted_adapter`` does on LoRA's factors. The dialog only gathers the settings as a ``MergeSpec``
(weights that are not numbers, or all 0, are refused by ``spec``); the Runs tab runs it as a job.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QFormLayout, QWidget

from lm_workbench.engine.errors import WorkbenchError
from lm_workbench.finetune.for_views import DENSITY_HOWS, FACTOR_HOWS, HOWS, SEEDED_HOWS
from lm_workbench.finetune.merge_runs import MergeSpec, default_out_dir
from lm_workbench.ui.widgets.boxes import column
from lm_workbench.ui.widgets.controls import combo_box, double_spin_box, label, line_edit, spin_box

HOW_HELP = {
    "linear": "Exactly Σ w·ΔW, negative weights too: LoRA's factors are concatenated (rank Σ r), IA³'s vectors "
              "give 1 + Σ w·(l − 1).",
    "linear-factors": "peft's linear: Σ of the factors A and B separately, √(w·scale) each; not Σ w·ΔW (cross "
                      "terms Bᵢ·Aⱼ appear).",
    "ties": "TIES on LoRA's factors A and B separately (peft's rule): keep each one's largest entries (density), "
            "elect one sign per entry, average those agreeing; cross terms Bᵢ·Aⱼ appear.",
    "dare": "DARE on LoRA's factors A and B separately (peft's rule): drop entries at random (keep a share = "
            "density), rescale by 1/density, then add (seeded); cross terms Bᵢ·Aⱼ appear.",
    "dare-ties": "DARE's random drops, then TIES's sign election, on LoRA's factors separately (seeded); cross "
                 "terms Bᵢ·Aⱼ appear.",
}


class MergeDialog(QDialog):
    """Settings for merging ``folders`` (fine-tuning output folders, in the table's order)."""

    def __init__(self, folders: list[str], labels: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.folders = list(folders)
        several = len(folders) > 1
        self.setWindowTitle("Merge runs" if several else "Fold a run into its base weights")
        runs = label("<br>".join(labels), wrap=True)
        self.how = combo_box(HOWS)
        self.weights = line_edit(text=",".join(f"{1.0 / len(folders):g}" for _ in folders),
                                 tip="One weight per run, in the order listed; the task heads get the same weights")
        self.density = double_spin_box(0.01, 1.0, 0.5, step=0.05,
                                       tip="TIES and DARE: the share of each adapter's entries kept")
        self.seed = spin_box(0, 2**31 - 1, 0, tip="DARE: the seed of the random drops")
        self.fold = QCheckBox("Fold the result into the base weights (a plain model folder)")
        self.fold.setChecked(not several)
        self.fold.setEnabled(several)  # one run is always folded
        self.out = line_edit()
        self.note = label(name="summary", wrap=True)
        form = QFormLayout()
        form.addRow("Runs", runs)
        if several:
            form.addRow("How", self.how)
            form.addRow("Weights", self.weights)
            form.addRow("Density", self.density)
            form.addRow("Seed", self.seed)
            form.addRow("", self.fold)
        form.addRow("Output folder", self.out)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.ok_button = buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("Merge" if several else "Fold")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        column(self, form, self.note, buttons, margins=None, spacing="row_spacing")
        self._out_touched = False
        self.out.textEdited.connect(lambda *_: setattr(self, "_out_touched", True))
        self.how.currentTextChanged.connect(lambda *_: self._changed())
        self.fold.toggled.connect(lambda *_: self._changed())
        self._changed()

    def _changed(self) -> None:
        how = self.how.currentText()
        several = len(self.folders) > 1
        self.density.setEnabled(how in DENSITY_HOWS)
        self.seed.setEnabled(how in SEEDED_HOWS)
        if not self._out_touched:
            self.out.setText(default_out_dir(self.folders, how, self.fold.isChecked()))
        if several:
            shared = "base, rank and labels" if how in FACTOR_HOWS else "base and labels"
            self.note.setText(f"{HOW_HELP[how]} The runs must share their {shared}; their heads are combined "
                              "with the same weights as the adapters, which may not all be 0.")
        else:
            self.note.setText("The run's adapter (LoRA, IA³, DoRA) is folded into W₀: the output is a plain model "
                              "folder with the same predictions.")

    def spec(self) -> MergeSpec:
        """The settings as a ``MergeSpec`` (a ``WorkbenchError`` for weights that are not numbers, or all 0)."""
        several = len(self.folders) > 1
        weights = None
        if several:
            try:
                weights = [float(t) for t in self.weights.text().split(",") if t.strip()]
            except ValueError:
                raise WorkbenchError(f"the weights must be numbers separated by commas, not "
                                     f"{self.weights.text()!r}") from None
        out = self.out.text().strip() or default_out_dir(self.folders, self.how.currentText(), self.fold.isChecked())
        spec = MergeSpec(sources=list(self.folders), out_dir=str(Path(out)), how=self.how.currentText(),
                         weights=weights, density=float(self.density.value()), seed=int(self.seed.value()),
                         fold=bool(self.fold.isChecked()) and several)
        spec.check()
        return spec
