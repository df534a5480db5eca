"""The live env servers the UI was told about: their health, info and Prometheus figures, and
the session calls behind the Play page. Speaks the wire protocol (`coevo.wire`) over httpx."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx
from prometheus_client.parser import text_string_to_metric_families

from coevo import wire

TIMEOUT_S = 10.0


class ServerCallFailed(Exception):
    """An env server could not be reached, or refused the call; the message says which."""

    def __init__(self, message: str, status: int = 502) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class ServerStatus:
    url: str
    error: str | None = None
    health: wire.HealthResponse | None = None
    info: wire.InfoResponse | None = None
    #: Prometheus samples: (name with labels, value), counters and gauges as they are, histograms
    #: as their _count and _sum.
    figures: list[tuple[str, float]] = field(default_factory=list)


def _figures(text: str) -> list[tuple[str, float]]:
    out = []
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if family.type == "histogram" and not sample.name.endswith(("_count", "_sum")):
                continue
            if sample.name.endswith("_created"):
                continue
            labels = ",".join(f'{k}="{v}"' for k, v in sorted(sample.labels.items()))
            out.append((f"{sample.name}{{{labels}}}" if labels else sample.name, float(sample.value)))
    return out


async def _call(client: httpx.AsyncClient, method: str, url: str, **kwargs: Any) -> httpx.Response:
    try:
        response = await client.request(method, url, **kwargs)
    except httpx.HTTPError as exc:
        raise ServerCallFailed(f"{url} could not be reached: {type(exc).__name__}: {exc}") from None
    if response.status_code >= 400:
        try:
            message = response.json()["error"]["message"]
        except (ValueError, KeyError, TypeError):
            message = response.text[:500]
        raise ServerCallFailed(f"{url} answered {response.status_code}: {message}", response.status_code)
    return response


async def status(url: str) -> ServerStatus:
    """Health, info and metrics of one server; an unreachable one gets its error instead."""
    result = ServerStatus(url)
    async with httpx.AsyncClient(timeout=TIMEOUT_S) as client:
        try:
            result.health = wire.HealthResponse.model_validate((await _call(client, "GET", f"{url}/health")).json())
            result.info = wire.InfoResponse.model_validate((await _call(client, "GET", f"{url}/info")).json())
            result.figures = _figures((await _call(client, "GET", f"{url}/metrics")).text)
        except ServerCallFailed as exc:
            result.error = str(exc)
        except ValueError as exc:
            result.error = f"{url} answered something that is not the coevo protocol: {exc}"
    return result


class PlayClient:
    """The session calls of one server, for the Play page."""

    def __init__(self, url: str) -> None:
        self.url = url

    async def _json(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        async with httpx.AsyncClient(timeout=TIMEOUT_S) as client:
            return (await _call(client, method, f"{self.url}{path}", json=body)).json()

    async def info(self) -> wire.InfoResponse:
        return wire.InfoResponse.model_validate(await self._json("GET", "/info"))

    async def create(
        self, *, split: str | None, task_id: str | None, seed: int | None, policy: str, run: str
    ) -> wire.SessionResponse:
        body = {"split": split, "task_id": task_id, "seed": seed, "policy": policy, "run": run}
        body = {k: v for k, v in body.items() if v not in (None, "")}
        return wire.SessionResponse.model_validate(await self._json("POST", "/sessions", body))

    async def state(self, session_id: str) -> wire.SessionState:
        return wire.SessionState.model_validate(await self._json("GET", f"/sessions/{session_id}"))

    async def step(self, session_id: str, action: str) -> wire.StepResponse:
        return wire.StepResponse.model_validate(
            await self._json("POST", f"/sessions/{session_id}/step", {"action": action})
        )

    async def expert(self, session_id: str) -> str | None:
        answer = wire.ExpertActionResponse.model_validate(await self._json("GET", f"/sessions/{session_id}/expert"))
        return answer.action

    async def fork(self, session_id: str) -> wire.SessionResponse:
        return wire.SessionResponse.model_validate(await self._json("POST", f"/sessions/{session_id}/fork"))

    async def close(self, session_id: str) -> None:
        await self._json("DELETE", f"/sessions/{session_id}")


#: Longest trajectory replayed for the expert's suggestions (one step and one expert call a turn).
MAX_REPLAY_TURNS = 200


async def expert_suggestions(url: str, task_id: str, seed: int, split: str, actions: list[str]) -> list[str | None]:
    """What the env's expert would have done before each recorded action: the episode is replayed
    on a live server (same task and seed, hence the same observations) and the expert asked at
    each turn. The replay session is tagged run "ui-replay" and closed afterwards."""
    play = PlayClient(url)
    session = await play.create(split=split, task_id=task_id, seed=seed, policy="expert-replay", run="ui-replay")
    suggestions: list[str | None] = []
    try:
        for action in actions[:MAX_REPLAY_TURNS]:
            suggestions.append(await play.expert(session.session_id))
            answer = await play.step(session.session_id, action)
            if answer.done or answer.truncated:
                break
    finally:
        try:
            await play.close(session.session_id)
        except ServerCallFailed:
            pass
    return suggestions + [None] * (len(actions) - len(suggestions))
