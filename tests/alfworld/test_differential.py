"""Native engine vs the real one (TextWorld + fast-downward), command for command.

On 204 generated games (every task type, both dialects, small rooms so TextWorld stays quick)
and on real ALFWorld games when `$ALFWORLD_DATA` holds some, both engines get the same
commands: the expert's, random admissible ones, and inadmissible ones. Observations,
admissible-command lists, `won` (hence reward and done) must be identical after every command.
Real games are slow in TextWorld (seconds per reset); `COEVO_ALFWORLD_REAL_GAMES` sets how many
are played (default 10, "all" for all). Exported game folders are also read by ALFWorld's own
loader (`AlfredTWEnv.collect_game_files`) and played by its handcoded expert, unchanged.
"""

from __future__ import annotations

import os
import random
import re
from pathlib import Path

import pytest

from coevo.envs.alfworld import engine, expert
from coevo.envs.alfworld.dialects import dialect
from coevo.envs.alfworld.game import Game, compile_game
from coevo.envs.alfworld.generator import Knobs, generate
from coevo.envs.alfworld.scoring import TASK_TYPES
from coevo.envs.alfworld.textworld_backend import available

pytestmark = [pytest.mark.skipif(not available(), reason="needs the alfworld extra (TextWorld)"), pytest.mark.slow]

GAMES = 204
JUNK = [
    "help",
    "look",
    "inventory",
    "Look",
    "go to the fridge",
    "take all",
    "put it down",
    "",
    "examine room",
    "open door 1",
    "use",
]


def _junk(game: Game, rng: random.Random) -> str:
    options = JUNK + [
        "go to " + rng.choice(game.rec_names),
        f"take {rng.choice(game.obj_names)} from {rng.choice(game.rec_names)}",
        f"move {rng.choice(game.obj_names)} to {rng.choice(game.rec_names)}",
        f"put {rng.choice(game.obj_names)} in/on {rng.choice(game.rec_names)}",
        "examine " + rng.choice(game.obj_names),
        "use " + rng.choice(game.obj_names),
        f"heat {rng.choice(game.obj_names)} with {rng.choice(game.rec_names)}",
    ]
    return rng.choice(options)


def _commands(game: Game, state: engine.State, rng: random.Random, mode: int, k: int) -> str | None:
    if mode == 0 or (mode == 1 and k >= 5):
        turn = expert.next_turn(game, state)
        return turn.action if turn else None
    if mode == 2 and k >= 10:
        return None
    if rng.random() < 0.25:
        return _junk(game, rng)
    return rng.choice(engine.admissible(game, state))


def _play(game: Game, tw, rng: random.Random, mode: int, limit: int = 40) -> tuple[int, bool]:
    """Play one game on both engines; returns (commands compared, won)."""
    state = engine.State(game)
    first = tw.reset()
    assert first.feedback == engine.intro(game, state)
    assert first.admissible == engine.admissible(game, state)
    assert first.won is False
    for k in range(limit):
        command = _commands(game, state, rng, mode, k)
        if command is None:
            break
        native = engine.step(game, state, command)
        real = tw.step(command)
        where = f"{game.name} step {k} {command!r}"
        assert real.feedback == native.feedback, where
        assert real.admissible == engine.admissible(game, state), where
        assert real.won == native.won, where
        if native.won:
            return k + 1, True
    return limit, False


@pytest.fixture(scope="module")
def textworld():
    from coevo.envs.alfworld.textworld_backend import TextWorldGame

    tw = TextWorldGame()
    yield tw
    tw.close()


