"""Re-scoring a recorded episode: its recorded actions replayed in the env built with other
options (another scoring mode), in process, without a server.

Envs are deterministic given task, seed and actions (the rule crash recovery relies on), so a
replay under the recorded options reproduces the episode, and under other options shows what the
same actions earn there: BFCL's `decoder=lenient`, API-Bank's `scoring=corrected` (its sandbox
replayed), SearchQA's `scoring=f1`. Only episodes the env judged are re-scored; one without a
verdict keeps its status (coevo.end_status). If the actions run out before the env, scoring this
way, ends the episode (the agent would have gone on), the re-score is `unknown`, never a 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from coevo.end_status import EndStatus, is_scored, scored_end
from coevo.envs import registry
from coevo.envs.base import Env
from coevo.store.outcome import episode_success
from coevo.store.rescores import RecordedEpisode


class VersionGone(ValueError):
    """Episodes recorded under an env version this code no longer has: replaying them under
    today's rules would not re-score what was played."""


def build_env(name: str, options: Mapping[str, Any]) -> Env:
    return registry.make(name, **dict(options))


def check_versions(env: Env, episodes: Sequence[RecordedEpisode]) -> None:
    version = str(type(env).version)
    stale = sorted({e.env_version for e in episodes if e.env_version != version})
    if stale:
        count = sum(e.env_version != version for e in episodes)
        raise VersionGone(
            f"{count} episode(s) were recorded with {type(env).name} version(s) {', '.join(stale)}; this coevo "
            f"has version {version} only, so they cannot be re-scored (select others with --run or --policy)"
        )


def rescore_episode(env: Env, episode: RecordedEpisode) -> dict[str, Any]:
    """The re-score row of one episode (episode_id, env, env_version, status, total_reward, success, error)."""
    row: dict[str, Any] = {"episode_id": episode.id, "env": episode.env, "env_version": episode.env_version}
    if not is_scored(episode.status):
        return {**row, "status": episode.status, "total_reward": None, "success": None,
                "error": f"not re-scored: the episode ended {episode.status}, without a verdict"}  # fmt: skip
    env.agentgym = episode.agentgym
    total, ended = 0.0, None
    try:
        env.reset(task_id=episode.task_id, seed=episode.seed)
        for action in episode.actions:
            result = env.step(action)
            total += float(result.reward)
            if result.done or result.truncated:
                ended = result
                break
    except Exception as exc:  # the env raised on a recorded action: no verdict under this mode
        return {**row, "status": EndStatus.ENV_ERROR.value, "total_reward": None, "success": None,
                "error": f"{type(exc).__name__}: {exc}"[:2000]}  # fmt: skip
    if ended is None:
        return {**row, "status": EndStatus.UNKNOWN.value, "total_reward": None, "success": None,
                "error": f"the {len(episode.actions)} recorded actions did not end the episode under this mode"}  # fmt: skip
    success = bool(ended.done) and bool(episode_success(True, False, ended.info, float(ended.reward)))
    status = scored_end(bool(ended.done), bool(ended.truncated), success)
    return {**row, "status": status, "total_reward": total, "success": success, "error": None}
