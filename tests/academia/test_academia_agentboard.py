"""AgentBoard-format academia files (made-up people and papers, questions of the file's kinds):
the network built on load makes each recorded answer what the tools return, the expert reaches
it through the tools on both routes (a paper's authors through paperNodeCheck's node), and a
question the rules do not know or whose answer contradicts an earlier one is an exception with
its reason."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coevo.envs.academia.agentboard import RULES
from coevo.envs.academia.env import AcademiaEnv
from coevo.envs.academia.file_expert import SOLVERS
from coevo.envs.academia.file_network import BUILDERS
from coevo.envs.registry import make
from tests.toolusage.agentboard_files import agentboard_row, play_expert, write_agentboard

NUMBER = " Please give me a numerical value as an answer."
AS_LIST = " Please answer in the form of a list ['author1', 'author2', ...]."
QUESTIONS: list[tuple[str, Any]] = [
    ("How many mutual collaborators do Ana Quill and Bo Tarrant share?" + NUMBER, 3),
    ("Which paper by Ana Quill has the most citations in the DBLP citation network?", "Tidal Models of Erosion"),
    (
        "Who are the co-authors with whom Ana Quill has written the paper that has the highest number of "
        "citations in the DBLP citation network?" + AS_LIST,
        ["Cy Varden", "Dee Holm"],
    ),
    ("Who has the most collaborations with Ana Quill in the DBLP citation network?", "Dee Holm"),
    (
        "How many citations do papers co-authored by Ana Quill and Bo Tarrant have in the DBLP citation network?"
        + NUMBER,
        40,
    ),
    ("Is Cy Varden affiliated with the same organization as Dee Holm? Please answer 'Yes' or 'No'.", "No"),
    (
        "How many papers within the DBLP citation network reference the work titled 'Tidal Models of Erosion'?"
        + NUMBER,
        4,
    ),
    (
        "Which paper was published first: 'Tidal Models of Erosion' or 'Sand Ripples Revisited'?",
        "Sand Ripples Revisited",
    ),
    ("Of Bo Tarrant's collaborators, who are from different organizations than Bo Tarrant?" + AS_LIST, ["Fay Orr"]),
    # from a paper to its authors: paperNodeCheck's node lists them
    ("Who wrote the paper titled 'Sand Ripples Revisited'?" + AS_LIST, ["Eli Brandt"]),
    (
        "Which organizations were involved in the research titled 'Wave Spectra of Bays'? Please answer in the "
        "form of a list ['org1', 'org2', ...]",
        ["Harbor Institute", "Tidewater College"],
    ),
    (
        "Do the authors of 'Sand Ripples Revisited' and 'Tidal Models of Erosion' have any overlap? Please respond "
        "with 'Yes' or 'No'.",
        "No",
    ),
    (
        "Do the authors of 'Coastal Drift Patterns' and 'Reef Growth Rates' have any overlap? Please respond with "
        "'Yes' or 'No'.",
        "Yes",
    ),
    # contradicts the first question's answer
    ("How many mutual collaborators do Ana Quill and Bo Tarrant share?" + NUMBER, 1),
    # not a kind the rules know
    ("What is the most surprising result of Ana Quill's work?", "Tides"),
]


def _load(tmp_path: Path) -> AcademiaEnv:
    rows = (agentboard_row(goal, answer, "academia", difficulty="easy") for goal, answer in QUESTIONS)
    write_agentboard(tmp_path / "academia.jsonl", rows)
    env = make("academia", data_dir=str(tmp_path), train_tasks=5)
    assert isinstance(env, AcademiaEnv)
    return env


def test_the_expert_reaches_each_recorded_answer_through_the_tools(tmp_path: Path) -> None:
    env = _load(tmp_path)
    planned = [t for t in env.taskset.splits["test"] if t.plan]
    assert [t.index for t in planned] == list(range(13))
    for task in planned:
        _, last = play_expert(env, task.task_id)[-1]
        reward, info = last.reward, last.info
        assert (reward, info["success"]) == (1.0, True), task.goal
        assert any(line.startswith(("Action: load", "Action: neighbour")) for line in task.plan)
    env.agentgym = True
    for task in planned:
        assert play_expert(env, task.task_id)[-1][1].reward == 1.0  # AgentGym's academia reward: the raw rate


def test_the_network_holds_the_named_people_and_papers(tmp_path: Path) -> None:
    env = _load(tmp_path)
    net = env.shared.file_network
    assert net is not None and net is not env.shared.network  # generated tasks keep their own
    assert {"Ana Quill", "Bo Tarrant", "Cy Varden", "Dee Holm", "Fay Orr", "Eli Brandt"} <= set(net.orgs)
    assert sorted(net.papers["Tidal Models of Erosion"].authors) == ["Ana Quill", "Cy Varden", "Dee Holm"]
    assert len(net.citations["Tidal Models of Erosion"]) == 4
    assert net.papers["Sand Ripples Revisited"].year < net.papers["Tidal Models of Erosion"].year
    assert sorted(net.orgs[a] for a in net.papers["Wave Spectra of Bays"].authors) == [
        "Harbor Institute",
        "Tidewater College",
    ]
    env.reset(task_id="file-0")
    assert env.step("Action: authorNodeCheck with Action Input: {'node': 'Nobody Here'}").observation == (
        "Please load the AuthorNet first."
    )
    env.step("Action: loadAuthorNet with Action Input: {}")
    assert env.step("Action: authorNodeCheck with Action Input: {'node': 'Nobody Here'}").observation == (
        "There is no node named Nobody Here in the AuthorNet."
    )
    env.step("Action: loadPaperNet with Action Input: {}")
    node = env.step("Action: paperNodeCheck with Action Input: {'node': 'Sand Ripples Revisited'}").observation
    assert node.startswith("{'authors': ['Eli Brandt'], 'year': ") and "'doc_type': " in node


def test_contradicted_and_unknown_questions_are_exceptions(tmp_path: Path) -> None:
    env = _load(tmp_path)
    contradicted, unknown = env.taskset.splits["test"][13:]
    assert contradicted.note == "the tools answer 3, the file records 1"
    assert unknown.kind is None and unknown.note == "the rules do not recognise the question"
    for task in (contradicted, unknown):
        assert task.plan == ()
        env.reset(task_id=task.task_id)
        assert env.expert_action() is None


def test_every_rule_has_a_builder_and_a_solver() -> None:
    kinds = [rule["kind"] for rule in RULES["rules"]]
    assert len(kinds) == len(set(kinds))
    for kind in kinds:
        assert kind in BUILDERS and kind in SOLVERS, kind
