"""The UI's pages without a browser: paging and filters over a real store, error pages (unknown
ids, a store that cannot be reached, bad cursors), the token that guards play off loopback,
truncated metrics files, demo leaderboards, and the read-only /web pages of an env server."""

from __future__ import annotations

import json
import time
from pathlib import Path

from fastapi.testclient import TestClient

from coevo.store.db import make_engine
from coevo.store.writer import StepRow, TrajectoryWriter
from coevo.ui.app import TOKEN_COOKIE, UISettings, create_ui_app
from coevo.ui.episode_queries import EpisodeFilter, list_episodes
from tests.server.conftest import serve
from tests.server.live import live_server


def _fill(db_url: str, episodes: int) -> None:
    """`episodes` finished episodes of two policies, one step each, a millisecond apart."""
    writer = TrajectoryWriter(make_engine(db_url), interval_s=3600)
    start = time.time() - episodes
    for i in range(episodes):
        at = start + i * 0.001
        writer.episode_started(
            id=f"e{i:05d}", session_id=f"s{i}", env="guess", env_version="1", task_id=f"train-{i % 7}", seed=i,
            split="train", status="running", close_reason=None, created_at=at, updated_at=at, closed_at=None,
            total_reward=0.0, steps=0, parent_id=None, start_step=0, observation="start", info={},
            policy="even" if i % 2 == 0 else "odd", run="r", success=None,
        )  # fmt: skip
        won = i % 3 == 0
        writer.step(StepRow(f"e{i:05d}", 1, "guess 1", "x", float(won), True, False, {}, 1.0, at, float(won)))
    writer.flush()
    writer.engine.dispose()


def test_pages_walk_every_episode_once_newest_first(db_url: str) -> None:
    _fill(db_url, 120)
    engine = make_engine(db_url)
    seen: list[str] = []
    cursor = None
    for _ in range(4):
        page = list_episodes(engine, EpisodeFilter(), before=cursor)
        seen += [e.id for e in page.rows]
        cursor = page.next_cursor
        if cursor is None:
            break
    assert seen == [f"e{i:05d}" for i in reversed(range(120))]
    odd_wins = list_episodes(engine, EpisodeFilter(policy="odd", success="yes"), size=100).rows
    assert [e.id for e in odd_wins] == [f"e{i:05d}" for i in reversed(range(120)) if i % 2 and i % 3 == 0]
    rewarded = list_episodes(engine, EpisodeFilter(min_reward=0.5, task="train-0"), size=100).rows
    assert {e.id for e in rewarded} == {f"e{i:05d}" for i in range(120) if i % 3 == 0 and i % 7 == 0}
    engine.dispose()


def test_error_pages(sqlite_url: str, tmp_path: Path) -> None:
    _fill(sqlite_url, 3)
    with TestClient(create_ui_app(UISettings(db_url=sqlite_url, runs_dir=tmp_path))) as ui:
        missing = ui.get("/episodes/nope")
        assert (
            missing.status_code == 404
            and "No such episode" in missing.text
            and "text/html" in missing.headers["content-type"]
        )
        assert ui.get("/episodes?before=garbage").status_code == 400
        assert ui.get("/training/../../etc").status_code == 404
        assert ui.get("/no/such/page").status_code == 404 and "Not found" in ui.get("/no/such/page").text
        assert ui.get("/play/7/abc").status_code == 404
    down = UISettings(db_url="postgresql+psycopg://postgres@127.0.0.1:1/none?connect_timeout=2", runs_dir=tmp_path)
    with TestClient(create_ui_app(down)) as ui:
        page = ui.get("/episodes")
        assert page.status_code == 503 and "cannot be reached" in page.text and "127.0.0.1:1" in page.text
        assert ui.get("/episodes/e00001").status_code == 503


