"""GET /tasks cannot freeze a server: pages are capped, computed off the event loop, cached,
and identical pages in flight are computed once."""

from __future__ import annotations

import threading
from typing import Any

from tests.server.conftest import serve
from tests.server.envs import SlowCatalogGuessEnv

SLOW_CATALOG = "tests.server.envs:SlowCatalogGuessEnv"


def test_health_answers_while_a_large_page_is_computed() -> None:
    """The page is computed off the event loop: with its computation held mid-way, /health
    still answers, and the page completes once released. (On the event loop, /health would
    wait for the gate; the gate gives up after 60 s, the page fails and the test with it.)"""
    gate, entered = SlowCatalogGuessEnv.gate, SlowCatalogGuessEnv.entered
    with serve(SLOW_CATALOG) as c:
        gate.clear()
        entered.clear()
        big: dict[str, Any] = {}
        worker = threading.Thread(target=lambda: big.update(response=c.get("/tasks", params={"limit": 1000})))
        try:
            worker.start()
            assert entered.wait(timeout=30), "the page never started"
            for _ in range(5):
                r = c.get("/health")
                assert r.status_code == 200
                assert worker.is_alive()  # the page is still held at the gate
        finally:
            gate.set()
            worker.join(timeout=60)
        assert big["response"].status_code == 200 and len(big["response"].json()["tasks"]) == 1000


def test_pages_are_cached_and_computed_once() -> None:
    with serve(SLOW_CATALOG) as c:
        before = SlowCatalogGuessEnv.describe_calls
        results: list[Any] = []
        threads = [
            threading.Thread(target=lambda: results.append(c.get("/tasks", params={"offset": 7, "limit": 300})))
            for _ in range(4)
        ]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert all(r.status_code == 200 for r in results)
        assert len({r.content for r in results}) == 1
        # Four concurrent identical requests: one computation.
        assert SlowCatalogGuessEnv.describe_calls - before == 300
        first = results[0].json()
        assert first["total"] == 5000 and first["offset"] == 7
        assert [t["task_id"] for t in first["tasks"]][:2] == ["train-7", "train-8"]
        # Cached: asking again describes nothing.
        again = c.get("/tasks", params={"offset": 7, "limit": 300})
        assert again.content == results[0].content
        assert SlowCatalogGuessEnv.describe_calls - before == 300
        # Another page is another computation; an unknown split is still a 404.
        assert c.get("/tasks", params={"offset": 8, "limit": 300}).status_code == 200
        assert SlowCatalogGuessEnv.describe_calls - before == 600
        assert c.get("/tasks", params={"split": "nope"}).status_code == 404
