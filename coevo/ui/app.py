"""The `coevo ui` app: episodes, leaderboards, training runs, servers and play, on one page set.

Everything that writes (play, fork, hints that step nothing but lease sessions) goes through
POST routes that, when the UI is bound to anything but loopback, need the admin token: sent as
`Authorization: Bearer ...` or stored in a SameSite cookie by the token form.
"""

from __future__ import annotations

import asyncio
import ipaddress
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import urlencode, urlsplit

from fastapi import FastAPI, Form, Request
from fastapi.exceptions import RequestValidationError
from fastapi.staticfiles import StaticFiles
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from coevo import __version__
from coevo.ui import env_servers
from coevo.ui.env_servers import PlayClient, ServerCallFailed
from coevo.store.tables import Episode
from coevo.ui.episode_queries import EpisodeFilter, Turn, list_episodes, trajectory
from coevo.ui.episode_routes import build_episode_router
from coevo.ui.leaderboards import SORT_KEYS, leaderboard, sorted_rows
from coevo.ui.pages import STATIC, LazyStore, StoreUnreachable, error_page, render
from coevo.ui.training_runs import find_runs, kind_of, read_rows, run_folder

TOKEN_COOKIE = "coevo_ui_token"
#: The policy and run tags of episodes played in the browser.
PLAY_POLICY, PLAY_RUN = "human", "ui-play"


@dataclass
class UISettings:
    db_url: str | None = None
    runs_dir: Path = Path("runs")
    #: Base URLs of the env servers to show and play on.
    servers: list[str] = field(default_factory=list)
    host: str = "127.0.0.1"
    admin_token: str | None = None

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False


def _open_store(db_url: str | None) -> Any:
    from coevo.store.db import make_engine

    # Creating (and migrating) is what every process opening the store does; it never drops.
    return make_engine(db_url)


