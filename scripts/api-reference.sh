#!/usr/bin/env bash
# The Python API's reference, generated from the docstrings with pdoc (the [docs] extra) into build/api-reference;
# a warning (a docstring pdoc cannot read, a name that does not resolve) fails the build, and so does a public name
# missing from it (every Model method and lm_workbench function, lm_workbench.api.naming).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PY=${PYTHON:-.venv/bin/python}
export HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1
# Model's command methods live in the generated group modules (model_methods_<group>): documented there, and listed
# on Model's page as its inherited members with links to them
groups=$("$PY" -c "from lm_workbench.api.naming import MODEL_METHOD_GROUPS as g; print(' '.join(f'lm_workbench.api.model_methods_{n}' for n in g))")
# shellcheck disable=SC2086
"$PY" -W error -m pdoc lm_workbench.api $groups lm_workbench.command_results.results -o build/api-reference
"$PY" - <<'PY'
import sys
from pathlib import Path

from lm_workbench.api.naming import FUNCTIONS, MODEL_METHODS

page = Path("build/api-reference/lm_workbench/api.html").read_text(encoding="utf-8")
missing = [f"Model.{n}" for n in MODEL_METHODS.values() if f'id="Model.{n}"' not in page]
missing += [n for n in dict.fromkeys(FUNCTIONS.values()) if f'id="{n}"' not in page]
if missing:
    sys.exit(f"the API reference lacks: {', '.join(missing)}")
PY
echo "API reference: build/api-reference/index.html"
