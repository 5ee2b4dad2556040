#!/usr/bin/env bash
# Which Debian packages a bundle's Qt needs from the system: find_depends.sh BUNDLE_DIR
#
# Runs ldd on the executable, Python, the Qt modules the app uses, the xcb platform plugin and the
# plugins it loads (GLX/EGL integrations, input contexts, image formats, icon engines), with
# the bundle's own library folders first, and maps each library found outside the bundle to its
# package with dpkg -S. Prints one package a line; a library found nowhere is an error (install
# the candidates, e.g. libxcb-icccm4, and run again). packaging/deb-depends.txt holds the result.
set -euo pipefail
BUNDLE="$(cd "$1" && pwd)"
INTERNAL="$BUNDLE/_internal"
QT="$INTERNAL/PySide6/Qt"
# The Qt modules the app imports (PySide6/*.so) pull in the Qt libraries they use; the Wayland,
# EGLFS and GTK-theme plugins are left out (optional: Qt falls back to xcb without them).
files=("$BUNDLE/lm-workbench" "$INTERNAL"/libpython*.so* "$INTERNAL"/PySide6/*.so "$INTERNAL"/shiboken6/*.so
       "$QT"/plugins/platforms/libqxcb.so "$QT"/plugins/xcbglintegrations/*.so
       "$QT"/plugins/platforminputcontexts/*.so "$QT"/plugins/imageformats/*.so "$QT"/plugins/iconengines/*.so)
export LD_LIBRARY_PATH="$INTERNAL:$QT/lib"
libs="$(for f in "${files[@]}"; do [ -e "$f" ] && ldd "$f"; done | awk '/=>/ {print $1, $3}' | sort -u)"
missing="$(echo "$libs" | awk '$2 == "not" {print $1}' | sort -u)"
if [ -n "$missing" ]; then
  echo "find_depends: not found on this system: $(echo $missing)" >&2
  exit 1
fi
echo "$libs" | awk -v b="$BUNDLE/" 'index($2, b) != 1 {print $2}' | sort -u | while read -r lib; do
  real="$(readlink -f "$lib")"
  dpkg -S "$lib" 2>/dev/null || dpkg -S "$real" 2>/dev/null || dpkg -S "${lib#/usr}" 2>/dev/null \
    || { echo "find_depends: no package owns $lib" >&2; exit 1; }
done | cut -d: -f1 | sort -u
