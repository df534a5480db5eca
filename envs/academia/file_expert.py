"""The expert for AgentBoard's academia question kinds (data/agentboard.json): each answer is
worked out from what the tools return (author nodes, co-author edges, paper nodes with their
authors, citation neighbours); the calls are the plan it replays."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from coevo.envs.academia.expert import Solver


class NoSingleAnswer(LookupError):
    """The tools' answers leave a tie where the question asks for one."""


def _only(counts: Mapping[str, int]) -> str:
    top = max(counts.values(), default=None)
    winners = [k for k, n in counts.items() if n == top]
    if len(winners) != 1:
        raise NoSingleAnswer(f"{len(winners)} tie")
    return winners[0]


def _papers(s: Solver, author: str) -> list[str]:
    papers: list[str] = s.call("authorNodeCheck", node=author)["papers"]
    return papers


def _coauthors(s: Solver, author: str) -> list[str]:
    found: list[str] = s.call("neighbourCheck", graph="AuthorNet", node=author)
    return found


def _paper_nodes(s: Solver, titles: list[str]) -> dict[str, dict[str, Any]]:
    s.call("loadPaperNet")
    return {title: s.call("paperNodeCheck", node=title) for title in titles}


def _joint_counts(s: Solver, author: str) -> dict[str, int]:
    return {
        o: len(s.call("authorEdgeCheck", node1=author, node2=o)["collaborative_papers"]) for o in _coauthors(s, author)
    }


def _most_cited_title(s: Solver, author: str) -> str:
    s.call("loadAuthorNet")
    nodes = _paper_nodes(s, _papers(s, author))
    return _only({t: int(n["n_citation"]) for t, n in nodes.items()})


def mutual_collaborators(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    return len((set(_coauthors(s, p["author"])) & set(_coauthors(s, p["author2"]))) - {p["author"], p["author2"]})


def most_cited_paper(s: Solver, p: Mapping[str, Any]) -> Any:
    return _most_cited_title(s, p["author"])


def top_paper_coauthors(s: Solver, p: Mapping[str, Any]) -> Any:
    """The co-authors whose edge with the author lists the author's most cited paper."""
    title = _most_cited_title(s, p["author"])
    return sorted(
        o
        for o in _coauthors(s, p["author"])
        if title in s.call("authorEdgeCheck", node1=p["author"], node2=o)["collaborative_papers"]
    )


def top_venue(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    nodes = _paper_nodes(s, _papers(s, p["author"]))
    return _only(Counter(str(n["venue"]) for n in nodes.values()))


def joint_citations(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    edge = s.call("authorEdgeCheck", node1=p["author"], node2=p["author2"])
    return sum(int(n["n_citation"]) for n in _paper_nodes(s, edge["collaborative_papers"]).values())


def top_collaborator(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    return _only(_joint_counts(s, p["author"]))


def top_keyword(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    nodes = _paper_nodes(s, _papers(s, p["author"]))
    return _only(Counter(str(k) for n in nodes.values() for k in n["keywords"]))


def author_org(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    return s.call("authorNodeCheck", node=p["author"])["org"]


def same_org(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadAuthorNet")
    orgs = [s.call("authorNodeCheck", node=p[k])["org"] for k in ("author", "author2")]
    return "Yes" if orgs[0] == orgs[1] else "No"


def citing_count(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadPaperNet")
    return len(s.call("neighbourCheck", graph="PaperNet", node=p["paper"]))


def _two(s: Solver, p: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    nodes = _paper_nodes(s, [p["paper"], p["paper2"]])
    return nodes[p["paper"]], nodes[p["paper2"]]


def more_cited(s: Solver, p: Mapping[str, Any]) -> Any:
    first, second = _two(s, p)
    if first["n_citation"] == second["n_citation"]:
        raise NoSingleAnswer("equal citations")
    return p["paper"] if first["n_citation"] > second["n_citation"] else p["paper2"]


def published_first(s: Solver, p: Mapping[str, Any]) -> Any:
    first, second = _two(s, p)
    if first["year"] == second["year"]:
        raise NoSingleAnswer("same year")
    return p["paper"] if first["year"] < second["year"] else p["paper2"]


def same_venue(s: Solver, p: Mapping[str, Any]) -> Any:
    first, second = _two(s, p)
    return "Yes" if first["venue"] == second["venue"] else "No"


def same_venue_year(s: Solver, p: Mapping[str, Any]) -> Any:
    first, second = _two(s, p)
    return "Yes" if (first["venue"], first["year"]) == (second["venue"], second["year"]) else "No"


def both_conference(s: Solver, p: Mapping[str, Any]) -> Any:
    first, second = _two(s, p)
    return "Yes" if first["doc_type"] == second["doc_type"] == "Conference" else "No"


def paper_authors(s: Solver, p: Mapping[str, Any]) -> Any:
    s.call("loadPaperNet")
    return sorted(s.call("paperNodeCheck", node=p["paper"])["authors"])


def paper_orgs(s: Solver, p: Mapping[str, Any]) -> Any:
    """The organisations of the paper's authors, each once."""
    authors = paper_authors(s, p)
    s.call("loadAuthorNet")
    return sorted({str(s.call("authorNodeCheck", node=a)["org"]) for a in authors})


def author_overlap(s: Solver, p: Mapping[str, Any]) -> Any:
    first, second = _two(s, p)
    return "Yes" if set(first["authors"]) & set(second["authors"]) else "No"


def _collaborators_by_org(s: Solver, p: Mapping[str, Any], same: bool) -> Any:
    s.call("loadAuthorNet")
    home = s.call("authorNodeCheck", node=p["author"])["org"]
    found = [o for o in _coauthors(s, p["author"]) if (s.call("authorNodeCheck", node=o)["org"] == home) == same]
    return sorted(found)


SOLVERS: dict[str, Callable[[Solver, Mapping[str, Any]], Any]] = {
    "mutual_collaborators": mutual_collaborators,
    "most_cited_paper": most_cited_paper,
    "top_paper_coauthors": top_paper_coauthors,
    "top_venue": top_venue,
    "joint_citations": joint_citations,
    "top_collaborator": top_collaborator,
    "top_keyword": top_keyword,
    "paper_orgs": paper_orgs,
    "paper_authors": paper_authors,
    "author_overlap": author_overlap,
    "author_org": author_org,
    "same_org": same_org,
    "citing_count": citing_count,
    "more_cited": more_cited,
    "published_first": published_first,
    "same_venue": same_venue,
    "same_venue_year": same_venue_year,
    "both_conference": both_conference,
    "same_org_collaborators": lambda s, p: _collaborators_by_org(s, p, True),
    "other_org_collaborators": lambda s, p: _collaborators_by_org(s, p, False),
}
