"""``python -m tests.support.workspace_saver PATH``: save a large workspace to PATH again and again.

Each save holds ~16 MB of text that compresses poorly, so a save takes a good fraction of a second: time
for a test to SIGKILL this process while its temporary file is half written (tests/faults).
"""

from __future__ import annotations

import os
import sys

from lm_workbench.workspace.format import Workspace, save_workspace


def main(path: str) -> None:
    blob = os.urandom(8_000_000).hex()
    n = 0
    while True:
        n += 1
        save_workspace(Workspace(model="minilm", text=f"save {n}", views={"tokens": {"settings": {"blob": blob}}}),
                       path)


if __name__ == "__main__":
    main(sys.argv[1])
