"""A run that starts from another run's finished stages.

Two AgentEvol runs that differ only from some stage on need not repeat what comes before it.
explore_band against uniform exploration is the case in point: iteration 1's explorer is BC,
which has played no episode on the exploration split, so the band has no estimates and a band
run's iteration 1 explores uniformly, as the uniform run's does. The branch takes the source's
stages up to one of them (their rows, checkpoints, data and evaluations) and the SQLite store
that holds its local servers' per-task statistics. The explorers that played before the branch
point keep the source's policy tags (inherited-tags.json), so the branch's next iteration reads
the estimates their episodes left; every later explorer tags its episodes with the branch's own
namespace, so source and branch never mix estimates, even on one shared PostgreSQL store. The
stages after the branch point are the branch's own; a branch is a new directory and never
touches its source.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

from coevo.agentevol.trainer import LEARNED_ROW, Layout, stage_names
from coevo.training import write_json

#: Written in the branch: where its first stages came from.
BRANCHED_FROM = "branched-from.json"


def _link_or_copy(src: str, dst: str) -> None:
    """Hard-link a checkpoint file (never rewritten in place: a new save replaces the
    directory), or copy it across file systems."""
    try:
        os.link(src, dst)
    except OSError:
        shutil.copy2(src, dst)


def _copy_store(src: Layout, out: Layout) -> None:
    """A consistent copy of the source's SQLite store (its servers may have left it in WAL mode).
    Later explorers' statistics in it are the source's tags, which the branch never reads."""
    with sqlite3.connect(src.store) as reading, sqlite3.connect(out.store) as writing:
        reading.backup(writing)


def branch_run(source: Path, dest: Path, *, through: str) -> list[str]:
    """Start run `dest` with `source`'s stages up to and including `through`; returns those
    stages. A `dest` that already holds stages (a branch being resumed) is left as it is, and []
    returned. Refuses a source that has not finished `through`, or one with an unfinished or
    unknown stage name."""
    src, out = Layout(source), Layout(dest)
    if out.state.is_file():
        return []
    if not src.state.is_file():
        raise ValueError(f"cannot branch from {source}: it holds no finished stage")
    done = dict(json.loads(src.state.read_text()).get("stages", {}))
    if not through.startswith("iter") and through not in ("base", "bc"):
        raise ValueError(f"cannot branch through {through!r}: not a stage name (base, bc, iter1, ...)")
    iterations = int(through[len("iter") :]) if through.startswith("iter") else 0
    names = stage_names(iterations)
    stages = names[: names.index(through) + 1]
    missing = [s for s in stages if s not in done or (s != "base" and not src.checkpoint(s).is_dir())]
    if missing:
        raise ValueError(f"cannot branch from {source} through {through}: stages {', '.join(missing)} not finished")
    dest.mkdir(parents=True, exist_ok=True)
    for stage in stages:
        if stage != "base":
            shutil.copytree(
                src.checkpoint(stage), out.checkpoint(stage), copy_function=_link_or_copy, dirs_exist_ok=True
            )
            (out.checkpoint(stage) / LEARNED_ROW).unlink(missing_ok=True)  # the stage is evaluated: a row exists
        if src.eval_file(stage).is_file():
            out.eval_file(stage).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src.eval_file(stage), out.eval_file(stage))
    data = [src.data("bc")] + [p for s in stages[2:] for p in (src.explored(s), src.selection(s))]
    for path in data:
        if path.is_file():
            (out.root / "data").mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, out.root / "data" / path.name)
    if src.tiny_base.is_dir():
        shutil.copytree(src.tiny_base, out.tiny_base, copy_function=_link_or_copy, dirs_exist_ok=True)
    if src.store.is_file():
        _copy_store(src, out)
    # Iteration m explores with version m-1: the versions before `through` explored before it.
    inherited = {version: src.policy_tag(version) for version in stages[1:-1]}
    write_json(out.inherited_tags_file, inherited, indent=2)
    write_json(out.root / BRANCHED_FROM, {"source": str(source.resolve()), "stages": stages}, indent=2)
    # The stages' rows last: a branch stopped before this line holds no state and is made again.
    write_json(out.state, {"stages": {s: done[s] for s in stages}}, indent=2)
    return stages
