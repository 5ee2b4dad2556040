#!/usr/bin/env bash
# Execute docs/notebooks/*.ipynb (or only the notebooks named as arguments) headless (nbclient + ipykernel;
# pip install nbclient ipykernel and the [notebook] extra), offline, each within 120 s; the stored notebooks keep
# no outputs. Outside the test suite.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-.venv/bin/python}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 OMP_NUM_THREADS=${OMP_NUM_THREADS:-1} MPLBACKEND=Agg
"$PY" - "$@" <<'PYEOF'
import sys, time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

for path in [Path(arg) for arg in sys.argv[1:]] or sorted(Path("docs/notebooks").glob("*.ipynb")):
    nb = nbformat.read(path, as_version=4)
    if any(cell.get("outputs") for cell in nb.cells if cell.cell_type == "code"):
        sys.exit(f"{path}: stored with outputs (clear them: scripts/make_notebooks.py)")
    start = time.monotonic()
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    print(f"{path}: ran in {time.monotonic() - start:.1f} s")
PYEOF
