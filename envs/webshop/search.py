"""BM25 search over WebShop's product documents, built once on disk and memory-mapped.

WebShop indexes each product's lower-cased "title description first-bullet options" text with
Pyserini/Lucene (English analyzer: standard tokenizer, possessive filter, Lucene's stop words,
Porter stemmer; BM25 k1=0.9, b=0.4) and returns the top 50 hits. We keep the analyzer's steps
(see `analyze`) and those parameters, with bm25s's Lucene BM25 variant.

Building goes through bm25s's own file format but not through `BM25.index`, which keeps every
document's token list in Python lists (gigabytes at 1.18M products): `IndexBuilder` streams
documents, keeps only (doc, term, tf) triples in numpy arrays and computes the same scores
(tests/webshop checks them against `bm25s.BM25.index`). Loading uses `BM25.load(mmap=True)`,
so every session of every worker shares one page-cached copy; scoring sums the query terms'
posting lists as a scipy sparse product, bm25s's own arithmetic done faster (see _SparseBM25).
"""

from __future__ import annotations

import mmap
import re
from array import array
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

import numpy as np

#: Pyserini's default BM25 parameters.
K1 = 0.9
B = 0.4
TOP_K = 50
#: Lucene's English stop words (EnglishAnalyzer.ENGLISH_STOP_WORDS_SET).
STOP_WORDS = frozenset(
    "a an and are as at be but by for if in into is it no not of on or such that the their then "
    "there these they this to was will with".split()
)
_TOKEN = re.compile(r"[^\W_]+(?:[.,'’][^\W_]+)*")
_POSSESSIVE = re.compile(r"['’]s$")
_CHUNK_DOCS = 50_000


class Analyzer:
    """Lower-case, tokenize, drop possessives and stop words, Porter-stem (cached per word)."""

    def __init__(self) -> None:
        import Stemmer  # PyStemmer: Snowball's original Porter algorithm, as Lucene's PorterStemFilter

        self._stem = Stemmer.Stemmer("porter").stemWord
        self._cache: dict[str, str] = {}

    def __call__(self, text: str) -> list[str]:
        out = []
        cache = self._cache
        for token in _TOKEN.findall(text.lower()):
            stem = cache.get(token)
            if stem is None:
                word = _POSSESSIVE.sub("", token)
                stem = "" if word in STOP_WORDS else self._stem(word)
                if len(cache) < 2_000_000:
                    cache[token] = stem
            if stem:
                out.append(stem)
        return out


class IndexBuilder:
    """Streams documents into a bm25s index (Lucene BM25 scores in a CSC matrix)."""

    def __init__(self, k1: float = K1, b: float = B) -> None:
        self.k1, self.b = k1, b
        self.analyze = Analyzer()
        self.vocab: dict[str, int] = {}
        self._tokens = array("i")
        self._lengths: list[int] = []
        self._docs: list[np.ndarray] = []
        self._terms: list[np.ndarray] = []
        self._tfs: list[np.ndarray] = []
        self._doc_lengths: list[np.ndarray] = []
        self.n_docs = 0

    def add(self, text: str) -> None:
        self.add_tokens(self.analyze(text))

    def add_tokens(self, tokens: list[str]) -> None:
        """Add a document already passed through `Analyzer` (e.g. in a worker process)."""
        vocab = self.vocab
        ids = [vocab.setdefault(t, len(vocab)) for t in tokens]
        self._tokens.extend(ids)
        self._lengths.append(len(ids))
        if len(self._lengths) >= _CHUNK_DOCS:
            self._flush()

    def add_many(self, texts: Iterable[str]) -> None:
        for text in texts:
            self.add(text)

    def _flush(self) -> None:
        if not self._lengths:
            return
        lengths = np.asarray(self._lengths, dtype=np.int64)
        tokens = np.frombuffer(self._tokens, dtype=np.int32).astype(np.int64)
        local = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        keys, tf = np.unique((local << 32) | tokens, return_counts=True)  # sorted by (doc, term)
        self._docs.append(((keys >> 32) + self.n_docs).astype(np.int32))
        self._terms.append((keys & 0xFFFFFFFF).astype(np.int32))
        self._tfs.append(tf.astype(np.float32))
        self._doc_lengths.append(lengths.astype(np.float32))
        self.n_docs += len(lengths)
        self._tokens = array("i")
        self._lengths = []

    def save(self, folder: Path) -> None:
        """Compute the scores and write bm25s's files into `folder`."""
        import bm25s

        self._flush()
        if self.n_docs == 0:
            raise ValueError("no documents to index")
        docs = np.concatenate(self._docs)
        terms = np.concatenate(self._terms)
        tf = np.concatenate(self._tfs)
        doc_len = np.concatenate(self._doc_lengths)
        self._docs = self._terms = self._tfs = self._doc_lengths = []
        n_vocab = len(self.vocab)
        df = np.bincount(terms, minlength=n_vocab).astype(np.float64)
        idf = np.log(1.0 + (self.n_docs - df + 0.5) / (df + 0.5)).astype(np.float32)  # Lucene idf
        norm = (self.k1 * ((1 - self.b) + self.b * doc_len / doc_len.mean())).astype(np.float32)
        scores = idf[terms] * (tf / (norm[docs] + tf))  # Lucene tf component, as bm25s computes it
        del tf, doc_len
        order = np.argsort(terms, kind="stable")  # column-major; rows stay ascending
        data = scores[order].astype(np.float32)
        del scores
        indices = docs[order]
        del docs, order
        indptr = np.zeros(n_vocab + 1, dtype=np.int64)
        np.cumsum(df.astype(np.int64), out=indptr[1:])

        model = bm25s.BM25(k1=self.k1, b=self.b, method="lucene", idf_method="lucene")
        model.scores = {"data": data, "indices": indices, "indptr": indptr, "num_docs": self.n_docs}
        model.vocab_dict = self.vocab
        model.nonoccurrence_array = None
        model.save(str(folder), show_progress=False)


