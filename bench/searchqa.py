"""SearchQA benchmark: index build time, server memory, search latency, expert vs no-search EM.

For each corpus size (default 100k and 1M generated passages): build the corpus and BM25 index
from scratch, start `coevo serve searchqa` on it, measure the server's resident memory after
warm-up, and time searches over HTTP. On the first size it also plays generated test/dev
questions over HTTP with the reading expert and with a no-search baseline that answers at once
with the most frequent training answer for the question's type (the best guess without search).

    python bench/searchqa.py --json [--passages 100000 1000000] [--questions 300]
Targets at 1M: rss_mb < 2048, search_p99_ms < 50; expert_em >= 0.95.
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from collections import Counter
from pathlib import Path

from coevo.client import EnvClient
from coevo.client.launcher import ServerSpec, launch_local
from coevo.envs.searchqa.corpus import SearchIndex, build_generated
from measure import percentile, rss_mb


def _play(client: EnvClient, task_ids: list[str], policy) -> float:  # type: ignore[no-untyped-def]
    correct = 0.0
    for task_id in task_ids:
        with client.create(task_id=task_id) as session:
            while True:
                result = session.step(policy(session))
                if result.done or result.truncated:
                    correct += result.reward
                    break
    return correct / len(task_ids)


def bench_size(passages: int, n_questions: int, play: bool, workdir: Path) -> dict:
    start = time.perf_counter()
    build = build_generated(passages, seed=0, out=workdir / f"build-{passages}")
    build_s = time.perf_counter() - start
    index = SearchIndex(build)
    questions = [q for split in ("test", "dev", "train") for q in index.questions[split]][:n_questions]
    prior = {
        t: Counter(q.answers[0] for q in index.questions["train"] if q.template == t).most_common(1)[0][0]
        for t in {q.template for q in index.questions["train"]}
    }
    del index
    row: dict = {"passages": passages, "index_build_s": round(build_s, 2)}
    t0 = time.perf_counter()
    with (
        launch_local([ServerSpec("searchqa", {"build_dir": str(build)})], db_url="sqlite://") as urls,
        EnvClient(urls["searchqa"]) as client,
    ):
        row["start_s"] = round(time.perf_counter() - t0, 2)
        latencies = []
        for q in questions:
            with client.create(task_id=q.qid) as session:
                for query in (q.anchor, q.bridge):
                    t = time.perf_counter()
                    session.step(f"<search>{query}</search>")
                    latencies.append((time.perf_counter() - t) * 1000)
        row["rss_mb"] = round(rss_mb(urls.pids["searchqa"]), 1)
        row["search_p50_ms"] = round(statistics.median(latencies), 2)
        row["search_p99_ms"] = round(percentile(latencies, 0.99), 2)
        row["searches"] = len(latencies)
        if play:
            ids = [q.qid for q in questions]
            expert_em = _play(client, ids, lambda s: s.expert_action())
            by_id = {q.qid: q for q in questions}
            no_search_em = _play(client, ids, lambda s: f"<answer>{prior[by_id[s.info['task_id']].template]}</answer>")
            row["expert_em"], row["no_search_em"] = expert_em, no_search_em
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--passages", type=int, nargs="+", default=[100_000, 1_000_000])
    parser.add_argument("--questions", type=int, default=300, help="questions played per policy")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-searchqa-") as tmp:
        sizes = [bench_size(n, args.questions, play=(i == 0), workdir=Path(tmp)) for i, n in enumerate(args.passages)]
    out = {
        "sizes": [{k: v for k, v in s.items() if k not in ("expert_em", "no_search_em")} for s in sizes],
        "expert_em": sizes[0]["expert_em"],
        "no_search_em": sizes[0]["no_search_em"],
        "questions": args.questions,
    }
    if args.json:
        print(json.dumps(out))
    else:
        for s in out["sizes"]:
            print(s)
        print(f"expert EM {out['expert_em']:.3f}  vs  no-search EM {out['no_search_em']:.3f}")


if __name__ == "__main__":
    main()
