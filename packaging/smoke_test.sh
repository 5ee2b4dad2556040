#!/usr/bin/env bash
# Smoke-test a built desktop package: packaging/smoke_test.sh [DIST]  (default packaging/dist)
#
# 1. The bundle, headless under `env -i` with an empty temporary HOME: --self-test passes,
#    offline mode is on, and every Python module it loaded came from inside the bundle.
# 2. The window opens (offscreen), loads the default model and encodes a sentence (ui/window/startup_probe.py);
#    UMAP runs (numba compiles into the user's cache folder, not the read-only bundle).
# 3. The objectives test plugin (tests/support/plugins_fixtures/good_objective_pkg) dropped into the user
#    plugins folder is listed as disabled, then, enabled in the settings, loads and corrupts a text.
# 4. As root (CI's throw-away machine): the .deb's dependencies are installed with apt-get, the
#    .deb with dpkg -i; the launcher on the PATH passes --self-test; no library of Qt's xcb platform
#    is missing (find_depends.sh); the window starts on Xvfb with the xcb platform, loads the
#    default model and encodes a sentence (ui/window/startup_probe.py); dpkg -r removes it all.
# Any failure stops the script with "smoke test FAILED: ..." and exit code 1.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIST="$(cd "${1:-$ROOT/packaging/dist}" && pwd)"
BUNDLE="$DIST/lm-workbench"
EXE="$BUNDLE/lm-workbench"
TMP="$(mktemp -d /tmp/lmwb-smoke.XXXXXX)"
INSTALLED=0
cleanup() {  # a failed run must not leave the package installed on a developer's machine
  [ "$INSTALLED" = 1 ] && dpkg -r lm-workbench >/dev/null 2>&1
  rm -rf "$TMP"
}
trap cleanup EXIT
START=$SECONDS

fail() { echo "smoke test FAILED: $*" >&2; exit 1; }
step() { echo "== $* ($((SECONDS - START)) s)"; }
[ -x "$EXE" ] || fail "no bundle at $BUNDLE (run packaging/build)"

# A clean environment: no PYTHONPATH, no venv, no HF_* variables; only a fresh HOME.
clean() {  # clean HOME_DIR CMD...
  local home="$1"; shift
  env -i HOME="$home" PATH=/usr/bin:/bin LANG=C.UTF-8 QT_QPA_PLATFORM=offscreen "$@"
}

step "self-test of the bundle under env -i"
HOME1="$TMP/home1" && mkdir -p "$HOME1"
clean "$HOME1" LM_WORKBENCH_SELF_TEST_MODULES="$TMP/modules.json" "$EXE" --self-test | tee "$TMP/self-test.txt" \
  || fail "the bundle's --self-test exited with $?"
grep -q "offline mode on" "$TMP/self-test.txt" || fail "offline mode is not on by default in the bundle"
grep -q "^self-test: passed" "$TMP/self-test.txt" || fail "the self-test did not pass"

step "every loaded Python module comes from the bundle"
python3 - "$TMP/modules.json" "$BUNDLE" <<'PY' || fail "modules were loaded from outside the bundle"
import json, os, sys
files = json.load(open(sys.argv[1]))
bundle = os.path.realpath(sys.argv[2]) + os.sep
# Relative names are code embedded in the executable (PyInstaller's bootstrap, shiboken's
# signature support): not read from any folder. Every file path must lie inside the bundle.
embedded = {m for m, f in files.items() if not os.path.isabs(f)}
outside = {m: f for m, f in files.items() if m not in embedded and not os.path.realpath(f).startswith(bundle)}
for name in ("torch", "transformers", "lm_workbench.self_test", "lm_workbench.plugins.objectives.mlm", "lm_workbench.engine.analysis"):
    if name not in files:
        sys.exit(f"{name} was not loaded")
print(f"{len(files)} modules with files: {len(files) - len(embedded) - len(outside)} in the bundle, "
      f"{len(embedded)} embedded in the executable, {len(outside)} outside")
for name, path in sorted(outside.items())[:20]:
    print(f"  outside: {name}: {path}")
sys.exit(1 if outside else 0)
PY

step "the window (offscreen): shown, default model loaded, a sentence encoded"
clean "$HOME1" LM_WORKBENCH_STARTUP_PROBE="$(date +%s.%N)" "$EXE" > "$TMP/window.txt" 2> "$TMP/window.err" \
  || fail "the window failed: $(tail -3 "$TMP/window.err")"
grep -q '"encoded_s"' "$TMP/window.txt" || fail "the window did not report its start-up: $(tail -3 "$TMP/window.err")"
echo "   $(tail -1 "$TMP/window.txt")"

step "UMAP in the bundle (numba cache in the user's cache folder)"
clean "$HOME1" "$EXE" project minilm --corpus demo --word bank --layer 6 --method umap --seed 0 \
  --out "$TMP/umap.csv" >/dev/null || fail "UMAP projection failed in the bundle"
[ "$(wc -l < "$TMP/umap.csv")" -gt 5 ] || fail "UMAP wrote no coordinates"
ls "$HOME1/.cache/lm-workbench/numba" >/dev/null 2>&1 || fail "numba did not cache into ~/.cache/lm-workbench/numba"
[ -z "$(find "$BUNDLE" -newer "$TMP/modules.json" -print -quit)" ] || fail "running the bundle wrote into it"

