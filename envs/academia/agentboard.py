"""AgentBoard's `academia.jsonl`, loaded with a citation network built from its answers and,
for each question the rules recognise (data/agentboard.json), the expert's plan.

The loader recognises each question's kind and names, lets that kind's builder add what the
recorded answer needs to one network shared by the file's questions (envs/academia/
file_network.py), then has the expert answer every question through the tools on the finished
network (envs/academia/file_expert.py). A plan is kept only where the tools' answer is the
recorded one; any other question is served without a plan and its note says why.
"""

from __future__ import annotations

import json
import re
from typing import Any

from coevo.envs.academia.expert import Solver
from coevo.envs.academia.file_expert import SOLVERS, NoSingleAnswer
from coevo.envs.academia.file_network import BUILDERS, Builder
from coevo.envs.academia.network import DATA, Network
from coevo.envs.academia.toolkit import AcademiaToolkit
from coevo.envs.toolusage.env import ToolEnv, tool_line
from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.tasks import ToolTask, task_from_row

RULES: dict[str, Any] = json.loads((DATA / "agentboard.json").read_text(encoding="utf-8"))


def recognise(goal: str) -> tuple[str, dict[str, str]] | None:
    """The first rule whose pattern matches the question: its kind and the names it captured."""
    for rule in RULES["rules"]:
        m = re.search(rule["pattern"], goal, re.IGNORECASE)
        if m is not None:
            return str(rule["kind"]), {k: v.strip() for k, v in m.groupdict().items() if v is not None}
    return None


def _recorded(row: dict[str, Any]) -> Any:
    subgoals = row["subgoals"]
    return subgoals[-1] if subgoals else row["additional_info"].get("answer")


def _same_answer(found: Any, recorded: Any) -> bool:
    """The tools' answer against the recorded one as `finish` records it (a list sorted)."""
    if isinstance(found, list) and isinstance(recorded, list):
        return sorted(map(str, found)) == sorted(map(str, recorded))
    return bool(found == recorded) and type(found) is type(recorded)


def build_network(rows: list[dict[str, Any]], seed: int = 0) -> Network:
    """One network holding what every recognised question's recorded answer needs."""
    builder = Builder(Network(), seed)
    for row in rows:
        found = recognise(str(row["goal"]))
        if found is not None:
            BUILDERS[found[0]](builder, found[1], _recorded(row))
    return builder.net


def plan_task(specs: tuple[ToolSpec, ...], net: Network, row: dict[str, Any], index: int) -> ToolTask:
    found = recognise(str(row["goal"]))
    if found is None:
        return task_from_row(row, index, note="the rules do not recognise the question")
    kind, params = found
    solver = Solver(AcademiaToolkit(specs, net))
    try:
        answer = SOLVERS[kind](solver, params)
    except NoSingleAnswer as exc:
        return task_from_row(row, index, kind, note=f"no single answer in the network: {exc}")
    except (KeyError, TypeError, ValueError) as exc:  # a tool answered an error text where a node was read
        return task_from_row(row, index, kind, note=f"a tool call failed: {type(exc).__name__}({exc})")
    solver.lines.append(tool_line("finish", {"answer": answer}))
    recorded = _recorded(row)
    if not _same_answer(answer, recorded):
        return task_from_row(row, index, kind, note=f"the tools answer {answer!r}, the file records {recorded!r}")
    if len(solver.lines) > ToolEnv.max_steps:
        return task_from_row(row, index, kind, note=f"the plan takes {len(solver.lines)} steps, over the cap")
    return task_from_row(row, index, kind, solver.lines)


def load_tasks(
    specs: tuple[ToolSpec, ...], rows: list[dict[str, Any]], seed: int = 0
) -> tuple[list[ToolTask], Network]:
    """The file's questions in order (AgentGym's index), planned where they can be, and the
    network built for them."""
    net = build_network(rows, seed)
    return [plan_task(specs, net, row, index) for index, row in enumerate(rows)], net
