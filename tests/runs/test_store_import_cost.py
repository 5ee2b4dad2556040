"""Opening the run store does not import pandas (``lm_workbench.store.sqlite_lib``): sqlite_utils imported it, and
pyarrow with it, in every process that records a run (~1 s of each CLI command and lane child), for values the
store never passes. pandas stays importable afterwards, and a store written and read this way round-trips."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
from lm_workbench.store import RunStore
assert "pandas" not in sys.modules and "pyarrow" not in sys.modules, "pandas imported with the store"
store = RunStore(sys.argv[1])
run = store.create_run("pretrain", name="n", model="m", params={"lr": 0.1})
store.log_metrics(run, 1, {"loss": 2.5})
store.finish_run(run, "finished")
assert store.metrics(run, "loss") and store.list_runs()[0]["status"] == "finished"
store.close()
import pandas
print(pandas.DataFrame({"a": [1]}).shape)
"""


def test_the_store_opens_without_pandas_and_pandas_stays_importable(tmp_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "runs.db")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.strip() == "(1, 1)"
