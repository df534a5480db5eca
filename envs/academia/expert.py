"""Academia's expert: answers a question of a known kind by calling the network's tools and
records the calls as the plan it replays."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from coevo.envs.academia.toolkit import AcademiaToolkit
from coevo.envs.toolusage.env import tool_line


class Solver:
    def __init__(self, toolkit: AcademiaToolkit) -> None:
        self.toolkit = toolkit
        self.lines: list[str] = []

    def call(self, tool: str, **arguments: Any) -> Any:
        self.lines.append(tool_line(tool, arguments))
        return self.toolkit.call(tool, arguments)


def _paper_year(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadPaperNet")
    return s.call("paperNodeCheck", node=p["paper"])["year"]


def _paper_venue(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadPaperNet")
    return s.call("paperNodeCheck", node=p["paper"])["venue"]


def _author_org(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    return s.call("authorNodeCheck", node=p["author"])["org"]


def _coauthor_count(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    return len(s.call("neighbourCheck", graph="AuthorNet", node=p["author"]))


def _mutual_collaborators(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    first = s.call("neighbourCheck", graph="AuthorNet", node=p["author"])
    second = s.call("neighbourCheck", graph="AuthorNet", node=p["author2"])
    return len(set(first) & set(second))


def _most_cited_paper(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    papers = s.call("authorNodeCheck", node=p["author"])["papers"]
    s.call("loadPaperNet")
    citations = {title: s.call("paperNodeCheck", node=title)["n_citation"] for title in papers}
    return max(citations, key=lambda title: citations[title])


def _top_collaborator(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    counts = {
        other: len(s.call("authorEdgeCheck", node1=p["author"], node2=other)["collaborative_papers"])
        for other in s.call("neighbourCheck", graph="AuthorNet", node=p["author"])
    }
    return max(counts, key=lambda other: counts[other])


def _joint_citations(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    papers = s.call("authorEdgeCheck", node1=p["author"], node2=p["author2"])["collaborative_papers"]
    s.call("loadPaperNet")
    return sum(s.call("paperNodeCheck", node=title)["n_citation"] for title in papers)


def _paper_neighbours(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadPaperNet")
    return len(s.call("neighbourCheck", graph="PaperNet", node=p["paper"]))


KINDS: dict[str, Callable[[Solver, Mapping[str, Any]], Any]] = {
    "paper_year": _paper_year,
    "paper_venue": _paper_venue,
    "author_org": _author_org,
    "coauthor_count": _coauthor_count,
    "mutual_collaborators": _mutual_collaborators,
    "most_cited_paper": _most_cited_paper,
    "top_collaborator": _top_collaborator,
    "joint_citations": _joint_citations,
    "paper_neighbours": _paper_neighbours,
}


def solve(kind: str, toolkit: AcademiaToolkit, params: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """(answer, action lines ending with finish) for a question of `kind`."""
    solver = Solver(toolkit)
    answer = KINDS[kind](solver, params)
    solver.lines.append(tool_line("finish", {"answer": answer}))
    return answer, solver.lines
