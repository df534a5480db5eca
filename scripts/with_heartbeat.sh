#!/usr/bin/env bash
# Runs one set-up step: its output goes to the terminal and is appended to a log, and while it
# runs a line is printed every COEVO_HEARTBEAT_S seconds (default 30), to both. pip prints
# nothing for minutes while it compiles llama.cpp and fast-downward; this line shows it is alive.
# usage: with_heartbeat.sh LOG LABEL COMMAND [ARG...]; exits with the command's status.
set -uo pipefail
log=$1
label=$2
shift 2
interval=${COEVO_HEARTBEAT_S:-30}

# What the command's process tree is doing now: compiling (a compiler or build tool runs below
# it) or downloading and installing.
activity() {
  local names
  names=$(ps -eo pid=,ppid=,comm= | awk -v root="$1" '
    { parent[$1] = $2; name[$1] = $3 }
    END {
      for (p in parent) {
        q = p
        while (q in parent && q != root && q > 1) q = parent[q]
        if (q == root && p != root) print name[p]
      }
    }')
  if grep -qE '^(cc1|cc1plus|cc|gcc|g\+\+|c\+\+|clang|ld|ninja|make|cmake)' <<<"$names"; then
    echo "compiling"
  else
    echo "downloading and installing"
  fi
}

("$@" 2>&1 | tee -a "$log") &
pid=$!
start=$(date +%s)
next=$((start + interval))
while kill -0 "$pid" 2>/dev/null; do
  sleep 1
  now=$(date +%s)
  if [ "$now" -ge "$next" ] && kill -0 "$pid" 2>/dev/null; then
    elapsed=$((now - start))
    printf '[bootstrap %s] still %s: %s, %d min %02d s so far (log: %s)\n' \
      "$(date +%H:%M:%S)" "$(activity "$pid")" "$label" $((elapsed / 60)) $((elapsed % 60)) "$log" | tee -a "$log"
    next=$((now + interval))
  fi
done
wait "$pid"
