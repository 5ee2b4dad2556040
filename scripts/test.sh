#!/usr/bin/env bash
# Create or update .venv with the [test] extra, then run the whole test suite headless and offline, in
# parallel processes (pytest-xdist): one per core, at most 4 (LM_WORKBENCH_TEST_WORKERS overrides; arguments
# given after it win, e.g. `./scripts/test.sh tests/tokens -n 0`).
source "$(dirname "${BASH_SOURCE[0]}")/_env.sh"
ensure_env "test"
cd "$ROOT"
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 QT_QPA_PLATFORM=offscreen TOKENIZERS_PARALLELISM=false
# compile each module once: with PYTHONDONTWRITEBYTECODE set (some machines set it), every worker and every CLI
# subprocess the tests start re-compiled the package and re-rewrote the tests' asserts (collection 25 -> 14 s)
unset PYTHONDONTWRITEBYTECODE
cores="$(nproc 2>/dev/null || echo 2)"
workers="${LM_WORKBENCH_TEST_WORKERS:-$(( cores < 4 ? cores : 4 ))}"
exec "$VENV/bin/python" -m pytest -p no:cacheprovider -n "$workers" --durations=25 "$@"
