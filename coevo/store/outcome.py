"""An episode's success as the store records it, from what the env reported at its last step.

The same rule as the client's rollouts (`coevo.client.rollout.episode_success`), so the UI's
success column and `coevo eval`'s success rate agree on the same episodes.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

#: Values of info["success"] / info["won"] that mean success, whatever JSON type the env used.
_TRUE = (True, 1, 1.0, "true", "True", "1", "yes")


def episode_success(done: bool, truncated: bool, info: Mapping[str, Any], reward: float) -> bool | None:
    """None while the episode runs; once it ends, the env's own verdict (info "success" or
    "won") when it gives one, otherwise whether it ended (not cut) with a last reward >= 1."""
    if not (done or truncated):
        return None
    for key in ("success", "won"):
        if key in info:
            value = info[key]
            return value in _TRUE if isinstance(value, (bool, int, float, str)) else False
    return done and not truncated and reward >= 1.0
