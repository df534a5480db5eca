#!/usr/bin/env bash
# The lint and type gate: ruff's lint and its format check over the whole tree (`ruff format .`
# fixes the latter), then mypy over the coevo package
# (scripts/typecheck.sh). Configuration: [tool.ruff] and [tool.mypy] in pyproject.toml.
# Runs both even when the first fails; exits non-zero if either does. VENV selects the
# virtualenv (.venv). Takes ~1 min from cold (mypy), a few seconds with a warm cache.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
VENV=${VENV:-$REPO/.venv}
case "$VENV" in /*) ;; *) VENV=$REPO/$VENV ;; esac
cd "$REPO"

status=0
echo "== ruff check ."
"$VENV/bin/ruff" check . || status=1
echo "== ruff format --check ."
"$VENV/bin/ruff" format --check . || status=1
echo "== mypy -p coevo"
VENV=$VENV bash scripts/typecheck.sh || status=1
exit "$status"
