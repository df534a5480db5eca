"""How a loaded Movie question's answer is written into the database (data/templates.json
"recognise" ... "rule"): the films and people it names are added (envs/movie/catalogue.py) and
given attributes consistent with the recorded answer; expert.py answers the same rule with the
tools.

Exact rules (a value, a list, a credit) run first and fix what they set; relational rules (an
order, a shared genre, a profit, a credit's absence) then change only what no exact rule fixed,
in a few passes so that one moved by another is settled again; what still does not hold is
found when the expert answers. A rule that cannot hold (an answer of the wrong type,
something another task fixed otherwise, a list in an order the tools never return) returns
False; the loader then finds the expert's answer differs and lists the task.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping
from datetime import date, timedelta
from typing import Any

from coevo.envs.movie.catalogue import Catalogue, Movie, Person, vocabulary

#: A question's words for a person's attribute -> the field (details or external ids).
PERSON_FIELDS = {
    "birthday": "birthday",
    "birthdate": "birthday",
    "place of birth": "place_of_birth",
    "biography": "biography",
    "IMDB ID": "imdb_id",
    "Twitter ID": "twitter_id",
    "Instagram ID": "instagram_id",
    "Facebook ID": "facebook_id",
}
EXTERNAL_IDS = ("imdb_id", "facebook_id", "instagram_id", "twitter_id")
#: A question's words for a film's attribute -> the field of its details.
MOVIE_FIELDS = {
    "release date": "release_date",
    "budget": "budget",
    "revenue": "revenue",
    "average vote score": "vote_average",
    "vote average": "vote_average",
}
#: A question's words for a count of a film's list -> the list.
COUNTED = {
    "number of production countries": "countries",
    "number of genres": "genres",
    "number of keywords": "keywords",
}
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}$")
#: Steps an order rule moves a value by.
_STEPS: dict[str, Any] = {"budget": 1_000_000, "revenue": 1_000_000, "vote_average": 0.1, "release_date": 30}


def movie(cat: Catalogue, title: str) -> Movie:
    return cat.movie_named(title) or cat.add_movie(title)


def person(cat: Catalogue, name: str) -> Person:
    return cat.person_named(name) or cat.add_person(name)


def _name(answer: Any) -> bool:
    """A name a credit can carry (not a sentence such as "X did not have a role")."""
    return isinstance(answer, str) and 0 < len(answer) < 80 and " not " not in answer


def _valid(field: str, value: Any) -> bool:
    if field == "release_date":
        return isinstance(value, str) and bool(_DATE.match(value))
    if field in ("budget", "revenue"):
        return isinstance(value, int) and not isinstance(value, bool) and value >= 0
    if field == "vote_average":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


def _fix(cat: Catalogue, owner: int, key: str, same: bool) -> bool:
    """Claim (owner, key) for a value; False where another task fixed it to something else."""
    if (owner, key) in cat.fixed and not same:
        return False
    cat.fixed.add((owner, key))
    return True


# ------------------------------------------------------------------ exact rules
def set_movie_field(cat: Catalogue, m: Movie, field: str, value: Any) -> bool:
    if not _valid(field, value) or not _fix(cat, m.id, field, getattr(m, field) == value):
        return False
    setattr(m, field, value)
    return True


def set_person_field(cat: Catalogue, p: Person, field: str, value: Any) -> bool:
    current = p.external_ids.get(field) if field in EXTERNAL_IDS else getattr(p, field)
    if not isinstance(value, str) or not _fix(cat, p.id, field, current == value):
        return False
    if field in EXTERNAL_IDS:
        p.external_ids[field] = value
    else:
        setattr(p, field, value)
    return True


def _movie_field(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    return set_movie_field(cat, movie(cat, q["movie"]), rule["field"], answer)


def _person_field(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    return set_person_field(cat, person(cat, q["person"]), rule["field"], answer)


def _crew(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    names = answer if isinstance(answer, list) else [answer]
    if not names or not all(_name(n) for n in names) or (isinstance(answer, list) and answer != sorted(answer)):
        return False
    m, job = movie(cat, q["movie"]), rule["job"]
    current = sorted(cat.people[p].name for p, j in m.crew if j == job)
    if not _fix(cat, m.id, f"crew:{job}", current == sorted(names)):
        return False
    m.crew = [(p, j) for p, j in m.crew if j != job] + [(person(cat, n).id, job) for n in names]
    return True


def _director_field(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    m = movie(cat, q["movie"])
    director = next(p for p, j in m.crew if j == "Director")
    return set_person_field(cat, cat.people[director], rule["field"], answer)


def cast_as(cat: Catalogue, m: Movie, p: Person, character: str) -> bool:
    """`p` plays `character` in `m` (added to its cast, or the credit is already so)."""
    if not _name(character):
        return False
    current = next((c for pid, c in m.cast if pid == p.id), None)
    if current is not None:
        return current == character
    m.cast.append((p.id, character))
    return True


def _sentence(template: str) -> re.Pattern[str]:
    """A regular expression reading a sentence written from `template` ("{person} did not have a
    role in '{movie}'."): its `person` and `movie`."""
    parts = re.split(r"(\{person\}|\{movie\})", template)
    return re.compile(
        "".join(f"(?P<{part[1:-1]}>.+?)" if part in ("{person}", "{movie}") else re.escape(part) for part in parts)
    )


def absent_role(rule: Mapping[str, Any], answer: Any) -> tuple[str, str] | None:
    """(person, film) of a recorded answer saying, in the rule's "absent" sentence, that the
    person has no role in the film; None for any other answer."""
    if "absent" not in rule or not isinstance(answer, str):
        return None
    found = _sentence(rule["absent"]).fullmatch(answer)
    return (found["person"], found["movie"]) if found else None


def _in_cast(m: Movie, p: Person) -> bool:
    return any(pid == p.id for pid, _ in m.cast)


def _role(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The person plays the answer in the film, or (the rule's "absent" sentence) has no role in it."""
    m, p = movie(cat, q["movie"]), person(cat, q["person"])
    absent = absent_role(rule, answer)
    if absent is not None:
        return absent == (q["person"], q["movie"]) and not _in_cast(m, p)
    return cast_as(cat, m, p, answer)


def _movie_list(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    names = answer if isinstance(answer, list) else [answer]
    if not names or not all(isinstance(n, str) for n in names) or names != sorted(names):
        return False  # the expert answers a sorted list, as `finish` sorts one
    m, field = movie(cat, q["movie"]), rule["field"]
    if not _fix(cat, m.id, field, sorted(list_names(m, field)) == names):
        return False
    set_list(m, field, names)
    return True


def list_names(m: Movie, field: str) -> list[str]:
    if field == "translations":
        return [str(t["english_name"]) for t in m.translations]
    if field == "keywords":
        return list(m.keywords)
    key = "title" if field == "titles" else "name"
    items: list[dict[str, Any]] = getattr(m, field)
    return [str(item[key]) for item in items]


def set_list(m: Movie, field: str, names: list[str]) -> None:
    if field == "keywords":
        m.keywords = list(names)
    elif field == "titles":
        m.titles = [{"iso_3166_1": "", "title": n, "type": ""} for n in names]
    elif field == "genres":
        m.genres = [{"id": 9000 + i, "name": n} for i, n in enumerate(names)]
    elif field == "companies":
        m.companies = [
            {"id": 9000 + i, "logo_path": None, "name": n, "origin_country": ""} for i, n in enumerate(names)
        ]
    else:
        m.countries = [{"iso_3166_1": n[:2].upper(), "name": n} for n in names]


def _translation(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    if not isinstance(answer, str):
        return False
    m = movie(cat, q["movie"])
    found = next((t for t in m.translations if t["english_name"] == q["language"]), None)
    if found is None:
        codes = {"Mandarin": ("CN", "zh"), "German": ("DE", "de"), "Russian": ("RU", "ru")}
        codes |= {"Japanese": ("JP", "ja"), "Dutch": ("NL", "nl")}
        country, language = codes[q["language"]]
        found = {"iso_3166_1": country, "iso_639_1": language, "name": q["language"], "english_name": q["language"]}
        found["data"] = {"homepage": "", "overview": "", "runtime": 0, "tagline": ""}
        m.translations.append(found)
    if not _fix(cat, m.id, f"translation:{q['language']}", found["data"]["overview"] == answer):
        return False
    found["data"]["overview"] = answer
    return True


def actor_of(cat: Catalogue, m: Movie, character: str) -> Person:
    """Who plays `character` in `m`: the credited actor, or a made-up one added to the cast."""
    credited = next((pid for pid, c in m.cast if c == character), None)
    if credited is not None:
        return cat.people[credited]
    actor = cat.add_person(cat.new_name(f"{m.title}|{character}"))
    m.cast.append((actor.id, character))
    return actor


def _role_chain(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The actor of the role in the first film plays the answer in the second, or (the rule's
    "absent" sentence, which names the actor) has no role in it."""
    absent = absent_role(rule, answer)
    if absent is not None:
        name, title = absent
        if title != q["movie2"] or not _cast_named(cat, movie(cat, q["movie"]), q["character"], name):
            return False
        return not _in_cast(movie(cat, q["movie2"]), person(cat, name))
    if not _name(answer) or not _name(q["character"]):
        return False
    actor = actor_of(cat, movie(cat, q["movie"]), q["character"])
    return cast_as(cat, movie(cat, q["movie2"]), actor, answer)


def _actor_field(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    actor = actor_of(cat, movie(cat, q["movie"]), q["character"])
    return set_person_field(cat, actor, PERSON_FIELDS[q["field"]], answer)


def _role_movie_field(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The film `person` played `character` in (one added under a made-up title where the
    database has none) carries the answer."""
    p = person(cat, q["person"])
    film = next((m for m in cat.movies.values() for pid, c in m.cast if pid == p.id and c == q["character"]), None)
    if film is None:
        film = cat.add_movie(f"{q['character']}: {cat.new_name(q['person']).split()[-1]}")
        film.cast.append((p.id, q["character"]))
    return set_movie_field(cat, film, MOVIE_FIELDS[q["field"]], answer)


def _lead_actor(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The film's first-billed actor is the answer (a name) or has it (biography, birthday)."""
    m = movie(cat, q["movie"])
    lead = cat.people[m.cast[0][0]] if m.cast else None
    if "field" not in q:  # the question asks for the name
        if not _name(answer) or (lead is not None and lead.name != answer):
            return lead is not None and lead.name == answer
        m.cast.insert(0, (person(cat, answer).id, cat.new_name(f"{m.title}|lead")))
        return True
    if lead is None:
        lead = cat.add_person(cat.new_name(f"{m.title}|lead"))
        m.cast.insert(0, (lead.id, cat.new_name(f"{m.title}|lead role")))
    return set_person_field(cat, lead, PERSON_FIELDS[q["field"]], answer)


def _cast_named(cat: Catalogue, m: Movie, character: str, answer: Any) -> bool:
    """The person named `answer` plays `character` in `m` (or already does)."""
    if not _name(answer):
        return False
    credited = next((pid for pid, c in m.cast if c == character), None)
    if credited is not None:
        return cat.people[credited].name == answer
    return cast_as(cat, m, person(cat, answer), character)


def _actor_name(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    return _cast_named(cat, movie(cat, q["movie"]), q["character"], answer)


def _absent_chain(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """A role chain recorded as the "absent" sentence names the role's actor: that credit is
    set with the rules that name credit holders (the chain's other answers wait for EXACT)."""
    return absent_role(rule, answer) is None or _role_chain(cat, rule, q, answer)


def first_named(text: str, phrase: str, titles: list[str]) -> int | None:
    """The index of the title `text` names first after `phrase` (the longest where two start
    at the same place), case-insensitive; None where the phrase or no title is there. How a
    biography's "first gained attention in ..." is read, by the rule and the expert alike."""
    at = text.lower().find(phrase.lower())
    if at < 0:
        return None
    rest = text.lower()[at + len(phrase) :]
    found = [(rest.find(t.lower()), -len(t), i) for i, t in enumerate(titles) if t and t.lower() in rest]
    return min(found)[2] if found else None


def _credits(cat: Catalogue, p: Person) -> list[Movie]:
    """The films `p` plays in, as get_person_cast lists them (by id, the first ten)."""
    return sorted(_films_of(cat, p), key=lambda m: m.id)[:10]


def biography_film(cat: Catalogue, p: Person, phrase: str) -> Movie | None:
    """The film of `p`'s credits their biography names after `phrase` (first_named)."""
    films = _credits(cat, p)
    at = first_named(p.biography, phrase, [m.title for m in films])
    return None if at is None else films[at]


def _phrase_film(cat: Catalogue, rule: Mapping[str, Any], p: Person, title: str | None) -> Movie | None:
    """The film `p`'s biography names after the rule's phrase: the one it names already (which
    must be `title`, where given), else `title` (or a film added under a made-up title), `p`
    cast in it and the rule's sentence added to a biography no other task fixed. The sentence
    does not fix the biography: a task recording it later replaces it, and the expert then
    finds whether the recorded one names the film too."""
    found = biography_film(cat, p, rule["phrase"])
    if found is not None:
        return found if title is None or found.title.lower() == title.lower() else None
    if (p.id, "biography") in cat.fixed:
        return None
    film = movie(cat, title) if title else cat.add_movie(_new_title(cat, f"{p.name}|{rule['phrase']}"))
    if not _in_cast(film, p):
        film.cast.append((p.id, cat.new_name(f"{film.title}|role|{p.name}")))
    p.biography = f"{p.biography} {rule['sentence'].format(person=p.name, movie=film.title)}"
    return biography_film(cat, p, rule["phrase"])


def _biography_film(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The answer is the film the person's biography names after the rule's phrase ("first
    gained attention")."""
    return _name(answer) and _phrase_film(cat, rule, person(cat, q["person"]), answer) is not None


def _biography_film_director(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The answer directs the film the person's biography names after the rule's phrase."""
    film = _phrase_film(cat, rule, person(cat, q["person"]), None)
    return film is not None and _name(answer) and _set_director(cat, film, person(cat, answer))


def _not_held(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """A question about what no tool returns (television credits, awards) whose format line
    offers "state if it is not <word>": the answer is that statement; the film it names is
    added so that the searches find it."""
    movie(cat, q["movie"])
    return bool(answer == rule["answer"].format(**q))


def overview_of(about: str) -> str:
    """The overview an added film described by `about` ("explores the concept of time") gets."""
    return f"{about[:1].upper()}{about[1:]}."


def _new_title(cat: Catalogue, seed: str) -> str:
    """A made-up title no film has, of no other title part (the title search finds it first)."""
    for attempt in range(1000):
        title = f"The {cat.new_name(f'{seed}|{attempt}').split()[-1]} Affair"
        if not any(title.lower() in m.title.lower() or m.title.lower() in title.lower() for m in cat.movies.values()):
            return title
    raise RuntimeError("no free title")  # 1000 made-up surnames all taken: not reached


def described_film(cat: Catalogue, q: Mapping[str, str]) -> Movie:
    """The film a question names by its director (`person`) or a star (`person2`) and what it
    is about (its overview holds `about`), a role in it (`character`) or a star beside the
    director: the first such film by id (the order the person's credits list), or one added
    under a made-up title."""
    director = person(cat, q["person"]) if "person" in q else None
    star = person(cat, q["person2"]) if "person2" in q else None
    about = q.get("about", "").lower()
    for m in sorted(cat.movies.values(), key=lambda m: m.id):
        directed = director is None or director.id in _directors(m)
        starred = star is None or any(pid == star.id for pid, _ in m.cast)
        role = "character" not in q or any(c == q["character"] for _, c in m.cast)
        if directed and starred and role and about in m.overview.lower():
            return m
    seed = f"{q.get('person', '')}|{q.get('person2', '')}|{q.get('character', '')}|{about}"
    film = cat.add_movie(_new_title(cat, seed))
    if about:
        film.overview = overview_of(q["about"])
    if director is not None:
        _set_director(cat, film, director)
    if star is not None:
        film.cast.insert(0, (star.id, cat.new_name(f"{film.title}|role|{star.name}")))
    return film


def _described(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The described film (described_film) carries the answer: one of its values, who plays a
    role in it (or their details), its lead's details, the co-star billed first beside `person2`,
    or its director."""
    film, ask = described_film(cat, q), rule["ask"]
    if ask == "movie_field":
        return set_movie_field(cat, film, MOVIE_FIELDS[q["field"]], answer)
    if ask == "actor" and "field" in q:
        return set_person_field(cat, actor_of(cat, film, q["character"]), PERSON_FIELDS[q["field"]], answer)
    if ask == "actor":
        return _cast_named(cat, film, q["character"], answer)
    if ask == "lead":
        return _lead_actor(cat, rule, {"movie": film.title, "field": q["field"]}, answer)
    if not _name(answer):
        return False
    if ask == "director":
        return _set_director(cat, film, person(cat, answer))
    costar, star = person(cat, answer), person(cat, q["person2"])
    film.cast = [(pid, c) for pid, c in film.cast if pid != costar.id]
    first_other = next((i for i, (pid, _) in enumerate(film.cast) if pid != star.id), len(film.cast))
    film.cast.insert(first_other, (costar.id, cat.new_name(f"{film.title}|role|{answer}")))
    return True


# ------------------------------------------------------------------ relational rules
def _shift(field: str, value: Any, up: bool) -> Any:
    step = _STEPS[field]
    if field == "release_date":
        return (date.fromisoformat(value) + timedelta(days=step if up else -step)).isoformat()
    return round(value + step, 3) if up else max(0, round(value - step, 3))


def order(cat: Catalogue, high: Movie, low: Movie, field: str) -> bool:
    """`high`'s value exceeds `low`'s (for dates: later): `high` is raised past `low` unless an
    exact rule fixed it, else `low` is lowered. Order rules only ever raise the higher side, so
    repeated passes settle any set of orders without a cycle."""
    if getattr(high, field) > getattr(low, field):
        return True
    if (high.id, field) not in cat.fixed:
        setattr(high, field, _shift(field, getattr(low, field), up=True))
    elif (low.id, field) not in cat.fixed:
        setattr(low, field, _shift(field, getattr(high, field), up=False))
    return bool(getattr(high, field) > getattr(low, field))


def _order(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    if answer not in (q["movie"], q["movie2"]):
        return False
    winner, loser = (q["movie"], q["movie2"]) if answer == q["movie"] else (q["movie2"], q["movie"])
    high, low = (loser, winner) if rule["most"] == "least" else (winner, loser)
    return order(cat, movie(cat, high), movie(cat, low), rule["field"])


def _order_yes_no(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    if answer not in ("Yes", "No"):
        return False
    first, second = movie(cat, q["movie"]), movie(cat, q["movie2"])
    return order(cat, first, second, rule["field"]) if answer == "Yes" else order(cat, second, first, rule["field"])


def _free_of(cat: Catalogue, first: Movie, second: Movie, field: str) -> tuple[Movie, Movie] | None:
    """(the film of a pair whose `field` no earlier answer fixed, the other one), the second film
    first; None when both are fixed."""
    free = next((m for m in (second, first) if (m.id, field) not in cat.fixed), None)
    if free is None:
        return None
    return free, first if free is second else second


def _share(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """Yes: the two films have an item of the list in common; No: none."""
    if answer not in ("Yes", "No"):
        return False
    field = rule["field"]
    first, second = movie(cat, q["movie"]), movie(cat, q["movie2"])
    common = set(list_names(first, field)) & set(list_names(second, field))
    if (answer == "Yes") == bool(common):
        return True
    pair = _free_of(cat, first, second, field)
    if pair is None:
        return False
    free, other = pair
    if answer == "Yes":
        items = list_names(other, field)[:1]
        set_list(free, field, sorted(set(list_names(free, field)) | set(items)))
    else:
        set_list(free, field, [n for n in list_names(free, field) if n not in common] or [f"{free.title} {field}"])
    return True


def _shared_name(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The answer is the one item of the list the two films share."""
    if not isinstance(answer, str):
        return False
    field = rule["field"]
    first, second = movie(cat, q["movie"]), movie(cat, q["movie2"])
    for m, other in ((first, second), (second, first)):
        names = list_names(m, field)
        extra = set(names) & set(list_names(other, field)) - {answer}
        if answer not in names or extra:
            if (m.id, field) in cat.fixed:
                continue
            set_list(m, field, sorted({n for n in names if n not in extra} | {answer}))
    return set(list_names(first, field)) & set(list_names(second, field)) == {answer}


def _profit(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """Yes: revenue above budget; No: not."""
    if answer not in ("Yes", "No"):
        return False
    m = movie(cat, q["movie"])
    if (m.revenue > m.budget) == (answer == "Yes"):
        return True
    if (m.id, "revenue") not in cat.fixed:
        m.revenue = m.budget + 1_000_000 if answer == "Yes" else max(0, m.budget - 1_000_000)
    elif (m.id, "budget") not in cat.fixed:
        m.budget = max(0, m.revenue - 1_000_000) if answer == "Yes" else m.revenue + 1_000_000
    return (m.revenue > m.budget) == (answer == "Yes")


def _credited(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """Yes: the person has the job on the film (cast: a role); No: not."""
    if answer not in ("Yes", "No"):
        return False
    m, p, job = movie(cat, q["movie"]), person(cat, q["person"]), rule["job"]
    credits = [pid for pid, _ in m.cast] if job == "cast" else [pid for pid, j in m.crew if j == job]
    if (p.id in credits) == (answer == "Yes"):
        return True
    if job == "cast":
        if answer == "Yes":
            m.cast.append((p.id, cat.new_name(f"{m.title}|role|{p.name}")))
        else:
            m.cast = [(pid, c) for pid, c in m.cast if pid != p.id]
        return True
    if not _fix(cat, m.id, f"crew:{job}", False):
        return False
    m.crew = [(pid, j) for pid, j in m.crew if j != job] + ([(p.id, job)] if answer == "Yes" else [])
    return True


def _extra_items(m: Movie, field: str, count: int) -> list[str]:
    """Made-up items to lengthen a film's list (vocabulary words it lacks, for countries and
    keywords)."""
    vocab = {"countries": [n for _, n in vocabulary()["countries"]], "keywords": list(vocabulary()["keywords"])}
    have = set(list_names(m, field))
    return [n for n in vocab.get(field, []) if n not in have][:count]


def _has_any(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """Yes: the film has alternative titles / translations / revenue; No: none."""
    if answer not in ("Yes", "No"):
        return False
    m, field = movie(cat, q["movie"]), rule["field"]
    if field == "revenue":
        if (m.revenue > 0) != (answer == "Yes") and (m.id, "revenue") not in cat.fixed:
            m.revenue = 0 if answer == "No" else 1_000_000
        return (m.revenue > 0) == (answer == "Yes")
    if bool(list_names(m, field)) != (answer == "Yes") and (m.id, field) not in cat.fixed:
        if field == "translations":
            m.translations = [] if answer == "No" else m.translations
        else:
            set_list(m, field, [] if answer == "No" else [f"{m.title} (alternative)"])
    return bool(list_names(m, field)) == (answer == "Yes")


def item_of(rule: Mapping[str, Any], q: Mapping[str, str]) -> str:
    """The list item a question's words name: through the rule's "names" (a nationality's
    country, a phrase's keyword), a genre capitalised as the list holds it."""
    item = str(rule.get("names", {}).get(q["item"], q["item"]))
    return item.title() if rule["field"] == "genres" else item


def _has_item(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """Yes: the film's genres (companies) include the item; No: not."""
    if answer not in ("Yes", "No"):
        return False
    m, field, item = movie(cat, q["movie"]), rule["field"], item_of(rule, q)
    names = list_names(m, field)
    if (item in names) != (answer == "Yes") and (m.id, field) not in cat.fixed:
        set_list(m, field, sorted(set(names) | {item}) if answer == "Yes" else [n for n in names if n != item])
    return (item in list_names(m, field)) == (answer == "Yes")


def _same_list(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """Yes: the two films' lists are the same set; No: not."""
    if answer not in ("Yes", "No"):
        return False
    field = rule["field"]
    first, second = movie(cat, q["movie"]), movie(cat, q["movie2"])
    if (set(list_names(first, field)) == set(list_names(second, field))) == (answer == "Yes"):
        return True
    pair = _free_of(cat, first, second, field)
    if pair is None:
        return False
    free, other = pair
    if answer == "Yes":
        set_list(free, field, sorted(list_names(other, field)))
    else:
        set_list(free, field, sorted(set(list_names(free, field)) ^ set(list_names(other, field)[:1])))
    return (set(list_names(first, field)) == set(list_names(second, field))) == (answer == "Yes")


def _more_items(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The answer's film has more items in the list than the other."""
    if answer not in (q["movie"], q["movie2"]):
        return False
    field = rule["field"]
    winner = movie(cat, answer)
    loser = movie(cat, q["movie2"] if answer == q["movie"] else q["movie"])
    missing = len(list_names(loser, field)) + 1 - len(list_names(winner, field))
    if missing > 0 and (winner.id, field) not in cat.fixed:
        set_list(winner, field, sorted(list_names(winner, field) + _extra_items(winner, field, missing)))
    elif missing > 0 and (loser.id, field) not in cat.fixed:
        shared_first = sorted(list_names(loser, field), key=lambda n: n not in list_names(winner, field))
        set_list(loser, field, sorted(shared_first[: max(0, len(list_names(winner, field)) - 1)]))
    return len(list_names(winner, field)) > len(list_names(loser, field))


def _directors(m: Movie) -> list[int]:
    return [pid for pid, job in m.crew if job == "Director"]


def _set_director(cat: Catalogue, m: Movie, p: Person) -> bool:
    if _directors(m) == [p.id]:
        return True
    if not _fix(cat, m.id, "crew:Director", False):
        return False
    m.crew = [(pid, j) for pid, j in m.crew if j != "Director"] + [(p.id, "Director")]
    return True


def _same_director(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    if answer not in ("Yes", "No"):
        return False
    first, second = movie(cat, q["movie"]), movie(cat, q["movie2"])
    if (_directors(first) == _directors(second)) == (answer == "Yes"):
        return True
    if answer == "Yes":
        return _set_director(cat, second, cat.people[_directors(first)[0]])
    return _set_director(cat, second, cat.add_person(cat.new_name(f"{second.title}|director")))


def _actor_also_in(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """Yes: the actor of the role also plays in the second film; No: not."""
    if answer not in ("Yes", "No"):
        return False
    actor, other = actor_of(cat, movie(cat, q["movie"]), q["character"]), movie(cat, q["movie2"])
    there = any(pid == actor.id for pid, _ in other.cast)
    if there != (answer == "Yes"):
        if answer == "Yes":
            other.cast.append((actor.id, cat.new_name(f"{other.title}|role|{actor.name}")))
        else:
            other.cast = [(pid, c) for pid, c in other.cast if pid != actor.id]
    return True


def _same_actor(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """Yes: one person plays both roles; No: two people do."""
    if answer not in ("Yes", "No"):
        return False
    actor, other = actor_of(cat, movie(cat, q["movie"]), q["character"]), movie(cat, q["movie2"])
    credited = next((pid for pid, c in other.cast if c == q["character2"]), None)
    if credited is None:
        if answer == "Yes":
            return cast_as(cat, other, actor, q["character2"])
        credited = actor_of(cat, other, q["character2"]).id
    return (credited == actor.id) == (answer == "Yes")


def _films_of(cat: Catalogue, p: Person) -> list[Movie]:
    return [m for m in cat.movies.values() if any(pid == p.id for pid, _ in m.cast)]


def directs_as_named(name: str, q: Mapping[str, str]) -> bool:
    """Whether a director called `name` is the one the question names: the person, or one of
    "the <surname> brothers" (sisters) by surname."""
    return name.split()[-1] == q["surname"] if "surname" in q else name == q["person"]


def _named_directors(cat: Catalogue, q: Mapping[str, str], add: bool) -> set[int]:
    """The ids of the directors the question names: the person, or the people of the surname
    who direct a film (where none does and `add`, two made-up siblings)."""
    if "surname" not in q:
        return {person(cat, q["person"]).id}
    directing = {pid for m in cat.movies.values() for pid in _directors(m)}
    found = {pid for pid in directing if directs_as_named(cat.people[pid].name, q)}
    if found or not add:
        return found
    rng = random.Random(f"movie-siblings|{q['surname']}")
    return {person(cat, f"{first} {q['surname']}").id for first in rng.sample(vocabulary()["first_names"], 2)}


def _actor_in_films_of(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """Yes: the actor of the role plays in a film the person (or a director of the siblings'
    surname) directs; No: in none."""
    if answer not in ("Yes", "No"):
        return False
    actor = actor_of(cat, movie(cat, q["movie"]), q["character"])
    ids = _named_directors(cat, q, add=answer == "Yes")
    shared = [m for m in _films_of(cat, actor) if ids & set(_directors(m))]
    if bool(shared) == (answer == "Yes"):
        return True
    if answer == "Yes":
        film = cat.add_movie(f"{cat.new_name(q.get('person', q.get('surname', ''))).split()[-1]} Street")
        film.cast.append((actor.id, cat.new_name(f"{film.title}|role")))
        if "surname" in q:  # siblings directing together: both credited (none fixed on a new film)
            film.crew = [(pid, j) for pid, j in film.crew if j != "Director"] + [(pid, "Director") for pid in ids]
            return True
        return _set_director(cat, film, cat.people[next(iter(ids))])
    for m in shared:
        m.cast = [(pid, c) for pid, c in m.cast if pid != actor.id]
    return True


def _costars(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """Yes (or a title): the two people play in a film together (after the named one, if any)."""
    one, two = person(cat, q["person"]), person(cat, q["person2"])
    after = movie(cat, q["movie"]).release_date if "movie" in q else ""
    together = [m for m in _films_of(cat, one) if m in _films_of(cat, two) and m.release_date > after]
    if answer not in ("Yes", "No"):
        if not _name(answer) or "movie" in q:
            return False
        film = movie(cat, answer)
        for p in (one, two):
            if not any(pid == p.id for pid, _ in film.cast):
                film.cast.append((p.id, cat.new_name(f"{film.title}|role|{p.name}")))
        return [m.title for m in _films_of(cat, one) if m in _films_of(cat, two)] == [answer]
    if bool(together) == (answer == "Yes"):
        return True
    if answer == "No":
        for m in together:
            m.cast = [(pid, c) for pid, c in m.cast if pid != two.id]
        return True
    film = cat.add_movie(f"{cat.new_name(one.name + two.name).split()[-1]} Avenue")
    film.cast += [(one.id, cat.new_name(f"{film.title}|1")), (two.id, cat.new_name(f"{film.title}|2"))]
    if after and film.release_date <= after:
        film.release_date = _shift("release_date", after, up=True)
    return True


def _common_actor(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    if not _name(answer):
        return False
    actor = person(cat, answer)
    for m in (movie(cat, q["movie"]), movie(cat, q["movie2"])):
        if not any(pid == actor.id for pid, _ in m.cast):
            m.cast.append((actor.id, cat.new_name(f"{m.title}|role|{answer}")))
    return True


def directed(cat: Catalogue, p: Person) -> list[Movie]:
    """The films `p` directs, by id (the order their credits list)."""
    return [m for m in sorted(cat.movies.values(), key=lambda m: m.id) if p.id in _directors(m)]


def _most_items(cat: Catalogue, director: Person, names: list[str], field: str) -> bool:
    """The named films, directed by `director`, have the same number of items in the list and
    more than any other film the director directs."""
    bests = [movie(cat, n) for n in names]
    if not all(_set_director(cat, b, director) for b in bests):
        return False
    others = [m for m in directed(cat, director) if m not in bests]
    fixed_others = [len(list_names(m, field)) for m in others if (m.id, field) in cat.fixed]
    target = max([2, *(len(list_names(b, field)) for b in bests), *(n + 1 for n in fixed_others)])
    for b in bests:
        missing = target - len(list_names(b, field))
        if missing > 0 and (b.id, field) not in cat.fixed:
            set_list(b, field, sorted(list_names(b, field) + _extra_items(b, field, missing)))
    for m in others:
        if len(list_names(m, field)) >= target and (m.id, field) not in cat.fixed:
            set_list(m, field, sorted(list_names(m, field))[: target - 1])
    counts = [len(list_names(b, field)) for b in bests]
    return counts == [target] * len(bests) and all(len(list_names(m, field)) < target for m in others)


def _director_best(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The answer is the film the person directs with the highest value of the field (for a
    count of a list's items, the films tied highest, as an array)."""
    if q["field"] in COUNTED:
        names = answer if isinstance(answer, list) else [answer]
        if not names or not all(_name(n) for n in names) or names != sorted(names):
            return False
        return _most_items(cat, person(cat, q["person"]), names, COUNTED[q["field"]])
    if not _name(answer):
        return False
    director, best, field = person(cat, q["person"]), movie(cat, answer), MOVIE_FIELDS[q["field"]]
    if not _set_director(cat, best, director):
        return False
    others = [m for m in cat.movies.values() if director.id in _directors(m) and m is not best]
    return all(order(cat, best, m, field) for m in others)


def _debut(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The earliest film the person directs (one added under a made-up title where they direct
    none) carries the answer; their other films come later."""
    director = person(cat, q["person"])
    films = sorted(directed(cat, director), key=lambda m: (m.release_date, m.id))
    first = films[0] if films else cat.add_movie(_new_title(cat, f"{director.name}|debut"))
    if not films and not _set_director(cat, first, director):
        return False
    if not set_movie_field(cat, first, MOVIE_FIELDS[q["field"]], answer):
        return False
    return all(order(cat, m, first, "release_date") for m in directed(cat, director) if m is not first)


def _director_mean(cat: Catalogue, rule: Mapping[str, Any], q: Mapping[str, str], answer: Any) -> bool:
    """The mean of the field over the films the person directs, rounded to the rule's digits, is
    the answer: one film whose value no exact rule fixed takes what the mean needs (a film is
    added where the person directs none)."""
    field, director = MOVIE_FIELDS[q["field"]], person(cat, q["person"])
    if not _valid(field, answer) or field == "release_date":
        return False
    films = directed(cat, director)
    if not films:
        films = [cat.add_movie(_new_title(cat, f"{director.name}|directs"))]
        if not _set_director(cat, films[0], director):
            return False
    free = next((m for m in films if (m.id, field) not in cat.fixed), None)
    if round(sum(getattr(m, field) for m in films) / len(films), rule["digits"]) != answer and free is not None:
        rest = sum(getattr(m, field) for m in films if m is not free)
        value = answer * len(films) - rest
        value = round(value, 3) if field == "vote_average" else int(round(value))
        if value < 0 or (field == "vote_average" and value > 10):
            return False
        setattr(free, field, value)
        cat.fixed.add((free.id, field))
    return bool(round(sum(getattr(m, field) for m in films) / len(films), rule["digits"]) == answer)


Rule = Callable[[Catalogue, Mapping[str, Any], Mapping[str, str], Any], bool]
#: Rules that name who holds a credit run before the rest, which find or make that person.
FIRST: dict[str, Rule] = {
    "actor_name": _actor_name,
    "lead_actor": _lead_actor,
    "role_chain": _absent_chain,
    "biography_film": _biography_film,
}
EXACT: dict[str, Rule] = {
    "movie_field": _movie_field,
    "person_field": _person_field,
    "crew": _crew,
    "director_field": _director_field,
    "role": _role,
    "movie_list": _movie_list,
    "translation": _translation,
    "role_chain": _role_chain,
    "actor_field": _actor_field,
    "role_movie_field": _role_movie_field,
    "described": _described,
    "biography_film_director": _biography_film_director,
    "not_held": _not_held,
}
RELATIONAL: dict[str, Rule] = {
    "order": _order,
    "order_yes_no": _order_yes_no,
    "share": _share,
    "shared_name": _shared_name,
    "profit": _profit,
    "credited": _credited,
    "has_any": _has_any,
    "has_item": _has_item,
    "same_list": _same_list,
    "more_items": _more_items,
    "same_director": _same_director,
    "actor_also_in": _actor_also_in,
    "same_actor": _same_actor,
    "actor_in_films_of": _actor_in_films_of,
    "costars": _costars,
    "common_actor": _common_actor,
    "director_best": _director_best,
    "debut": _debut,
    "director_mean": _director_mean,
}
