"""The citation network the Academia tools read: papers (PaperNet, linked by citations) and
authors (AuthorNet, linked by co-authored papers), generated deterministically.

The original reads DBLP sub-graphs from pickles downloaded separately; this network has their
attributes as the original's tools show them: a paper's `authors` (names), `year`, `venue`,
`n_citation`, `keywords`, `doc_type`; an author's `name`, `org`, `papers` (titles); a co-author edge's
`collaborative_papers` (titles); a citation edge has none.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATA = Path(__file__).parent / "data"


@dataclass
class Paper:
    title: str
    year: int
    venue: str
    n_citation: int
    keywords: list[str]
    doc_type: str
    authors: list[str]

    def node(self) -> dict[str, Any]:
        """The PaperNet node as paperNodeCheck shows it. The original returns the graph node's
        attributes whole; its tool description lists `authors` first (its one example, a node
        trimmed to the other five fields, shows none), and ToolQA's DBLP graph, whose six pickle names
        its loader shares, stores every paper's authors."""
        return {
            "authors": list(self.authors),
            "year": self.year,
            "venue": self.venue,
            "n_citation": self.n_citation,
            "keywords": list(self.keywords),
            "doc_type": self.doc_type,
        }


@dataclass
class Network:
    papers: dict[str, Paper] = field(default_factory=dict)
    orgs: dict[str, str] = field(default_factory=dict)
    #: title -> titles it shares a citation edge with (either direction), in insertion order
    citations: dict[str, list[str]] = field(default_factory=dict)

    def author_papers(self, name: str) -> list[str]:
        return [t for t, p in self.papers.items() if name in p.authors]

    def coauthors(self, name: str) -> list[str]:
        seen: dict[str, None] = {}
        for title in self.author_papers(name):
            for other in self.papers[title].authors:
                if other != name:
                    seen[other] = None
        return list(seen)

    def shared_papers(self, a: str, b: str) -> list[str]:
        return [t for t in self.author_papers(a) if b in self.papers[t].authors]


def generate(seed: int, authors: int = 60, papers: int = 160) -> Network:
    """A network of `authors` authors writing `papers` papers in small groups, with citations
    from later papers to earlier ones."""
    vocab = json.loads((DATA / "vocabulary.json").read_text(encoding="utf-8"))
    rng = random.Random(f"academia|{seed}")
    names: list[str] = []
    while len(names) < authors:
        name = f"{rng.choice(vocab['first_names'])} {rng.choice(vocab['last_names'])}"
        if name not in names:
            names.append(name)
    net = Network(orgs={n: rng.choice(vocab["orgs"]) for n in names})
    groups = [names[i : i + 6] for i in range(0, len(names), 6)]  # research groups co-author more
    titles: list[str] = []
    while len(titles) < papers:
        title = f"{rng.choice(vocab['methods'])} {rng.choice(vocab['objects'])} {rng.choice(vocab['settings'])}"
        if title in net.papers:
            continue
        group = rng.choice(groups)
        team = rng.sample(group, rng.randint(1, min(4, len(group))))
        if rng.random() < 0.2:
            team.append(rng.choice([n for n in names if n not in team]))
        net.papers[title] = Paper(
            title,
            rng.randint(2005, 2023),
            rng.choice(vocab["venues"]),
            rng.randint(0, 400),
            rng.sample(vocab["keywords"], rng.randint(0, 3)),
            rng.choice(vocab["doc_types"]),
            team,
        )
        net.citations[title] = []
        titles.append(title)
    for i, title in enumerate(titles[1:], 1):
        for cited in rng.sample(titles[:i], min(i, rng.randint(0, 3))):
            net.citations[title].append(cited)
            net.citations[cited].append(title)
    return net
