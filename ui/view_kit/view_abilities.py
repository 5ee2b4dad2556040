"""What a view may do besides being a tab: optional abilities, each a protocol the host checks with ``isinstance``.

- ``PresetView``: a lecture step or a workspace may drive it. It declares the setting keys it applies in
  ``preset_settings`` (a class attribute, next to the two methods), shows a step with
  ``apply_preset_step(settings, inputs)`` and says what it shows with ``preset_state()``.
- ``ExportableView``: File > Export saves ``export_widget()`` instead of the whole tab.
- ``ClosableView``: ``shutdown()`` stops the view's own threads or timers when the window closes.
- ``ModelBView``: the view shows model B beside A while two models are compared (Compare): ``model_b_split()``
  is its one B column (``lm_workbench.ui.widgets.model_b_split.ModelBSplit``), which it fills from ``ctx.model_b``.

``check_view_class`` runs when an entry is registered: a class with part of an ability (keys without
``apply_preset_step``, say) or a method whose name is a hook's misspelt (``apply_preset_steps``,
``preset_sate``) is refused there with the reason, instead of the host silently never calling it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from PySide6.QtWidgets import QWidget


@runtime_checkable
class PresetView(Protocol):
    preset_settings: frozenset[str]

    def apply_preset_step(self, settings: dict[str, Any], inputs: dict[str, Any]) -> None: ...

    def preset_state(self) -> tuple[dict[str, Any], dict[str, Any]]: ...


@runtime_checkable
class ExportableView(Protocol):
    def export_widget(self) -> QWidget: ...


@runtime_checkable
class ClosableView(Protocol):
    def shutdown(self) -> None: ...


@runtime_checkable
class ModelBView(Protocol):
    def model_b_split(self) -> QWidget: ...


ABILITIES: dict[str, tuple[str, ...]] = {
    "PresetView": ("preset_settings", "apply_preset_step", "preset_state"),
    "ExportableView": ("export_widget",),
    "ClosableView": ("shutdown",),
    "ModelBView": ("model_b_split",),
}
HOOKS = frozenset(name for names in ABILITIES.values() for name in names)
MAX_TYPOS = 2  # a name this close to a hook's (letters added, dropped, changed or swapped) is taken for it
_FOREIGN = ("PySide6", "shiboken6", "builtins", "typing", "abc")  # names of Qt's and Python's own classes


def own_names(cls: type) -> set[str]:
    """The public names the view's own classes define (not Qt's or Python's)."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass.__module__.split(".")[0] not in _FOREIGN:
            names |= {n for n in vars(klass) if not n.startswith("_")}
    return names


def preset_keys(cls: type) -> frozenset[str]:
    """The setting keys a view class declares for presets (empty: it takes none)."""
    return frozenset(getattr(cls, "preset_settings", frozenset())) if "apply_preset_step" in own_names(cls) \
        else frozenset()


_CHECKED: set[tuple[str, type]] = set()  # classes that passed: every window registers the same ones again


def check_view_class(view_id: str, cls: Any) -> None:
    """Refuse a view class whose optional hooks are incomplete or misspelt (``ValueError`` naming them). A class
    that passed is not checked again (the typo search took a fifth of opening a window)."""
    if not isinstance(cls, type):
        raise ValueError(f"view {view_id!r}: its view must be a class that takes the ViewContext, not {cls!r}")
    if (view_id, cls) in _CHECKED:
        return
    _check(view_id, cls)
    _CHECKED.add((view_id, cls))


def _check(view_id: str, cls: type) -> None:
    names = own_names(cls)
    for name in sorted(names - HOOKS):
        close = [hook for hook in sorted(HOOKS) if typo_distance(name, hook) <= MAX_TYPOS]
        if close:
            raise ValueError(f"view {view_id!r}: {cls.__name__}.{name} looks like the hook {close[0]!r} misspelt "
                             "(the window would never call it); rename it")
    for ability, members in ABILITIES.items():
        have = [m for m in members if m in names]
        if have and len(have) < len(members):
            missing = [m for m in members if m not in names]
            raise ValueError(f"view {view_id!r}: {cls.__name__} has {', '.join(have)} but not "
                             f"{', '.join(missing)} (a {ability} needs all of {', '.join(members)})")
    keys = getattr(cls, "preset_settings", frozenset())
    if not isinstance(keys, (set, frozenset)) or not all(isinstance(k, str) for k in keys):
        raise ValueError(f"view {view_id!r}: {cls.__name__}.preset_settings must be a frozenset of setting names")


def typo_distance(a: str, b: str) -> int:
    """Letters added, dropped, changed or swapped (adjacent) to turn ``a`` into ``b`` (Damerau-Levenshtein)."""
    rows = [list(range(len(b) + 1))]
    for i, ca in enumerate(a, 1):
        row = [i]
        for j, cb in enumerate(b, 1):
            cost = min(rows[-1][j] + 1, row[j - 1] + 1, rows[-1][j - 1] + (ca != cb))
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cost = min(cost, rows[-2][j - 2] + 1)
            row.append(cost)
        rows.append(row)
    return rows[-1][-1]
