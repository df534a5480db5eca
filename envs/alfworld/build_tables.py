"""Regenerate `data/alfred.json`, the ALFRED facts the native engine and generator read.

Run once by a maintainer with the `alfworld` extra installed:

    python -m coevo.envs.alfworld.build_tables

It copies facts, not code, out of the alfworld 0.4.2 wheel: the receptacle-object fit table
(`gen/constants.py: VAL_RECEPTACLE_OBJECTS`), the object affordances (`VAL_ACTION_OBJECTS`,
`MOVABLE_RECEPTACLES`, `OPENABLE_CLASS_LIST`), the rooms each goal may be set in
(`GOALS_VALID`), the two goal phrasings of every task type (`gen/goal_library.py`), and, per
AI2-THOR floor plan, the receptacle instances with their interaction poses
(`gen/layouts/FloorPlan*-openable.json`) and the object types present
(`gen/layouts/FloorPlan*-objects.json`). Sliced variants and movable-receptacle goals are left
out: ALFWorld's six task types use neither.
"""

from __future__ import annotations

import json
from pathlib import Path

from coevo.envs.alfworld.scoring import TASK_TYPES

OUT = Path(__file__).with_name("data") / "alfred.json"


def _unsliced(names: set[str] | list[str]) -> list[str]:
    return sorted(n for n in names if not n.endswith("Sliced"))


def build() -> dict:
    import alfworld.gen.constants as constants
    import alfworld.gen.goal_library as goal_library

    movable = set(constants.MOVABLE_RECEPTACLES)
    can_contain = {
        rtype: _unsliced(objs)
        for rtype, objs in sorted(constants.VAL_RECEPTACLE_OBJECTS.items())
        if rtype not in movable
    }
    actions = constants.VAL_ACTION_OBJECTS
    layouts = Path(constants.__file__).with_name("layouts")
    floorplans = {}
    for objects_file in sorted(layouts.glob("FloorPlan*-objects.json")):
        name = objects_file.name.split("-")[0]
        poses = json.loads((layouts / f"{name}-openable.json").read_text())
        floorplans[name] = {
            "receptacles": {rid: [float(v) for v in pose] for rid, pose in sorted(poses.items())},
            "objects": sorted(set(json.loads(objects_file.read_text()))),
        }
    return {
        "source": "alfworld 0.4.2: gen/constants.py, gen/goal_library.py, gen/layouts/",
        "classes": sorted(set(constants.OBJECTS_WSLICED) | set(constants.RECEPTACLES)),
        "can_contain": can_contain,
        "cleanable": _unsliced(actions["Cleanable"]),
        "heatable": _unsliced(actions["Heatable"]),
        "coolable": _unsliced(actions["Coolable"]),
        "sliceable": _unsliced(actions["Sliceable"]),
        "toggleable": _unsliced(actions["Toggleable"]),
        "receptacle_objects": sorted(movable),
        "openable": sorted(set(constants.OPENABLE_CLASS_LIST) & set(can_contain)),
        "goal_rooms": {t: sorted(constants.GOALS_VALID[t]) for t in TASK_TYPES},
        "goal_templates": {t: list(goal_library.gdict[t]["templates"]) for t in TASK_TYPES},
        "scene_types": {room: [r.start, r.stop - 1] for room, r in constants.SCENE_TYPE.items()},
        "floorplans": floorplans,
    }


def main() -> None:
    OUT.parent.mkdir(exist_ok=True)
    OUT.write_text(json.dumps(build(), indent=0, sort_keys=False, separators=(",", ":")) + "\n")
    print(f"wrote {OUT} ({OUT.stat().st_size // 1024} KiB)")


if __name__ == "__main__":
    main()
