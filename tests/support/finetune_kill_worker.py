"""Run by tests/finetune/test_finetune_resume.py in a child process (not a test module).

Starts the recorded fine-tuning run that SPEC_JSON describes (the CLI's own path) and kills this process
with SIGKILL, as a power cut or the OOM killer would, right after the checkpoint of step KILL_AT is on
disk: no ``finally``, no cancel, no clean-up runs.
argv: SPEC_JSON KILL_AT
"""

from __future__ import annotations

import json
import os
import re
import signal
import sys

from lm_workbench.finetune.runs import run_recorded
from lm_workbench.finetune.spec import FineTuneSpec


def main() -> None:
    spec = FineTuneSpec.from_dict(json.loads(sys.argv[1]))
    kill_at = int(sys.argv[2])

    def echo(line: str) -> None:
        found = re.match(r"step (\d+): checkpoint ", line)
        if found and int(found.group(1)) >= kill_at:
            os.kill(os.getpid(), signal.SIGKILL)

    run_recorded(spec, echo=echo)
    sys.exit("the run finished: it was not killed")


if __name__ == "__main__":
    main()
