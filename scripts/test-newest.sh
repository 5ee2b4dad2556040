#!/usr/bin/env bash
# The newest lane: a second environment (.venv-newest) WITHOUT constraints/cpu.txt, so every package is the
# newest release pyproject allows (what `pip install lm-workbench` gives a user today; torch alone pinned to
# the CPU wheel through constraints/torch-cpu.txt), prints the versions it resolved, then runs the tests marked
# `newest`: every family x fine-tuning method pair and every view's compute path. Arguments go to pytest.
# LM_WORKBENCH_LANE=oldest (scripts/test-oldest.sh) runs the same tests in .venv-oldest on the oldest releases
# tested (constraints/oldest.txt).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LANE="${LM_WORKBENCH_LANE:-newest}"
VENV="$ROOT/.venv-$LANE"
PINS=(-c "$ROOT/constraints/torch-cpu.txt")
[ "$LANE" = newest ] || PINS+=(-c "$ROOT/constraints/$LANE.txt")
PYTHON="${PYTHON:-python3}"
export PIP_DISABLE_PIP_VERSION_CHECK=1
start=$SECONDS
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
# eager: an existing .venv-newest moves to the newest releases too, not only a fresh one
"$VENV/bin/python" -m pip install --quiet --upgrade --upgrade-strategy eager \
  "${PINS[@]}" -e "$ROOT[test]"
echo "== $LANE lane: installed in $((SECONDS - start)) s; versions resolved:"
"$VENV/bin/python" - <<'PY'
from lm_workbench.versions import KEY_PACKAGES, breaks_in_force, found_versions
print("  " + ", ".join(f"{name} {version or 'not found'}" for name, version in found_versions(KEY_PACKAGES).items()))
for entry, version in breaks_in_force():
    print(f"  WARNING: {entry.message(version)}")
PY
cd "$ROOT"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen TOKENIZERS_PARALLELISM=false
# compile each module once: with PYTHONDONTWRITEBYTECODE set (some machines set it), every worker and every CLI
# subprocess the tests start re-compiled the package and re-rewrote the tests' asserts (collection 25 -> 14 s)
unset PYTHONDONTWRITEBYTECODE
cores="$(nproc 2>/dev/null || echo 2)"
workers="${LM_WORKBENCH_TEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}"
set +e
"$VENV/bin/python" -m pytest -p no:cacheprovider -n "$workers" -m newest -q "$@"
code=$?
set -e
echo "== $LANE lane: $((SECONDS - start)) s in all"
exit $code
