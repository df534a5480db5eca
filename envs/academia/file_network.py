"""The citation network a loaded AgentBoard academia file needs, built from its recorded answers.

The file holds DBLP's questions and answers, not DBLP's graphs (the original reads pickles
downloaded separately). For each recognised question, in file order, a builder adds to one
shared network the least it needs for the recorded answer to hold: the named authors and papers,
papers that make a count or a maximum come out as recorded, organisations, years, venues,
citations. Builders only add or raise; they never take away what an earlier question needed, so
a question whose answer contradicts an earlier one is left as it is and the expert's check
afterwards reports it. Everything invented (filler authors, titles, organisations, venues) comes
from data/vocabulary.json, seeded.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Callable, Mapping
from typing import Any

from coevo.envs.academia.network import DATA, Network, Paper

_VOCAB: dict[str, list[str]] = json.loads((DATA / "vocabulary.json").read_text(encoding="utf-8"))
#: Citation counts of filler papers stay below this; a paper an answer needs on top gets more.
_FILLER_CITATIONS = 10


class Builder:
    """Adds to `net` what questions need, inventing filler from the vocabulary."""

    def __init__(self, net: Network, seed: int = 0) -> None:
        self.net = net
        self.rng = random.Random(f"academia-file|{seed}")

    # ------------------------------------------------------------- invented filler
    def _fresh(self, make: Callable[[], str], taken: Mapping[str, Any]) -> str:
        while True:
            value = make()
            if value not in taken:
                return value

    def new_author(self, org: str | None = None) -> str:
        name = self._fresh(
            lambda: f"{self.rng.choice(_VOCAB['first_names'])} {self.rng.choice(_VOCAB['last_names'])}", self.net.orgs
        )
        self.net.orgs[name] = org or self.rng.choice(_VOCAB["orgs"])
        return name

    def new_org(self, avoid: set[str]) -> str:
        choices = [org for org in _VOCAB["orgs"] if org not in avoid]
        return self.rng.choice(choices)

    def author(self, name: str) -> str:
        """The named author, added with an invented organisation if new."""
        self.net.orgs.setdefault(name, self.rng.choice(_VOCAB["orgs"]))
        return name

    def paper(self, title: str | None = None, authors: list[str] | None = None, **fields: Any) -> Paper:
        """The named paper (added if new), or a new filler paper; `authors` are added to it."""
        if title is None:
            title = self._fresh(
                lambda: " ".join(self.rng.choice(_VOCAB[k]) for k in ("methods", "objects", "settings")),
                self.net.papers,
            )
        if title not in self.net.papers:
            self.net.papers[title] = Paper(
                title,
                self.rng.randint(2012, 2022),
                self.rng.choice(_VOCAB["venues"]),
                self.rng.randrange(_FILLER_CITATIONS),
                self.rng.sample(_VOCAB["keywords"], 1),
                self.rng.choice(_VOCAB["doc_types"]),
                [],
            )
            self.net.citations[title] = []
        paper = self.net.papers[title]
        for name in authors or []:
            if name not in paper.authors:
                paper.authors.append(self.author(name))
        for key, value in fields.items():
            setattr(paper, key, value)
        return paper

    def cite(self, citing: str, cited: str) -> None:
        self.net.citations[citing].append(cited)
        self.net.citations[cited].append(citing)

    def top_paper(self, author: str) -> Paper:
        """The author's most cited paper (a new one, cited above any filler, if none)."""
        papers = [self.net.papers[t] for t in self.net.author_papers(self.author(author))]
        if not papers:
            return self.paper(None, [author], n_citation=_FILLER_CITATIONS * 10)
        return max(papers, key=lambda p: p.n_citation)


