"""Studies: the built-in studies' tables (local beside published) and the study's own overhead.

Two parts:

  overhead  one cell (a BiLSTM on the shipped sentiment set, ``--epochs``) run directly as a recorded run, and
            the same cell as a one-cell study (a fresh run store each, so nothing is reused). Goal (reported,
            never asserted): the study's time within 5 % of the cell's own.
  studies   each named built-in study (``--studies``, default: all) at ``--scale`` (default lecture), through
            ``lm-workbench study run`` in this process; prints each table (local beside published) and its
            wall time. Studies on course models need them built (``lm-workbench course-models``): a cell whose
            model is missing fails and the table says so.

    python tests/bench/bench_studies.py [--only overhead|studies] [--scale lecture] [--studies why-sbert ...]
                                        [--epochs 4] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from _common import OtherLoad, environment, verdict, write_json  # noqa: E402

GOAL = 0.05


def overhead(epochs: int, repeats: int) -> dict:
    from lm_workbench.baselines.runs import BiLSTMRun
    from lm_workbench.baselines.spec import BiLSTMSpec
    from lm_workbench.studies.runs import StudyRun, StudySpec

    settings = {"train": "demo", "epochs": epochs}
    direct, study = [], []
    BiLSTMRun(BiLSTMSpec(**settings)).in_process(store_path=Path(tempfile.mkdtemp()) / "warm.sqlite3")  # imports
    for _ in range(repeats):
        folder = Path(tempfile.mkdtemp(prefix="bench-study-"))
        start = time.perf_counter()
        BiLSTMRun(BiLSTMSpec(**settings)).in_process(store_path=folder / "direct.sqlite3")
        direct.append(time.perf_counter() - start)
        path = folder / "one.json"
        path.write_text(json.dumps({"format": "lm-workbench-study/1", "name": "one",
                                    "cells": [{"id": "c", "kind": "bilstm", "settings": settings}],
                                    "columns": [{"name": "accuracy", "metric": "accuracy"}]}), encoding="utf-8")
        start = time.perf_counter()
        StudyRun(StudySpec(study=str(path), out_dir=str(folder / "out"))).in_process(store_path=folder / "s.sqlite3")
        study.append(time.perf_counter() - start)
    d, s = min(direct), min(study)
    return {"direct_s": direct, "study_s": study, "overhead": s / d - 1, "goal": GOAL, "met": s / d - 1 <= GOAL}


def studies(names: list[str], scale: str) -> dict:
    from lm_workbench.studies.runs import StudyRun, StudySpec
    from lm_workbench.studies.table import format_table

    out = {}
    for name in names:
        folder = Path(tempfile.mkdtemp(prefix=f"bench-{name}-"))
        start = time.perf_counter()
        summary = StudyRun(StudySpec(study=name, scale=scale, out_dir=str(folder))).in_process(
            store_path=folder / "runs.sqlite3", echo=lambda line: print(f"  {line}", flush=True))
        wall = time.perf_counter() - start
        table = summary["table"]
        print(f"\n{format_table(table)}\nwall {wall:.0f} s\n", flush=True)
        out[name] = {"wall_s": wall, "table": table, "failed_cells": summary["failed_cells"]}
    return out


def main() -> None:
    from lm_workbench.studies.file import builtin_names

    p = argparse.ArgumentParser()
    p.add_argument("--only", choices=("overhead", "studies"))
    p.add_argument("--scale", default="lecture", choices=("tiny", "lecture"))
    p.add_argument("--studies", nargs="*", default=None)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--json")
    args = p.parse_args()
    report: dict = {"environment": environment()}
    load = OtherLoad()
    load.start()
    if args.only in (None, "overhead"):
        report["overhead"] = o = overhead(args.epochs, args.repeats)
        print(f"one BiLSTM cell: direct {min(o['direct_s']):.2f} s, as a study {min(o['study_s']):.2f} s, "
              f"overhead {o['overhead']:+.1%} (goal <= {GOAL:.0%}: {verdict(o['met'])})", flush=True)
    if args.only in (None, "studies"):
        report["studies"] = studies(args.studies or builtin_names(), args.scale)
    report["others"] = load.stop()
    report["steal"] = load.steal
    print(f"other processes' CPUs meanwhile: {report['others']}", flush=True)
    write_json(args.json, report)


if __name__ == "__main__":
    main()
