"""The native ALFWorld engine: the rules of `alfred.pddl`, the text of `alfred.twl2`.

The real engine grounds the PDDL domain with Fast Downward and renders feedback with
TextWorld's grammar; this module computes the same things directly:

- Admissible commands are the applicable ground actions, with Fast Downward's quirk kept:
  an operator that changes nothing is dropped, so "go to X" is not admissible for receptacles
  at the agent's own location.
- A command is matched verbatim (after stripping spaces) against them; anything else is
  "Nothing happens." and changes nothing.
- `examine X` works on a held object only: the domain's other branch declares
  `(?l - location, ?r - receptacle)`, the planner reads the type "location," and finds nothing
  of that type.
- Feedback is rendered after the effects, exactly as the grammar's rules pick it. Lists are
  ordered by entity id and joined "a x, a y, and a z"; an empty list reads "nothing".
- TextWorld keeps the negated facts an action adds (`not_inreceptacle(o, r)` after a pickup)
  and `look` lists objects at the agent's location paired with such a fact ("Next to it, you
  see ..."); the state keeps them too.
- The game is won when its goal condition holds (`scoring.won`).
"""

from __future__ import annotations

from dataclasses import dataclass

from coevo.envs.alfworld.dialects import HELP_TEXT
from coevo.envs.alfworld.game import Game
from coevo.envs.alfworld.scoring import won

WELCOME = "-= Welcome to TextWorld, ALFRED! =-"
NOTHING_HAPPENS = "Nothing happens."

# Action kinds (an action is a tuple: kind, then indices).
GO, OPEN, CLOSE, TAKE, PUT, USE, HEAT, CLEAN, COOL, SLICE, EXAMINE_REC, EXAMINE_OBJ, LOOK, INVENTORY, HELP = range(15)


def bits(mask: int) -> list[int]:
    """Indices of the set bits, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def display_list(items: list[str]) -> str:
    """TextWorld's list rendering: "nothing", "x", "x, and y", "x, y, and z"."""
    if not items:
        return "nothing"
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + ", and " + items[-1]


class State:
    """Everything actions change, for one episode. Small: a few ints and three short lists."""

    __slots__ = (
        "loc",
        "held",
        "hold_any",
        "contents",
        "at_loc",
        "not_in",
        "opened",
        "clean",
        "hot",
        "cool",
        "sliced",
        "toggled",
        "on",
    )

    def __init__(self, game: Game) -> None:
        init = game.initial
        self.loc = init.loc
        self.held = init.held
        self.hold_any = init.hold_any
        self.contents = list(init.contents)
        self.at_loc = list(init.at_loc)
        #: Per receptacle, the objects with a `not_inreceptacle` fact (picked up from it).
        self.not_in = [0] * len(init.contents)
        self.opened = init.opened
        self.clean = init.clean
        self.hot = init.hot
        self.cool = init.cool
        self.sliced = init.sliced
        self.toggled = init.toggled
        self.on = init.on

    def copy(self) -> State:
        new = State.__new__(State)
        for slot in State.__slots__:
            value = getattr(self, slot)
            setattr(new, slot, list(value) if isinstance(value, list) else value)
        return new


@dataclass(frozen=True, slots=True)
class Outcome:
    feedback: str
    admissible: bool
    won: bool


# ---------------------------------------------------------------------------------- text


def a_list(game: Game, mask: int) -> str:
    names = game.obj_names
    return display_list(["a " + names[o] for o in bits(mask)])


def examine_receptacle(game: Game, state: State, r: int) -> str:
    name = game.rec_names[r]
    if game.openable >> r & 1:
        if state.opened >> r & 1:
            return f"The {name} is open. In it, you see {a_list(game, state.contents[r])}."
        return f"The {name} is closed."
    return f"On the {name}, you see {a_list(game, state.contents[r])}."


