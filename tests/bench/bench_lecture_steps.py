"""How long each lecture step takes to open on the embedded MiniLM.

A window (offscreen unless QT_QPA_PLATFORM says otherwise) loads MiniLM, then
runs every available built-in preset step by step. A step counts as open when
the window is idle again (no job running, no typing pause, no model loading)
with the step's view current; for a probing step that starts a run, when the
run has started (the run itself goes on in the background; the same for the
fine-tune bench, whose runs are cancelled once timed). Steps a preset
marks unavailable here are skipped. Each preset runs twice: "first" includes
one-off work (discovering objectives, embedding a corpus into an empty
activation cache), "again" is what a rehearsed lecture sees.

Goal (reported, never asserted): every step opens in <= 3 s.

    python tests/bench/bench_lecture_steps.py [--json out.json]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.bench._common import OtherLoad, environment, verdict, write_json  # noqa: E402

GOAL_S = 3.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--json", help="write the numbers here")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from lm_workbench.ui.app import create_application

    app = create_application()
    from lm_workbench.ui.window.main_window import MainWindow
    from lm_workbench.lectures.library import builtin_presets
    from lm_workbench.settings import Settings

    window = MainWindow(Settings(), persist=False)
    window.resize(1280, 800)
    window.show()

    def wait(cond, timeout: float = 120.0) -> None:
        end = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > end:
                raise TimeoutError("the window did not settle")
            app.processEvents()
            time.sleep(0.005)

    window.load_model("minilm")
    wait(lambda: window.loaded is not None)
    rows, load = [], OtherLoad()
    load.start()
    for round_name in ("first", "again"):
        for preset in builtin_presets():
            status = window.lectures.status(preset)
            if not status.available:
                continue
            for index, step_status in enumerate(status.steps):
                if not step_status.available:
                    continue
                probing = preset.steps[index].view == "probing"
                start = time.monotonic()
                if not window.lectures.runner.active or window.lectures.runner.preset is not preset:
                    window.lectures.start(preset, index)
                else:
                    window.lectures.runner.go(index)
                view = window.view(preset.steps[index].view)
                if probing:
                    wait(lambda v=view: not v.run_button.isEnabled())
                else:
                    app.processEvents()
                    wait(lambda: not window.jobs.busy and not window.text_input.pending() and not window.loading)
                rows.append({"round": round_name, "preset": preset.name, "step": index + 1,
                             "seconds": round(time.monotonic() - start, 3)})
                if probing:
                    view.cancel()
                    wait(lambda v=view: v.run_button.isEnabled())
                if preset.steps[index].view == "finetune" and view.active:  # the bench's runs: started is open
                    view.cancel_run()
                    wait(lambda v=view: not v.active, timeout=60.0)
            window.lectures.runner.stop()
    others = load.stop()
    window.close()
    print(f"{'round':<6} {'preset':<26} {'step':>4} {'seconds':>8}")
    for r in rows:
        print(f"{r['round']:<6} {r['preset']:<26} {r['step']:>4} {r['seconds']:>8.3f}")
    again = [r["seconds"] for r in rows if r["round"] == "again"]
    worst = max(again)
    print(f"slowest step (again): {worst:.2f} s; goal <= {GOAL_S:.0f} s: {verdict(worst <= GOAL_S)}"
          f" (other processes: {others} CPUs, steal {load.steal})")
    write_json(args.json, {"rows": rows, "goal_s": GOAL_S, "worst_again_s": worst, "others": others,
                           "steal": load.steal, "environment": environment()})
    return 0


if __name__ == "__main__":
    sys.exit(main())