# ----------------------------------------------------------------- one builder per kind
def _mutual(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    a, c = b.author(p["author"]), b.author(p["author2"])
    while len((set(b.net.coauthors(a)) & set(b.net.coauthors(c))) - {a, c}) < int(answer):
        shared = b.new_author()
        b.paper(None, [a, shared])
        b.paper(None, [c, shared])


def _most_cited(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    author = b.author(p["author"])
    others = [b.net.papers[t].n_citation for t in b.net.author_papers(author) if t != answer]
    b.paper(str(answer), [author], n_citation=max(others + [_FILLER_CITATIONS * 10 - 1]) + 1)


def _top_paper_coauthors(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    b.paper(b.top_paper(p["author"]).title, list(answer))


def _top_venue(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    author = b.author(p["author"])
    if not b.net.author_papers(author):  # one paper elsewhere, so the question has a choice
        b.paper(None, [author], venue=b.rng.choice(_VOCAB["venues"]))
    while True:
        venues = Counter(b.net.papers[t].venue for t in b.net.author_papers(author))
        if venues[answer] > max((n for v, n in venues.items() if v != answer), default=0):
            return
        b.paper(None, [author], venue=str(answer))


def _joint_citations(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    a, c = b.author(p["author"]), b.author(p["author2"])
    joint = b.net.shared_papers(a, c)
    total = sum(b.net.papers[t].n_citation for t in joint)
    if not joint:
        b.paper(None, [a, c], n_citation=int(answer))
    elif total < int(answer):
        b.net.papers[joint[-1]].n_citation += int(answer) - total


def _top_collaborator(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    author, partner = b.author(p["author"]), b.author(str(answer))
    while True:
        counts = {o: len(b.net.shared_papers(author, o)) for o in b.net.coauthors(author)}
        if counts.get(partner, 0) > max((n for o, n in counts.items() if o != partner), default=0):
            return
        b.paper(None, [author, partner])


def _paper_orgs(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    paper = b.paper(p["paper"])
    have = {b.net.orgs[a] for a in paper.authors}
    for org in answer:
        if org not in have:
            b.paper(paper.title, [b.new_author(org)])


def _top_keyword(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    author = b.author(p["author"])
    while True:
        words = Counter(k for t in b.net.author_papers(author) for k in b.net.papers[t].keywords)
        if words[answer] > max((n for k, n in words.items() if k != answer), default=0):
            return
        b.paper(None, [author], keywords=[str(answer)])


def _paper_authors(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    b.paper(p["paper"], list(answer))


def _author_overlap(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    first, second = b.paper(p["paper"]), b.paper(p["paper2"])
    shared = set(first.authors) & set(second.authors)
    if answer == "Yes" and not shared:
        name = b.new_author()
        b.paper(first.title, [name])
        b.paper(second.title, [name])


def _author_org(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    b.net.orgs[p["author"]] = str(answer)


def _same_org(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    a, c = b.author(p["author"]), b.author(p["author2"])
    if answer == "Yes":
        b.net.orgs[c] = b.net.orgs[a]
    elif b.net.orgs[c] == b.net.orgs[a]:
        b.net.orgs[c] = b.new_org({b.net.orgs[a]})


def _citing_count(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    cited = b.paper(p["paper"])
    while len(b.net.citations[cited.title]) < int(answer):
        citing = b.paper(None, [b.new_author()], year=min(cited.year + b.rng.randint(0, 3), 2023))
        b.cite(citing.title, cited.title)


def _more_cited(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    first, second = b.paper(p["paper"]), b.paper(p["paper2"])
    winner, loser = (first, second) if answer == first.title else (second, first)
    if winner.n_citation <= loser.n_citation:
        winner.n_citation = loser.n_citation + b.rng.randint(1, 20)


def _published_first(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    first, second = b.paper(p["paper"]), b.paper(p["paper2"])
    earlier, later = (first, second) if answer == first.title else (second, first)
    if earlier.year >= later.year:
        earlier.year = later.year - b.rng.randint(1, 5)


def _same_venue(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    first, second = b.paper(p["paper"]), b.paper(p["paper2"])
    if answer == "Yes":
        second.venue = first.venue
    elif first.venue == second.venue:
        second.venue = next(v for v in _VOCAB["venues"] if v != first.venue)


def _same_venue_year(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    _same_venue(b, p, answer)
    if answer == "Yes":
        b.paper(p["paper2"]).year = b.paper(p["paper"]).year


def _both_conference(b: Builder, p: Mapping[str, Any], answer: Any) -> None:
    first, second = b.paper(p["paper"]), b.paper(p["paper2"])
    if answer == "Yes":
        first.doc_type = second.doc_type = "Conference"
    elif first.doc_type == second.doc_type == "Conference":
        second.doc_type = "Journal"


def _collaborators_by_org(b: Builder, p: Mapping[str, Any], answer: Any, same: bool) -> None:
    """The named co-authors share (or do not share) the author's organisation and the author's
    other co-authors are on the other side (one filler co-author there gives the question a
    choice). Moving an earlier co-author's organisation may contradict an earlier answer: the
    expert's check then reports that question."""
    author = b.author(p["author"])
    home = b.net.orgs[author]
    for name in answer:
        b.paper(None, [author, b.author(name)])
    b.paper(None, [author, b.new_author()])
    for name in b.net.coauthors(author):
        if (b.net.orgs[name] == home) != (same == (name in answer)):
            b.net.orgs[name] = home if same == (name in answer) else b.new_org({home})


BUILDERS: dict[str, Callable[[Builder, Mapping[str, Any], Any], None]] = {
    "mutual_collaborators": _mutual,
    "most_cited_paper": _most_cited,
    "top_paper_coauthors": _top_paper_coauthors,
    "top_venue": _top_venue,
    "joint_citations": _joint_citations,
    "top_collaborator": _top_collaborator,
    "paper_orgs": _paper_orgs,
    "top_keyword": _top_keyword,
    "paper_authors": _paper_authors,
    "author_overlap": _author_overlap,
    "author_org": _author_org,
    "same_org": _same_org,
    "citing_count": _citing_count,
    "more_cited": _more_cited,
    "published_first": _published_first,
    "same_venue": _same_venue,
    "same_venue_year": _same_venue_year,
    "both_conference": _both_conference,
    "same_org_collaborators": lambda b, p, a: _collaborators_by_org(b, p, a, True),
    "other_org_collaborators": lambda b, p, a: _collaborators_by_org(b, p, a, False),
}
