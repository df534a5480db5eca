"""Everything the sandbox shares across sessions, built once per process.

Tables come from a user's API-Bank folder (`data_dir` or `$APIBANK_DATA`) when given, else from
the generated databases this package builds (same shapes, our own content). The original answers
Dictionary and Translate from web services; here both read offline tables: our generated entries
plus, when a data folder is loaded, the answers its dialogues recorded for those two APIs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coevo.envs.apibank import apis  # noqa: F401 - registers the implementations
from coevo.envs.apibank.builtin_db import builtin_dictionary, builtin_tables, builtin_translations
from coevo.envs.apibank.database import load_tables
from coevo.envs.apibank.languages import UnsupportedLanguage, resolve_language
from coevo.envs.apibank.search_engine import SearchEngineIndex
from coevo.envs.apibank.specs import catalogue
from coevo.envs.apibank.tasks import Dialogue, load_shipped
from coevo.envs.apibank.toolsearch import RETRIEVERS, ToolIndex

DATA_ENV = "APIBANK_DATA"


def resolve_data_dir(data_dir: str | os.PathLike[str] | None) -> Path | None:
    """The API-Bank folder to load: the option, else $APIBANK_DATA, else none (generated data)."""
    chosen = data_dir if data_dir not in (None, "") else os.environ.get(DATA_ENV) or None
    if chosen is None:
        return None
    path = Path(chosen).expanduser()
    if not (path / "init_database").is_dir():
        raise FileNotFoundError(
            f"{path} is not an API-Bank data folder (no init_database/); point data_dir or "
            f"${DATA_ENV} at the folder holding init_database/, data/ and lv1-lv2-samples/"
        )
    return path


@dataclass
class Resources:
    tables: Mapping[str, Any]
    source: str  # "data" or "generated"
    data_dir: Path | None
    retriever: str
    shipped: dict[int, list[Dialogue]] = field(default_factory=dict)
    dictionary: dict[str, Any] = field(default_factory=dict)
    translations: dict[tuple[str, str], str] = field(default_factory=dict)
    captions: dict[str, str] = field(default_factory=dict)
    search_engine: SearchEngineIndex | None = None
    _tool_indexes: dict[int, ToolIndex] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def tool_index(self, level: int) -> ToolIndex:
        key = 3 if level == 3 else 12
        index = self._tool_indexes.get(key)
        if index is None:
            with self._lock:
                index = self._tool_indexes.get(key)
                if index is None:
                    index = ToolIndex(list(catalogue(key).values()), self.retriever)
                    self._tool_indexes[key] = index
        return index


def recorded_answers(shipped: Mapping[int, list[Dialogue]]) -> tuple[dict, dict]:
    """Dictionary and Translate answers recorded in the dialogues (the web services' replies)."""
    dictionary: dict[str, Any] = {}
    translations: dict[tuple[str, str], str] = {}
    for dialogues in shipped.values():
        for dialogue in dialogues:
            for turn in dialogue.turns:
                result = turn.result or {}
                if result.get("exception") is not None or result.get("output") is None:
                    continue
                inputs = result.get("input") or {}
                if turn.api_name == "Dictionary" and "keyword" in inputs:
                    key = str(inputs["keyword"]).replace("_", " ").strip().lower()
                    dictionary.setdefault(key, result["output"])
                elif turn.api_name == "Translate" and "src" in inputs:
                    try:
                        target = resolve_language(inputs.get("tgt_lang"))
                    except UnsupportedLanguage:
                        continue
                    translations.setdefault((inputs["src"], target), result["output"])
    return dictionary, translations


def build_resources(data_dir: str | os.PathLike[str] | None = None, retriever: str = "bm25") -> Resources:
    if retriever not in RETRIEVERS:
        raise ValueError(f"unknown retriever {retriever!r}; choose one of {RETRIEVERS}")
    path = resolve_data_dir(data_dir)
    if path is None:
        tables, source, shipped = builtin_tables(), "generated", {}
    else:
        tables, source = load_tables(path / "init_database"), "data"
        samples = path / "lv1-lv2-samples"
        shipped = load_shipped(samples) if samples.is_dir() else {}
    dictionary, translations = builtin_dictionary(), builtin_translations()
    recorded_dictionary, recorded_translations = recorded_answers(shipped)
    dictionary.update(recorded_dictionary)
    translations.update(recorded_translations)
    captions: dict[str, str] = {}
    for item in tables["ImageCaptioning"]:
        captions.setdefault(item["url"], item["caption"])
    return Resources(
        tables=tables,
        source=source,
        data_dir=path,
        retriever=retriever,
        shipped=shipped,
        dictionary=dictionary,
        translations=translations,
        captions=captions,
        search_engine=SearchEngineIndex(tables["SearchEngine"]),
    )
