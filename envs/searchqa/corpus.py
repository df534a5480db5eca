"""Building and loading SearchQA's corpus: passages, questions and a BM25 index on disk.

A build directory holds the bm25s index (its arrays memory-mapped at load, so many server
processes share the page cache and a 1M-passage index costs little resident memory), the
passages as JSONL (read through bm25s' memory-mapped line offsets), `questions.jsonl` and
`meta.json`. Built once, by `coevo searchqa build` or on first use; loading never rebuilds.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bm25s
import numpy as np

from coevo.envs.searchqa.tasks import Question, generate_questions, generate_world, passages_of, read_question_file
from coevo.paths import cache_dir

FORMAT_VERSION = 1
SPLIT_SIZES = {"test": 125, "dev": 500, "train": 10_000}  # test has Bamboogle's size


def cache_root() -> Path:
    return cache_dir("searchqa")


def generated_dir(passages: int, seed: int) -> Path:
    return cache_root() / f"generated-{passages}-{seed}-v{FORMAT_VERSION}"


def _tokenize(texts: list[str]) -> Any:
    return bm25s.tokenize(texts, stopwords="en", show_progress=False)


def _write_index(out: Path, docs: list[dict[str, str]]) -> None:
    retriever = bm25s.BM25()
    retriever.index(_tokenize([f"{d['title']} {d['text']}" for d in docs]), show_progress=False)
    retriever.save(str(out), corpus=docs, show_progress=False)


def _publish(tmp: Path, out: Path) -> None:
    """Move a finished build into place atomically, so readers never see half an index."""
    if out.exists():
        shutil.rmtree(tmp)
        return
    out.parent.mkdir(parents=True, exist_ok=True)
    os.replace(tmp, out)


def build_generated(passages: int, seed: int = 0, out: Path | None = None) -> Path:
    """Generate the encyclopedia and its questions, index them, and return the build directory."""
    out = out or generated_dir(passages, seed)
    if (out / "meta.json").exists():
        return out
    start = time.perf_counter()
    world = generate_world(passages, seed)
    docs = [{"id": f"p{i}", "title": t, "text": x} for i, (t, x) in enumerate(passages_of(world))]
    total = min(sum(SPLIT_SIZES.values()), max(60, passages // 10))
    questions = generate_questions(world, total, seed)
    del world
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
    _write_index(tmp, docs)
    splits = _assign_splits(questions)
    with open(tmp / "questions.jsonl", "w") as f:
        for split, items in splits.items():
            for q in items:
                f.write(json.dumps({**q.to_json(), "split": split}) + "\n")
    meta = {
        "format": FORMAT_VERSION,
        "source": "generated",
        "passages": len(docs),
        "seed": seed,
        "splits": {k: len(v) for k, v in splits.items()},
        "build_s": round(time.perf_counter() - start, 2),
    }
    (tmp / "meta.json").write_text(json.dumps(meta, indent=2))
    _publish(tmp, out)
    return out


def _assign_splits(questions: list[Question]) -> dict[str, list[Question]]:
    """test first (Bamboogle's 125), then dev, the rest train; scaled down for small worlds."""
    total = len(questions)
    want = sum(SPLIT_SIZES.values())
    test = max(10, SPLIT_SIZES["test"] * total // want) if total < want else SPLIT_SIZES["test"]
    dev = max(10, SPLIT_SIZES["dev"] * total // want) if total < want else SPLIT_SIZES["dev"]
    return {"test": questions[:test], "dev": questions[test : test + dev], "train": questions[test + dev :]}


def _read_user_passages(path: Path) -> Iterable[dict[str, str]]:
    """JSONL with {id, title, text}, or FlashRAG's {id, contents: '"Title"\\ntext'} (wiki-18's shape).

    A `contents` row keeps its first line verbatim (as `title_line`) when it is not the quoted
    title, so results show it as Search-R1 does; the title itself is that line without quotes.
    """
    with open(path) as f:
        for i, line in enumerate(f):
            if not line.strip():
                continue
            row = json.loads(line)
            doc_id = str(row.get("id", i))
            if "contents" in row:
                first, _, text = row["contents"].partition("\n")
                title = first.strip('"')
                doc = {"id": doc_id, "title": title, "text": text}
                if first != f'"{title}"':
                    doc["title_line"] = first
                yield doc
            else:
                yield {"id": doc_id, "title": row.get("title", ""), "text": row["text"]}


def build_user(corpus: Path, questions: Path | None, out: Path | None = None) -> Path:
    """Index a user's passage file (and question file) once; keyed by their size and mtime."""
    key = hashlib.sha256()
    for p in filter(None, [corpus, questions]):
        st = p.stat()
        key.update(f"{p.resolve()}:{st.st_size}:{st.st_mtime_ns}".encode())
    out = out or cache_root() / f"user-{key.hexdigest()[:16]}-v{FORMAT_VERSION}"
    if (out / "meta.json").exists():
        return out
    docs = list(_read_user_passages(corpus))
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=out.name + ".", dir=out.parent))
    _write_index(tmp, docs)
    qs = read_question_file(questions) if questions else []
    splits: dict[str, int] = {}
    with open(tmp / "questions.jsonl", "w") as f:
        for q in qs:
            split = q.split or "test"
            splits[split] = splits.get(split, 0) + 1
            f.write(json.dumps({**q.to_json(), "split": split}) + "\n")
    meta = {"format": FORMAT_VERSION, "source": str(corpus), "passages": len(docs), "splits": splits or {"test": 0}}
    (tmp / "meta.json").write_text(json.dumps(meta, indent=2))
    _publish(tmp, out)
    return out


@dataclass
class Hit:
    title: str
    text: str
    score: float
    title_line: str | None = None  # a user corpus's unquoted first line, shown as it is


class SearchIndex:
    """A loaded build: BM25 search over memory-mapped arrays and passages. Read-only, shareable."""

    def __init__(self, build_dir: Path) -> None:
        meta = json.loads((build_dir / "meta.json").read_text())
        if meta.get("format") != FORMAT_VERSION:
            raise ValueError(f"{build_dir} has format {meta.get('format')}, expected {FORMAT_VERSION}; rebuild it")
        self.meta = meta
        self.retriever = bm25s.BM25.load(str(build_dir), load_corpus=True, mmap=True, show_progress=False)
        self.vocab = self.retriever.vocab_dict
        self.n_docs = int(self.retriever.scores["num_docs"])
        self.questions: dict[str, list[Question]] = {}
        with open(build_dir / "questions.jsonl") as f:
            for line in f:
                row = json.loads(line)
                split = row.pop("split")
                self.questions.setdefault(split, []).append(Question(**row))

    def search(self, query: str, k: int) -> list[Hit]:
        """The best `k` passages for `query`, best first (ties: lower passage number first).

        Scores are summed over the query terms' posting lists only, so a query costs what its
        terms occur, not the corpus size: bm25s' own retrieve scores every passage and
        partitions a dense array, which takes hundreds of milliseconds at a million passages.
        """
        tokens = bm25s.tokenize([query], stopwords="en", return_ids=False, show_progress=False)[0]
        ids = sorted({self.vocab[t] for t in tokens if t in self.vocab})
        if not ids or k <= 0:
            return []
        scores = self.retriever.scores
        indptr, indices, data = scores["indptr"], scores["indices"], scores["data"]
        spans = [(int(indptr[t]), int(indptr[t + 1])) for t in ids]
        rows = np.concatenate([indices[a:b] for a, b in spans])
        weights = np.concatenate([data[a:b] for a, b in spans])
        if len(rows) * 8 < self.n_docs:  # rare terms: sort just the postings
            docs, inverse = np.unique(rows, return_inverse=True)
            totals = np.bincount(inverse, weights=weights)
        else:  # common terms: one dense pass beats sorting most of the corpus
            dense = np.bincount(rows, weights=weights, minlength=self.n_docs)
            docs = np.flatnonzero(dense)
            totals = dense[docs]
        if len(docs) > k:
            best = np.argpartition(-totals, k - 1)[:k]
            docs, totals = docs[best], totals[best]
        order = np.lexsort((docs, -totals))
        corpus = self.retriever.corpus
        hits = [corpus[int(d)] | {"score": float(s)} for d, s in zip(docs[order], totals[order]) if s > 0]
        return [Hit(h["title"], h["text"], h["score"], h.get("title_line")) for h in hits]