def test_play_needs_the_token_off_loopback(sqlite_url: str, tmp_path: Path) -> None:
    with live_server("guess", db_url=sqlite_url) as url:
        public = UISettings(db_url=sqlite_url, runs_dir=tmp_path, servers=[url], host="0.0.0.0", admin_token="s3cret")
        with TestClient(create_ui_app(public), follow_redirects=False) as ui:
            refused = ui.post("/play/0/start", data={"split": "train"})
            assert refused.status_code == 403 and "admin token" in refused.text
            assert (
                ui.post("/play/0/start", data={"split": "train"}, headers={"Authorization": "Bearer nope"}).status_code
                == 403
            )
            ok = ui.post("/play/0/start", data={"split": "train"}, headers={"Authorization": "Bearer s3cret"})
            assert ok.status_code == 303
            ui.cookies.set(TOKEN_COOKIE, "s3cret")
            played = ui.post(ok.headers["location"] + "/step", data={"action": "guess 50"})
            assert played.status_code == 303
        without = UISettings(db_url=sqlite_url, runs_dir=tmp_path, servers=[url], host="0.0.0.0")
        with TestClient(create_ui_app(without)) as ui:
            assert (
                ui.post("/play/0/start", data={"split": "train"}, headers={"Authorization": "Bearer x"}).status_code
                == 403
            )
        with TestClient(
            create_ui_app(UISettings(db_url=sqlite_url, runs_dir=tmp_path, servers=[url])), follow_redirects=False
        ) as ui:
            assert ui.post("/play/0/start", data={"split": "train"}).status_code == 303  # loopback: no token
            # A form another site's page posts to the UI (cross-site request forgery) is refused.
            forged = ui.post("/play/0/start", data={"split": "train"}, headers={"Origin": "http://evil.example"})
            assert forged.status_code == 403 and "evil.example" in forged.text
            same = ui.post("/play/0/start", data={"split": "train"}, headers={"Origin": "http://testserver"})
            assert same.status_code == 303


def test_a_truncated_metrics_file_still_renders_its_complete_rows(sqlite_url: str, tmp_path: Path) -> None:
    run = tmp_path / "agentevol" / "run1"
    run.mkdir(parents=True)
    rows = [{"kind": "stage", "stage": s, "success_rate": r, "explore_success_rate": r / 2, "train_loss": 1 - r}
            for s, r in (("bc", 0.1), ("iter1", 0.3))]  # fmt: skip
    (run / "metrics.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows) + '{"kind": "stage", "stage": "it')
    with TestClient(create_ui_app(UISettings(db_url=sqlite_url, runs_dir=tmp_path))) as ui:
        doc = ui.get("/api/training/agentevol/run1").json()
        assert doc["rows"] == rows and doc["partial_line"] is True and doc["kind"] == "agentevol"
        listing = ui.get("/training").text
        assert "agentevol/run1" in listing and "agentevol" in listing
        assert ui.get("/training/agentevol/run1").status_code == 200


def test_demo_leaderboard_rows_carry_wilson_intervals(sqlite_url: str, tmp_path: Path) -> None:
    demo = tmp_path / "demo"
    demo.mkdir()
    board = {"expert": {"bfcl": {"n": 10, "success_rate": 0.9}, "all": {"n": 10, "success_rate": 0.9}},
             "random": {"bfcl": {"n": 10, "success_rate": 0.0}}}  # fmt: skip
    (demo / "leaderboard.json").write_text(json.dumps({"board": board}))
    (demo / "config.json").write_text("{}")  # not a result file: skipped
    with TestClient(create_ui_app(UISettings(db_url=sqlite_url, runs_dir=tmp_path))) as ui:
        text = ui.get("/leaderboards?sort=rate&desc=1").text
    assert text.index("expert") < text.index("random")
    assert "90.0%" in text and "59.6%" in text and "98.2%" in text  # Wilson 95% of 9/10
    assert "/episodes?policy=expert&amp;run=demo&amp;env=bfcl" in text


def test_env_servers_serve_read_only_web_pages_of_their_own_env(sqlite_url: str) -> None:
    with serve(db_url=sqlite_url) as server:
        sid = server.post("/sessions", json={"task_id": "train-2", "policy": "<b>p</b>"}).json()["session_id"]
        server.post(f"/sessions/{sid}/step", json={"action": "<script>alert(1)</script>"})
        listing = server.get("/web")
        assert listing.status_code == 200 and "train-2" in listing.text and "&lt;b&gt;p&lt;/b&gt;" in listing.text
        episode_link = listing.text.split('href="/web/episodes/')[1].split('"')[0]
        page = server.get(f"/web/episodes/{episode_link}")
        assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text and "<script>alert" not in page.text
        assert server.get("/web/episodes/unknown").status_code == 404
        assert server.get("/web/static/ui.css").status_code == 200
        for write in ("post", "put", "delete"):
            assert getattr(server, write)("/web").status_code == 405  # read-only
    # Another env's episode in the same store is not this server's to show.
    _fill(sqlite_url, 1)
    from coevo.store.tables import Episode

    engine = make_engine(sqlite_url)
    with engine.begin() as conn:
        conn.execute(Episode.__table__.update().where(Episode.__table__.c.id == "e00000").values(env="other"))
    engine.dispose()
    with serve(db_url=sqlite_url) as server:
        assert server.get("/web/episodes/e00000").status_code == 404
        assert "e00000" not in server.get("/web").text


def test_web_pages_say_when_the_server_records_nothing() -> None:
    with serve() as server:
        page = server.get("/web")
        assert page.status_code == 503 and "records no episodes" in page.text
