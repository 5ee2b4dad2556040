"""The Embeddings tab with real widgets and the offline MiniLM, on a slice of the demo set.

Checked against independent computations: neighbour scores against a numpy
cosine of the stored vectors and against a plain ``transformers`` forward
pass; the scalar mix against its formula in numpy; the box selection against
a numpy point-in-rectangle test; the hover text against the corpus file.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
from PySide6.QtGui import QMouseEvent
from PySide6.QtWidgets import QApplication

pytestmark = pytest.mark.timeout(180)

WORDS = ("bank", "bat", "play")
PER_SENSE = 4
WAIT = 60000
DEMO = Path(__file__).resolve().parents[2] / "engine" / "embeddings" / "data" / "polysemy_demo.tsv"


@pytest.fixture
def corpus_file(tmp_path) -> tuple[Path, list[dict[str, str]]]:
    """A TSV slice of the demo set: PER_SENSE sentences per sense of WORDS (columns word, sense, sentence)."""
    with DEMO.open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    kept, seen = [], {}
    for row in rows:
        key = (row["word"], row["sense"])
        if row["word"] in WORDS and seen.get(key, 0) < PER_SENSE:
            seen[key] = seen.get(key, 0) + 1
            kept.append(row)
    path = tmp_path / "slice.tsv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=["word", "sense", "sentence"], delimiter="\t")
        writer.writeheader()
        writer.writerows(kept)
    return path, kept


def _embedded(qtbot, open_window, corpus_file):
    """The window on the Embeddings tab with the slice embedded (word filter = WORDS) and mapped."""
    window = open_window("minilm", "embeddings")
    view = window.view("embeddings")
    path, rows = corpus_file
    qtbot.keyClicks(view.picker.words_edit, ", ".join(WORDS))
    qtbot.keyClick(view.picker.words_edit, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: view.notice.level() == "info", timeout=WAIT)  # no corpus yet: says so
    assert "corpus is empty" in view.notice.text()
    view.corpus_panel.open_file(path)
    assert view.corpus_panel.label_column.currentData() == "sense"
    qtbot.waitUntil(lambda: view.state.coords is not None and not view.busy(), timeout=WAIT)
    return window, view, rows


def _mouse(widget, kind: str, pos: QPoint, button=Qt.MouseButton.NoButton, held=Qt.MouseButton.NoButton) -> None:
    """Deliver a real mouse event to ``widget`` (QTest's mouseMove does not reach a QGraphicsView offscreen)."""
    types = {"move": QEvent.Type.MouseMove, "press": QEvent.Type.MouseButtonPress,
             "release": QEvent.Type.MouseButtonRelease}
    local = QPointF(pos)
    event = QMouseEvent(types[kind], local, QPointF(widget.mapToGlobal(pos)), button, held,
                        Qt.KeyboardModifier.NoModifier)
    QApplication.sendEvent(widget, event)


def _cosine_rows(vectors: np.ndarray, q: int) -> np.ndarray:
    v = np.asarray(vectors, dtype=np.float64)
    return v @ v[q] / (np.linalg.norm(v, axis=1) * np.linalg.norm(v[q]))


def _reference_word_vector(model, tokenizer, sentence: str, word: str, layer: int) -> np.ndarray:
    """Mean of the subword vectors of ``word`` (first match, case-insensitive) at ``layer``: plain transformers."""
    import torch

    match = re.search(rf"\b{re.escape(word)}\b", sentence, flags=re.IGNORECASE)
    enc = tokenizer(sentence, return_tensors="pt", return_offsets_mapping=True)
    offsets = enc.pop("offset_mapping")[0].tolist()
    with torch.no_grad():
        hidden = model(**enc, output_hidden_states=True).hidden_states[layer][0].numpy()  # [T, H]
    tokens = [i for i, (s, e) in enumerate(offsets) if e > s and s >= match.start() and e <= match.end()]
    return hidden[tokens].mean(axis=0)


def test_map_hover_click_and_neighbours(open_window, qtbot, corpus_file):
    window, view, rows = _embedded(qtbot, open_window, corpus_file)
    table, smap = view.state.table, view.map

    # One point per occurrence: every sentence of the slice holds its word exactly once
    assert len(table) == len(rows) == smap.point_count() == sum(smap.item_point_counts())
    assert len(smap.drawn_indices()) == len(rows)
    view.colour_combo.setCurrentIndex(view.colour_combo.findData("label"))
    assert set(smap.legend_names()) == {r['sense'] for r in rows}
    qtbot.wait(150)  # the legend's new height re-lays out the plot: let positions settle

    # Hover a point with the real mouse: its token shows highlighted inside its sentence
    point = 5
    occ = table.occurrences[view.occurrence_of_point(point)]
    source = rows[occ.line]
    viewport = smap.plot.viewport()
    pos = smap.widget_pos_of(point)
    _mouse(viewport, "move", pos + QPoint(30, 30))
    _mouse(viewport, "move", pos)
    qtbot.waitUntil(lambda: smap.hovered_index() == point, timeout=3000)
    assert source["sentence"] in view.hover_text()
    highlighted = re.findall(r"<span style='[^']*ffe08a[^']*'>([^<]*)</span>", view.hover_label.text())
    assert [h.lower() for h in highlighted] == [source["word"]]

    # Click it: it is selected, and the neighbour scores are the cosines of the stored vectors
    _mouse(viewport, "press", pos, Qt.MouseButton.LeftButton, Qt.MouseButton.LeftButton)
    _mouse(viewport, "release", pos, Qt.MouseButton.LeftButton, Qt.MouseButton.NoButton)
    qtbot.waitUntil(lambda: smap.current() == point, timeout=3000)
    q = view.occurrence_of_point(point)
    k = view.neighbours.k()
    layer = table.num_layers  # the picker starts on the last layer
    assert view.picker.spec_text() == str(layer)
    cos = _cosine_rows(table.vectors[layer], q)
    lines = np.array([o.line for o in table.occurrences])
    cos[lines == occ.line] = -np.inf  # the query's own line is left out
    expected = np.argsort(-cos)[:k]
    shown = view.neighbours.contextual
    assert shown.rowCount() == k
    got = [shown.row_index(r) for r in range(k)]
    assert got == expected.tolist()
    for r in range(k):
        assert float(shown.cell_text(r, "score")) == pytest.approx(cos[got[r]], abs=1e-4)

    # ... and close to a plain transformers forward (the cache stores float16)
    import transformers as tf

    folder = window.loaded.info.folder
    model = tf.AutoModel.from_pretrained(folder).eval()
    tokenizer = tf.AutoTokenizer.from_pretrained(folder)
    ref_q = _reference_word_vector(model, tokenizer, source["sentence"], source["word"], layer)
    for r in range(2):
        nb = rows[table.occurrences[got[r]].line]
        ref_n = _reference_word_vector(model, tokenizer, nb["sentence"], nb["word"], layer)
        ref = ref_q @ ref_n / (np.linalg.norm(ref_q) * np.linalg.norm(ref_n))
        assert float(shown.cell_text(r, "score")) == pytest.approx(ref, abs=3e-3)

    # The static baseline: every other occurrence of the same word ties at 1.0, shown as one tied rank
    same_word = sum(1 for i, o in enumerate(table.occurrences) if o.key == occ.key and o.line != occ.line)
    static = view.neighbours.static
    ranks = [static.cell_text(r, "rank") for r in range(static.rowCount())]
    assert ranks[:same_word] == ["=1"] * same_word
    assert all(float(static.cell_text(r, "score")) == pytest.approx(1.0, abs=1e-6) for r in range(same_word))
    assert "tied" in view.neighbours.static_note.text()


def test_scalar_mix_sliders_change_the_representation(open_window, qtbot, corpus_file):
    window, view, rows = _embedded(qtbot, open_window, corpus_file)
    picker, table = view.picker, view.state.table
    picker.set_kind("mix")
    mix = picker.mix
    assert len(mix.sliders) == table.num_layers + 1
    qtbot.waitUntil(lambda: view.state.spec is not None and view.state.spec.kind == "mix" and not view.busy(), timeout=WAIT)
    s = np.array([0.0, -1.0, 0.5, 1.5, 2.0, -2.5, 3.0])  # slider units of 0.1
    for slider, value in zip(mix.sliders, s):
        slider.setValue(int(round(value * 10)))
    mix.gamma_slider.setValue(30)  # gamma 1.5
    qtbot.waitUntil(lambda: view.state.spec.scalars == tuple(s) and view.state.spec.gamma == 1.5 and not view.busy(),
                    timeout=WAIT)

    weights = np.exp(s - s.max()) / np.exp(s - s.max()).sum()
    shown = [float(label.text()) for label in mix.weight_labels]
    assert shown == pytest.approx(weights, abs=5e-4)
    formula = mix.formula_text()
    assert "softmax(s)" in formula and "1.50 ·" in formula
    assert re.findall(r"(\d\.\d\d)·h", formula) == [f"{w:.2f}" for w in weights]

    h = np.stack([np.asarray(table.vectors[j], dtype=np.float64) for j in range(table.num_layers + 1)])
    expected = 1.5 * np.einsum("j,jnh->nh", weights, h)  # gamma * sum_j softmax(s)_j h_j
    assert np.allclose(view.state.vectors, expected, atol=1e-4)
    assert view.state.coords.shape == (len(rows), 2)


def test_box_selection_undo_and_export(open_window, qtbot, corpus_file, tmp_path):
    from lm_workbench.ui.embeddings import export_menu

    window, view, rows = _embedded(qtbot, open_window, corpus_file)
    smap = view.map
    xy = smap.coordinates()
    # A box around the lower-left quarter of the points' extent, drawn with the mouse
    lo, hi = xy.min(axis=0), xy.max(axis=0)
    corner_a, corner_b = lo - (hi - lo) * 0.02, lo + (hi - lo) * 0.55
    smap.set_mode("box")
    viewport = smap.plot.viewport()
    start, end = (smap.plot.mapFromScene(smap.viewbox.mapViewToScene(QPointF(*c))) for c in (corner_a, corner_b))
    left = Qt.MouseButton.LeftButton
    _mouse(viewport, "press", start, left, left)
    for t in np.linspace(0.1, 1.0, 6):
        _mouse(viewport, "move", start + (end - start) * float(t), Qt.MouseButton.NoButton, left)
    _mouse(viewport, "release", end, left, Qt.MouseButton.NoButton)
    qtbot.waitUntil(lambda: len(smap.selected()) > 0, timeout=3000)

    inside = np.flatnonzero((xy[:, 0] >= min(corner_a[0], corner_b[0])) & (xy[:, 0] <= max(corner_a[0], corner_b[0]))
                            & (xy[:, 1] >= min(corner_a[1], corner_b[1])) & (xy[:, 1] <= max(corner_a[1], corner_b[1])))
    # pixels round the corners: allow the points within a pixel of the edge to differ
    assert abs(len(smap.selected()) - len(inside)) <= 1
    listed = view.selection_list
    assert listed.rowCount() == len(smap.selected())
    assert sorted(listed.row_index(r) for r in range(listed.rowCount())) == sorted(
        view.occurrence_of_point(p) for p in smap.selected())
    assert view.side_tabs.currentWidget() is listed

    # Ctrl+Z undoes the selection
    smap.plot.setFocus()
    qtbot.keyClick(smap.plot, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: len(smap.selected()) == 0, timeout=3000)

    # Export: coordinates + metadata, vectors, the map as PNG and SVG
    csv_path = export_menu.export_coordinates(view, tmp_path / "map.csv")
    with csv_path.open(encoding="utf-8") as fh:
        records = list(csv.DictReader(fh))
    assert len(records) == len(rows)
    assert np.allclose([[float(r["x"]), float(r["y"])] for r in records], xy, atol=1e-5)
    assert {r["label"] for r in records} == {r['sense'] for r in rows}
    npy_path = export_menu.export_vectors(view, tmp_path / "vectors.npy")
    assert np.array_equal(np.load(npy_path), view.state.vectors)
    for suffix in ("png", "svg"):
        path = export_menu.export_picture(view, smap.figure, "map", tmp_path / f"map.{suffix}")
        assert path is not None and path.stat().st_size > 1000

    # Bad input: a word that never occurs, then an empty paste: one clear line each, the map stays
    view.picker.words_edit.setText("zyzzyva")
    view.picker.words_edit.editingFinished.emit()
    qtbot.waitUntil(lambda: view.notice.level() == "warning" and not view.busy(), timeout=WAIT)
    assert "zyzzyva" in view.notice.text()
    view.use_text("  \n \n")
    assert "empty" in view.notice.text()
    assert smap.point_count() == len(rows)


def test_lasso_polygon_matches_an_independent_point_in_triangle_test():
    from lm_workbench.ui.embeddings.select_viewbox import points_in_polygon

    rng = np.random.default_rng(0)
    xy = rng.uniform(-1, 2, size=(5000, 2))
    a, b, c = np.array([0.0, 0.0]), np.array([1.5, 0.2]), np.array([0.3, 1.7])
    # barycentric coordinates: inside when all three are positive
    m = np.column_stack([b - a, c - a])
    lam = np.linalg.solve(m, (xy - a).T).T  # [n, 2]
    inside = (lam[:, 0] > 0) & (lam[:, 1] > 0) & (lam.sum(axis=1) < 1)
    assert np.array_equal(points_in_polygon(xy, np.array([a, b, c])), inside)
