#!/usr/bin/env bash
# The built wheel has one top-level import package, lm_workbench (issue 43), and upgrading an installed older
# version (0.1.0 installed engine/, workbench/, ui/ and plugins/ at the top of site-packages) leaves none of those
# behind. Builds both wheels without dependencies or network (the .venv's setuptools) and installs them, with
# --no-deps, into a throw-away venv. Usage: packaging/wheel_check.sh [OLD_COMMIT] (default: the last commit whose
# pyproject.toml says version 0.1.0).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="${LM_WORKBENCH_PYTHON:-$ROOT/.venv/bin/python}"
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
fail() { echo "wheel check: FAILED: $*" >&2; exit 1; }
cd "$ROOT"

old="${1:-}"
if [ -z "$old" ]; then
  for commit in $(git log --format=%H -n 200 -- pyproject.toml 2>/dev/null); do
    if git show "$commit:pyproject.toml" 2>/dev/null | grep -qx 'version = "0.1.0"'; then old="$commit"; break; fi
  done
fi

build() {  # $1: source folder, $2: out folder
  "$PY" -m pip wheel --quiet --no-deps --no-build-isolation -w "$2" "$1" >/dev/null 2>"$TMP/build.err" \
    || fail "pip wheel $1: $(tail -3 "$TMP/build.err")"
  rm -rf "$1/build"
}

build "$ROOT" "$TMP/new"
wheel="$(ls "$TMP"/new/lm_workbench-*.whl)"
tops="$("$PY" - "$wheel" <<'PY'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
print(" ".join(sorted({n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")})))
PY
)"
[ "$tops" = "lm_workbench" ] || fail "the wheel's top-level entries are '$tops', not 'lm_workbench' alone"
echo "wheel: one top-level package (lm_workbench) in $(basename "$wheel")"

"$PY" -m venv "$TMP/venv"
SITE="$("$TMP/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
if [ -n "$old" ]; then
  mkdir -p "$TMP/old-src"
  git archive "$old" | tar -x -C "$TMP/old-src"
  build "$TMP/old-src" "$TMP/old"
  "$TMP/venv/bin/python" -m pip install --quiet --no-deps --no-index "$TMP"/old/*.whl
  for name in engine workbench ui plugins; do
    [ -d "$SITE/$name" ] || fail "the old version ($old) did not install $name/: the check would prove nothing"
  done
  "$TMP/venv/bin/python" -m pip install --quiet --no-deps --no-index --upgrade "$wheel"
  left=""
  for name in engine workbench ui plugins; do [ -e "$SITE/$name" ] && left="$left $name/"; done
  [ -z "$left" ] || fail "upgrading from ${old:0:10} left old top-level packages behind:$left"
  echo "upgrade from ${old:0:10} (0.1.0): no engine/, workbench/, ui/ or plugins/ left in site-packages"
else
  echo "upgrade check skipped: no commit with version 0.1.0 in this clone's history"
  "$TMP/venv/bin/python" -m pip install --quiet --no-deps --no-index "$wheel"
fi
[ -d "$SITE/lm_workbench/engine" ] && [ -d "$SITE/lm_workbench/ui" ] && [ -d "$SITE/lm_workbench/plugins" ] \
  && [ -f "$SITE/lm_workbench/lectures/data/01-static-vs-contextual.json" ] \
  && [ -f "$SITE/lm_workbench/guide/data/builtin/guide.txt" ] && [ -f "$SITE/lm_workbench/guide/data/builtin/01-tokens.page" ] \
  || fail "lm_workbench/ lacks engine/, ui/, plugins/, the lecture data or the built-in guide"
echo "wheel check passed"
