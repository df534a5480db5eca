"""Operator commands behind a bearer token: POST /admin/{command} -> Env.admin(shared, ...).

With no token configured every admin call answers 403: an env server never exposes shared
state by accident.
"""

from __future__ import annotations

import secrets
from typing import Annotated, Any

from fastapi import APIRouter, Body, Header

from coevo.server.errors import Forbidden, error_responses
from coevo.server.service import EnvService
from coevo.wire import AdminResponse


def build_admin_router(service: EnvService) -> APIRouter:
    router = APIRouter()
    token = service.config.admin_token

    @router.post(
        "/admin/{command}",
        response_model=AdminResponse,
        responses=error_responses(403, 404, 413, 422, 500),
        tags=["admin"],
    )
    async def admin(
        command: str,
        payload: Annotated[dict[str, Any] | None, Body()] = None,
        authorization: Annotated[str | None, Header()] = None,
    ) -> Any:
        """Run an env's operator command on its shared data (e.g. hot-load new weights)."""
        if not token:
            raise Forbidden("admin commands are disabled: the server has no admin token")
        scheme, _, given = (authorization or "").partition(" ")
        if scheme.lower() != "bearer" or not secrets.compare_digest(given.strip().encode(), token.encode()):
            raise Forbidden("missing or wrong admin token")
        result = await service.admin(command, payload or {})
        return AdminResponse(command=command, result=result)

    return router