def create_ui_app(settings: UISettings) -> FastAPI:
    from coevo.store.db import default_db_url

    where = default_db_url(settings.db_url)
    store = LazyStore(lambda: _open_store(settings.db_url), where.split("@")[-1])
    app = FastAPI(title="coevo ui", version=__version__, docs_url=None, redoc_url=None)
    app.state.settings = settings
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    servers = [url.rstrip("/") for url in settings.servers]

    async def servers_of(env: str) -> list[tuple[int, str]]:
        statuses = await asyncio.gather(*(env_servers.status(url) for url in servers))
        return [(i, s.url) for i, s in enumerate(statuses) if s.info is not None and s.info.env == env]

    app.include_router(build_episode_router(store, servers_of=servers_of, suggest=env_servers.expert_suggestions))

    # ------------------------------------------------------------------ errors as pages
    @app.exception_handler(StarletteHTTPException)
    async def http_error(request: Request, exc: StarletteHTTPException) -> Response:
        title = "Not found" if exc.status_code == 404 else "Error"
        return error_page(request, exc.status_code, title, str(exc.detail))

    @app.exception_handler(RequestValidationError)
    async def bad_request(request: Request, exc: RequestValidationError) -> Response:
        where = "; ".join(f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()[:3])
        return error_page(request, 422, "Bad request", where)

    @app.exception_handler(StoreUnreachable)
    async def store_down(request: Request, exc: StoreUnreachable) -> Response:
        return error_page(request, 503, "Store unavailable", str(exc))

    # ------------------------------------------------------------------ pages
    @app.get("/", include_in_schema=False)
    def home() -> Response:
        return RedirectResponse("/episodes", status_code=303)

    @app.get("/leaderboards", response_class=HTMLResponse)
    def leaderboards(request: Request, sort: str = "rate", desc: int = 1) -> Response:
        """Success per env, policy and run from the result files under runs/."""
        key = sort if sort in SORT_KEYS else "rate"
        rows = sorted_rows(leaderboard(settings.runs_dir), key, bool(desc))
        entries = [(r, "/episodes?" + urlencode(r.episode_filter())) for r in rows]
        return render(request, "leaderboards.html", rows=entries, sort=key, desc=bool(desc), root=settings.runs_dir)

    @app.get("/training", response_class=HTMLResponse)
    def training_list(request: Request) -> Response:
        return render(request, "training_list.html", runs=find_runs(settings.runs_dir), root=settings.runs_dir)

    @app.get("/training/{name:path}", response_class=HTMLResponse)
    def training(request: Request, name: str) -> Response:
        folder = run_folder(settings.runs_dir, name)
        if folder is None:
            return error_page(request, 404, "No such run", f"No run folder {name!r} with a metrics.jsonl.")
        rows, _ = read_rows(folder / "metrics.jsonl")
        return render(request, "training.html", name=name, kind=kind_of(rows))

    @app.get("/api/training/{name:path}")
    def training_rows(name: str) -> Response:
        """The run's complete metrics rows (the page polls this while a trainer writes)."""
        folder = run_folder(settings.runs_dir, name)
        if folder is None:
            return JSONResponse({"error": {"code": "not_found", "message": f"no run {name!r}"}}, status_code=404)
        rows, partial = read_rows(folder / "metrics.jsonl")
        return JSONResponse({"name": name, "kind": kind_of(rows), "rows": rows, "partial_line": partial})

    @app.get("/servers", response_class=HTMLResponse)
    async def servers_page(request: Request) -> Response:
        statuses = await asyncio.gather(*(env_servers.status(url) for url in servers))
        return render(request, "servers.html", statuses=list(enumerate(statuses)))

    # ------------------------------------------------------------------ play (writes)
    def may_write(request: Request) -> str | None:
        """None when this request may write; otherwise why not. A form posted from another
        site's page (its Origin is not this UI) never may, token or not."""
        origin = request.headers.get("origin")
        if origin and urlsplit(origin).netloc != request.headers.get("host", ""):
            return f"a page from {origin} may not play here"
        if settings.loopback:
            return None
        if not settings.admin_token:
            return "this UI is bound to a public interface and has no admin token: play is disabled"
        scheme, _, given = request.headers.get("authorization", "").partition(" ")
        if scheme.lower() != "bearer":
            given = request.cookies.get(TOKEN_COOKIE, "")
        if given and secrets.compare_digest(given.strip().encode(), settings.admin_token.encode()):
            return None
        return "play needs the admin token (enter it on the Play page)"

    def server_url(index: int) -> str:
        if not 0 <= index < len(servers):
            raise StarletteHTTPException(404, f"no server {index} (this UI knows {len(servers)})")
        return servers[index]

    @app.get("/play", response_class=HTMLResponse)
    async def play(request: Request) -> Response:
        statuses = await asyncio.gather(*(env_servers.status(url) for url in servers))
        return render(request, "play.html", statuses=list(enumerate(statuses)), locked=may_write(request))

    @app.post("/play/token", include_in_schema=False)
    def play_token(token: Annotated[str, Form()]) -> Response:
        response = RedirectResponse("/play", status_code=303)
        response.set_cookie(TOKEN_COOKIE, token, httponly=True, samesite="strict")
        return response

    def refused(request: Request, why: str) -> Response:
        return error_page(request, 403, "Not allowed", why)

    @app.post("/play/{index}/start", include_in_schema=False)
    async def play_start(
        request: Request,
        index: int,
        split: Annotated[str, Form()] = "",
        task_id: Annotated[str, Form()] = "",
        seed: Annotated[str, Form()] = "",
    ) -> Response:
        if (why := may_write(request)) is not None:
            return refused(request, why)
        try:
            number = int(seed) if seed.strip() else None
        except ValueError:
            return error_page(request, 422, "Bad seed", f"the seed must be a whole number, not {seed!r}")
        try:
            first = await PlayClient(server_url(index)).create(
                split=split or None, task_id=task_id.strip() or None, seed=number, policy=PLAY_POLICY, run=PLAY_RUN
            )
        except ServerCallFailed as exc:
            return error_page(request, exc.status if exc.status < 500 else 502, "The server refused", str(exc))
        return RedirectResponse(f"/play/{index}/{first.session_id}", status_code=303)

    @app.get("/play/{index}/{session_id}", response_class=HTMLResponse)
    async def play_session(request: Request, index: int, session_id: str, hint: str = "", hinted: int = 0) -> Response:
        url = server_url(index)
        client = PlayClient(url)
        try:
            info = await client.info()
            state = await client.state(session_id)
        except ServerCallFailed as exc:
            title = "No such session" if exc.status == 404 else "The server refused"
            return error_page(request, exc.status if exc.status < 500 else 502, title, str(exc))
        history: list[Turn] = []
        episode: Episode | None = None
        try:
            page = list_episodes(store.engine(), EpisodeFilter(session=session_id), size=1)
            if page.rows:
                episode = page.rows[0]
                history = trajectory(store.engine(), episode)
        except Exception:  # the server may record to another store; play works without history
            episode = None
        return render(
            request, "play_session.html", index=index, url=url, info=info, state=state, history=history,
            hint=hint, hinted=bool(hinted), episode=episode, locked=may_write(request),
        )  # fmt: skip

    @app.post("/play/{index}/{session_id}/step", include_in_schema=False)
    async def play_step(request: Request, index: int, session_id: str, action: Annotated[str, Form()]) -> Response:
        if (why := may_write(request)) is not None:
            return refused(request, why)
        try:
            await PlayClient(server_url(index)).step(session_id, action)
        except ServerCallFailed as exc:
            return error_page(request, exc.status if exc.status < 500 else 502, "The step was refused", str(exc))
        return RedirectResponse(f"/play/{index}/{session_id}", status_code=303)

    @app.post("/play/{index}/{session_id}/hint", include_in_schema=False)
    async def play_hint(request: Request, index: int, session_id: str) -> Response:
        if (why := may_write(request)) is not None:
            return refused(request, why)
        try:
            action = await PlayClient(server_url(index)).expert(session_id)
        except ServerCallFailed as exc:
            return error_page(request, exc.status if exc.status < 500 else 502, "No hint", str(exc))
        query = urlencode({"hint": action or "", "hinted": 1})
        return RedirectResponse(f"/play/{index}/{session_id}?{query}", status_code=303)

    @app.post("/play/{index}/{session_id}/fork", include_in_schema=False)
    async def play_fork(request: Request, index: int, session_id: str) -> Response:
        if (why := may_write(request)) is not None:
            return refused(request, why)
        try:
            child = await PlayClient(server_url(index)).fork(session_id)
        except ServerCallFailed as exc:
            return error_page(request, exc.status if exc.status < 500 else 502, "The fork was refused", str(exc))
        return RedirectResponse(f"/play/{index}/{child.session_id}", status_code=303)

    return app
