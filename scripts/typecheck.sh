#!/usr/bin/env bash
# Type-check the coevo package with mypy (configuration: [tool.mypy] in pyproject.toml).
#
# The repository keeps envs/, server/, client/, agentevol/, genenv/ and integrations/ at the top level and
# setup.py maps them onto coevo.envs, coevo.server, ...; mypy cannot see that mapping. So this
# builds the package as Python sees it out of symlinks in a temporary folder, checks it from
# there, and prints the errors with repository paths (coevo/envs/x.py -> envs/x.py).
# Usage: scripts/typecheck.sh [extra mypy arguments]; VENV selects the virtualenv (.venv).
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
VENV=${VENV:-$REPO/.venv}
case "$VENV" in /*) ;; *) VENV=$REPO/$VENV ;; esac
FOLDERS="envs server client agentevol genenv integrations"

TREE=$(mktemp -d "${TMPDIR:-/tmp}/coevo-typecheck.XXXXXX")
trap 'rm -rf "$TREE"' EXIT
mkdir "$TREE/coevo"
for entry in "$REPO"/coevo/*; do
  case "$(basename "$entry")" in __pycache__) continue ;; esac
  ln -s "$entry" "$TREE/coevo/"
done
for folder in $FOLDERS; do
  ln -s "$REPO/$folder" "$TREE/coevo/$folder"
done

# Map the tree's paths back onto the repository's so that editors and people can open them.
to_repo_paths() {
  local script="" folder
  for folder in $FOLDERS; do script="$script;s#^coevo/$folder/#$folder/#"; done
  sed -u -e "${script#;}"
}

cd "$TREE"
status=0
"$VENV/bin/mypy" --config-file "$REPO/pyproject.toml" --cache-dir "$REPO/.cache/mypy" \
  -p coevo "$@" | to_repo_paths || status=$?
exit "$status"
