"""BFCL's official data, read from the installed `bfcl-eval` package (or a copy of its data folder).

Everything is loaded lazily, one category at a time, and shared read-only by every session:
opening the env costs one pass that counts lines, and a category's JSON is parsed the first time
one of its tasks is touched.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import Enum
from pathlib import Path
from typing import Any

from coevo.envs.base import UnknownSplit, UnknownTask

#: The package version whose file names and layout this module reads.
BFCL_EVAL_VERSION = "2026.3.23"
_FILE_PREFIX = "BFCL_v4"

SINGLE_TURN_CATEGORIES: tuple[str, ...] = (
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "parallel",
    "parallel_multiple",
    "irrelevance",
    "live_simple",
    "live_multiple",
    "live_parallel",
    "live_parallel_multiple",
    "live_irrelevance",
    "live_relevance",
)
MULTI_TURN_CATEGORIES: tuple[str, ...] = (
    "multi_turn_base",
    "multi_turn_miss_func",
    "multi_turn_miss_param",
    "multi_turn_long_context",
)
CATEGORIES: tuple[str, ...] = SINGLE_TURN_CATEGORIES + MULTI_TURN_CATEGORIES


class Language(Enum):
    """How parameter values are typed: Python values, or Java/JavaScript source in strings."""

    PYTHON = "python"
    JAVA = "java"
    JAVASCRIPT = "javascript"


def category_of(task_id: str) -> str:
    """BFCL derives the category from the id: everything before the last underscore."""
    return task_id.rsplit("_", 1)[0]


def language_of(category: str) -> Language:
    if "javascript" in category:
        return Language.JAVASCRIPT
    if "java" in category:
        return Language.JAVA
    return Language.PYTHON


def is_multi_turn(category: str) -> bool:
    return "multi_turn" in category


def is_relevance_category(category: str) -> bool:
    """relevance / irrelevance: scored on whether a call is made, there is no answer file."""
    return "relevance" in category


class BfclDataMissing(RuntimeError):
    """bfcl-eval is not installed and no data folder was given."""


def package_dir() -> Path:
    """The installed `bfcl_eval` package folder, found without importing it."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.submodule_search_locations:
        raise BfclDataMissing(
            "the BFCL env needs the bfcl-eval package: pip install --no-deps "
            f"bfcl-eval=={BFCL_EVAL_VERSION} mpmath (scripts/bootstrap.sh does this), "
            "or pass data_dir=<a copy of its data folder>"
        )
    return Path(next(iter(spec.submodule_search_locations)))


def default_data_dir() -> Path:
    return package_dir() / "data"


@dataclass(frozen=True)
class Entry:
    """One BFCL test entry with its possible answer (None for relevance/irrelevance)."""

    id: str
    category: str
    #: Turns of chat messages ({"role", "content"}); single-turn entries have exactly one turn.
    question: list[list[dict[str, str]]]
    #: Function docs as stored (single-turn); multi-turn entries get them from their classes.
    functions: list[dict[str, Any]]
    #: Single-turn: list of {function name: {param: [possible values]}}.
    #: Multi-turn: one list of ground-truth call strings per turn.
    answer: list[Any] | None
    initial_config: dict[str, Any] = field(default_factory=dict)
    involved_classes: list[str] = field(default_factory=list)
    #: miss_func: turn index (as a string, as in the data) -> names of the held-out functions.
    missed_function: dict[str, list[str]] = field(default_factory=dict)

    @property
    def language(self) -> Language:
        return language_of(self.category)

    @property
    def multi_turn(self) -> bool:
        return is_multi_turn(self.category)


def _read_jsonl(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def _count_lines(path: Path) -> int:
    with path.open("rb") as f:
        return sum(1 for line in f if line.strip())


class BfclCatalog:
    """Read-only access to every category; parses each category file on first use."""

    def __init__(self, data_dir: str | Path | None = None) -> None:
        self.data_dir = Path(data_dir) if data_dir is not None else default_data_dir()
        if not (self.data_dir / f"{_FILE_PREFIX}_simple_python.json").is_file():
            raise BfclDataMissing(f"no BFCL data in {self.data_dir}")
        self.counts: dict[str, int] = {c: _count_lines(self._question_path(c)) for c in CATEGORIES}
        self._loaded: dict[str, tuple[list[str], dict[str, Entry]]] = {}
        self._docs: dict[str, list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    # ----------------------------------------------------------------- paths
    def _question_path(self, category: str) -> Path:
        return self.data_dir / f"{_FILE_PREFIX}_{category}.json"

    def _answer_path(self, category: str) -> Path:
        return self.data_dir / "possible_answer" / f"{_FILE_PREFIX}_{category}.json"

    # ----------------------------------------------------------------- catalogue
    def splits(self) -> Mapping[str, int]:
        return self.counts

    def ids(self, category: str) -> Sequence[str]:
        return self._category(category)[0]

    def entry(self, task_id: str) -> Entry:
        category = category_of(task_id)
        if category not in self.counts:
            raise UnknownTask(f"unknown task id {task_id!r}")
        try:
            return self._category(category)[1][task_id]
        except KeyError:
            raise UnknownTask(f"unknown task id {task_id!r}") from None

    def _category(self, category: str) -> tuple[list[str], dict[str, Entry]]:
        loaded = self._loaded.get(category)
        if loaded is not None:
            return loaded
        if category not in self.counts:
            raise UnknownSplit(f"unknown split {category!r}; known: {sorted(self.counts)}")
        with self._lock:
            loaded = self._loaded.get(category)
            if loaded is None:
                loaded = self._load(category)
                self._loaded[category] = loaded
        return loaded

    def _load(self, category: str) -> tuple[list[str], dict[str, Entry]]:
        rows = _read_jsonl(self._question_path(category))
        answers: dict[str, Any] = {}
        if not is_relevance_category(category):
            answers = {a["id"]: a["ground_truth"] for a in _read_jsonl(self._answer_path(category))}
            missing = [r["id"] for r in rows if r["id"] not in answers]
            if missing:
                raise ValueError(f"{category}: no possible answer for {missing[:3]}")
        entries = {
            r["id"]: Entry(
                id=r["id"],
                category=category,
                question=r["question"],
                functions=r.get("function", []),
                answer=answers.get(r["id"]),
                initial_config=r.get("initial_config", {}),
                involved_classes=r.get("involved_classes", []),
                missed_function=r.get("missed_function", {}),
            )
            for r in rows
        }
        return [r["id"] for r in rows], entries

    # ----------------------------------------------------------------- multi-turn docs
    def class_docs(self, class_name: str) -> list[dict[str, Any]]:
        """The function docs of one multi-turn API class, as BFCL ships them."""
        docs = self._docs.get(class_name)
        if docs is None:
            from bfcl_eval.constants.executable_backend_config import (
                MULTI_TURN_FUNC_DOC_FILE_MAPPING,
            )

            docs = _read_jsonl(self.data_dir / "multi_turn_func_doc" / MULTI_TURN_FUNC_DOC_FILE_MAPPING[class_name])
            with self._lock:
                self._docs[class_name] = docs
        return docs
