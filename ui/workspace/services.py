"""What the workspace controller gets of the window: the shared interfaces (``lm_workbench.ui.view_kit.window_parts``) and
the running lecture, never the window or its widgets. ``owner`` is only the parent of its actions and dialogs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from lm_workbench.ui.view_kit.window_parts import LoadedModels, Notifier, TextBox, ViewDriver
    from lm_workbench.lectures.runner import PresetRunner
    from lm_workbench.lectures.schema import Preset
    from lm_workbench.settings import Settings


@dataclass(frozen=True)
class WorkspaceServices:
    """For the ``WorkspaceController``: what a workspace keeps and how it is put back."""

    owner: QWidget  # parent of its actions and file dialogs
    views: ViewDriver
    models: LoadedModels
    text: TextBox
    notifier: Notifier
    settings: Settings
    runner: PresetRunner  # the lecture that runs, kept in the workspace
    resume_lecture: Callable[[Preset, int], bool]
