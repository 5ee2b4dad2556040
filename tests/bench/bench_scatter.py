"""Frame rate of the embedding map while panning 200,000 points (offscreen).

The map (``lm_workbench.ui.embeddings.scatter_map.ScatterMap``) shows ``--n`` points in
``--groups`` colour groups (Gaussian blobs, seeded). Each frame moves the
view by 1% of its width (swinging left and right so the data stays in view)
and runs the event loop until the plot has painted once (counted with an
event filter), the way a drag does. Reported: frames per second over ``--seconds``,
for the whole map in view (zoomed out, downsampled) and zoomed in 4x.
Goal: >= 30 frames/s zoomed out. Printed, never asserted.

    python tests/bench/bench_scatter.py --json /tmp/bench/scatter.json
    # options: --n 200000 --groups 16 --seconds 4 --width 1100 --height 750
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402
from PySide6.QtCore import QEvent, QObject  # noqa: E402

from tests.bench._common import OtherLoad, verdict, write_json  # noqa: E402

GOAL_FPS = 30.0
SWING = 40  # frames in one direction before turning (40% of the view)


def blobs(n: int, groups: int, seed: int = 0) -> tuple[np.ndarray, list[str]]:
    """``n`` points [n, 2] in ``groups`` Gaussian blobs, and each point's group name."""
    rng = np.random.default_rng(seed)
    centres = rng.normal(scale=6.0, size=(groups, 2))  # [groups, 2]
    which = rng.integers(0, groups, n)  # [n]
    xy = centres[which] + rng.normal(size=(n, 2))  # [n, 2]
    return xy, [f"group {g}" for g in which]


class PaintCounter(QObject):
    """Counts the paint events a widget receives (the frames actually drawn)."""

    def __init__(self) -> None:
        super().__init__()
        self.count = 0

    def eventFilter(self, watched, event) -> bool:  # noqa: N802
        if event.type() == QEvent.Type.Paint:
            self.count += 1
        return False


def pan_fps(app, scatter, seconds: float, zoom: float) -> tuple[float, int]:
    """Frames per second while panning by 1% of the view per frame, swinging left and right.

    A frame: move the view, then run the event loop until the plot has been
    painted once (Qt coalesces the scene's updates into one paint, as during
    a drag); the map's re-clip timer runs in the same loop when it is due.
    """
    scatter.reset_view()
    vb = scatter.viewbox
    if zoom != 1.0:
        vb.scaleBy((1 / zoom, 1 / zoom))
    app.processEvents()
    (x0, x1), _ = vb.viewRange()
    step = (x1 - x0) * 0.01
    counter = PaintCounter()
    viewport = scatter.plot.viewport()
    viewport.installEventFilter(counter)
    frames = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        before = counter.count
        direction = 1 if (frames // SWING) % 4 in (0, 3) else -1  # right, back, left, back: data stays in view
        vb.translateBy(x=direction * step)
        while counter.count == before:
            app.processEvents()
        frames += 1
    elapsed = time.perf_counter() - start
    viewport.removeEventFilter(counter)
    return frames / elapsed, len(scatter.drawn_indices())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=200_000)
    parser.add_argument("--groups", type=int, default=16)
    parser.add_argument("--seconds", type=float, default=4.0)
    parser.add_argument("--width", type=int, default=1100)
    parser.add_argument("--height", type=int, default=750)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()

    from PySide6.QtWidgets import QApplication

    from lm_workbench.ui.embeddings.scatter_map import MAX_DRAWN, ScatterMap

    app = QApplication.instance() or QApplication([])
    xy, labels = blobs(args.n, args.groups)
    scatter = ScatterMap()
    scatter.resize(args.width, args.height)
    scatter.show()
    t0 = time.perf_counter()
    scatter.set_points(xy, labels)
    app.processEvents()
    scatter.plot.viewport().repaint()
    first_s = time.perf_counter() - t0

    load = OtherLoad()
    load.start()
    out_fps, out_drawn = pan_fps(app, scatter, args.seconds, 1.0)
    in_fps, in_drawn = pan_fps(app, scatter, args.seconds, 4.0)
    others = load.stop()

    print(f"scatter pan benchmark: {args.n:,} points, {args.groups} colour groups, "
          f"{args.width}x{args.height}, at most {MAX_DRAWN:,} painted")
    print(f"  first paint            {first_s * 1000:8.0f} ms")
    print(f"  zoomed out (all)       {out_fps:8.1f} frames/s  ({out_drawn:,} painted)  {verdict(out_fps >= GOAL_FPS)}")
    print(f"  zoomed in 4x           {in_fps:8.1f} frames/s  ({in_drawn:,} painted)")
    print(f"  others {others} CPUs, steal {getattr(load, 'steal', None)}")
    from tests.bench._common import environment

    write_json(args.json, {
        "benchmark": "scatter_pan", "n": args.n, "groups": args.groups, "max_drawn": MAX_DRAWN,
        "first_paint_ms": round(first_s * 1000, 1), "fps_zoomed_out": round(out_fps, 1),
        "fps_zoomed_in": round(in_fps, 1), "painted_zoomed_out": out_drawn, "painted_zoomed_in": in_drawn,
        "goal_fps": GOAL_FPS, "others": others, "steal": getattr(load, "steal", None),
        "environment": environment(),
    })


if __name__ == "__main__":
    main()
