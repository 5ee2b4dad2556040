"""The run store: runs, their metrics and artifacts in one SQLite file."""

from lm_workbench.store.migrations import FINAL_STATUSES, RUN_STATUSES, SCHEMA_VERSION, migrate
from lm_workbench.store.run_store import RunStore, pid_alive

__all__ = ["RunStore", "migrate", "SCHEMA_VERSION", "RUN_STATUSES", "FINAL_STATUSES",
           "pid_alive"]
