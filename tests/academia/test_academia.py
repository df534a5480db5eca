"""Academia env: the contract, the expert on generated tasks, the tools' answers after loading
(unknown names, missing edges, a name that cannot be a key), rewards and AgentBoard's file."""

from __future__ import annotations

import json
from pathlib import Path

from coevo.envs import check_env
from coevo.envs.registry import make
from coevo.envs.toolusage.tasks import ToolTask
from tests.academia.helpers import env_with

SMALL = {"train_tasks": 20, "test_tasks": 20}


def test_academia_passes_the_env_contract() -> None:
    check_env("academia", **SMALL)


def test_the_expert_wins_every_generated_task() -> None:
    env = make("academia")
    assert env.splits() == {"train": 500, "test": 20}
    for task_id in [*env.task_ids("test"), *env.task_ids("train")]:
        env.reset(task_id=task_id)
        result = None
        while (action := env.expert_action()) is not None:
            result = env.step(action)
        assert result is not None and (result.reward, result.info["success"]) == (1.0, True), task_id


def test_the_tools_answer_like_the_original_after_loading() -> None:
    env = env_with([ToolTask("t", "Anything.", ("x",), "x")])
    env.reset(task_id="t")
    network = env.shared.network
    title = sorted(network.papers)[0]
    author = sorted(network.orgs)[0]
    stranger = next(a for a in sorted(network.orgs) if a != author and a not in network.coauthors(author))
    env.step("Action: loadPaperNet with Action Input: {}")
    env.step("Action: loadAuthorNet with Action Input: {}")

    def observe(tool: str, arguments: dict[str, object]) -> str:
        return env.step(f"Action: {tool} with Action Input: {arguments!r}").observation

    assert (
        observe("paperNodeCheck", {"node": "No Such Paper"}) == "There is no node named No Such Paper in the PaperNet."
    )
    assert observe("paperNodeCheck", {"node": ["a list"]}) == "TypeError(unhashable type: 'list')"
    node = observe("paperNodeCheck", {"node": title})
    assert node.startswith(f"{{'authors': {network.papers[title].authors!r}, 'year': ")
    assert "'n_citation': " in node and "'doc_type': " in node
    assert (
        observe("authorEdgeCheck", {"node1": author, "node2": stranger})
        == f"There is no edge between {author} and {stranger}."
    )
    assert observe("neighbourCheck", {"graph": "CitationNet", "node": title}) == (
        "AttributeError('str' object has no attribute 'neighbors')"
    )
    assert observe("authorNodeCheck", {"node": author}).startswith(f"{{'name': '{author}', 'org': ")


def test_agentgym_reward_is_the_raw_progress_rate() -> None:
    env = env_with([ToolTask("t", "Two parts.", ("a", 3), 3)])
    env.agentgym = True
    env.reset(task_id="t")
    assert env.step("Action: finish with Action Input: {'answer': 'a'}").reward == 0.5
    env.agentgym = False
    env.reset(task_id="t")
    native = env.step("Action: finish with Action Input: {'answer': 'a'}")
    assert (native.reward, native.info["success"]) == (0.5, False)


def test_agentboard_files_load_in_order(tmp_path: Path) -> None:
    rows = [
        {
            "id": 7,
            "goal": "Who wrote it?",
            "subgoals": ["Someone"],
            "additional_info": {"answer": "Someone", "goal_type": 0, "tool": "academia"},
            "difficulty": "easy",
        },
        {
            "id": 8,
            "goal": "How many?",
            "subgoals": [2],
            "additional_info": {"answer": 2, "goal_type": 0, "tool": "academia"},
            "difficulty": "easy",
        },
    ]
    (tmp_path / "academia.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    env = make("academia", data_dir=str(tmp_path), train_tasks=5)
    assert env.task_ids("test") == ["file-7", "file-8"]
    env.agentgym = True
    assert env.agentgym_profile.adapt(env).task(1) == "file-8"
    env.reset(task_id="file-8")
    assert env.expert_action() is None
    assert env.step("Action: finish with Action Input: {'answer': 2}").reward == 1.0
