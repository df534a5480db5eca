"""What an AgentGym /reset may leave in a session: its declared fields and a few small extras.

AgentGym's clients send fields of their own env (`world_type`, ...), which the household
server's /detail repeats, so the session keeps them for /detail. It kept every one: a 0.9 MB
body of small keys pinned about 10.7 MB per session, 44 GB over the default 4,096 sessions.
Now the extras, as compact JSON, must fit in `MAX_EXTRA_BYTES` or the reset is refused (422
`extra_fields_too_large`) before it runs. They live only in the lease: the store never
records them.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel
from pydantic_core import to_json

from coevo.server.errors import ApiError

#: Most bytes of extra fields (compact JSON) one AgentGym /reset may leave in its session.
MAX_EXTRA_BYTES = 1024
#: Most top-level fields an AgentGym or OpenEnv /reset or /step body may have (checked before
#: validation, which costs per field: 90,000 small keys took 0.6 s and 26 MB).
MAX_BODY_FIELDS = 64


class ExtraFieldsTooLarge(ApiError):
    status, code = 422, "extra_fields_too_large"


def check_field_count(data: Any) -> None:
    """Refuse a body object with more than `MAX_BODY_FIELDS` fields."""
    if isinstance(data, dict) and len(data) > MAX_BODY_FIELDS:
        raise ExtraFieldsTooLarge(f"the body has {len(data)} fields; at most {MAX_BODY_FIELDS} are read")


def check_extras(body: BaseModel) -> None:
    """Refuse a body whose undeclared fields exceed `MAX_EXTRA_BYTES`."""
    extras = body.model_extra or {}
    if extras and len(to_json(extras)) > MAX_EXTRA_BYTES:
        raise ExtraFieldsTooLarge(
            f"the body's undeclared fields ({', '.join(list(extras)[:5])}{', ...' if len(extras) > 5 else ''})"
            f" take more than {MAX_EXTRA_BYTES} bytes of JSON; AgentGym's clients send a few short ones"
        )


def kept_fields(body: BaseModel) -> dict[str, Any]:
    """The fields of a checked /reset body the session keeps for /detail (the id fields aside)."""
    return body.model_dump(exclude={"id", "env_idx"}, exclude_none=True)
