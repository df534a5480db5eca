"""Movie's expert: answers a question of a known kind by calling the database's tools (ids from
the searches, never assumed) and records the calls as the plan it replays."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from coevo.envs.movie.rules import COUNTED, MOVIE_FIELDS, PERSON_FIELDS, directs_as_named, first_named, item_of
from coevo.envs.movie.toolkit import MovieToolkit
from coevo.envs.toolusage.env import tool_line


class Solver:
    def __init__(self, toolkit: MovieToolkit) -> None:
        self.toolkit = toolkit
        self.lines: list[str] = []

    def call(self, tool: str, **arguments: Any) -> Any:
        self.lines.append(tool_line(tool, arguments))
        return self.toolkit.call(tool, arguments)

    def movie_id(self, title: str) -> int:
        found: int = self.call("get_search_movie", movie_name=title)[0]["id"]
        return found

    def person_id(self, name: str) -> int:
        found: int = self.call("get_search_person", person_name=name)[0]["id"]
        return found


def _director_birthplace(s: Solver, p: Mapping[str, Any]) -> Any:
    crew = s.call("get_movie_crew", movie_id=s.movie_id(p["movie"]))["crew"]
    director = next(c["id"] for c in crew if c["job"] == "Director")
    return s.call("get_person_details", person_id=director)["place_of_birth"]


def _is_genre(s: Solver, p: Mapping[str, Any]) -> Any:
    genres = s.call("get_movie_details", movie_id=s.movie_id(p["movie"]))["genres"]
    return "Yes" if any(g["name"] == p["genre"] for g in genres) else "No"


def _role(s: Solver, p: Mapping[str, Any]) -> Any:
    cast = s.call("get_movie_cast", movie_id=s.movie_id(p["movie"]))["cast"]
    return next(c["character"] for c in cast if c["name"] == p["person"])


def _common_country(s: Solver, p: Mapping[str, Any]) -> Any:
    first = s.call("get_movie_production_countries", movie_id=s.movie_id(p["movie"]))["production_countries"]
    second = s.call("get_movie_production_countries", movie_id=s.movie_id(p["movie2"]))["production_countries"]
    shared = {c["iso_3166_1"] for c in first} & {c["iso_3166_1"] for c in second}
    return "Yes" if shared else "No"


def _genres(s: Solver, p: Mapping[str, Any]) -> Any:
    return sorted(g["name"] for g in s.call("get_movie_details", movie_id=s.movie_id(p["movie"]))["genres"])


def _alternative_titles(s: Solver, p: Mapping[str, Any]) -> Any:
    titles = s.call("get_movie_alternative_titles", movie_id=s.movie_id(p["movie"]))["titles"]
    return sorted(t["title"] for t in titles)


def _character_twitter(s: Solver, p: Mapping[str, Any]) -> Any:
    cast = s.call("get_movie_cast", movie_id=s.movie_id(p["movie"]))["cast"]
    actor = next(c["id"] for c in cast if c["character"] == p["character"])
    return s.call("get_person_external_ids", person_id=actor)["twitter_id"]


def _release_date(s: Solver, p: Mapping[str, Any]) -> Any:
    return s.call("get_movie_details", movie_id=s.movie_id(p["movie"]))["release_date"]


def _person_birthday(s: Solver, p: Mapping[str, Any]) -> Any:
    return s.call("get_person_details", person_id=s.person_id(p["person"]))["birthday"]


KINDS: dict[str, Callable[[Solver, Mapping[str, Any]], Any]] = {
    "director_birthplace": _director_birthplace,
    "is_genre": _is_genre,
    "role": _role,
    "common_country": _common_country,
    "genres": _genres,
    "alternative_titles": _alternative_titles,
    "character_twitter": _character_twitter,
    "release_date": _release_date,
    "person_birthday": _person_birthday,
}


# ------------------------------------------------------------------ loaded questions' rules
# Each answers a rule of data/templates.json "recognise" (envs/movie/rules.py builds the
# database for it) from the tools' answers; `q` holds the question's names and its text.


def _listed(names: list[str], goal: str) -> Any:
    """A sorted list, or its one name where the question asks for no array or list."""
    if len(names) == 1 and not any(word in goal.lower() for word in ("array", "list")):
        return names[0]
    return sorted(names)


def _details(s: Solver, title: str) -> dict[str, Any]:
    details: dict[str, Any] = s.call("get_movie_details", movie_id=s.movie_id(title))
    return details


def _crew_names(s: Solver, title: str, job: str) -> list[str]:
    crew = s.call("get_movie_crew", movie_id=s.movie_id(title))["crew"]
    return [c["name"] for c in crew if c["job"] == job]


def _person_field(s: Solver, person_id: int, field: str) -> Any:
    if field in ("imdb_id", "facebook_id", "instagram_id", "twitter_id"):
        return s.call("get_person_external_ids", person_id=person_id)[field]
    return s.call("get_person_details", person_id=person_id)[field]


def _list(s: Solver, title: str, field: str) -> list[str]:
    movie_id = s.movie_id(title)
    if field == "genres":
        return [g["name"] for g in s.call("get_movie_details", movie_id=movie_id)["genres"]]
    if field == "companies":
        return [c["name"] for c in s.call("get_movie_production_companies", movie_id=movie_id)["production_companies"]]
    if field == "countries":
        return [c["name"] for c in s.call("get_movie_production_countries", movie_id=movie_id)["production_countries"]]
    if field == "keywords":
        return list(s.call("get_movie_keywords", movie_id=movie_id)["keywords"])
    return [t["title"] for t in s.call("get_movie_alternative_titles", movie_id=movie_id)["titles"]]


def _actor(s: Solver, title: str, character: str) -> int:
    cast = s.call("get_movie_cast", movie_id=s.movie_id(title))["cast"]
    found: int = next(c["id"] for c in cast if c["character"] == character)
    return found


def _yes(value: bool) -> str:
    return "Yes" if value else "No"


def _r_movie_field(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _details(s, q["movie"])[r["field"]]


def _r_person_field(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _person_field(s, s.person_id(q["person"]), r["field"])


def _r_crew(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    names = _crew_names(s, q["movie"], r["job"])
    return names[0] if len(names) == 1 else sorted(names)


def _r_director_field(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    crew = s.call("get_movie_crew", movie_id=s.movie_id(q["movie"]))["crew"]
    return _person_field(s, next(c["id"] for c in crew if c["job"] == "Director"), r["field"])


def _absent(r: Mapping[str, Any], name: str, title: str) -> str:
    """The rule's "absent" sentence for a person with no role in the film (a rule without one
    has no answer: StopIteration, as for a credit not found)."""
    if "absent" not in r:
        raise StopIteration
    return str(r["absent"]).format(person=name, movie=title)


def _r_role(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    cast = s.call("get_movie_cast", movie_id=s.movie_id(q["movie"]))["cast"]
    role = next((c["character"] for c in cast if c["name"] == q["person"]), None)
    return role if role is not None else _absent(r, q["person"], q["movie"])


def _r_movie_list(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _listed(_list(s, q["movie"], r["field"]), q["goal"])


def _r_translation(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    translations = s.call("get_movie_translation", movie_id=s.movie_id(q["movie"]))["translations"]
    return next(t["data"]["overview"] for t in translations if t["english_name"] == q["language"])


def _r_role_chain(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    cast = s.call("get_movie_cast", movie_id=s.movie_id(q["movie"]))["cast"]
    actor = next(c for c in cast if c["character"] == q["character"])
    credits = s.call("get_person_cast", person_id=actor["id"])["cast"]
    role = next((c["character"] for c in credits if c["title"] == q["movie2"]), None)
    return role if role is not None else _absent(r, actor["name"], q["movie2"])


def _r_actor_field(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _person_field(s, _actor(s, q["movie"], q["character"]), PERSON_FIELDS[q["field"]])


def _r_role_movie_field(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    credits = s.call("get_person_cast", person_id=s.person_id(q["person"]))["cast"]
    film = next(c["id"] for c in credits if c["character"] == q["character"])
    return s.call("get_movie_details", movie_id=film)[MOVIE_FIELDS[q["field"]]]


def _r_order(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    one, two = _details(s, q["movie"])[r["field"]], _details(s, q["movie2"])[r["field"]]
    if one == two:
        return "Same"
    first_higher = one > two
    return q["movie"] if first_higher == (r["most"] == "most") else q["movie2"]


def _r_order_yes_no(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _yes(_details(s, q["movie"])[r["field"]] > _details(s, q["movie2"])[r["field"]])


def _r_share(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _yes(bool(set(_list(s, q["movie"], r["field"])) & set(_list(s, q["movie2"], r["field"]))))


def _r_shared_name(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    common = set(_list(s, q["movie"], r["field"])) & set(_list(s, q["movie2"], r["field"]))
    return _listed(sorted(common), q["goal"]) if common else "None"


def _r_profit(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    details = _details(s, q["movie"])
    return _yes(details["revenue"] > details["budget"])


def _r_credited(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    if r["job"] == "cast":
        cast = s.call("get_movie_cast", movie_id=s.movie_id(q["movie"]))["cast"]
        return _yes(any(c["name"] == q["person"] for c in cast))
    return _yes(q["person"] in _crew_names(s, q["movie"], r["job"]))


def _r_actor_name(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    cast = s.call("get_movie_cast", movie_id=s.movie_id(q["movie"]))["cast"]
    return next(c["name"] for c in cast if c["character"] == q["character"])


def _r_lead_actor(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    lead = s.call("get_movie_cast", movie_id=s.movie_id(q["movie"]))["cast"][0]
    return _person_field(s, lead["id"], PERSON_FIELDS[q["field"]]) if "field" in q else lead["name"]


def _r_has_any(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    movie_id = s.movie_id(q["movie"])
    if r["field"] == "revenue":
        return _yes(s.call("get_movie_details", movie_id=movie_id)["revenue"] > 0)
    if r["field"] == "translations":
        return _yes(bool(s.call("get_movie_translation", movie_id=movie_id)["translations"]))
    return _yes(bool(s.call("get_movie_alternative_titles", movie_id=movie_id)["titles"]))


def _r_has_item(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _yes(item_of(r, q) in _list(s, q["movie"], r["field"]))


def _r_same_list(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _yes(set(_list(s, q["movie"], r["field"])) == set(_list(s, q["movie2"], r["field"])))


def _r_more_items(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    one, two = len(_list(s, q["movie"], r["field"])), len(_list(s, q["movie2"], r["field"]))
    return "Same" if one == two else q["movie"] if one > two else q["movie2"]


def _r_same_director(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _yes(sorted(_crew_names(s, q["movie"], "Director")) == sorted(_crew_names(s, q["movie2"], "Director")))


def _films(s: Solver, person_id: int) -> list[dict[str, Any]]:
    films: list[dict[str, Any]] = s.call("get_person_cast", person_id=person_id)["cast"]
    return films


def _r_actor_also_in(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _yes(any(f["title"] == q["movie2"] for f in _films(s, _actor(s, q["movie"], q["character"]))))


def _r_actor_in_films_of(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    for film in _films(s, _actor(s, q["movie"], q["character"])):
        crew = s.call("get_movie_crew", movie_id=film["id"])["crew"]
        if any(c["job"] == "Director" and directs_as_named(c["name"], q) for c in crew):
            return "Yes"
    return "No"


def _r_costars(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    second = {f["id"] for f in _films(s, s.person_id(q["person2"]))}
    together = [f for f in _films(s, s.person_id(q["person"])) if f["id"] in second]
    if "movie" in q:
        after = _details(s, q["movie"])["release_date"]
        together = [f for f in together if s.call("get_movie_details", movie_id=f["id"])["release_date"] > after]
    if "film name" in q["goal"]:
        return together[0]["title"] if len(together) == 1 else "None"
    return _yes(bool(together))


def _r_common_actor(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    first = s.call("get_movie_cast", movie_id=s.movie_id(q["movie"]))["cast"]
    second = {c["name"] for c in s.call("get_movie_cast", movie_id=s.movie_id(q["movie2"]))["cast"]}
    common = [c["name"] for c in first if c["name"] in second]
    return common[0] if len(common) == 1 else sorted(common)


def _directed(s: Solver, name: str) -> list[dict[str, Any]]:
    crew = s.call("get_person_crew", person_id=s.person_id(name))["crew"]
    return [f for f in crew if f["job"] == "Director"]


def _r_director_best(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    films = _directed(s, q["person"])
    if q["field"] in COUNTED:
        counts = {f["title"]: len(_list(s, f["title"], COUNTED[q["field"]])) for f in films}
        return _listed([title for title, n in counts.items() if n == max(counts.values())], q["goal"])
    field = MOVIE_FIELDS[q["field"]]
    values = {f["title"]: s.call("get_movie_details", movie_id=f["id"])[field] for f in films}
    return max(values, key=lambda title: values[title])


def _r_debut(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    details = [s.call("get_movie_details", movie_id=f["id"]) for f in _directed(s, q["person"])]
    return min(details, key=lambda d: d["release_date"])[MOVIE_FIELDS[q["field"]]]


def _r_director_mean(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    field = MOVIE_FIELDS[q["field"]]
    values = [s.call("get_movie_details", movie_id=f["id"])[field] for f in _directed(s, q["person"])]
    return round(sum(values) / len(values), r["digits"])


def _described_film(s: Solver, q: Mapping[str, str]) -> int:
    """The first of the director's films (else the star's) whose overview (from the title's
    search) holds what the question says it is about and whose cast holds the role or star it
    names (rules.described_film)."""
    if "person" in q:
        crew = s.call("get_person_crew", person_id=s.person_id(q["person"]))["crew"]
        films = [f for f in crew if f["job"] == "Director"]
    else:
        films = _films(s, s.person_id(q["person2"]))
    for film in films:
        if "about" in q:
            overview = s.call("get_search_movie", movie_name=film["title"])[0]["overview"]
            if q["about"].lower() not in overview.lower():
                continue
        if "character" in q or ("person" in q and "person2" in q):
            cast = s.call("get_movie_cast", movie_id=film["id"])["cast"]
            if "character" in q and not any(c["character"] == q["character"] for c in cast):
                continue
            if "person2" in q and not any(c["name"] == q["person2"] for c in cast):
                continue
        found: int = film["id"]
        return found
    raise StopIteration


def _r_described(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    film, ask = _described_film(s, q), r["ask"]
    if ask == "movie_field":
        return s.call("get_movie_details", movie_id=film)[MOVIE_FIELDS[q["field"]]]
    if ask == "director":
        crew = s.call("get_movie_crew", movie_id=film)["crew"]
        return next(c["name"] for c in crew if c["job"] == "Director")
    cast = s.call("get_movie_cast", movie_id=film)["cast"]
    if ask == "costar":
        return next(c["name"] for c in cast if c["name"] != q["person2"])
    credit = cast[0] if ask == "lead" else next(c for c in cast if c["character"] == q["character"])
    return _person_field(s, credit["id"], PERSON_FIELDS[q["field"]]) if "field" in q else credit["name"]


def _r_same_actor(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _yes(_actor(s, q["movie"], q["character"]) == _actor(s, q["movie2"], q["character2"]))


def _phrase_credit(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> dict[str, Any]:
    """The credit of the person's films their biography names after the rule's phrase ("first
    gained attention"): get_person_details' biography read against get_person_cast's titles."""
    person_id = s.person_id(q["person"])
    biography = s.call("get_person_details", person_id=person_id)["biography"]
    films = _films(s, person_id)
    at = first_named(biography, r["phrase"], [f["title"] for f in films])
    if at is None:
        raise StopIteration
    return films[at]


def _r_biography_film(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    return _phrase_credit(s, r, q)["title"]


def _r_biography_film_director(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    crew = s.call("get_movie_crew", movie_id=_phrase_credit(s, r, q)["id"])["crew"]
    names = [c["name"] for c in crew if c["job"] == "Director"]
    return names[0] if len(names) == 1 else sorted(names)


def _r_not_held(s: Solver, r: Mapping[str, Any], q: Mapping[str, str]) -> Any:
    """Looks where the thing would be (the film's director, then the rule's tool on them: their
    credits, which hold films only, or their details) and, finding it in no tool's answer, gives
    the statement the question's format line offers."""
    crew = s.call("get_movie_crew", movie_id=s.movie_id(q["movie"]))["crew"]
    director = next(c["id"] for c in crew if c["job"] == "Director")
    s.call(r["look"], person_id=director)
    return str(r["answer"]).format(**q)


RULES: dict[str, Callable[[Solver, Mapping[str, Any], Mapping[str, str]], Any]] = {
    "movie_field": _r_movie_field,
    "person_field": _r_person_field,
    "crew": _r_crew,
    "director_field": _r_director_field,
    "role": _r_role,
    "movie_list": _r_movie_list,
    "translation": _r_translation,
    "role_chain": _r_role_chain,
    "actor_field": _r_actor_field,
    "role_movie_field": _r_role_movie_field,
    "order": _r_order,
    "order_yes_no": _r_order_yes_no,
    "share": _r_share,
    "shared_name": _r_shared_name,
    "profit": _r_profit,
    "credited": _r_credited,
    "actor_name": _r_actor_name,
    "lead_actor": _r_lead_actor,
    "has_any": _r_has_any,
    "has_item": _r_has_item,
    "same_list": _r_same_list,
    "more_items": _r_more_items,
    "same_director": _r_same_director,
    "actor_also_in": _r_actor_also_in,
    "actor_in_films_of": _r_actor_in_films_of,
    "costars": _r_costars,
    "common_actor": _r_common_actor,
    "director_best": _r_director_best,
    "described": _r_described,
    "debut": _r_debut,
    "director_mean": _r_director_mean,
    "same_actor": _r_same_actor,
    "biography_film": _r_biography_film,
    "biography_film_director": _r_biography_film_director,
    "not_held": _r_not_held,
}


def solve_rule(rule: Mapping[str, Any], toolkit: MovieToolkit, question: Mapping[str, str]) -> tuple[Any, list[str]]:
    """(answer, action lines ending with finish) for a loaded question of a recognised kind."""
    solver = Solver(toolkit)
    answer = RULES[rule["name"]](solver, rule, question)
    solver.lines.append(tool_line("finish", {"answer": answer}))
    return answer, solver.lines


def solve(kind: str, toolkit: MovieToolkit, params: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """(answer, action lines ending with finish) for a question of `kind`."""
    solver = Solver(toolkit)
    answer = KINDS[kind](solver, params)
    solver.lines.append(tool_line("finish", {"answer": answer}))
    return answer, solver.lines
