"""Schemathesis against every env's OpenAPI description: generated requests (valid and invalid,
every route) never get a 5xx, and every 4xx carries the JSON error body. Bounded to a few
examples per operation (about 30 s per env), so it runs in CI with the rest of the suite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402

from coevo.config import ServerConfig  # noqa: E402
from coevo.envs import registry  # noqa: E402
from coevo.server import create_app  # noqa: E402

#: Examples per operation: about 30 operations x this many requests per env.
EXAMPLES = 12


def _checked(case: Any, statuses: list[int]) -> None:
    response = case.call()
    statuses.append(response.status_code)
    assert response.status_code < 500, (case.method, case.formatted_path, response.status_code, response.text[:500])
    if response.status_code >= 400 and case.path != "/metrics":
        assert "error" in response.json(), (case.method, case.formatted_path, response.text[:500])


@pytest.mark.parametrize("env", registry.names())
def test_no_generated_request_gets_a_server_error(env: str, tmp_path: Path) -> None:
    app = create_app(env, config=ServerConfig(db_url=f"sqlite:///{tmp_path / 'store.db'}", admin_token="t" * 32))
    # Schemathesis calls the app through Starlette's test client, which runs its lifespan.
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 20
    bounded = settings(
        max_examples=EXAMPLES, deadline=None, database=None, derandomize=True, suppress_health_check=list(HealthCheck)
    )
    statuses: list[int] = []
    for operation in operations:
        bounded(given(operation.as_strategy())(lambda case: _checked(case, statuses)))()
    # Both sides were reached: requests that worked (the lifespan ran: sessions were stored)
    # and requests the server refused.
    assert len(statuses) >= 2 * len(operations) and any(s < 300 for s in statuses) and any(s >= 400 for s in statuses)
