"""AgentGym's text view of a minigrid observation: the description and the macro actions.

AgentGym's BabyAI server (agentenv-babyai, `postprocess_obs`) turns the agent's 7x7 partial
view into sentences (the objects it sees, with steps ahead and to the side, the barrier it
faces, what it carries) and a table of text actions, each a list of minigrid's low-level
actions found by a breadth-first search inside the view ("go to red ball 1", "pickup ...",
"toggle and go through ..."), plus the messages for actions that cannot be taken now. This
module recomputes both the same way, its quirks included (the search keeps the last parent
it saw for a queued state; one message prints a counter dictionary), because an agent's
observations and the action it may take must be the ones AgentGym produced.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

# minigrid's encoding tables (minigrid.core.constants), as AgentGym's server spells them.
OBJECTS = ("unseen", "empty", "wall", "floor", "door", "key", "ball", "box", "goal", "lava", "agent")
COLORS = ("red", "green", "blue", "purple", "yellow", "grey")
DOOR_STATES = ("open", "closed", "locked")
#: minigrid's direction vectors: right, down, left, up.
DIRECTIONS = ((1, 0), (0, 1), (-1, 0), (0, -1))
#: Object kinds the path search cannot cross, and that block a drop.
BLOCKING = ("wall", "box", "lava", "ball", "key")
LEFT, RIGHT, FORWARD, PICKUP, DROP, TOGGLE = 0, 1, 2, 3, 4, 5

Pos = tuple[int, int]


@dataclass(frozen=True)
class Seen:
    name: str
    pos: Pos
    dis: int


@dataclass
class View:
    """What the agent is told and may do now: the text, the actions (text -> low-level
    actions, in AgentGym's order) and the messages for actions it may not take."""

    description: str
    actions: dict[str, list[int]]
    errors: dict[str, str] = field(default_factory=dict)


def _next(pos: Pos, action: int, direction: int) -> tuple[Pos, int]:
    if action == LEFT:
        return pos, (direction - 1) % 4
    if action == RIGHT:
        return pos, (direction + 1) % 4
    dx, dy = DIRECTIONS[direction]
    return (pos[0] + dx, pos[1] + dy), direction


def find_path(
    start: Pos,
    goal: Pos,
    things: list[Seen],
    start_dir: int,
    xrange: range,
    yrange: range,
    arrive: bool,
) -> list[int] | None:
    """Low-level actions from (start, start_dir) to stand on `goal` (arrive) or to face it,
    by AgentGym's breadth-first search: states are marked seen when taken off the queue, a
    queued state's parent is the last one that reached it, and only `things` (the objects and
    barriers in view) bound the search, so it stays inside the view."""
    graph: dict[tuple[Pos, int], tuple[tuple[Pos, int], int]] = {}
    queue: list[tuple[Pos, int]] = [(start, start_dir)]
    seen: set[tuple[Pos, int]] = set()
    while queue:
        pos, direction = queue.pop(0)
        seen.add((pos, direction))
        dx, dy = DIRECTIONS[direction]
        if (pos == goal) if arrive else (goal[0] - pos[0] == dx and goal[1] - pos[1] == dy):
            path: list[int] = []
            while (pos, direction) != (start, start_dir):
                (pos, direction), action = graph[(pos, direction)]
                path.append(action)
            return path[::-1]
        for action in (FORWARD, LEFT, RIGHT):
            new_pos, new_dir = _next(pos, action, direction)
            blocked = False
            for thing in things:
                if new_pos[0] not in xrange or new_pos[1] not in yrange or (new_pos, new_dir) in seen:
                    blocked = True
                    break
                if thing.pos == new_pos and any(kind in thing.name for kind in BLOCKING):
                    blocked = True
                    break
            if not blocked:
                queue.append((new_pos, new_dir))
                graph[(new_pos, new_dir)] = ((pos, direction), action)
    return None


def _view_ranges(pos: Pos, f_vec: np.ndarray, r_vec: np.ndarray, size: int) -> tuple[np.ndarray, range, range]:
    """The view's top-left corner and AgentGym's coordinate ranges for the search (one of them
    one cell short on the far side, as its arithmetic makes them)."""
    top_left = np.array(pos) + f_vec * (size - 1) - r_vec * (size // 2)
    borders = top_left + size * (-f_vec + r_vec)
    x, y = int(borders[0]), int(borders[1])
    tx, ty = int(top_left[0]), int(top_left[1])
    xrange = range(x, tx + 1) if x < tx else range(tx, x)
    yrange = range(y, ty + 1) if y < ty else range(ty, y)
    return top_left, xrange, yrange


def _dot(a: tuple[int, int], b: tuple[int, int]) -> int:
    return a[0] * b[0] + a[1] * b[1]


def _position_text(front: int, right: int) -> str:
    if right == 0:
        return f"right in front of you {front} steps away. "
    if right > 0:
        return f"{front} steps in front of you and {right} steps to your right. "
    return f"{front} steps in front of you and {-right} steps to your left. "


def describe(env: Any, image: np.ndarray, direction: int) -> View:
    """The view of minigrid env `env` (unwrapped) from its observation `image`, facing
    `direction`."""
    size = env.agent_view_size
    pos: Pos = (int(env.agent_pos[0]), int(env.agent_pos[1]))
    f_vec = np.array(DIRECTIONS[direction])
    r_vec = np.array(DIRECTIONS[(direction + 1) % 4])
    top_left, xrange, yrange = _view_ranges(pos, f_vec, r_vec, size)
    ahead = DIRECTIONS[direction]

    objects: list[Seen] = []
    barriers: list[Seen] = []
    for vis_j in range(size):
        for vis_i in range(size):
            cell = top_left - f_vec * vis_j + r_vec * vis_i
            ax, ay = int(cell[0]), int(cell[1])
            distance = abs(pos[0] - ax) + abs(pos[1] - ay)
            if ax < 0 or ay < 0 or distance == 0:
                continue
            kind = OBJECTS[int(image[vis_i, vis_j, 0])]
            color = COLORS[int(image[vis_i, vis_j, 1])]
            if kind in ("door", "key", "ball", "box", "goal", "lava", "wall"):
                state = DOOR_STATES[int(image[vis_i, vis_j, 2])]
                name = f"{color} {state} {kind}" if kind == "door" else f"{color} {kind}"
                objects.append(Seen(name, (ax, ay), distance))
            if kind in ("box", "wall"):
                rel = (ax - pos[0], ay - pos[1])
                if ahead[0] * rel[1] - ahead[1] * rel[0] == 0:  # on the agent's line
                    barriers.append(Seen(kind, (ax, ay), _dot(ahead, rel)))
    objects.sort(key=lambda o: o.dis)
    right = DIRECTIONS[(direction + 1) % 4]

    if objects:
        text = "In front of you in this room, you can see several objects: "
        counts: dict[str, int] = {}
        for obj in objects:
            if "wall" in obj.name:
                continue
            rel = (obj.pos[0] - pos[0], obj.pos[1] - pos[1])
            counts[obj.name] = counts.get(obj.name, 0) + 1
            text += f"There is a {obj.name} {counts[obj.name]} {_position_text(_dot(ahead, rel), _dot(right, rel))} "
    else:
        text = "You cannot see any objects within sight."
    text += "The room has walls around you. "
    if barriers:
        barriers.sort(key=lambda b: b.dis)
        text += f"You are facing a {barriers[0].name} {barriers[0].dis} steps away. "
    carrying = env.carrying
    text += (
        "You are not carrying anything."
        if carrying is None
        else f"You are carrying a {carrying.color} {carrying.type}."
    )

    actions: dict[str, list[int]] = {"turn left": [LEFT], "turn right": [RIGHT]}
    errors: dict[str, str] = {}
    things = objects + barriers

    def path(goal: Pos, arrive: bool) -> list[int] | None:
        return find_path(pos, goal, things, direction, xrange, yrange, arrive)

    if not barriers or barriers[0].dis > 1:
        actions["move forward"] = [FORWARD]
    else:
        errors["move forward"] = "There is a barrier in front of you, you can't move forward."

    if carrying is None and objects:
        counted: dict[str, int] = {}
        for obj in objects:
            if any(kind in obj.name for kind in ("wall", "door", "goal")):
                continue
            steps = path(obj.pos, False)
            first = f"pickup {obj.name} 1"
            if steps is not None:
                steps.append(PICKUP)
                if first not in actions:
                    counted[obj.name] = 1
                    actions[first] = steps
                else:
                    counted[obj.name] += 1
                    actions[f"pickup {obj.name} {counted[obj.name]}"] = steps
            elif first not in actions:
                errors[first] = f"You cannot pickup {obj.name} 1, as there is no path leading to it."
            else:
                nth = f"{obj.name} {counted[obj.name] + 1}"
                errors[f"pickup {nth}"] = f"You cannot pickup {nth}, as there is no path leading to it."

    if carrying is not None:
        front = (pos[0] + ahead[0], pos[1] + ahead[1])
        if any(obj.pos == front and any(kind in obj.name for kind in BLOCKING) for obj in objects):
            errors["drop"] = "You cannot drop the object, as there is already an object in front of you."
        else:
            actions["drop"] = [DROP]
    else:
        errors["drop"] = "You cannot drop the object, as you are not carrying anything."

    doors: dict[str, int] = {}
    for obj in objects:
        if "door" in obj.name:
            doors[obj.name] = doors.get(obj.name, 0) + 1
        if "open door" in obj.name:
            label = f"{obj.name} {doors[obj.name]}"
            steps = path(obj.pos, True)
            if steps is not None:
                actions[f"go through {label}"] = steps
            else:
                errors[f"go through {label}"] = f"You cannot go through {label}, as there is no path leading to it."
        if "closed door" in obj.name:
            label = f"{obj.name} {doors[obj.name]}"
            steps = path(obj.pos, False)
            if steps is not None:
                actions[f"toggle and go through {label}"] = steps + [TOGGLE, FORWARD]
            else:  # AgentGym's message prints the door counter itself here
                errors[f"toggle and go through {label}"] = (
                    f"You cannot toggle and go through {obj.name} {doors}, as there is no path leading to it."
                )
            if steps == []:
                actions["toggle"] = [TOGGLE]
            errors[f"go through {label}"] = (
                f"You cannot go through {label}, as it is closed. You should toggle it first."
            )
        if "locked door" in obj.name:
            label = f"{obj.name} {doors[obj.name]}"
            if carrying is None or carrying.type != "key":
                errors[f"toggle and go through {label}"] = (
                    f"You cannot toggle and go through {label}, as you are not carrying a key."
                )
                continue
            if carrying.color != obj.name.split(" ")[0]:
                errors[f"toggle and go through {label}"] = (
                    f"You cannot toggle and go through {label}, as the color of the key you are carrying does not"
                    " match the color of door."
                )
                continue
            steps = path(obj.pos, False)
            if steps is not None:
                actions[f"toggle and go through {label}"] = steps + [TOGGLE, FORWARD]
            else:
                errors[f"toggle and go through {label}"] = (
                    f"You cannot toggle and go through {obj.name} {doors}, as there is no path leading to it."
                )
            if steps == []:
                actions["toggle"] = [TOGGLE]

    for obj in objects:
        if "goal" not in obj.name:
            continue
        steps = path(obj.pos, True)
        if steps is not None:
            actions["go to goal"] = steps
        else:
            errors["go to goal"] = "You cannot go to the goal, as there is no path leading to it."

    reached: dict[str, int] = {}
    for obj in objects:
        if "wall" in obj.name or "goal" in obj.name:
            continue
        steps = path(obj.pos, False)
        first = f"go to {obj.name} 1"
        if steps is not None:
            if first not in actions:
                actions[first] = steps
                reached[obj.name] = 1
            else:
                reached[obj.name] += 1
                actions[f"go to {obj.name} {reached[obj.name]}"] = steps
        elif first not in actions:
            errors[first] = f"You cannot go to {obj.name} 1, as there is no path leading to it."
        else:
            nth = f"{obj.name} {reached[obj.name] + 1}"
            errors[f"go to {nth}"] = f"You cannot go to {nth}, as there is no path leading to it."

    actions["check available actions"] = []
    return View(text, actions, errors)
