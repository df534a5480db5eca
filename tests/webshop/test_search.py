"""The streamed index builder gives bm25s's own Lucene BM25 scores; search is WebShop's top 50."""

from __future__ import annotations

from pathlib import Path

import bm25s
import numpy as np
import pytest

from coevo.envs.webshop import search
from coevo.envs.webshop.records import normalize_product
from coevo.envs.webshop.search import Analyzer, IndexBuilder, Searcher
from coevo.envs.webshop.tasks import generate

QUERIES = [
    "red running shoes for men",
    "usb microphone noise cancelling",
    "gluten free bacon pack of 2",
    "zzzz qqq",
    "the",
]


def _docs(n: int) -> list[str]:
    return [normalize_product(r, i).document() for r, i in generate(n, seed=11)]


def test_analyzer_is_lucene_english_like() -> None:
    analyze = Analyzer()
    assert analyze("The Women's Running-Shoes, 3.5 inch, and 1,000 ponies!") == [
        "women",
        "run",
        "shoe",
        "3.5",
        "inch",
        "1,000",
        "poni",
    ]


def test_streamed_scores_equal_bm25s_index(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(search, "_CHUNK_DOCS", 37)  # several flushes
    docs = _docs(300)
    builder = IndexBuilder()
    builder.add_many(docs)
    builder.save(tmp_path / "index")
    ours = Searcher(tmp_path / "index")
    assert isinstance(ours.model.scores["data"], np.memmap)

    analyze = Analyzer()
    reference = bm25s.BM25(k1=search.K1, b=search.B, method="lucene", idf_method="lucene")
    reference.index([analyze(d) for d in docs], show_progress=False)
    for query in QUERIES[:3]:
        tokens = [t for t in analyze(query) if t in reference.vocab_dict]
        ids = [ours.model.vocab_dict[t] for t in tokens]
        np.testing.assert_allclose(ours.model.get_scores(ids), reference.get_scores(tokens), rtol=1e-5, atol=1e-6)


def test_search_returns_top_50_matching_docs_best_first(tmp_path: Path) -> None:
    docs = _docs(300)
    builder = IndexBuilder()
    builder.add_many(docs)
    builder.save(tmp_path / "index")
    searcher = Searcher(tmp_path / "index")
    hits = searcher.search("black large machine wash")
    assert len(hits) == 50 and len(set(hits)) == 50
    scores = searcher.model.get_scores(
        [searcher.model.vocab_dict[t] for t in searcher.analyze("black large machine wash")]
    )
    ranked = scores[hits]
    assert np.all(ranked[:-1] >= ranked[1:]) and ranked[-1] > 0
    assert scores[[i for i in range(300) if i not in hits]].max() <= ranked[-1]
    assert searcher.search("zzzz qqq") == [] and searcher.search("the and") == []
    few = searcher.search("bacon")
    assert 0 < len(few) < 50 and all("bacon" in docs[i] for i in few)  # only matching documents
    assert searcher.search("black large machine wash") == hits  # deterministic


def test_top_k_above_the_floor_equals_the_full_ranking(tmp_path: Path) -> None:
    """The candidate floor (k-th best among the rarest terms' documents) never drops a winner."""
    docs = _docs(1500)
    builder = IndexBuilder()
    builder.add_many(docs)
    builder.save(tmp_path / "index")
    searcher = Searcher(tmp_path / "index")
    queries = QUERIES + [d[:60] for d in docs[::97]] + ["black", "large black pack of 2 cotton"]
    floors_used = 0
    for query in queries:
        ids = [searcher.model.vocab_dict[t] for t in searcher.analyze(query) if t in searcher.model.vocab_dict]
        if not ids:
            continue
        scores = searcher.model.get_scores(ids)
        matching = np.flatnonzero(scores > 0)
        expected = matching[np.lexsort((matching, -scores[matching]))][:5].tolist()
        assert searcher.search(query, k=5) == expected, query
        floors_used += searcher._floor(scores, tuple(ids), 5) > np.nextafter(np.float32(0), np.float32(1))
    assert floors_used >= 5  # the floor really cut candidates in most of these queries
