"""Do two trainer runs give the same results? Compares two run directories' metrics.jsonl row by
row with the timing fields left out, and their config.json with the output paths left out: the
check that a refactoring left a trainer's behaviour alone (bench/results/trainer-ci-presets.md).

    python bench/compare_runs.py --json BEFORE_DIR AFTER_DIR [--ignore FIELD ...]

Prints {"metrics_identical", "rows": [n_before, n_after], "differences": [first few rows that
differ: line, field, before, after], "config_identical", "config_differences"}.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

#: Fields that measure time (or the load of the machine), not results.
TIMING = ("duration_s", "elapsed_s", "finished_at")
#: config.json fields that name where a run lives.
PATHS = ("output_dir", "db_url")


def rows(path: Path, ignore: set[str]) -> list[dict[str, Any]]:
    lines = path.read_text().splitlines()
    return [{k: v for k, v in json.loads(line).items() if k not in ignore} for line in lines if line.strip()]


def differences(a: list[dict[str, Any]], b: list[dict[str, Any]], limit: int = 10) -> list[dict[str, Any]]:
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        for key in sorted(set(x) | set(y)):
            if x.get(key) != y.get(key):
                out.append({"line": i + 1, "field": key, "before": x.get(key), "after": y.get(key)})
    return out[:limit]


def compare(before: Path, after: Path, ignore: set[str]) -> dict[str, Any]:
    a, b = rows(before / "metrics.jsonl", ignore), rows(after / "metrics.jsonl", ignore)
    ca, cb = (json.loads((d / "config.json").read_text()) for d in (before, after))
    config_diff = sorted(k for k in set(ca) | set(cb) if k not in PATHS and ca.get(k) != cb.get(k))
    return {
        "before": str(before),
        "after": str(after),
        "ignored": sorted(ignore),
        "metrics_identical": a == b,
        "rows": [len(a), len(b)],
        "differences": differences(a, b),
        "config_identical": not config_diff,
        "config_differences": config_diff,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("before", type=Path)
    parser.add_argument("after", type=Path)
    parser.add_argument("--ignore", action="append", default=[], help="another field to leave out")
    parser.add_argument("--json", action="store_true", help="print the comparison as JSON (the default)")
    args = parser.parse_args()
    print(json.dumps(compare(args.before, args.after, {*TIMING, *args.ignore}), indent=1))


if __name__ == "__main__":
    main()