def _bm25_class():  # type: ignore[no-untyped-def]
    import bm25s
    from scipy.sparse import csc_array

    class _SparseBM25(bm25s.BM25):
        """bm25s whose query scoring multiplies the query's columns by ones with scipy.

        Same arithmetic as bm25s's numpy backend (float32 sums in query-term order, like its
        `np.add.at`), an order of magnitude faster on million-document posting lists.
        """

        @staticmethod
        def _compute_relevance_from_scores(data, indptr, indices, num_docs, query_tokens_ids, dtype):  # type: ignore[no-untyped-def]
            spans = [(int(indptr[t]), int(indptr[t + 1])) for t in query_tokens_ids]
            lengths = np.fromiter((e - s for s, e in spans), dtype=np.int64, count=len(spans))
            if not lengths.sum():
                return np.zeros(num_docs, dtype=dtype)
            columns = csc_array(
                (
                    np.concatenate([data[s:e] for s, e in spans]),
                    np.concatenate([indices[s:e] for s, e in spans]),
                    np.concatenate([[0], np.cumsum(lengths)]),
                ),
                shape=(num_docs, len(spans)),
            )
            return (columns @ np.ones(len(spans), dtype=dtype)).astype(dtype, copy=False)

    return _SparseBM25


class Searcher:
    """Top-50 BM25 search over a saved index; read-only and safe to share across threads."""

    def __init__(self, folder: Path, preload: bool = True) -> None:
        self.model = _bm25_class().load(str(folder), mmap=True, show_progress=False)
        self.analyze = Analyzer()
        self.n_docs = int(self.model.scores["num_docs"])
        if preload:
            self.preload()

    def preload(self) -> None:
        """Touch every page of the mapped posting lists once, so that no search pays for first
        page faults (the pages are the OS's page cache, shared with every other process)."""
        for name in ("data", "indices", "indptr"):
            array = self.model.scores[name]
            step = max(1, mmap.PAGESIZE // array.itemsize)
            np.add.reduce(array[::step], dtype=np.float64)

    def search(self, keywords: str, k: int = TOP_K) -> list[int]:
        """Document numbers of the best `k` matches, best first; ties go to the lower number.

        Like Lucene, only documents that match at least one query term are returned. Results
        are cached per analysed query: the rollouts of one task (an RL group) often repeat a
        search, and the answer never changes.
        """
        vocab = self.model.vocab_dict
        ids = tuple(vocab[t] for t in self.analyze(keywords) if t in vocab)
        if not ids:
            return []
        return list(self._top(ids, k))

    @lru_cache(maxsize=4096)  # noqa: B019 (the searcher lives as long as the process)
    def _top(self, ids: tuple[int, ...], k: int) -> tuple[int, ...]:
        scores = self.model.get_scores(list(ids))
        hits = np.flatnonzero(scores >= self._floor(scores, ids, k))
        if len(hits) > k:
            kth = np.partition(scores[hits], len(hits) - k)[len(hits) - k]
            hits = hits[scores[hits] >= kth]
        order = np.lexsort((hits, -scores[hits]))[:k]
        return tuple(hits[order].tolist())

    def _floor(self, scores: np.ndarray, ids: tuple[int, ...], k: int) -> np.float32:
        """A score the k-th best document reaches, to select from a few candidates instead of
        every match: the k-th best score among the documents of the rarest query terms (real
        documents, so the bound is exact). The smallest positive score when they are too few."""
        smallest = np.nextafter(np.float32(0), np.float32(1))
        indptr, indices = self.model.scores["indptr"], self.model.scores["indices"]
        spans = sorted({(int(indptr[t + 1]) - int(indptr[t]), int(indptr[t])) for t in ids})
        sample: list[np.ndarray] = []
        total = 0
        for length, start in spans:
            sample.append(indices[start : start + length])
            total += length
            if total >= 8 * k:
                break
        values = scores[np.concatenate(sample)]
        if len(values) < 8 * k:
            return smallest
        values = np.unique(values)  # a document found twice must count once
        return max(smallest, values[-k]) if len(values) >= k else smallest
