#!/usr/bin/env bash
# The oldest lane: the newest lane's tests (marked `newest`) in .venv-oldest, on the oldest releases this project
# is tested on (constraints/oldest.txt: transformers and huggingface-hub; torch the CPU wheel). Arguments go to
# pytest.
exec env LM_WORKBENCH_LANE=oldest bash "$(dirname "${BASH_SOURCE[0]}")/test-newest.sh" "$@"
