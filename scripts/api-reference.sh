#!/usr/bin/env bash
# The Python API's reference, generated from the docstrings with pdoc (the [docs] extra) into build/api-reference;
# a warning (a docstring pdoc cannot read, a name that does not resolve) fails the build.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-.venv/bin/python}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
"$PY" -W error -m pdoc lm_workbench.api lm_workbench.command_results.results -o build/api-reference
echo "API reference: build/api-reference/index.html"