def examine_object(game: Game, state: State, o: int) -> str:
    name = game.obj_names[o]
    bit = 1 << o
    if game.receptacle_object & bit:
        return f"This is a normal {name}. In it, you see {a_list(game, game.inner[o])}."
    clean, hot, cool, sliced = state.clean & bit, state.hot & bit, state.cool & bit, state.sliced & bit
    if clean and hot and sliced:
        return f"This is a hot and clean sliced {name}."
    if clean and cool and sliced:
        return f"This is a cool and clean sliced {name}."
    if clean and sliced:
        return f"This is a clean sliced {name}."
    if hot and sliced:
        return f"This is a hot sliced {name}."
    if cool and sliced:
        return f"This is a cool sliced {name}."
    if clean and hot:
        return f"This is a hot and clean {name}."
    if clean and cool:
        return f"This is a cool and clean {name}."
    if hot:
        return f"This is a hot {name}."
    if clean:
        return f"This is a clean {name}."
    if cool:
        return f"This is a cold {name}."
    if game.toggleable & bit and state.toggled & bit:
        return f"This {name} is on."
    # ("This X is off." needs a not_istoggled fact, which no action ever adds.)
    if game.sliceable & bit and sliced:
        return f"This is a sliced {name}."
    return f"There's nothing special about {name}."


def _facing(game: Game, state: State, recs: tuple[int, ...]) -> str:
    floor = []
    for o in bits(state.at_loc[state.loc]):
        for r in recs:
            if state.not_in[r] >> o & 1:
                floor.append("a " + game.obj_names[o])
    names = display_list([game.rec_names[r] for r in recs])
    return f"You are facing the {names}. Next to it, you see {display_list(floor)}."


def look(game: Game, state: State) -> str:
    recs = game.recs_at[state.loc]
    if recs:
        return _facing(game, state, recs)
    # The grammar's appliance list is bound to the agent's location here: nothing.
    return "You are in the middle of a room. Looking quickly around you, you see nothing."


def intro(game: Game, state: State) -> str:
    recs = game.recs_at[state.loc]
    if recs:
        view = _facing(game, state, recs)
    else:
        appliances = display_list(["a " + name for name, loc in zip(game.rec_names, game.rec_loc) if loc >= 0])
        view = f"You are in the middle of a room. Looking quickly around you, you see {appliances}."
    return f"{WELCOME}\n\n{view}\n\nYour task is to: {game.task}"


# ---------------------------------------------------------------------------------- rules


def commands(game: Game, state: State) -> dict[str, tuple]:
    """Admissible command -> action, for the current state."""
    out: dict[str, tuple] = {}
    rec_names, obj_names = game.rec_names, game.obj_names
    loc = state.loc
    for r, rloc in enumerate(game.rec_loc):
        if rloc >= 0 and rloc != loc:
            out["go to " + rec_names[r]] = (GO, r)
    held = state.held
    put = game.dialect.put_command
    for r in game.recs_at[loc]:
        rname = rec_names[r]
        out["examine " + rname] = (EXAMINE_REC, r)
        contents = state.contents[r]
        rbit = 1 << r
        if game.openable & rbit:
            is_open = bool(state.opened & rbit)
            if is_open:
                out["close " + rname] = (CLOSE, r)
            else:
                out["open " + rname] = (OPEN, r)
        else:
            is_open = True
        if is_open:
            if not state.hold_any:
                for o in bits(contents & game.pickupable):
                    out[f"take {obj_names[o]} from {rname}"] = (TAKE, o, r)
            for o in bits(held & game.fits[r]):
                out[put.format(o=obj_names[o], r=rname)] = (PUT, o, r)
        for o in bits(contents & game.toggleable):
            out.setdefault("use " + obj_names[o], (USE, o))
        if held:
            if game.microwaves & rbit:
                for o in bits(held & game.heatable):
                    out[f"heat {obj_names[o]} with {rname}"] = (HEAT, o, r)
            if game.sinks & rbit:
                for o in bits(held & game.cleanable):
                    out[f"clean {obj_names[o]} with {rname}"] = (CLEAN, o, r)
            if game.fridges & rbit:
                for o in bits(held & game.coolable):
                    out[f"cool {obj_names[o]} with {rname}"] = (COOL, o, r)
    if held:
        for o in bits(held):
            out["examine " + obj_names[o]] = (EXAMINE_OBJ, o)
        for knife in bits(held & game.knives):
            for o in bits(state.at_loc[loc] & game.sliceable):
                out[f"slice {obj_names[o]} with {obj_names[knife]}"] = (SLICE, o, knife)
    out["look"] = (LOOK,)
    out["inventory"] = (INVENTORY,)
    if game.dialect.has_help:
        out["help"] = (HELP,)
    return out


