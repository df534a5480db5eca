"""Academia's tasks: generated questions of the kinds in data/templates.json (answers found by
the expert with the tools), and AgentBoard's `academia.jsonl` loaded from a directory.

A question is generated only where its answer is unique (one most-cited paper, one top
collaborator) and the pair it names has worked together where the kind needs it. AgentBoard's
file names DBLP's authors and papers, which the generated network lacks (the original reads
DBLP pickles downloaded separately): its questions are served on a network built from their
recorded answers (envs/academia/agentboard.py).
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from coevo.envs.academia import agentboard, expert
from coevo.envs.academia.network import DATA, Network
from coevo.envs.academia.toolkit import AcademiaToolkit
from coevo.envs.toolusage.spec import ToolSpec
from coevo.envs.toolusage.tasks import ToolTask, read_agentboard

TEMPLATES: dict[str, Any] = json.loads((DATA / "templates.json").read_text(encoding="utf-8"))
#: AgentGym's Academia file has 20 tasks; the generated test split has as many.
AGENTGYM_TASKS = 20


def _unique_max(values: dict[str, int]) -> bool:
    top = max(values.values(), default=None)
    return top is not None and list(values.values()).count(top) == 1


def _usable(kind: str, net: Network, params: dict[str, Any]) -> bool:
    author, other = params["author"], params["author2"]
    if kind == "most_cited_paper":
        return _unique_max({t: net.papers[t].n_citation for t in net.author_papers(author)})
    if kind == "top_collaborator":
        return _unique_max({o: len(net.shared_papers(author, o)) for o in net.coauthors(author)})
    if kind == "joint_citations":
        return bool(net.shared_papers(author, other))
    if kind == "mutual_collaborators":
        return author != other
    return True


def generate(
    specs: tuple[ToolSpec, ...], net: Network, split: str, count: int, seed: int, exclude: frozenset[str] = frozenset()
) -> list[ToolTask]:
    """`count` questions cycling through the kinds; none whose text is in `exclude` (the held-out
    split's questions, when generating the training split)."""
    rng = random.Random(f"academia-tasks|{split}|{seed}")
    kinds = sorted(TEMPLATES["templates"])
    authors, papers = sorted(net.orgs), sorted(net.papers)
    tasks: list[ToolTask] = []
    while len(tasks) < count:
        kind = kinds[len(tasks) % len(kinds)]
        author = rng.choice(authors)
        coauthors = net.coauthors(author)
        params = {
            "author": author,
            "author2": rng.choice(coauthors) if coauthors and rng.random() < 0.8 else rng.choice(authors),
            "paper": rng.choice(papers),
        }
        if not _usable(kind, net, params) or TEMPLATES["templates"][kind].format(**params) in exclude:
            continue
        answer, plan = expert.solve(kind, AcademiaToolkit(specs, net), params)
        index = len(tasks)
        tasks.append(
            ToolTask(
                task_id=f"{split}-{index}",
                goal=TEMPLATES["templates"][kind].format(**params),
                subgoals=(answer,),
                answer=answer,
                goal_type=0,
                kind=kind,
                plan=tuple(plan),
                index=index,
            )
        )
    return tasks


def load_file(specs: tuple[ToolSpec, ...], data_dir: str, seed: int = 0) -> tuple[list[ToolTask], Network]:
    """AgentBoard's academia tasks in file order (AgentGym's index) and the network built from
    their answers, planned where recognised and reachable (envs/academia/agentboard.py)."""
    path = Path(data_dir)
    path = path / "academia.jsonl" if path.is_dir() else path
    return agentboard.load_tasks(specs, read_agentboard(path, "file"), seed)
