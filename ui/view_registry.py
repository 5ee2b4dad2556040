"""Every tab of the window is one ``ViewEntry``: adding a view is one entry and one class.

An entry says what the view is called, what its About panel explains, how to
make it from a ``ui.view_context.ViewContext`` (the narrow set of services a
view may use: never the window), its keyboard shortcut, and which of the
window's shared inputs it reads: ``text`` (the sentence box), ``pair`` (the
second-sentence line) and ``corpus`` (a corpus of its own). The window shows
the text box only while a view that reads it is current.

``builtin_views()`` is the registry the window opens with; tests and later
features add entries to a copy with ``register``. Factories import their view
modules when called, so building the registry costs nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

from ui.view_entry import INPUTS, ViewEntry

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget

    from ui.view_context import ViewContext

__all__ = ["INPUTS", "ViewEntry", "ViewRegistry", "builtin_views"]

class ViewRegistry:
    """An ordered set of view entries (the window's tabs, in order)."""

    def __init__(self, entries: list[ViewEntry] | tuple[ViewEntry, ...] = ()) -> None:
        self._entries: dict[str, ViewEntry] = {}
        for entry in entries:
            self.register(entry)

    def register(self, entry: ViewEntry) -> ViewEntry:
        if entry.id in self._entries:
            raise ValueError(f"a view called {entry.id!r} is registered already")
        taken = {e.shortcut for e in self._entries.values() if e.shortcut}
        if entry.shortcut and entry.shortcut in taken:
            raise ValueError(f"view {entry.id!r}: the shortcut {entry.shortcut} is taken")
        self._entries[entry.id] = entry
        return entry

    def get(self, view_id: str) -> ViewEntry:
        try:
            return self._entries[view_id]
        except KeyError:
            raise KeyError(f"no view called {view_id!r} (views: {', '.join(self._entries)})") from None

    def ids(self) -> list[str]:
        return list(self._entries)

    def copy(self) -> ViewRegistry:
        return ViewRegistry(list(self._entries.values()))

    def __iter__(self) -> Iterator[ViewEntry]:
        return iter(self._entries.values())

    def __len__(self) -> int:
        return len(self._entries)


# ----------------------------------------------------------------- built-ins
# What each built-in view applies from a lecture preset step or a workspace (see each view's apply_preset_step).
ATTENTION_PRESET_SETTINGS = frozenset({"layer", "heads", "hide_special", "threshold", "step_by_step"})
LAB_PRESET_SETTINGS = frozenset({"tokenizer", "objective", "config", "seed", "samples"})
EMBEDDINGS_PRESET_SETTINGS = frozenset({"words", "layer", "query", "k", "same_word"})
PROBING_PRESET_SETTINGS = frozenset({"task", "kind", "pooling", "sts_data", "probe", "sts", "mix", "mix_steps",
                                     "run", "results"})
FINETUNE_PRESET_SETTINGS = frozenset({"task", "epochs", "seed", "methods", "show"})
PROMPTING_PRESET_SETTINGS = frozenset({"prompt_set", "mode", "template", "verbalizer", "x", "x2", "page", "score"})


def _tokens(ctx: ViewContext) -> QWidget:
    from ui.token_panel import TokenPanel

    panel = TokenPanel()
    ctx.tokens_changed.connect(panel.show_tokens)  # the window tokenizes the text box for every view
    return panel


def _attention(ctx: ViewContext) -> QWidget:
    from ui.views.attention_view import AttentionView

    return AttentionView()


def _predictions(ctx: ViewContext) -> QWidget:
    from ui.views.predictions_view import PredictionsView

    return PredictionsView()


def _lens(ctx: ViewContext) -> QWidget:
    from ui.views.lens_view import LensView

    return LensView()


def _masking_lab(ctx: ViewContext) -> QWidget:
    from ui.views.masking_lab import MaskingLabView

    return MaskingLabView()


def _embeddings(ctx: ViewContext) -> QWidget:
    from ui.embeddings.explorer_view import EmbeddingExplorerView

    return EmbeddingExplorerView(ctx)


def _probing(ctx: ViewContext) -> QWidget:
    from ui.probing.probing_view import ProbingView

    return ProbingView(ctx)


def _prompting(ctx: ViewContext) -> QWidget:
    from ui.prompting.prompting_view import PromptingView

    return PromptingView(ctx)


def _pretrain(ctx: ViewContext) -> QWidget:
    from ui.training.training_view import TrainingView

    return TrainingView(ctx.run_services, open_model=ctx.open_model, register_model=ctx.register_model)


def _finetune(ctx: ViewContext) -> QWidget:
    from ui.finetune.finetune_view import FineTuneView

    return FineTuneView(ctx)


def _runs(ctx: ViewContext) -> QWidget:
    from ui.runs.runs_browser import RunsBrowser

    return RunsBrowser(ctx.run_services)


def builtin_views() -> ViewRegistry:
    """The window's tabs: Tokens, Attention, Predictions, Logit lens, Masking lab, Embeddings, Probing, Prompting,
    Pre-train, Fine-tune, Runs."""
    from ui import about_texts as tokens_about
    from ui.embeddings import about as embeddings_about
    from ui.finetune import about as finetune_about
    from ui.probing import about as probing_about
    from ui.prompting import about as prompting_about
    from ui.training import about_texts as training_about
    from ui.views import about_texts as views_about

    text, text_pair = frozenset({"text"}), frozenset({"text", "pair"})
    return ViewRegistry([
        ViewEntry("tokens", tokens_about.TOKENS_TITLE, tokens_about.TOKENS_HTML, _tokens, "Ctrl+1", text_pair),
        ViewEntry("attention", views_about.ATTENTION_TITLE, views_about.ATTENTION_HTML, _attention, "Ctrl+2",
                  text_pair, preset_settings=ATTENTION_PRESET_SETTINGS),
        ViewEntry("predictions", views_about.PREDICTIONS_TITLE, views_about.PREDICTIONS_HTML, _predictions,
                  "Ctrl+3", text),
        ViewEntry("lens", views_about.LENS_TITLE, views_about.LENS_HTML, _lens, "Ctrl+4", text),
        ViewEntry("masking_lab", views_about.MASKING_LAB_TITLE, views_about.MASKING_LAB_HTML, _masking_lab,
                  "Ctrl+5", text, preset_settings=LAB_PRESET_SETTINGS),
        ViewEntry("embeddings", embeddings_about.TITLE, embeddings_about.HTML, _embeddings, "Ctrl+6",
                  frozenset({"corpus"}), preset_settings=EMBEDDINGS_PRESET_SETTINGS),
        ViewEntry("probing", probing_about.TITLE, probing_about.HTML, _probing, "Ctrl+7", frozenset({"corpus"}),
                  preset_settings=PROBING_PRESET_SETTINGS),
        ViewEntry("prompting", prompting_about.TITLE, prompting_about.HTML, _prompting, "Ctrl+9",
                  frozenset({"corpus"}), preset_settings=PROMPTING_PRESET_SETTINGS),
        ViewEntry("pretrain", training_about.PRETRAIN_TITLE, training_about.PRETRAIN_HTML, _pretrain,
                  "Ctrl+Shift+P", frozenset({"corpus"})),
        ViewEntry("finetune", finetune_about.TITLE, finetune_about.HTML, _finetune, "Ctrl+8", frozenset({"corpus"}),
                  preset_settings=FINETUNE_PRESET_SETTINGS),
        ViewEntry("runs", training_about.RUNS_TITLE, training_about.RUNS_HTML, _runs, "Ctrl+R"),
    ])
