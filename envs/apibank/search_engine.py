"""The SearchEngine API's ranking: Okapi BM25 over the `SearchEngine` table's tokenised documents.

API-Bank ranks with rank_bm25's BM25Okapi (k1=1.5, b=0.75, negative IDFs floored at
0.25 x the mean IDF) and NLTK's word tokenizer, and returns the two best documents; the same
formula and tokenizer here give the same two documents.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np
from nltk.tokenize import NLTKWordTokenizer

_TOKENIZER = NLTKWordTokenizer()


def word_tokenize(text: str) -> list[str]:
    """NLTK's word tokenizer without the sentence splitter (queries are one sentence)."""
    return _TOKENIZER.tokenize(text)


class OkapiBM25:
    def __init__(
        self, documents: Sequence[Sequence[str]], k1: float = 1.5, b: float = 0.75, epsilon: float = 0.25
    ) -> None:
        self.k1, self.b = k1, b
        self.frequencies = [Counter(doc) for doc in documents]
        self.lengths = np.array([len(doc) for doc in documents], dtype=float)
        self.average_length = float(self.lengths.sum()) / max(len(documents), 1)
        containing: Counter[str] = Counter()
        for freq in self.frequencies:
            containing.update(freq.keys())
        n = len(documents)
        self.idf: dict[str, float] = {}
        negative: list[str] = []
        for word, df in containing.items():
            idf = math.log(n - df + 0.5) - math.log(df + 0.5)
            self.idf[word] = idf
            if idf < 0:
                negative.append(word)
        floor = epsilon * (sum(self.idf.values()) / len(self.idf)) if self.idf else 0.0
        for word in negative:
            self.idf[word] = floor

    def scores(self, query: Sequence[str]) -> np.ndarray:
        total = np.zeros(len(self.frequencies))
        norm = self.k1 * (1 - self.b + self.b * self.lengths / self.average_length)
        for term in query:
            tf = np.array([freq.get(term, 0) for freq in self.frequencies], dtype=float)
            total += self.idf.get(term, 0.0) * (tf * (self.k1 + 1) / (tf + norm))
        return total


class SearchEngineIndex:
    """The shared index behind SearchEngine(keyword)."""

    def __init__(self, table: dict[str, Any]) -> None:
        self.documents: list[dict[str, Any]] = table["raw_documents"]
        self.bm25 = OkapiBM25(table["tokenized_documents"])

    def search(self, keyword: str, top: int = 2) -> list[dict[str, Any]]:
        query = word_tokenize(keyword.lower().strip())
        ranking = np.argsort(-self.bm25.scores(query))
        return [self.documents[i] for i in ranking[:top]]
