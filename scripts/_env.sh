# Shared by setup.sh and test.sh: create or update the project's virtual
# environment (.venv) with the CPU build of torch, through constraints/cpu.txt.
# Re-runs skip pip when pyproject.toml, the constraints and the extras are unchanged.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${LM_WORKBENCH_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"
export PIP_DISABLE_PIP_VERSION_CHECK=1

ensure_env() {  # $1: extras, e.g. "" or "test"
  local extras="$1" spec="$ROOT"
  [ -n "$extras" ] && spec="$ROOT[$extras]"
  if ! "$PYTHON" -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    echo "LM Workbench needs Python 3.10 or newer ($PYTHON is $("$PYTHON" -V 2>&1))" >&2
    exit 1
  fi
  if [ ! -x "$VENV/bin/python" ]; then
    echo "Creating the environment in $VENV ..."
    "$PYTHON" -m venv "$VENV"
  fi
  local stamp="$VENV/.lm-workbench-installed" want
  want="$(cat "$ROOT/pyproject.toml" "$ROOT/constraints/cpu.txt" | sha256sum | cut -c1-16)-$extras"
  if [ -f "$stamp" ] && grep -qx -- "$want" "$stamp" 2>/dev/null; then
    return 0
  fi
  if [ -f "$stamp" ] && [ -z "$extras" ] && grep -q -- "-test$" "$stamp"; then
    return 0  # the test environment is a superset of the app's
  fi
  echo "Installing LM Workbench ${extras:+with [$extras] }(CPU torch 2.13.0) ..."
  "$VENV/bin/python" -m pip install --quiet --upgrade pip
  "$VENV/bin/python" -m pip install --quiet -c "$ROOT/constraints/cpu.txt" -e "$spec"
  echo "$want" > "$stamp"
}
