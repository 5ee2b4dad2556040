#!/usr/bin/env bash
# Cold start of the bundle against the virtual environment: startup_timing.sh [RUNS] (default 3)
#
# Each run starts the window headless (offscreen) in a clean environment with a fresh HOME and
# LM_WORKBENCH_STARTUP_PROBE set to the launch time; the window prints the seconds until it was
# shown, until the default model's tokens of a sentence were on screen and until that sentence was
# encoded, then quits (ui/window/startup_probe.py). Prints every run and the median per side, plus the
# bundle/venv ratio. BUNDLE and PYTHON (the venv's) can be set in the environment.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-3}"
BUNDLE="${BUNDLE:-$ROOT/packaging/dist/lm-workbench}"
PYTHON="${PYTHON:-$ROOT/.venv/bin/python}"
TMP="$(mktemp -d /tmp/lmwb-timing.XXXXXX)"
trap 'rm -rf "$TMP"' EXIT

probe() {  # probe NAME [VAR=VALUE...] CMD...: one cold start, one JSON line appended to $TMP/NAME.jsonl
  local name="$1"; shift
  local home; home="$(mktemp -d "$TMP/home.XXXXXX")"
  env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen HF_HUB_OFFLINE=1 \
    LM_WORKBENCH_STARTUP_PROBE="$(date +%s.%N)" "$@" 2>/dev/null | tail -1 | tee -a "$TMP/$name.jsonl"
}

for i in $(seq "$RUNS"); do
  echo -n "bundle run $i: " && probe bundle "$BUNDLE/lm-workbench"
  echo -n "venv   run $i: " && probe venv PYTHONPATH="$ROOT" "$PYTHON" -m lm_workbench
done
python3 - "$TMP" <<'PY'
import json, statistics, sys
from pathlib import Path
side = {name: [json.loads(line) for line in (Path(sys.argv[1]) / f"{name}.jsonl").read_text().splitlines()]
        for name in ("bundle", "venv")}
for key in ("window_shown_s", "tokens_shown_s", "encoded_s"):
    b, v = (statistics.median(run[key] for run in side[name]) for name in ("bundle", "venv"))
    print(f"median {key:<15} bundle {b:6.2f} s   venv {v:6.2f} s   ratio {b / v:4.2f}")
PY
