"""He et al. (2022)'s unified view of parameter-efficient fine-tuning, as data each method declares.

"Towards a Unified View of Parameter-Efficient Transfer Learning" writes adapters, prefix tuning and LoRA as
one operation: a modification Δh of a hidden representation h, and tells them apart by four things (their
Table 1): the **functional form** of Δh, the **insertion form** (sequential: Δh is computed from h itself,
after the sublayer; parallel: from the sublayer's input x, beside it), the **modified representation** (the
attention sublayer, the feed-forward sublayer or both) and the **composition function** (how Δh joins h:
h ← h + Δh, h ← h + s·Δh, h ← (1 − λ)h + λΔh, ...). ``UnifiedRow`` holds one method's row; ``formula`` is
plain Unicode (CSV, tooltips) and ``formula_html`` the same typeset with sub- and superscripts (Qt rich
text). Methods outside the framework (full fine-tuning, the feature-based mix) say so in ``note``.

Plain data: no torch, so the window, the bench and the CLI read it without importing a model library.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace

INSERTIONS = ("sequential", "parallel", "—")
REPRESENTATIONS = ("attention", "feed-forward", "both", "input", "all weights", "—")
ATTENTION_SITES = frozenset({"prefix", "query", "key", "value", "attention_output", "parallel_attention"})
FFN_SITES = frozenset({"ffn_in", "ffn_out", "parallel_ffn"})
COLUMNS = ("method", "title", "functional_form", "insertion", "representation", "composition", "formula", "note")
HEADERS = ("Method", "Title", "Functional form of Δh", "Insertion form", "Modified representation",
           "Composition function", "Formula", "Note")


@dataclass(frozen=True)
class UnifiedRow:
    """One method in He et al.'s framework (Table 1 of the paper, extended to the methods since)."""

    functional_form: str  # Δh as a function, e.g. "ReLU(x·W_down)·W_up"
    insertion: str  # one of INSERTIONS
    representation: str  # one of REPRESENTATIONS
    composition: str  # how Δh joins h, e.g. "h ← h + s·Δh"
    formula: str  # the whole update in plain Unicode
    formula_html: str = ""  # the same typeset for Qt rich text (sub/superscripts); "" = formula
    note: str = ""  # a line more: what differs from the paper's row, or why the method is outside the framework

    def __post_init__(self) -> None:
        if self.insertion not in INSERTIONS:
            raise ValueError(f"insertion must be one of {', '.join(INSERTIONS)}, not {self.insertion!r}")
        if self.representation not in REPRESENTATIONS:
            raise ValueError(f"representation must be one of {', '.join(REPRESENTATIONS)}, "
                             f"not {self.representation!r}")

    def typeset(self) -> str:
        """The formula as Qt rich text."""
        return self.formula_html or self.formula

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def representation_of(sites: tuple[str, ...] | list[str] | set[str]) -> str:
    """"attention", "feed-forward" or "both" for the block sites a method touches (LoRA's targets, say)."""
    chosen = set(sites)
    attention, ffn = bool(chosen & ATTENTION_SITES), bool(chosen & FFN_SITES)
    if attention and ffn:
        return "both"
    if ffn:
        return "feed-forward"
    return "attention" if attention else "—"


def with_representation(row: UnifiedRow, sites: tuple[str, ...]) -> UnifiedRow:
    """``row`` with its modified representation read off ``sites`` (kept where the sites touch neither)."""
    found = representation_of(sites)
    return row if found == "—" else replace(row, representation=found)
