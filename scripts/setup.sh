#!/usr/bin/env bash
# Install LM Workbench into .venv (CPU torch) and open the window on the built-in default model.
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
ensure_env ""
exec "$VENV/bin/lm-workbench" "$@"
