"""The expert: BabyAI's own bot (minigrid's `BabyAIBot`) played through AgentGym's text actions.

The bot plans low-level actions from the level's full state (privileged: the grid, the
instruction's structure). It runs on a replica of the episode's level, reset with the same
seed and kept in step with every low-level action the episode took, so it sees what the agent
saw whatever text actions got it there.

One text action per low-level move would spend AgentGym's macro actions ("go to red ball 1",
"pickup ...", "go through ...", "toggle and go through ...") on nothing and run the larger
levels into the env's step cap. So the expert looks ahead: it plays the bot on a copy of the
replica for up to LOOKAHEAD moves, takes each available text action that could land on that
path on another copy (the way the server does), and picks the one that lands in the state the
bot reaches furthest ahead, in no more low-level moves than the bot spends (the reward counts
them). Once the episode took it, the bot plays its own moves to that point on the replica, so
its plan is exactly the one it had made, not one replayed in its advising mode.

Two of the bot's habits are adapted to AgentGym's actions: a level that starts with the agent
carrying the object to place (PutNext...Carrying) skips the bot's "go get it" subgoals, which
it cannot plan (minigrid documents the limit); and the bot never closes a door (AgentGym has
no action for it), heading for another closed door when a goal asks to open one it opened
already. Where no text action lands on the bot's path the expert has no action and `failure`
says why: a key inside a box (KeyInBox; AgentGym's "toggle" opens doors only), or a goal that
asks to open a door after another part of it when every such door is open already (the bot
opened it while exploring, too early to count).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from minigrid.envs.babyai.core.verifier import ObjDesc, OpenInstr
from minigrid.utils.baby_ai_bot import BabyAIBot, CloseSubgoal, GoNextToSubgoal, OpenSubgoal, PickupSubgoal

from coevo.envs.babyai import scoring
from coevo.envs.babyai.game import Game, make_level, take_low_actions
from coevo.envs.babyai.view import DIRECTIONS

#: minigrid's low-level actions by number.
MOVES = ("left", "right", "forward", "pickup", "drop", "toggle", "done")
LEFT, RIGHT, FORWARD, TOGGLE = 0, 1, 2, 5
DONE = MOVES.index("done")
#: How many of the bot's next low-level moves the expert looks at (a macro's path stays
#: inside the 7x7 view, so it is never longer than about 20 moves).
LOOKAHEAD = 24

StateKey = tuple[Any, ...]


def state_key(env: Any) -> StateKey:
    """What makes two copies of a level the same for the bot and the goal: the agent's place,
    heading and load, every cell (doors' states included), and the goal's progress (a path
    that faced an object on the way may have done a "go to" the other did not)."""
    level = env.unwrapped
    grid = level.grid.encode().tobytes()
    return (
        tuple(int(v) for v in level.agent_pos),
        int(level.agent_dir),
        _kind(level.carrying),
        grid,
        progress(level.instrs),
    )


def _kind(obj: Any) -> tuple[str, str] | None:
    return None if obj is None else (obj.type, obj.color)


def progress(instr: Any) -> tuple[Any, ...]:
    """The state minigrid's goal verifier keeps, over the goal's instruction tree."""
    own = (
        getattr(instr, "a_done", None),
        getattr(instr, "b_done", None),
        getattr(instr, "lastStepMatch", None),
        _kind(getattr(instr, "preCarrying", None)),
    )
    parts = tuple(progress(getattr(instr, p)) for p in ("instr_a", "instr_b") if hasattr(instr, p))
    return (own, parts)


#: Path searches the bot may make while planning one move; more means it is looping.
SEARCHES_PER_MOVE = 1000


class BotLoops(Exception):
    """The bot's planning goes round without end (minigrid's explore subgoal can push and pop
    the same go-next-to subgoal forever: BabyAI-UnlockToUnlock seed 4, item 188, hangs the bot
    alone too)."""


class GuardedBot(BabyAIBot):
    """BabyAI's bot, stopped with BotLoops when planning one move takes more than
    SEARCHES_PER_MOVE path searches."""

    searches = 0

    def replan(self, action_taken: int | None = None) -> Any:
        self.searches = 0
        return super().replan(action_taken)

    def _shortest_path(self, accept_fn: Any, try_with_blockers: bool = False) -> Any:
        self.searches += 1
        if self.searches > SEARCHES_PER_MOVE:
            raise BotLoops(f"its planning made {SEARCHES_PER_MOVE} path searches for one move without end")
        return super()._shortest_path(accept_fn, try_with_blockers)


def start_bot(level: Any) -> BabyAIBot:
    """BabyAI's bot for a freshly reset level. Where the level starts with the agent carrying
    the object the goal moves (PutNext...Carrying), the bot's first two subgoals (go to that
    object, pick it up) are dropped: it looks for the object only on the grid, finds nothing
    and gives up (minigrid's documented limit), while the agent holds it already."""
    bot = GuardedBot(level)
    stack, carrying = bot.stack, level.carrying
    if (
        carrying is not None
        and len(stack) >= 2
        and isinstance(stack[-1], GoNextToSubgoal)
        and isinstance(stack[-2], PickupSubgoal)
        and isinstance(stack[-1].datum, ObjDesc)
        and any(obj is carrying for obj in stack[-1].datum.obj_set)
    ):
        del stack[-2:]
    return bot


class CannotClose(Exception):
    """The bot's plan needs a door closed, which AgentGym's actions cannot do."""


def plan(bot: BabyAIBot, previous: int | None) -> int:
    """The bot's next move, its plan kept to what AgentGym's actions can do: they cannot
    close a door (no "toggle" for an open one). The bot closes one to undo a move, which is
    dropped, or to open it again for an "open a door" goal when the door it chose was opened
    on the way; then it heads for a closed door the goal names, and with none left the goal
    cannot be reached (CannotClose)."""
    move = int(bot.replan(previous))
    for _ in range(SEARCHES_PER_MOVE):
        if not (move == TOGGLE and bot.stack and isinstance(bot.stack[-1], CloseSubgoal)):
            return move
        bot.stack.pop()
        if bot.stack and isinstance(bot.stack[-1], OpenSubgoal):
            level = bot.mission.unwrapped
            door = level.grid.get(*(level.agent_pos + level.dir_vec))
            closed = [d for d in goal_doors(level.instrs, door) if not d.is_open]
            if not closed:
                raise CannotClose("the goal opens a door that is open, and AgentGym's actions cannot close it")
            target = min(
                closed, key=lambda d: abs(d.cur_pos[0] - level.agent_pos[0]) + abs(d.cur_pos[1] - level.agent_pos[1])
            )
            bot.stack.pop()
            bot.stack.append(OpenSubgoal(bot))
            bot.stack.append(GoNextToSubgoal(bot, target, reason="Open"))
        move = next_move(bot)
    raise BotLoops("it asks again and again to close a door")


def next_move(bot: BabyAIBot) -> int:
    """The move the bot's current stack suggests (its `replan` without taking a move into
    account): the top subgoals are asked until one suggests a move; none left means done."""
    if isinstance(bot, GuardedBot):
        bot.searches = 0
    while bot.stack:
        move = bot.stack[-1].replan_before_action()
        if move is not None:
            bot._remember_current_state()
            return int(move)
    bot._remember_current_state()
    return DONE


def goal_doors(instr: Any, door: Any) -> list[Any]:
    """The doors of the goal's "open" instructions that name `door`."""
    if isinstance(instr, OpenInstr):
        return list(instr.desc.obj_set) if any(d is door for d in instr.desc.obj_set) else []
    found: list[Any] = []
    for part in ("instr_a", "instr_b"):
        if hasattr(instr, part):
            found += goal_doors(getattr(instr, part), door)
    return found


@dataclass
class Lookahead:
    """The bot's next moves on a copy of the replica, and the state after each of them."""

    moves: list[int]
    keys: list[StateKey]

    def furthest(self, key: StateKey, taken: list[int]) -> int:
        """How many of the bot's moves reach state `key` at the latest with the same object
        moves (pickups, drops, toggles) as `taken`; 0: none do. Without that condition a door
        closed and opened again, or an object picked up and put back, would look like the
        same state while the mission's progress differs."""
        acts = interactions(taken)
        return max(
            (i + 1 for i, k in enumerate(self.keys) if k == key and interactions(self.moves[: i + 1]) == acts),
            default=0,
        )


def predicted_place(start: tuple[tuple[int, ...], int], moves: list[int]) -> tuple[tuple[int, ...], int]:
    """Where `moves` put the agent (place, heading) if every forward move succeeds."""
    (x, y), heading = start
    for move in moves:
        if move == LEFT:
            heading = (heading - 1) % 4
        elif move == RIGHT:
            heading = (heading + 1) % 4
        elif move == FORWARD:
            dx, dy = DIRECTIONS[heading]
            x, y = x + dx, y + dy
    return (x, y), heading


def boxed(level: Any) -> bool:
    """Whether the level hides an object in a box (KeyInBox: the key the door needs). The bot
    finds no such object on the grid, and AgentGym's "toggle" is for doors only."""
    return any(cell is not None and cell.type == "box" and cell.contains is not None for cell in level.grid.grid)


def interactions(moves: list[int]) -> list[int]:
    """The moves that act on an object rather than the agent's place or heading."""
    return [m for m in moves if m not in (LEFT, RIGHT, FORWARD)]


class Expert:
    """The bot on a replica of one episode's level, kept in step with the episode."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.env: Any = make_level(game.level)
        self.env.reset(seed=game.seed)
        self.bot = start_bot(self.env.unwrapped)
        self.synced = 0  # text actions (`game.moves`) the replica has followed
        self.previous: int | None = None  # the replica's last low-level action
        self.suggestion: int | None = None  # the bot's plan in the replica's state, once made
        self.ahead: Lookahead | None = None  # the look-ahead from the replica's state, once made
        #: Why the last `next_action` had no action (for bench/babyai.py's list), else None.
        self.failure: str | None = None

    # ------------------------------------------------------------------ the replica
    def _plan(self) -> int:
        if self.suggestion is None:
            self.suggestion = plan(self.bot, self.previous)
        return self.suggestion

    def _lookahead(self) -> Lookahead:
        """The bot's moves from its current plan on (on a copy), and the state after each."""
        if self.ahead is None:
            self.ahead = self._play_ahead(LOOKAHEAD)
        return self.ahead

    def _play_ahead(self, count: int) -> Lookahead:
        """The bot's next `count` moves at most, played on a copy of the replica."""
        move = self._plan()  # before the copy: the copied bot must have planned in this state
        env, bot = copy.deepcopy((self.env, self.bot))
        moves: list[int] = []
        keys: list[StateKey] = []
        while len(moves) < count and move != DONE:
            _, _, terminated, _, _ = env.unwrapped.step(move)
            moves.append(move)
            keys.append(state_key(env))
            if terminated or len(moves) == count:
                break
            try:
                move = plan(bot, move)
            except Exception:  # the bot gives up further on: look no further
                break
        return Lookahead(moves, keys)

    def _follow(self, taken: list[int], key: StateKey | None) -> None:
        """Bring the replica past one text action's low-level actions `taken`. Where they land
        on the bot's own path (as the expert's choices do), the bot plays its own moves up to
        that point on the replica (the same level state), so its plan is the one it made; else
        it follows the moves taken one by one in its advising mode. Either way the result
        depends only on the actions taken, so a session rebuilt by replaying them has the same
        expert. `key`: the state they led to,
        if known (the episode's current one), else found on a copy."""
        if key is None:
            target = copy.deepcopy(self.env.unwrapped)
            for move in taken:
                target.step(move)
            key = state_key(target)
        reached = self._lookahead().furthest(key, taken)
        for i in range(reached or len(taken)):
            move = self._plan() if reached else taken[i]  # the bot's own moves, or the ones taken
            self.env.step(move)
            self.previous, self.suggestion = move, None
        self.ahead = None

    def next_low_action(self) -> int | None:
        """The bot's next low-level action in the episode's current state."""
        try:
            moves = self.game.moves
            while self.synced < len(moves):
                latest = self.synced == len(moves) - 1
                self._follow(moves[self.synced], state_key(self.game.env) if latest else None)
                self.synced += 1
            return self._plan()
        except Exception as exc:  # the bot gives up (e.g. nothing left to explore): no expert action
            self.failure = f"BabyAI's bot failed: {type(exc).__name__} {exc}".strip()
            if boxed(self.game.env.unwrapped):
                self.failure += " (an object it needs is inside a box: AgentGym's actions cannot open a box)"
            return None

    # ------------------------------------------------------------------ the choice
    def _choose(self) -> str | None:
        """The text action that lands furthest along the bot's next moves in no more low-level
        moves than the bot's (one that ends the episode there is taken at once); None if none
        lands on its path."""
        ahead = self._lookahead()
        game = self.game
        best: tuple[int, int, str] | None = None  # (reached, -moves taken, action)
        level = game.env.unwrapped
        start = (tuple(int(v) for v in level.agent_pos), int(level.agent_dir))
        on_path = {key[:2] for key in ahead.keys}
        for action, low in game.view.actions.items():
            if not low or predicted_place(start, low) not in on_path:
                continue  # it cannot land on the bot's path: not worth a copy of the level
            env = copy.deepcopy(level)
            _, reward, terminated, taken = take_low_actions(env, game.image, low)
            if scoring.episode_done(terminated, reward):
                return action
            reached = ahead.furthest(state_key(env), taken)
            if reached and len(taken) <= reached and (best is None or (reached, -len(taken)) > best[:2]):
                best = (reached, -len(taken), action)
        return None if best is None else best[2]

    def next_action(self) -> str | None:
        """The text action that takes the bot furthest along its plan, or None (`failure` says why)."""
        self.failure = None
        low = self.next_low_action()
        if low is None:
            return None
        action = self._choose() if low != DONE else None
        if action is None:
            move = MOVES[low] if 0 <= low < len(MOVES) else str(low)
            self.failure = f"the bot's next move is {move!r}, which no available text action makes"
        return action

    def close(self) -> None:
        self.env.close()