def admissible(game: Game, state: State) -> list[str]:
    return sorted(commands(game, state))


def apply(game: Game, state: State, action: tuple) -> str:
    """Apply an admissible action in place; returns its feedback."""
    kind = action[0]
    if kind == GO:
        r = action[1]
        state.loc = game.rec_loc[r]
        where = game.loc_names[state.loc] if game.dialect.arrive_names_location else game.rec_names[r]
        return f"You arrive at {where}. {examine_receptacle(game, state, r)}"
    if kind == EXAMINE_REC:
        return examine_receptacle(game, state, action[1])
    if kind == EXAMINE_OBJ:
        return examine_object(game, state, action[1])
    if kind == LOOK:
        return look(game, state)
    if kind == INVENTORY:
        if state.hold_any:
            return f"You are carrying: {a_list(game, state.held)}."
        return "You are not carrying anything."
    if kind == HELP:
        return HELP_TEXT
    if kind == OPEN:
        r = action[1]
        state.opened |= 1 << r
        return f"You open the {game.rec_names[r]}. {examine_receptacle(game, state, r)}"
    if kind == CLOSE:
        r = action[1]
        state.opened &= ~(1 << r)
        return f"You close the {game.rec_names[r]}."
    o = action[1]
    bit = 1 << o
    oname = game.obj_names[o]
    if kind == TAKE:
        r = action[2]
        state.contents[r] &= ~bit
        state.not_in[r] |= bit
        state.held |= bit
        state.hold_any = True
        state.at_loc[state.loc] &= ~bit
        return f"You pick up the {oname} from the {game.rec_names[r]}."
    if kind == PUT:
        r = action[2]
        state.contents[r] |= bit
        state.not_in[r] &= ~bit
        state.at_loc[state.loc] |= bit
        state.held &= ~bit
        state.hold_any = False
        return game.dialect.put_text(oname, game.rec_names[r])
    if kind == USE:
        state.toggled |= bit
        state.on ^= bit
        return f"You turn on the {oname}." if game.toggleable & state.toggled & bit else f"You turn off the {oname}."
    if kind == HEAT:
        state.hot |= bit
        state.cool &= ~bit
        return f"You heat the {oname} using the {game.rec_names[action[2]]}."
    if kind == CLEAN:
        state.clean |= bit
        return f"You clean the {oname} using the {game.rec_names[action[2]]}."
    if kind == COOL:
        state.cool |= bit
        state.hot &= ~bit
        return f"You cool the {oname} using the {game.rec_names[action[2]]}."
    if kind == SLICE:
        state.sliced |= bit
        return f"You sliced the {oname} with the {game.obj_names[action[2]]}."
    raise ValueError(f"unknown action kind {kind}")


def step(game: Game, state: State, command: str) -> Outcome:
    """One command, as the real engine takes it: exact text, else "Nothing happens."."""
    action = commands(game, state).get(command.strip())
    if action is None:
        return Outcome(NOTHING_HAPPENS, False, won(game, state))
    feedback = apply(game, state, action)
    return Outcome(feedback, True, won(game, state))
