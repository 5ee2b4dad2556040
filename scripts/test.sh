#!/usr/bin/env bash
# Create or update .venv with the [test] extra, then run the whole test suite headless and offline.
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
ensure_env "test"
cd "$ROOT"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen TOKENIZERS_PARALLELISM=false
exec "$VENV/bin/python" -m pytest -p no:cacheprovider --durations=25 "$@"
