"""The inputs of the API-Bank fidelity fixtures, rebuilt from the benchmark's dialogues.

The fixtures under `fixtures/` hold the original evaluator's outputs keyed by case id, never
the benchmark's text: a case id names a dialogue turn and a deterministic perturbation, and this
module turns it back into the text the original was given. Standard library only, so the
recording script (`record_original.py`, run once in a separate venv beside the original's
checkout) and the tests build the very same cases.

- Reply cases `<task id>:<turn>|<recipe>`: the recorded AI reply after a call (reference) and a
  hypothesis made from it or from another reply (other punctuation, case, an `AI:` prefix...).
- Call cases `<task id>:<turn>|<recipe>`: the recorded call (ground truth) and an API-Request line
  for it: as the expert writes it, with other quoting, a dropped or changed argument, arguments
  of another recorded call of the same API, an unknown argument, another API's name.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

FOLDERS = {1: "level-1-given-desc", 2: "level-2-toolsearcher"}

REPLY_RECIPES = (
    "same",
    "ai_prefix",
    "ai_prefix_nospace",
    "commas_to_dots",
    "dots_to_commas",
    "lower",
    "upper_first",
    "no_punct",
    "shuffle",
    "first_half",
    "last_half",
    "other",
    "ai_other",
    "extra_sentence",
    "newlines",
    "double_spaces",
    "dots_only",
    "empty",
    "spaces",
)

CALL_RECIPES = (
    "expert",
    "all_quoted",
    "double_quoted",
    "json_lists",
    "drop",
    "upper",
    "lower",
    "pad",
    "add_word",
    "drop_word",
    "other_call",
    "other_call2",
    "extra_arg",
    "date_slashes",
    "wrong_name",
    "no_brackets",
)


@dataclass(frozen=True)
class ReplyCase:
    id: str
    reference: str
    hypothesis: str


@dataclass(frozen=True)
class CallCase:
    id: str
    level: int
    task_id: str
    turn: int
    api_name: str
    action: str


def dialogues(samples_dir: Path) -> Iterator[tuple[int, str, list[dict[str, Any]]]]:
    """(level, task id, rows) of every non-empty shipped dialogue, in file-name order; the
    task id is the env's (`l1-<file stem>`), row i is the dialogue's turn i."""
    for level, sub in FOLDERS.items():
        for path in sorted((samples_dir / sub).glob("*.jsonl")):
            rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
            if rows:
                yield level, f"l{level}-{path.stem}", rows


def _rng(case_id: str) -> random.Random:
    return random.Random(case_id)


# ----------------------------------------------------------------------------- replies
def reply_turns(samples_dir: Path) -> list[tuple[str, str]]:
    """(key, text) of each AI reply right after an API call: what API-Bank scores by ROUGE-L."""
    found = []
    for _level, name, rows in dialogues(samples_dir):
        for i, row in enumerate(rows):
            if row["role"] == "AI" and i > 0 and rows[i - 1]["role"] == "API":
                found.append((f"{name}:{i}", row["text"]))
    return found


def _hypothesis(recipe: str, text: str, other: str, rng: random.Random) -> str:
    words = text.split()
    if recipe == "same":
        return text
    if recipe == "ai_prefix":
        return "AI: " + text
    if recipe == "ai_prefix_nospace":
        return "AI:" + text
    if recipe == "commas_to_dots":
        return text.replace(",", ".")
    if recipe == "dots_to_commas":
        return text.replace(".", ",")
    if recipe == "lower":
        return text.lower()
    if recipe == "upper_first":
        return " ".join(w[:1].upper() + w[1:] for w in words)
    if recipe == "no_punct":
        return re.sub(r"[^\w\s]", "", text)
    if recipe == "shuffle":
        shuffled = list(words)
        rng.shuffle(shuffled)
        return " ".join(shuffled)
    if recipe == "first_half":
        return " ".join(words[: max(1, len(words) // 2)])
    if recipe == "last_half":
        return " ".join(words[len(words) // 2 :])
    if recipe == "other":
        return other
    if recipe == "ai_other":
        return "AI: " + other
    if recipe == "extra_sentence":
        return text + " Is there anything else I can help you with?"
    if recipe == "newlines":
        return text.replace(". ", ".\n")
    if recipe == "double_spaces":
        return "  " + text.replace(" ", "  ") + " "
    if recipe == "dots_only":
        return "..."
    if recipe == "empty":
        return ""
    if recipe == "spaces":
        return "   "
    raise ValueError(f"unknown reply recipe {recipe!r}")


def reply_cases(samples_dir: Path) -> list[ReplyCase]:
    return reply_cases_of(reply_turns(samples_dir))


def reply_cases_of(turns: list[tuple[str, str]]) -> list[ReplyCase]:
    """Every recipe on each (key, recorded reply); `other` draws from the same list."""
    cases = []
    for key, text in turns:
        for recipe in REPLY_RECIPES:
            case_id = f"{key}|{recipe}"
            rng = _rng(case_id)
            other = turns[rng.randrange(len(turns))][1]
            cases.append(ReplyCase(case_id, text, _hypothesis(recipe, text, other, rng)))
    return cases


# ----------------------------------------------------------------------------- calls
def _is_list(value: str) -> bool:
    return value.startswith("[") and value.endswith("]")


def render(name: str, arguments: Mapping[str, str], style: str = "expert") -> str:
    """An API-Request line. `expert`: lists bare, the rest in single quotes (what the env's
    expert writes); `all_quoted`: every value in single quotes (how API-Bank's prompt prints a
    call); `double_quoted`: double quotes; `json_lists`: lists with double-quoted items."""
    parts = []
    for key, value in arguments.items():
        if style == "expert" and _is_list(value):
            parts.append(f"{key}={value}")
        elif style == "json_lists" and _is_list(value):
            parts.append(f"{key}={value.replace(chr(39), chr(34))}")
        elif style == "double_quoted":
            parts.append(f'{key}="{value}"')
        else:
            parts.append(f"{key}='{value}'")
    return f"API-Request: [{name}({', '.join(parts)})]"


def _changed(args: dict[str, str], rng: random.Random, change: Any) -> dict[str, str] | None:
    keys = [k for k, v in args.items() if not _is_list(v)]
    if not keys:
        return None
    key = rng.choice(keys)
    return {**args, key: change(args[key], rng)}


def _add_word(value: str, rng: random.Random) -> str:
    return f"{value} {rng.choice(['please', 'today', 'the', 'new', 'meeting'])}"


def _drop_word(value: str, rng: random.Random) -> str:
    words = value.split(" ")
    if len(words) > 1:
        del words[rng.randrange(len(words))]
    return " ".join(words)


def _call_action(
    recipe: str, name: str, args: dict[str, str], others: list[dict[str, str]], names: list[str], rng: random.Random
) -> str | None:
    if recipe == "expert":
        return render(name, args)
    if recipe in ("all_quoted", "double_quoted", "json_lists"):
        return render(name, args, recipe)
    if recipe == "drop":
        if not args:
            return None
        key = rng.choice(sorted(args))
        return render(name, {k: v for k, v in args.items() if k != key})
    changes = {
        "upper": lambda v, r: v.upper(),
        "lower": lambda v, r: v.lower(),
        "pad": lambda v, r: f" {v} ",
        "add_word": _add_word,
        "drop_word": _drop_word,
    }
    if recipe in changes:
        changed = _changed(args, rng, changes[recipe])
        return None if changed is None else render(name, changed)
    if recipe in ("other_call", "other_call2"):
        pool = [o for o in others if o != args]
        return render(name, rng.choice(pool)) if pool else None
    if recipe == "extra_arg":
        return render(name, {**args, "note": "urgent"})
    if recipe == "date_slashes":
        dated = {k: re.sub(r"(\d{4})-(\d\d)-(\d\d)", r"\1/\2/\3", v) for k, v in args.items()}
        return render(name, dated) if dated != args else None
    if recipe == "wrong_name":
        return render(rng.choice([n for n in names if n != name]), args)
    if recipe == "no_brackets":
        return render(name, args).replace("[", "").replace("]", "")
    raise ValueError(f"unknown call recipe {recipe!r}")


def call_cases(samples_dir: Path) -> list[CallCase]:
    rows_by_api: dict[str, list[dict[str, str]]] = {}
    api_turns = []
    for level, name, rows in dialogues(samples_dir):
        for i, row in enumerate(rows):
            if row["role"] == "API":
                args = {k: str(v) for k, v in row["param_dict"].items()}
                rows_by_api.setdefault(row["api_name"], []).append(args)
                api_turns.append((level, name, i, row["api_name"], args))
    names = sorted(rows_by_api)
    cases = []
    for level, name, i, api, args in api_turns:
        seen: set[str] = set()
        for recipe in CALL_RECIPES:
            case_id = f"{name}:{i}|{recipe}"
            action = _call_action(recipe, api, args, rows_by_api[api], names, _rng(case_id))
            if action is not None and action not in seen:  # a recipe that changed nothing
                seen.add(action)
                cases.append(CallCase(case_id, level, name, i, api, action))
    return cases
