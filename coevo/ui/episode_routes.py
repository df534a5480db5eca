"""The episode pages (list, one trajectory, two side by side), shared by `coevo ui` and the
read-only `/web` pages of every env server (there, fixed to that server's env)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import APIRouter, Depends, Query, Request
from sqlalchemy.exc import SQLAlchemyError
from starlette.responses import HTMLResponse, Response

from coevo.ui.episode_queries import (
    BadCursor,
    EpisodeFilter,
    first_observation,
    get_episode,
    list_episodes,
    same_task,
    trajectory,
)
from coevo.ui.pages import LazyStore, StoreUnreachable, error_page, render

#: Given an env name, the live servers of that env: (index on the Servers page, URL).
ServersOf = Callable[[str], Awaitable[list[tuple[int, str]]]]
#: What the expert would have done before each action, from a live server (replayed).
Suggest = Callable[[str, str, int, str, list[str]], Awaitable[list[str | None]]]


def _number(text: str) -> float | None:
    try:
        return float(text) if text.strip() else None
    except ValueError:
        return None


def build_episode_router(
    store: LazyStore,
    *,
    env: str | None = None,
    list_path: str = "/episodes",
    servers_of: ServersOf | None = None,
    suggest: Suggest | None = None,
) -> APIRouter:
    """`env`: only that env's episodes exist here (the /web pages); others answer 404."""
    item = "/episodes" if list_path == "/episodes" else f"{list_path}/episodes"
    shared = {
        "fixed_env": env,
        "list_path": list_path,
        "static_path": "/static" if env is None else f"{list_path}/static",
    }

    def context(request: Request) -> None:
        request.state.page = shared

    router = APIRouter(dependencies=[Depends(context)])

    def down(request: Request, exc: Exception) -> HTMLResponse:
        return error_page(request, 503, "Store unavailable", str(exc))

    @router.get(list_path, response_class=HTMLResponse, include_in_schema=env is None)
    def episodes(
        request: Request,
        env_: str = Query("", alias="env"),
        split: str = "",
        task: str = "",
        policy: str = "",
        run: str = "",
        success: str = "",
        min_reward: str = "",
        max_reward: str = "",
        session: str = "",
        before: str = "",
    ) -> Response:
        """Recorded episodes, newest first, filtered; one page at a time."""
        f = EpisodeFilter(
            env=env or env_, split=split, task=task, policy=policy, run=run, success=success,
            min_reward=_number(min_reward), max_reward=_number(max_reward), session=session,
        )  # fmt: skip
        try:
            page = list_episodes(store.engine(), f, before=before or None)
        except BadCursor as exc:
            return error_page(request, 400, "Bad page cursor", str(exc))
        except (StoreUnreachable, SQLAlchemyError) as exc:
            return down(request, exc)
        return render(request, "episodes.html", page=page, f=f, item=item)

    @router.get(f"{item}/compare", response_class=HTMLResponse, include_in_schema=env is None)
    def compare(request: Request, a: str, b: str) -> Response:
        """Two episodes side by side, turn against turn."""
        try:
            pair = [get_episode(store.engine(), a), get_episode(store.engine(), b)]
            for wanted, found in zip((a, b), pair):
                if found is None or (env is not None and found.env != env):
                    return error_page(request, 404, "No such episode", f"There is no episode {wanted!r} here.")
            left, right = pair[0], pair[1]
            assert left is not None and right is not None
            turns = [trajectory(store.engine(), left), trajectory(store.engine(), right)]
            starts = [first_observation(store.engine(), left), first_observation(store.engine(), right)]
        except (StoreUnreachable, SQLAlchemyError) as exc:
            return down(request, exc)
        rows = max(len(turns[0]), len(turns[1]))
        return render(
            request, "compare.html", left=left, right=right, turns=turns, starts=starts, rows=rows, item=item,
        )  # fmt: skip

    @router.get(f"{item}/{{episode_id}}", response_class=HTMLResponse, include_in_schema=env is None)
    async def episode(request: Request, episode_id: str, expert: str = "") -> Response:
        """One trajectory turn by turn; `expert=URL` adds the expert's action beside each turn."""
        try:
            found = get_episode(store.engine(), episode_id)
            if found is None or (env is not None and found.env != env):
                return error_page(request, 404, "No such episode", f"There is no episode {episode_id!r} here.")
            turns = trajectory(store.engine(), found)
            start = first_observation(store.engine(), found)
            others = same_task(store.engine(), found)
        except (StoreUnreachable, SQLAlchemyError) as exc:
            return down(request, exc)
        servers = await servers_of(found.env) if servers_of is not None else []
        suggestions: list[str | None] = []
        suggestion_error = None
        if expert and suggest is not None:
            urls = {str(i): url for i, url in servers}
            if expert not in urls:
                return error_page(request, 404, "No such server", f"No live {found.env} server {expert!r}.")
            try:
                suggestions = await suggest(urls[expert], found.task_id, found.seed, found.split,
                                            [t.action for t in turns])  # fmt: skip
            except Exception as exc:  # the page still shows the trajectory
                suggestion_error = str(exc)
        return render(
            request, "episode.html", episode=found, start=start, turns=turns, others=others, servers=servers,
            suggestions=suggestions, suggestion_error=suggestion_error, item=item,
        )  # fmt: skip

    return router
