#!/usr/bin/env bash
# Optional: build the desktop package (a PyInstaller bundle and a .deb) into packaging/dist.
# Adds the [packaging] extra (PyInstaller) to .venv; takes the options of packaging/build,
# e.g. --with-course-models. No network is needed once .venv is installed.
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
ensure_env "packaging"
exec "$ROOT/packaging/build" "$@"
