"""A PNG of every built-in lecture's every step, as the class sees it: ``OUT/<preset>-<step>.png``.

The window opens at the given size (default 1280 x 720, a common projector) with presentation mode (F5) on
unless ``--no-present``, loads each preset's model (course models come from this machine's data folder:
``lm-workbench course-models`` builds them) and plays each step, waiting until the window is idle. Steps a
preset marks unavailable here are listed and skipped. Run it under a real X screen of that size to see what a
lecture hall sees (``xvfb-run -a -s "-screen 0 1280x720x24" python scripts/lecture_screenshots.py OUT``);
offscreen it works too, on Qt's 800 x 800 screen.

    python scripts/lecture_screenshots.py OUT [--size 1280x720] [--no-present] [--preset NAME ...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--size", default="1280x720")
    parser.add_argument("--no-present", action="store_true", help="presentation mode off")
    parser.add_argument("--preset", nargs="*", help="only these presets (by name)")
    args = parser.parse_args()
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    width, height = (int(v) for v in args.size.lower().split("x"))
    args.out.mkdir(parents=True, exist_ok=True)
    from lm_workbench.ui.app import create_application

    app = create_application()
    from lm_workbench.ui.window.main_window import MainWindow
    from lm_workbench.lectures.library import builtin_presets
    from lm_workbench.settings import Settings

    window = MainWindow(Settings(), persist=False)
    window.resize(width, height)
    window.show()
    window.presentation.set_on(not args.no_present)

    def wait(cond, timeout: float = 300.0) -> None:
        end = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > end:
                raise TimeoutError("the window did not settle")
            app.processEvents()
            time.sleep(0.01)

    def settle() -> None:
        for _ in range(2):
            wait(lambda: not window.jobs.busy and not window.text_input.pending() and not window.loading)
            end = time.monotonic() + 0.6  # the layouts, the typing pause, a step's queued work
            while time.monotonic() < end:
                app.processEvents()
                time.sleep(0.01)

    written, skipped = [], []
    for preset in builtin_presets():
        if args.preset and preset.name not in args.preset:
            continue
        status = window.lectures.status(preset)
        if not status.available:
            skipped.append(f"{preset.name}: {status.reason}")
            continue
        for index, step_status in enumerate(status.steps):
            if not step_status.available:
                skipped.append(f"{preset.name} step {index + 1}: {step_status.reason}")
                continue
            if not window.lectures.runner.active or window.lectures.runner.preset is not preset:
                window.lectures.start(preset, index)
            else:
                window.lectures.runner.go(index)
            settle()
            view = window.view(preset.steps[index].view)
            if preset.steps[index].view == "probing" and not view.run_button.isEnabled():
                wait(lambda v=view: v.run_button.isEnabled(), timeout=600.0)  # the run's figure, then the picture
                settle()
            path = args.out / f"{preset.name}-{index + 1}.png"
            window.grab().save(str(path))
            written.append(path.name)
            print(path, flush=True)
            if preset.steps[index].view == "finetune" and getattr(view, "active", False):  # its bench runs on
                view.cancel_run()
                wait(lambda v=view: not v.active, timeout=120.0)
        window.lectures.runner.stop()
    for line in skipped:
        print("skipped:", line)
    window.close()
    return 0 if written else 1


if __name__ == "__main__":
    sys.exit(main())
