"""How long the Guide takes: opening each forward-pass page in the window, and checking an answer, on MiniLM.

A window (offscreen unless QT_QPA_PLATFORM says otherwise) loads MiniLM and opens every built-in Guide page whose
view is a forward pass and whose model is MiniLM; a page counts as open when the window is idle again with the
page's view current. Then, Qt-free, each such page's answer is checked twice on MiniLM: the first check computes
the expected answer (the view's own function), the second finds it kept for the page and model. Pages whose view
trains or sweeps (probing, the scalar mix) are left out: they start a run, as the view does.

Goals (reported, never asserted): a page opens in < 1 s; an answer is checked in < 1 s.

    python tests/bench/bench_guide.py [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.bench._common import OtherLoad, environment, verdict, write_json  # noqa: E402

GOAL_S = 1.0
TRAINS = ("probing",)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", help="write the numbers here")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from lm_workbench.guide.check import Unanswerable, answer_of, check_answer
    from lm_workbench.lectures.verify import ModelCache
    from lm_workbench.settings import Settings
    from lm_workbench.ui.app import create_application
    from lm_workbench.ui.window.main_window import MainWindow

    load = OtherLoad()
    load.start()
    app = create_application()
    window = MainWindow(Settings(), persist=False)
    window.resize(1280, 800)
    window.show()

    def pump_until(done, limit=120.0) -> None:
        end = time.monotonic() + limit
        while not done() and time.monotonic() < end:
            app.processEvents()
            time.sleep(0.005)

    window.load_model("minilm")
    pump_until(lambda: window.loaded is not None)
    view = window.view_host.widget("guide")
    view.ensure_loaded()
    guide = view.session.guide
    pages = [p for p in guide.pages if p.view not in TRAINS and p.model in ("default", "minilm")]
    rows = []
    for page in pages:
        started = time.monotonic()
        view.open_page(guide.index(page.id))
        pump_until(lambda: window.view_host.current_entry().id == page.view and not window.jobs.busy
                   and not view.ctx.jobs.busy())
        rows.append({"page": page.id, "view": page.view, "open_s": round(time.monotonic() - started, 3)})
    loaded = window.loaded
    cache = ModelCache(lambda _spec: loaded)
    for row, page in zip(rows, pages):
        if page.exercise is None:
            continue
        started = time.monotonic()
        try:
            exp = answer_of(page, "minilm", cache, None)  # the page's step computed on the model
        except Unanswerable as exc:
            row["unanswerable"] = str(exc)
            continue
        first = time.monotonic() - started
        started = time.monotonic()
        result = check_answer(page, str(exp.shown if page.exercise.kind == "number" else exp.value), "minilm",
                              cache)  # the same step on the same model: kept
        row.update(check_first_s=round(first, 3), check_again_s=round(time.monotonic() - started, 3),
                   correct=result.correct)
    window.close()
    other = load.stop()
    slowest = max(r["open_s"] for r in rows)
    print(f"{'page':<30} {'view':<12} {'open s':>7} {'check s':>8} {'again s':>8}")
    for r in rows:
        if "unanswerable" in r:
            print(f"{r['page']:<30} {r['view']:<12} {r['open_s']:>7.2f}  not here: {r['unanswerable'][:60]}")
            continue
        print(f"{r['page']:<30} {r['view']:<12} {r['open_s']:>7.2f} {r.get('check_first_s', float('nan')):>8.2f} "
              f"{r.get('check_again_s', float('nan')):>8.2f}")
    checks = [r["check_first_s"] for r in rows if "check_first_s" in r]
    print(f"slowest open {slowest:.2f} s ({verdict(slowest < GOAL_S)}); slowest first check {max(checks):.2f} s "
          f"({verdict(max(checks) < GOAL_S)}); other processes busy: {other} CPUs")
    write_json(args.json, {"environment": environment(), "pages": rows, "other_load_cpus": other})
    return 0


if __name__ == "__main__":
    sys.exit(main())
