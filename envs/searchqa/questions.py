"""Two-hop compositional questions over the generated world, Bamboogle style.

Each template names an anchor entity and composes two relations: the first leads from the
anchor to a bridge entity that the question never names, the second from the bridge to the
answer. Answering needs both passages; the question alone gives neither.

Each hop also carries the pattern that reads its relation off the passage text, which is what
the expert uses: it must actually retrieve both passages to answer.
"""

from __future__ import annotations

import random
import re
from dataclasses import asdict, dataclass

from coevo.envs.searchqa.world import World


@dataclass(frozen=True)
class Template:
    name: str
    question: str  # with {anchor}
    hop1: str  # regex with group "x" that reads the bridge off the anchor's passage
    hop2: str  # regex with group "x" that reads the answer off the bridge's passage


TEMPLATES = {
    t.name: t
    for t in [
        Template("founder_birth_city", "In which city was the founder of {anchor} born?",
                 r"founded in \d+ by (?P<x>[^.]+)\.", r"was born in (?P<x>[^,]+), "),
        Template("author_birth_year", "In what year was the author of {anchor} born?",
                 r"\d+ [a-z ]+ by (?P<x>[^.]+)\. It was published", r"\(born (?P<x>\d+)\)"),
        Template("birth_country_capital", "What is the capital of the country where {anchor} was born?",
                 r"was born in [^,]+, (?P<x>[^.]+)\.", r"Its capital is (?P<x>[^.]+)\."),
        Template("alma_mater_founder", "Who founded the university where {anchor} studied?",
                 r"studied at (?P<x>[^.]+)\.", r"founded in \d+ by (?P<x>[^.]+)\."),
        Template("publisher_country", "In which country is the company that published {anchor} headquartered?",
                 r"published by (?P<x>[^.]+)\.", r"headquartered in [^,]+, (?P<x>[^.]+)\."),
        Template("founder_spouse", "Who is the spouse of the founder of {anchor}?",
                 r"founded in \d+ by (?P<x>[^.]+)\.", r"is married to (?P<x>[^.]+)\."),
    ]
}


@dataclass(frozen=True)
class Question:
    qid: str
    question: str
    answers: list[str]
    template: str | None = None
    anchor: str | None = None
    bridge: str | None = None
    support: list[str] | None = None  # titles of the passages that answer it
    source: str | None = None  # a user file's data_source (Search-R1's parquet files: nq, hotpotqa, ...)
    split: str | None = None  # the split a user file gives the question; not stored in to_json

    def to_json(self) -> dict:
        return {k: v for k, v in asdict(self).items() if v is not None and k != "split"}


def _compose(w: World, template: str, anchor: str) -> tuple[str, str] | None:
    """(bridge, answer) for a template applied to an anchor, or None where the chain breaks."""
    if template in ("founder_birth_city", "founder_spouse"):
        org = w.orgs.get(anchor)
        if org is None or org.kind != "company":
            return None
        founder = w.people[org.founder]
        answer = founder.birth_city if template == "founder_birth_city" else founder.spouse
        return (founder.name, answer) if answer else None
    if template == "author_birth_year":
        work = w.works.get(anchor)
        return (work.author, str(w.people[work.author].born)) if work else None
    if template == "birth_country_capital":
        person = w.people.get(anchor)
        if person is None:
            return None
        country = w.cities[person.birth_city].country
        return country, w.countries[country].capital
    if template == "alma_mater_founder":
        person = w.people.get(anchor)
        return (person.alma_mater, w.orgs[person.alma_mater].founder) if person else None
    if template == "publisher_country":
        work = w.works.get(anchor)
        if work is None:
            return None
        return work.publisher, w.cities[w.orgs[work.publisher].city].country
    raise KeyError(template)


_ANCHORS = {
    "founder_birth_city": "companies", "founder_spouse": "companies", "author_birth_year": "works",
    "birth_country_capital": "people", "alma_mater_founder": "people", "publisher_country": "works",
}


def generate_questions(w: World, count: int, seed: int) -> list[Question]:
    """`count` distinct questions, templates in turn, anchors drawn without repeats."""
    rng = random.Random(f"searchqa-questions-{seed}")
    pools = {
        "companies": sorted(o.name for o in w.orgs.values() if o.kind == "company"),
        "works": sorted(w.works),
        "people": sorted(w.people),
    }
    for pool in pools.values():
        rng.shuffle(pool)
    cursor = dict.fromkeys(pools, 0)
    names = list(TEMPLATES)
    out: list[Question] = []
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > count * 20:
            raise ValueError(f"the world is too small for {count} questions")
        template = names[len(out) % len(names)] if attempts % 7 else rng.choice(names)
        pool_name = _ANCHORS[template]
        pool = pools[pool_name]
        anchor = pool[cursor[pool_name] % len(pool)]
        cursor[pool_name] += 1
        composed = _compose(w, template, anchor)
        if composed is None:
            continue
        bridge, answer = composed
        t = TEMPLATES[template]
        out.append(Question(f"q{len(out)}", t.question.format(anchor=anchor), [answer], template, anchor, bridge,
                            [anchor, bridge]))
    return out


def read_relation(pattern: str, text: str) -> str | None:
    m = re.search(pattern, text)
    return m.group("x").strip() if m else None
