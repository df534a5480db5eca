"""Benchmark environments behind one reset/step protocol. Nothing here knows about HTTP."""

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile
from coevo.envs.base import (
    Env,
    EnvError,
    EpisodeFinished,
    EpisodeNotStarted,
    ResetResult,
    StepResult,
    UnknownTask,
)
from coevo.envs.checker import EnvCheckFailed, EnvCheckReport, check_env
from coevo.envs.registry import make, names, register, spec

__all__ = [
    "AgentGymAdapter",
    "AgentGymProfile",
    "Env",
    "EnvCheckFailed",
    "EnvCheckReport",
    "EnvError",
    "EpisodeFinished",
    "EpisodeNotStarted",
    "ResetResult",
    "StepResult",
    "UnknownTask",
    "check_env",
    "make",
    "names",
    "register",
    "spec",
]
