"""Leaderboard rows from the result files `coevo eval` and `coevo demo` leave under runs/.

`coevo eval` writes one JSON document per run (its `episodes` carry each outcome); `coevo demo`
writes `leaderboard.json` (per policy and env: n and success rate). Each becomes rows of
(env, policy, run) with the success rate's Wilson 95% interval.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coevo.intervals import wilson_interval

#: How deep under the runs folder result files are looked for (runs/eval/x.json, runs/a/b/c.json).
MAX_DEPTH = 4


@dataclass(frozen=True)
class BoardRow:
    env: str
    policy: str
    #: The run tag its episodes carry in the store (the eval file's stem, the demo folder's name).
    run: str
    kind: str
    source: str
    n: int
    successes: int

    @property
    def rate(self) -> float:
        return self.successes / self.n if self.n else 0.0

    def episode_filter(self) -> dict[str, str]:
        """The episode-list filter of this row's episodes. An eval run is one env, named as its
        command line named it (a registry name or module:Class), so its run tag alone finds it;
        a demo's run tag spans every env."""
        found = {"policy": self.policy, "run": self.run}
        return {**found, "env": self.env} if self.kind == "demo" else found

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.successes, self.n) if self.n else (0.0, 1.0)


SORT_KEYS = ("env", "policy", "run", "n", "rate", "low", "high")


def _eval_rows(path: Path, doc: dict[str, Any], root: Path) -> list[BoardRow]:
    policy = doc.get("policy")
    name = str(policy.get("name") if isinstance(policy, dict) else policy)
    counts: dict[str, list[int]] = {}
    for episode in doc.get("episodes") or []:
        if isinstance(episode, dict) and "env" in episode:
            tally = counts.setdefault(str(episode["env"]), [0, 0])
            tally[0] += bool(episode.get("success"))
            tally[1] += 1
    source = str(path.relative_to(root))
    return [BoardRow(env, name, path.stem, "eval", source, n, ok) for env, (ok, n) in sorted(counts.items())]


def _demo_rows(path: Path, doc: dict[str, Any], root: Path) -> list[BoardRow]:
    rows = []
    source = str(path.relative_to(root))
    for policy, per_env in (doc.get("board") or {}).items():
        for env, summary in (per_env or {}).items():
            if env == "all" or not isinstance(summary, dict):
                continue
            n = int(summary.get("n") or 0)
            ok = round(float(summary.get("success_rate") or 0.0) * n)
            rows.append(BoardRow(env, str(policy), path.parent.name, "demo", source, n, ok))
    return rows


def result_files(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    found = []
    for depth in range(1, MAX_DEPTH + 1):
        found += sorted(root.glob("/".join(["*"] * depth) + ".json"))
    return found


def leaderboard(root: Path) -> list[BoardRow]:
    """Every readable result file's rows; other JSON files (configs, states) are skipped."""
    rows: list[BoardRow] = []
    for path in result_files(root):
        try:
            doc = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        if not isinstance(doc, dict):
            continue
        if isinstance(doc.get("episodes"), list) and "summary" in doc:
            rows += _eval_rows(path, doc, root)
        elif path.name == "leaderboard.json" and isinstance(doc.get("board"), dict):
            rows += _demo_rows(path, doc, root)
    return rows


def sorted_rows(rows: list[BoardRow], key: str, descending: bool) -> list[BoardRow]:
    pick = {
        "env": lambda r: r.env, "policy": lambda r: r.policy, "run": lambda r: r.run, "n": lambda r: r.n,
        "rate": lambda r: r.rate, "low": lambda r: r.interval[0], "high": lambda r: r.interval[1],
    }.get(key, lambda r: r.rate)  # fmt: skip
    return sorted(rows, key=pick, reverse=descending)
