"""A privileged planner for the six task types, with ReAct-style thoughts for behavioural cloning.

It reads the engine state (where every object is, what is open) and plans the shortest direct
route the domain allows: free the hands if they hold something useless, fetch the cheapest
object of the goal type (opening what is closed), change its state at the sink / microwave /
fridge, carry it to a receptacle of the goal type (or, for look-at tasks, to a lamp, switching
it on). Each command is checked against the admissible set of a simulated copy of the state, so
a plan is executable by construction; `plan` replans from any state, which is what
`expert_action` does every step. Works on generated games and real ALFWorld games alike.
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.envs.alfworld import engine, scoring
from coevo.envs.alfworld.engine import State, bits
from coevo.envs.alfworld.game import Game

#: Hard cap on plan length; ALFWorld episodes end after 50 steps.
MAX_PLAN = 60

_CHANGE = {
    "pick_clean_then_place_in_recep": ("clean", "sinks", "cleanable", "clean"),
    "pick_heat_then_place_in_recep": ("heat", "microwaves", "heatable", "hot"),
    "pick_cool_then_place_in_recep": ("cool", "fridges", "coolable", "cool"),
}


@dataclass(frozen=True, slots=True)
class Turn:
    thought: str
    action: str

    def react(self) -> str:
        return f"Thought: {self.thought}\nAction: {self.action}"


class NoPlan(RuntimeError):
    """The expert found no way to win from this state."""


class _Planner:
    def __init__(self, game: Game, state: State) -> None:
        self.game = game
        self.state = state.copy()
        self.turns: list[Turn] = []
        goal = game.goal
        self.obj_word = goal.obj_type.lower()
        self.change = _CHANGE.get(goal.task_type)

    # ------------------------------------------------------------ primitives
    def do(self, command: str, thought: str) -> None:
        action = engine.commands(self.game, self.state).get(command)
        if action is None:
            raise NoPlan(f"planned command {command!r} is not admissible")
        engine.apply(self.game, self.state, action)
        self.turns.append(Turn(thought, command))
        if len(self.turns) > MAX_PLAN:
            raise NoPlan("plan too long")

    def goto(self, r: int, thought: str) -> None:
        if self.game.rec_loc[r] != self.state.loc:
            self.do("go to " + self.game.rec_names[r], thought)

    def open_if_closed(self, r: int) -> None:
        g = self.game
        if g.openable >> r & 1 and not self.state.opened >> r & 1:
            self.do("open " + g.rec_names[r], f"The {g.rec_names[r]} is closed, so I open it.")

    def cost(self, r: int) -> int:
        """Steps to stand at r with it open."""
        g, s = self.game, self.state
        closed = g.openable >> r & 1 and not s.opened >> r & 1
        return (g.rec_loc[r] != s.loc) + bool(closed)

    def where(self, o: int) -> list[int]:
        return [r for r in range(self.game.n_recs) if self.state.contents[r] >> o & 1 and self.game.rec_loc[r] >= 0]

    def put_down(self, o: int, r: int, why: str) -> None:
        g = self.game
        self.goto(r, why)
        self.open_if_closed(r)
        self.do(g.dialect.put(g.obj_names[o], g.rec_names[r]), f"I put the {g.obj_names[o]} in the {g.rec_names[r]}.")

    # ------------------------------------------------------------ steps
    def free_hands(self, keep: int) -> None:
        """Put down every held object not in `keep` where it fits, nearest first."""
        g = self.game
        for o in bits(self.state.held & ~keep):
            spots = [r for r in range(g.n_recs) if g.fits[r] >> o & 1 and g.rec_loc[r] >= 0]
            if not spots:
                raise NoPlan(f"nowhere to put down {g.obj_names[o]}")
            r = min(spots, key=self.cost)
            self.put_down(
                o, r, f"My hands are full. I go to the {g.rec_names[r]} to put down the {g.obj_names[o]} first."
            )

    def needs_change(self, o: int) -> bool:
        if self.change is None:
            return False
        _, _, able, now = self.change
        return not (getattr(self.game, able) >> o & 1 and getattr(self.state, now) >> o & 1)

    def fetch(self, exclude: int) -> int:
        """Hold one goal-type object (not in `exclude`); returns it."""
        g, s = self.game, self.state
        held = s.held & g.goal_objs & ~exclude
        if held:
            return bits(held)[0]
        best: tuple[int, int, int] | None = None
        for o in bits(g.goal_objs & g.pickupable & ~exclude):
            if self.change is not None and not getattr(g, self.change[2]) >> o & 1:
                continue
            for r in self.where(o):
                score = self.cost(r) + 2 * self.needs_change(o)
                if best is None or score < best[0]:
                    best = (score, o, r)
        if best is None:
            raise NoPlan(f"no reachable {self.obj_word} left")
        _, o, r = best
        oname, rname = g.obj_names[o], g.rec_names[r]
        self.goto(r, f"I need a {self.obj_word}. The {oname} is in the {rname}, so I go there.")
        self.open_if_closed(r)
        self.do(f"take {oname} from {rname}", f"I see the {oname} here. I take it.")
        return o

    def change_state(self, o: int) -> None:
        if self.change is None or not self.needs_change(o):
            return
        g = self.game
        verb, where, _, _ = self.change
        places = [r for r in bits(getattr(g, where)) if g.rec_loc[r] >= 0]
        if not places:
            raise NoPlan(f"no place to {verb} the {g.obj_names[o]}")
        r = min(places, key=lambda r: g.rec_loc[r] != self.state.loc)
        oname, rname = g.obj_names[o], g.rec_names[r]
        self.goto(r, f"Now I {verb} the {oname} with the {rname}. I go to the {rname}.")
        self.do(f"{verb} {oname} with {rname}", f"I {verb} the {oname} with the {rname}.")

    def satisfying(self, r: int) -> int:
        """Goal-type objects inside r that already count toward the goal."""
        g, s = self.game, self.state
        objs = s.contents[r] & g.goal_objs
        if self.change is not None:
            _, _, able, now = self.change
            objs &= getattr(g, able) & getattr(s, now)
        return objs

    def place(self) -> None:
        g = self.game
        targets = [r for r in g.goal_recs if g.rec_loc[r] >= 0]
        if not targets:
            raise NoPlan(f"no {g.goal.recep_type} to put things in")
        need = 2 if g.goal.task_type == "pick_two_obj_and_place" else 1
        target = max(targets, key=lambda r: (self.satisfying(r).bit_count(), -self.cost(r)))
        done = self.satisfying(target)
        self.free_hands(keep=g.goal_objs)
        while done.bit_count() < need:
            o = self.fetch(exclude=done)
            self.free_hands(keep=1 << o)
            self.change_state(o)
            rname = g.rec_names[target]
            self.goto(target, f"Now I put the {g.obj_names[o]} in the {rname}. I go to the {rname}.")
            self.open_if_closed(target)
            self.do(g.dialect.put(g.obj_names[o], rname), f"I put the {g.obj_names[o]} in the {rname}.")
            done = self.satisfying(target)

    def look_at(self) -> None:
        g = self.game
        self.free_hands(keep=g.goal_objs)
        o = self.fetch(exclude=0)
        self.free_hands(keep=1 << o)
        lamps = g.goal_toggles & g.toggleable
        spots = [(r, lamp) for lamp in bits(lamps) for r in self.where(lamp)]
        if not spots:
            raise NoPlan(f"no {g.goal.toggle_type} to look under")
        r, lamp = min(spots, key=lambda p: (not self.state.toggled >> p[1] & 1, g.rec_loc[p[0]] != self.state.loc))
        lname = g.obj_names[lamp]
        self.goto(
            r,
            f"Now I need the {(g.goal.toggle_type or '').lower()}. The {lname} is on the "
            f"{g.rec_names[r]}, so I go there.",
        )
        if not scoring.won(g, self.state):
            self.do("use " + lname, f"I turn on the {lname} and look at the {g.obj_names[o]} under it.")

    def run(self, with_opening: bool) -> list[Turn]:
        if scoring.won(self.game, self.state):
            return []
        if self.game.goal.task_type == "look_at_obj_in_light":
            self.look_at()
        else:
            self.place()
        if not scoring.won(self.game, self.state):
            raise NoPlan("the plan ends without winning")
        if self.turns and with_opening:
            first = self.turns[0]
            self.turns[0] = Turn(f"{opening(self.game)} {first.thought}", first.action)
        return self.turns


def opening(game: Game) -> str:
    """The first thought: the whole plan in one sentence."""
    goal = game.goal
    obj = goal.obj_type.lower()
    if goal.task_type == "look_at_obj_in_light":
        return (
            f"To solve the task, I need to find and take a {obj}, then find and use a "
            f"{(goal.toggle_type or '').lower()}."
        )
    what = f"two {obj}s" if goal.task_type == "pick_two_obj_and_place" else f"a {obj}"
    change = _CHANGE.get(goal.task_type)
    tool = {"sinks": "sinkbasin", "microwaves": "microwave", "fridges": "fridge"}
    middle = f", then {change[0]} it with {tool[change[1]]}" if change else ""
    return (
        f"To solve the task, I need to find and take {what}{middle}, then put it in {(goal.recep_type or '').lower()}."
    )


def plan(game: Game, state: State, with_opening: bool = True) -> list[Turn]:
    """The expert's remaining turns from `state` (not modified); raises NoPlan if it has none.

    `with_opening` prefixes the first thought with the whole plan, as at an episode's start.
    """
    return _Planner(game, state).run(with_opening)


def next_turn(game: Game, state: State, with_opening: bool = False) -> Turn | None:
    try:
        turns = plan(game, state, with_opening)
    except NoPlan:
        return None
    return turns[0] if turns else None
