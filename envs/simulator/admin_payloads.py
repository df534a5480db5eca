"""The simulator's admin payloads, validated strictly by the server before `admin` runs.

Integers reach SQL (the generations table) and the policy's RNG, so they are range-checked:
a seed of 2**70 used to overflow SQLite into a 500.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from coevo.envs.base import AdminPath

#: Most tasks one generate command draws.
MAX_BATCH = 4096
MAX_SEED = 2**63 - 1


class LoadPolicy(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    path: AdminPath = Field(description="Saved weights: a policy JSON or a model directory")


class Generate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    count: int = Field(1, ge=1, le=MAX_BATCH)
    seed: int = Field(0, ge=0, le=MAX_SEED)
    family: str | None = None
    fill: bool = True
