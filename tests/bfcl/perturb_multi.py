"""Perturbed multi-turn trajectories: the ground truth's calls, then systematic edits of them.

A trajectory is, per turn, a list of steps, each a list of keyword-form calls; the env receives
each step as one reply followed by a plain-text reply that ends the turn, BFCL's checker
receives the same calls as decoded strings.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable

from coevo.envs.bfcl.calls import Call

Trajectory = list[list[list[Call]]]
MultiPerturbation = Callable[[Trajectory, random.Random], Trajectory | None]


def from_truth(turn_calls: list[tuple[Call, ...]]) -> Trajectory:
    return [[list(calls)] if calls else [] for calls in turn_calls]


def _turns_with_calls(traj: Trajectory) -> list[int]:
    return [i for i, steps in enumerate(traj) if any(steps)]


def _flat(traj: Trajectory, turn: int) -> list[Call]:
    return [c for step in traj[turn] for c in step]


def _with_turn(traj: Trajectory, turn: int, calls: list[Call]) -> Trajectory:
    out = copy.deepcopy(traj)
    out[turn] = [calls] if calls else []
    return out


def m_expert(traj: Trajectory, rng: random.Random) -> Trajectory | None:
    return traj


def m_one_call_per_step(traj: Trajectory, rng: random.Random) -> Trajectory | None:
    return [[[c] for c in _flat(traj, t)] for t in range(len(traj))]


def m_drop_call(traj: Trajectory, rng: random.Random) -> Trajectory | None:
    turns = _turns_with_calls(traj)
    if not turns:
        return None
    t = rng.choice(turns)
    calls = _flat(traj, t)
    del calls[rng.randrange(len(calls))]
    return _with_turn(traj, t, calls)


def m_drop_turn(traj: Trajectory, rng: random.Random) -> Trajectory | None:
    turns = _turns_with_calls(traj)
    return _with_turn(traj, rng.choice(turns), []) if turns else None


def _mutate(value: object) -> object:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 1.5
    if isinstance(value, str):
        return value + "_x"
    if isinstance(value, list):
        return [*value, value[0]] if value else ["x"]
    return value


def m_wrong_value(traj: Trajectory, rng: random.Random) -> Trajectory | None:
    options = [(t, i) for t in _turns_with_calls(traj) for i, c in enumerate(_flat(traj, t)) if c.kwargs]
    if not options:
        return None
    t, i = rng.choice(options)
    calls = _flat(traj, t)
    key = rng.choice(sorted(calls[i].kwargs))
    calls[i] = Call(calls[i].name, {**calls[i].kwargs, key: _mutate(calls[i].kwargs[key])})
    return _with_turn(traj, t, calls)


def m_duplicate(traj: Trajectory, rng: random.Random) -> Trajectory | None:
    turns = _turns_with_calls(traj)
    if not turns:
        return None
    t = rng.choice(turns)
    calls = _flat(traj, t)
    calls.insert(rng.randrange(len(calls) + 1), rng.choice(calls))
    return _with_turn(traj, t, calls)


def m_swap(traj: Trajectory, rng: random.Random) -> Trajectory | None:
    turns = [t for t in _turns_with_calls(traj) if len(_flat(traj, t)) > 1]
    if not turns:
        return None
    t = rng.choice(turns)
    return _with_turn(traj, t, list(reversed(_flat(traj, t))))


def m_move_later(traj: Trajectory, rng: random.Random) -> Trajectory | None:
    turns = [t for t in _turns_with_calls(traj) if t + 1 < len(traj)]
    if not turns:
        return None
    t = rng.choice(turns)
    calls = _flat(traj, t)
    moved = calls.pop()
    out = _with_turn(traj, t, calls)
    return _with_turn(out, t + 1, [moved, *_flat(out, t + 1)])


def m_unknown_function(traj: Trajectory, rng: random.Random) -> Trajectory | None:
    turns = _turns_with_calls(traj)
    if not turns:
        return None
    t = rng.choice(turns)
    return _with_turn(traj, t, [*_flat(traj, t), Call("no_such_function", {"x": 1})])


def m_act_in_empty_turn(traj: Trajectory, rng: random.Random) -> Trajectory | None:
    """Call the next turn's functions already in a turn whose ground truth is empty."""
    empties = [t for t, steps in enumerate(traj) if not any(steps) and t + 1 < len(traj)]
    if not empties:
        return None
    t = rng.choice(empties)
    return _with_turn(traj, t, _flat(traj, t + 1))


MULTI_PERTURBATIONS: dict[str, MultiPerturbation] = {
    "expert": m_expert,
    "one_call_per_step": m_one_call_per_step,
    "drop_call": m_drop_call,
    "drop_turn": m_drop_turn,
    "wrong_value": m_wrong_value,
    "duplicate_call": m_duplicate,
    "swap_order": m_swap,
    "move_to_next_turn": m_move_later,
    "unknown_function": m_unknown_function,
    "act_in_empty_turn": m_act_in_empty_turn,
}