def test_generated_games_play_identically(textworld):
    from coevo.envs.alfworld.export import game_data

    rng = random.Random(2024)
    wins = steps = 0
    for i in range(GAMES):
        dialect_name = ("2.1.2", "2.1.1")[i % 2]
        knobs = Knobs(
            task_type=TASK_TYPES[i % 6],
            max_receptacles=rng.randint(3, 6),
            distractors=rng.randint(0, 3),
            max_instances=2,
            closed=rng.random(),
        )
        scene = generate(knobs, 31_000 + i)
        textworld.load(game_data(scene, dialect_name))
        mode = (i // 2) % 3  # expert, random then expert, random
        n, won = _play(compile_game(scene, dialect(dialect_name)), textworld, rng, mode)
        steps += n
        wins += won
        if mode < 2:
            assert won, f"the expert did not win game {i}"
    assert steps > GAMES * 4 and wins >= GAMES * 2 // 3


def _real_games() -> list[Path]:
    root = os.environ.get("ALFWORLD_DATA")
    if not root:
        return []
    from coevo.envs.alfworld.tasks import RealCatalog

    try:
        catalog = RealCatalog(root)
    except FileNotFoundError:
        return []
    games = sorted(catalog.paths.values())
    wanted = os.environ.get("COEVO_ALFWORLD_REAL_GAMES", "10")
    if wanted != "all":
        games = random.Random(0).sample(games, min(int(wanted), len(games)))
    return games


def test_real_games_play_identically(textworld):
    from coevo.envs.alfworld.gamefile import load_game_file

    games = _real_games()
    if not games:
        pytest.skip("no ALFWorld games under $ALFWORLD_DATA")
    rng = random.Random(7)
    for i, path in enumerate(games):
        gf = load_game_file(path)
        textworld.load(path)
        won = _play(compile_game(gf.scene, gf.dialect), textworld, rng, mode=i % 2, limit=25)[1]
        assert won or i % 2 == 1, path


def test_env_on_the_textworld_backend():
    from coevo.envs.registry import make

    options = {"knobs": "max_receptacles=5&distractors=2"}
    native, real = make("alfworld", **options), make("alfworld", backend="textworld", **options)
    try:
        for task_id in ("gen-1?task_type=pick_heat_then_place_in_recep", "valid_unseen-4"):
            a, b = native.reset(task_id=task_id), real.reset(task_id=task_id)
            assert a.observation == b.observation and a.info == b.info
            while (action := native.expert_action()) is not None:
                assert real.expert_action() == action
                # the other dialect's put first: with default options both answer "Nothing happens."
                other = re.sub(r"^move (.+) to (.+)$", r"put \1 in/on \2", action)
                for command in (
                    (other, action, "put everything away") if other != action else (action, "put everything away")
                ):
                    x, y = native.step(command), real.step(command)
                    assert (x.observation, x.reward, x.done, x.info) == (y.observation, y.reward, y.done, y.info)
                    if x.done:
                        break
                if x.done:
                    break
            assert x.reward == 1.0
    finally:
        real.close()


#: The parts of ALFWorld 0.4.2's configs/base_config.yaml that collect_game_files reads, verbatim.
ALFWORLD_CONFIG = {
    "dataset": {
        "data_path": "$ALFWORLD_DATA/json_2.1.1/train",
        "eval_id_data_path": "$ALFWORLD_DATA/json_2.1.1/valid_seen",
        "eval_ood_data_path": "$ALFWORLD_DATA/json_2.1.1/valid_unseen",
        "num_train_games": -1,
        "num_eval_games": -1,
    },
    "env": {"task_types": [1, 2, 3, 4, 5, 6], "goal_desc_human_anns_prob": 0},
}


def _handcoded_expert_env():  # type: ignore[no-untyped-def]
    """TextWorld wrapped as ALFWorld wraps it for DAgger training: demangler, infos, handcoded expert."""
    import textworld
    from alfworld.agents.environment.alfred_tw_env import AlfredDemangler, AlfredExpert, AlfredInfos
    from textworld.envs import PddlEnv

    infos = textworld.EnvInfos(admissible_commands=True, won=True, facts=True, extras=["gamefile", "expert_plan"])
    return AlfredExpert(AlfredInfos(AlfredDemangler(PddlEnv(infos), shuffle=False)), expert_type="handcoded")


@pytest.mark.parametrize("dialect_name", ["2.1.2", "2.1.1"])
def test_alfworlds_loader_and_handcoded_expert_use_exported_games(tmp_path, monkeypatch, dialect_name):
    from alfworld.agents.environment.alfred_tw_env import AlfredTWEnv

    from coevo.envs.alfworld.export import export_game

    exported = []
    for i in range(12):
        knobs = Knobs(task_type=TASK_TYPES[i % 6], max_receptacles=5, distractors=2, max_instances=2)
        exported.append(export_game(generate(knobs, 52_000 + i), tmp_path, "valid_unseen", i, dialect_name))
    monkeypatch.setenv("ALFWORLD_DATA", str(tmp_path))
    loader = AlfredTWEnv.__new__(AlfredTWEnv)  # its __init__ only reads the config and calls this
    loader.config, loader.train_eval = ALFWORLD_CONFIG, "eval_out_of_distribution"
    loader.collect_game_files()
    assert sorted(loader.game_files) == sorted(str(p) for p in exported)
    if dialect_name == "2.1.1":
        return  # ALFWorld 0.4.2's handcoded expert says "move X to Y", which 2.1.1 games do not know

    random.seed(0)  # the expert falls back to a random admissible command when it repeats itself
    env = _handcoded_expert_env()
    won = 0
    for path in exported:
        env.load(str(path))
        state = env.reset()
        for _ in range(60):
            if state["won"]:
                break
            state, _, _ = env.step(state["extra.expert_plan"][0])
        won += bool(state["won"])
    assert won == len(exported)
