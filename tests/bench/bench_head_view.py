"""Head view paint times at 512 tokens x 12 heads (MiniLM's real attention, layer 2).

A HeadView in a scroll area (as the Attention tab shows it) gets MiniLM's
attention for a 512-token text, all 12 heads of one layer selected. Then:

  prepare      set_selection: hide/threshold/lines per head and the hover index
  overview     the first paint without a hovered token (builds the cached
               picture of every line, or of the strongest that fit the
               pixel budget)
  hover        for --hovers tokens: set the hovered token and repaint()
               synchronously (the visible part, as a mouse move does), and
               the same with the whole widget rendered (worst case: all 512
               rows of labels)

Goal (reported, never asserted): hover redraw <= 100 ms.

    QT_QPA_PLATFORM=offscreen .venv/bin/python tests/bench/bench_head_view.py [--hovers 40] [--synthetic]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from PySide6.QtGui import QImage  # noqa: E402
from PySide6.QtWidgets import QApplication, QScrollArea  # noqa: E402

from _common import environment, prose_sentences, verdict  # noqa: E402

TOKENS, HEADS, LAYER, GOAL_MS = 512, 12, 2, 100.0


def real_side():
    from lm_workbench.engine.analysis import encode
    from lm_workbench.engine.attention import attention_side
    from lm_workbench.engine.models.loading import load_source as load_model

    loaded = load_model("minilm")
    text = " ".join(prose_sentences(200))
    enc = encode(loaded, text)
    return attention_side(enc)


def synthetic_side():
    from lm_workbench.engine.attention import AttentionSide

    rng = np.random.default_rng(0)
    logits = rng.normal(0, 2.5, size=(6, HEADS, TOKENS, TOKENS)).astype(np.float32)
    w = np.exp(logits - logits.max(-1, keepdims=True))
    w /= w.sum(-1, keepdims=True)
    tokens = [f"tok{i}" for i in range(TOKENS)]
    special = [i in (0, TOKENS - 1) for i in range(TOKENS)]
    return AttentionSide(w, tokens, tokens, special, special, [0] * TOKENS, [0] * TOKENS)


def ms(seconds: float) -> float:
    return round(seconds * 1000, 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--hovers", type=int, default=40)
    parser.add_argument("--synthetic", action="store_true", help="random attention instead of MiniLM's")
    parser.add_argument("--threshold", type=float, default=0.01)
    args = parser.parse_args()

    app = QApplication.instance() or QApplication([])
    from lm_workbench.ui.theme import apply_theme
    from lm_workbench.ui.attention.head_view import HeadView

    apply_theme(app)
    t0 = time.perf_counter()
    side = synthetic_side() if args.synthetic else real_side()
    print(f"attention ready in {time.perf_counter() - t0:.1f} s", flush=True)
    n_tokens, n_heads = side.weights.shape[2], side.weights.shape[1]
    view = HeadView()
    scroll = QScrollArea()
    scroll.setWidget(view)
    scroll.setWidgetResizable(True)
    scroll.resize(420, 560)
    scroll.show()
    view.set_side(side)
    t0 = time.perf_counter()
    view.set_selection(LAYER, list(range(n_heads)), threshold=args.threshold)
    prepare = time.perf_counter() - t0
    print(f"prepared in {ms(prepare)} ms", flush=True)
    app.processEvents()  # lays the widget out (and paints once)
    view._cache = None  # time the picture of every line from scratch
    t0 = time.perf_counter()
    view.repaint()
    first = time.perf_counter() - t0
    overview = len(view.drawn_lines())

    rows = np.linspace(0, n_tokens - 1, args.hovers).astype(int)
    visible, full, counts = [], [], []
    image = QImage(view.size(), QImage.Format.Format_ARGB32_Premultiplied)
    for row in rows:
        scroll.ensureVisible(0, int(view._label_rect(0, int(row)).center().y()), 0, 200)
        app.processEvents()
        view.set_hover((0, int(row)))
        t0 = time.perf_counter()
        view.repaint()  # what a mouse move triggers: the exposed (visible) part
        visible.append(time.perf_counter() - t0)
        counts.append(len(view.drawn_lines()))
        t0 = time.perf_counter()
        view.render(image)  # the whole widget, every row's labels
        full.append(time.perf_counter() - t0)

    worst = max(visible)
    print(f"environment: {environment()}")
    print(f"attention: {'synthetic' if args.synthetic else 'MiniLM'} {n_tokens} tokens x {n_heads} heads, "
          f"layer {LAYER}, threshold {args.threshold}; {len(view.lines())} lines in all")
    print(f"prepare (set_selection): {ms(prepare)} ms; first paint without hover (builds the cached picture of "
          f"the {overview:,} strongest lines): {ms(first)} ms")
    print(f"hover redraw, visible part ({args.hovers} tokens, {min(counts)}-{max(counts)} lines each): "
          f"median {ms(statistics.median(visible))} ms, max {ms(worst)} ms")
    print(f"hover redraw, whole widget ({view.width()}x{view.height()} px): "
          f"median {ms(statistics.median(full))} ms, max {ms(max(full))} ms")
    print(f"goal: hover redraw <= {GOAL_MS:.0f} ms: {verdict(worst * 1000 <= GOAL_MS)}")
    scroll.close()


if __name__ == "__main__":
    main()
