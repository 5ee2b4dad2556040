""""From the datasets cache…": pick a split of a dataset already in the local Hugging Face ``datasets`` cache.

The file choosers of the Embeddings, Probing, Fine-tuning and Prompting views offer it beside "Open file…";
the choice comes back as a reference such as ``nyu-mll/glue/sst2:validation``, which every reader takes
where it takes a file path (``lm_workbench.engine.data.hub_datasets``). Listing the cache only reads its folders'
``dataset_info.json`` files; the rows are read later, off the Qt thread, by the view's job.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTreeWidget, QTreeWidgetItem, QWidget

from lm_workbench.ui import theme
from lm_workbench.ui.widgets import boxes
from lm_workbench.ui.widgets.controls import label

COLUMNS = ["Dataset", "Configuration", "Split", "Rows"]


class CachedDatasetDialog(QDialog):
    """A list of every (dataset, configuration, split) in the cache; OK returns the chosen one's reference."""

    def __init__(self, parent: QWidget | None = None):
        super().__init__(parent)
        from lm_workbench.models.for_views import cached_datasets, datasets_cache

        self.setWindowTitle("From the datasets cache")
        self.tree = QTreeWidget()
        self.tree.setHeaderLabels(COLUMNS)
        self.tree.setRootIsDecorated(False)
        self.tree.setAlternatingRowColors(True)
        found = cached_datasets()
        for entry in found:
            for split, rows in entry.splits.items():
                item = QTreeWidgetItem([entry.name, entry.config, split, "" if rows is None else f"{rows:,}"])
                item.setData(0, Qt.ItemDataRole.UserRole, entry.reference(split))
                item.setTextAlignment(3, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.tree.addTopLevelItem(item)
        for column in range(len(COLUMNS)):
            self.tree.resizeColumnToContents(column)
        cache = datasets_cache()
        self.note = label(f"Datasets prepared in {cache}. Read offline; add one by loading it once with a "
                          f"network (datasets.load_dataset). Needs the optional datasets package."
                          if found else
                          f"No datasets in {cache} yet. Load one once with a network, e.g. python -c "
                          f"\"import datasets; datasets.load_dataset('nyu-mll/glue', 'sst2')\", then choose it "
                          f"here; or type a reference such as glue/sst2:validation.", name="summary", wrap=True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.tree.itemDoubleClicked.connect(lambda *_: self.accept())
        self.tree.currentItemChanged.connect(lambda *_: self._sync())
        boxes.column(self, (self.tree, 1), self.note, self.buttons, margins=None, spacing=None)
        theme.bind(self, lambda w, m: w.setMinimumWidth(m.form_column_w * 2))
        if self.tree.topLevelItemCount():
            self.tree.setCurrentItem(self.tree.topLevelItem(0))
        self._sync()

    def _sync(self) -> None:
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setEnabled(self.reference() is not None)

    def reference(self) -> str | None:
        item = self.tree.currentItem()
        return item.data(0, Qt.ItemDataRole.UserRole) if item is not None else None


def display_name(source: str) -> str:
    """How a chooser shows a data source: a file by its name, a dataset by its whole reference."""
    from pathlib import Path

    from lm_workbench.models.for_views import looks_like_dataset

    return source if looks_like_dataset(source) else Path(source).name


def choose_cached_dataset(parent: QWidget | None = None) -> str | None:
    """Ask for a split in the datasets cache; its reference, or None when cancelled."""
    dialog = CachedDatasetDialog(parent)
    return dialog.reference() if dialog.exec() == QDialog.DialogCode.Accepted else None