step "a folder plugin: listed, enabled in the settings, used"
PLUGIN="$HOME1/.local/share/lm-workbench/plugins/simple-mask"
mkdir -p "$PLUGIN"
cp "$ROOT/tests/support/plugins_fixtures/good_objective_pkg/simple_mask_objective.py" "$PLUGIN/"
API_VERSION="$(sed -n 's/^API_VERSION = //p' "$ROOT/engine/api_version.py")"  # 1, or "2.0": JSON either way
cat > "$PLUGIN/plugin.json" <<JSON
{"name": "simple-mask", "version": "0.3.0", "api_version": $API_VERSION, "families": ["encoder"],
 "module": "simple_mask_objective.py", "class": "SimpleMask"}
JSON
plugin_status() {
  clean "$HOME1" "$EXE" plugins list --json | python3 -c \
    'import json,sys; print({p["name"]: p["status"] for p in json.load(sys.stdin)["plugins"]}.get("simple-mask"))'
}
[ "$(plugin_status)" = disabled ] || fail "the dropped-in plugin is not listed as disabled"
SETTINGS="$HOME1/.config/lm-workbench/settings.json"
python3 - "$SETTINGS" <<'PY'
import json, sys
data = json.load(open(sys.argv[1])) if __import__("os").path.exists(sys.argv[1]) else {}
data["enabled_plugins"] = ["simple-mask"]
json.dump(data, open(sys.argv[1], "w"))
PY
[ "$(plugin_status)" = ok ] || fail "the enabled plugin did not load in the bundle"
clean "$HOME1" "$EXE" --self-test > "$TMP/self-test-plugin.txt" || fail "the self-test failed with the plugin enabled"
grep -q "simple-mask \[folder, ok\]" "$TMP/self-test-plugin.txt" || fail "the self-test does not list the plugin"
clean "$HOME1" "$EXE" corrupt --objective simple-mask --tokenizer minilm --text "The bank raised rates." \
  --seed 0 --json > "$TMP/corrupt.json" || fail "the plugin's objective did not run"
grep -q '"objective": "simple-mask"' "$TMP/corrupt.json" || fail "corrupt did not use the plugin"

if [ "$(id -u)" != 0 ]; then
  echo "== not root: skipping the .deb install (CI runs it as root)"
  exit 0
fi
DEB="$(ls "$DIST"/lm-workbench_*.deb 2>/dev/null | head -1 || true)"
[ -f "$DEB" ] || fail "no .deb in $DIST"
step "install $(basename "$DEB") with dpkg -i (its Depends from apt first)"
! dpkg -s lm-workbench >/dev/null 2>&1 || dpkg -r lm-workbench >/dev/null
DEPENDS="$(dpkg-deb -f "$DEB" Depends | tr -d ',')"
if ! dpkg -s $DEPENDS >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $DEPENDS >/dev/null \
    || fail "cannot install the .deb's dependencies: $DEPENDS"
fi
INSTALLED=1
dpkg -i "$DEB" >/dev/null || fail "dpkg -i failed"
[ "$(command -v lm-workbench)" = /usr/bin/lm-workbench ] || fail "no launcher /usr/bin/lm-workbench"
[ -f /usr/share/applications/lm-workbench.desktop ] && [ -f /usr/share/icons/hicolor/256x256/apps/lm-workbench.png ] \
  && [ -f /usr/share/doc/lm-workbench/copyright ] || fail "the desktop entry, icon or copyright file is missing"
HOME2="$TMP/home2" && mkdir -p "$HOME2"
clean "$HOME2" lm-workbench --self-test > "$TMP/self-test-deb.txt" || fail "the installed launcher's --self-test failed"
grep -q "^self-test: passed" "$TMP/self-test-deb.txt" || fail "the installed launcher's --self-test did not pass"
bash "$ROOT/packaging/find_depends.sh" /opt/lm-workbench >/dev/null \
  || fail "with its Depends installed, libraries of Qt's xcb platform are still missing (see above)"

step "the window on an X server (Xvfb, Qt's xcb platform): shown, model loaded, a sentence encoded"
if ! command -v xvfb-run >/dev/null; then
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends xvfb xauth >/dev/null \
    || fail "cannot install xvfb"
fi
HOME3="$TMP/home3" && mkdir -p "$HOME3"
xvfb-run -a -s "-screen 0 1280x800x24" bash -c 'exec env -i HOME="$0" PATH=/usr/bin:/bin LANG=C.UTF-8 \
  DISPLAY="$DISPLAY" XAUTHORITY="$XAUTHORITY" QT_QPA_PLATFORM=xcb LM_WORKBENCH_STARTUP_PROBE="$(date +%s.%N)" \
  lm-workbench' "$HOME3" > "$TMP/xcb.txt" 2> "$TMP/xcb.err" || fail "the window failed on X: $(tail -3 "$TMP/xcb.err")"
grep -q '"encoded_s"' "$TMP/xcb.txt" || fail "the window on X did not report its start-up: $(tail -3 "$TMP/xcb.err")"
echo "   $(tail -1 "$TMP/xcb.txt")"

step "remove the package"
INSTALLED=0
dpkg -r lm-workbench >/dev/null || fail "dpkg -r failed"
[ ! -e /opt/lm-workbench ] || fail "/opt/lm-workbench is still there after dpkg -r: $(find /opt/lm-workbench | head -5)"
[ ! -e /usr/bin/lm-workbench ] || fail "/usr/bin/lm-workbench is still there after dpkg -r"
step "smoke test passed"
