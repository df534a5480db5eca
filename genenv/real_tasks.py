"""The real-task arms' task source: a real env's train split over HTTP, in place of the simulator.

GenEnv's agent answers a task with one reply. A real-task arm (`real`, `real-uniform`) draws its
tasks from a real env's train split (the server's task list, never a held-out split: refused at
start; nor a train task whose prompt a held-out task shares: left out of the pool) and scores every reply by playing it as a one-step episode on that env's server: create
a session on the task (tagged with the arm's policy tag of the epoch), step the reply, read the
env's reward and end status. The env must end an episode after one reply (API-Bank with
`decisions=first`: the dialogue's first API call; docs/genenv.md, "The real-task arms").

- `real` chooses by the alpha-curriculum over the server's per-task statistics of the arm's
  earlier epochs (genenv.real_selection); `real-uniform` draws uniformly, on the same seeds.
- An episode without the env's verdict (env_error, transport_error, abandoned: coevo.end_status)
  is played again on a new session, up to `real_retries` times; still unscored, its reply gets
  no reward (None): GRPO (TRL) leaves it out of its group's baseline and gives it zero
  advantage, and it counts in neither p_hat nor D_train. Every attempt's end status is counted
  in the epoch's row (`real_end_statuses`).
- It speaks the Simulator protocol where the loop needs it (score, expert, close); it has no
  pi_env, base tasks or demo turn.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import random
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from coevo import end_status
from coevo.client.errors import EnvClientError, ServerUnreachable, error_for
from coevo.client.failures import describe, status_of
from coevo.client.http import AsyncEnvClient, AsyncSession, EnvClient
from coevo.genenv.batches import epoch_seed
from coevo.genenv.config import GenEnvConfig
from coevo.genenv.heldout import AgentView
from coevo.genenv.real_selection import Estimate, Selection, curriculum_tasks, uniform_tasks
from coevo.genenv.simulator import BatchTask, TaskBatch
from coevo.simulator.curriculum_context import CurriculumContext
from coevo.store.outcome import episode_success
from coevo.wire import MAX_TASKS_PAGE, ErrorDetail

log = logging.getLogger(__name__)

#: Episodes created and stepped at once (one batch step), well under a server's session capacity.
CHUNK = 64
#: Tries at reading a task's prompt when the connection drops (a keep-alive connection the server
#: closed just as a create was sent on it reads as ServerUnreachable).
PROMPT_ATTEMPTS = 3


class NotOneStep(RuntimeError):
    """The env did not end an episode after one reply: it cannot score a one-reply agent."""


def policy_tag(output_dir: str, arm: str, epoch: int) -> str:
    """The tag of an arm's episodes in one epoch on the env server (its per-task statistics):
    the arm and epoch, qualified by the run directory, so runs sharing a server keep apart."""
    digest = hashlib.sha1(output_dir.encode()).hexdigest()[:10]
    return f"genenv-{digest}:{arm}:epoch-{epoch:03d}"


def refuse_heldout_split(env: str, split: str, splits: Sequence[str], heldout: Sequence[str]) -> None:
    """A real-task arm trains on a split the server has and does not hold out."""
    if split not in splits:
        raise ValueError(f"{env} has no split {split!r}; it has {sorted(splits)}")
    if split in heldout:
        raise ValueError(
            f"{env}'s split {split!r} is held out for evaluation ({', '.join(heldout)}): a real-task arm never "
            "trains on it; set real_split to a train split"
        )


class RealTasks:
    """One real-task arm's tasks and scoring, on the env server at `url`."""

    def __init__(self, url: str, config: GenEnvConfig, arm: str) -> None:
        self.config, self.arm, self.url = config, arm, url
        self.client = EnvClient(url)
        info = self.client.info()
        self.env = info.env
        refuse_heldout_split(self.env, config.real_split, list(info.splits), list(info.heldout_splits))
        self.split = config.real_split
        self._prompts: dict[str, str] = {}
        self.heldout_splits = list(info.heldout_splits)
        #: The split's tasks the arm may draw: those whose prompt no held-out task shares.
        self.task_ids, self.twins = self._pool()
        self.epoch = -1
        self.run_dir = str(Path(config.output_dir).resolve())
        self.tag = policy_tag(self.run_dir, arm, 0)
        #: How the current epoch's tasks were chosen, and every attempt's end status since then.
        self.selection = Selection()
        self.statuses: Counter[str] = Counter()

    # ------------------------------------------------------------------ tasks
    def _split_ids(self, split: str) -> list[str]:
        ids: list[str] = []
        while True:
            page = self.client.tasks(split, len(ids), MAX_TASKS_PAGE)
            ids += [t.task_id for t in page.tasks]
            if not page.tasks or len(ids) >= page.total:
                return ids

    def _pool(self) -> tuple[list[str], int]:
        """The train split's tasks whose prompt (what the agent reads) is not also the prompt of a
        task of a held-out split, and how many were left out for it. Distinct task ids can read
        the same: API-Bank's first API calls repeat across generated dialogues (298 of the 500
        `test` tasks read exactly as some `train` task). Computed once per run directory
        (`real-pool-ENV-SPLIT.json`), since it reads every prompt of both."""
        cache = Path(self.config.output_dir) / f"real-pool-{self.env}-{self.split}.json"
        if cache.exists():
            saved = json.loads(cache.read_text())
            return list(saved["pool"]), int(saved["twins"])
        train = self._split_ids(self.split)
        heldout = [t for split in self.heldout_splits for t in self._split_ids(split)]
        asyncio.run(self._fetch_prompts([*train, *heldout]))
        held = {self._prompts.pop(t) for t in set(heldout) - set(train)}
        pool = [t for t in train if self._prompts[t] not in held]
        twins = len(train) - len(pool)
        cache.parent.mkdir(parents=True, exist_ok=True)
        document = {"env": self.env, "split": self.split, "heldout_splits": self.heldout_splits, "twins": twins}
        cache.write_text(json.dumps({**document, "pool": pool}))
        log.info(
            "%s:%s: %d tasks, %d left out (a held-out task reads the same)", self.env, self.split, len(pool), twins
        )
        return pool, twins

    def estimates(self, epoch: int) -> dict[str, Estimate]:
        """Each task's success estimate under the freshest of the arm's earlier epochs' tags that
        played it at least real_min_episodes judged times (GET /tasks?policy=...&min_episodes=...)."""
        found: dict[str, Estimate] = {}
        for earlier in range(epoch - 1, -1, -1):
            tag = policy_tag(self.run_dir, self.arm, earlier)
            offset = 0
            while True:
                page = self.client.tasks(
                    self.split, offset, MAX_TASKS_PAGE, p_min=0.0, p_max=1.0, policy=tag,
                    min_episodes=self.config.real_min_episodes,
                )  # fmt: skip
                for entry in page.tasks:
                    if entry.stats is not None and entry.task_id not in found:
                        found[entry.task_id] = Estimate(entry.stats.success_rate, entry.stats.episodes, tag)
                offset += len(page.tasks)
                if not page.tasks or offset >= page.total:
                    break
        return found

    def draw(self, epoch: int, count: int) -> TaskBatch:
        """The epoch's `count` tasks (module docstring); later scoring is tagged with the epoch."""
        cfg = self.config
        self.epoch, self.tag = epoch, policy_tag(self.run_dir, self.arm, epoch)
        self.statuses = Counter()
        rng = random.Random(f"real:{epoch_seed(cfg.seed, epoch)}")
        if self.arm == "real":
            known = self.estimates(epoch)
            self.selection = curriculum_tasks(
                self.task_ids, known, count, rng, alpha=cfg.alpha, beta=cfg.beta, k_min=cfg.k_min
            )
        else:
            self.selection = uniform_tasks(self.task_ids, count, rng)
            known = {}
        asyncio.run(self._fetch_prompts([t for t in self.selection.task_ids if t not in self._prompts]))
        tasks = [self._task(task_id, known.get(task_id)) for task_id in self.selection.task_ids]
        return TaskBatch(tasks, len(tasks), len(tasks), self.tag)

    def _task(self, task_id: str, estimate: Estimate | None) -> BatchTask:
        context: dict[str, Any] = {"source": "real", "env": self.env, "split": self.split}
        if estimate is not None:
            context.update(estimate=estimate.success_rate, episodes=estimate.episodes, estimate_of=estimate.tag)
        return BatchTask(task_id, f"real:{self.env}", self.prompt(task_id), context, "")

    def prompt(self, task_id: str) -> str:
        """The task as the agent reads it: the env's first observation in the held-out view
        (coevo.genenv.heldout.AgentView), fetched once (an untagged session left unplayed)."""
        if task_id not in self._prompts:
            asyncio.run(self._fetch_prompts([task_id]))
        return self._prompts[task_id]

    async def _fetch_prompts(self, task_ids: Sequence[str]) -> None:
        view = AgentView(env=self.env, instruction="")

        async def one(client: AsyncEnvClient, task_id: str) -> None:
            for attempt in range(PROMPT_ATTEMPTS):
                try:
                    async with await client.create(task_id=task_id, seed=0) as session:
                        self._prompts[task_id] = view.render_observation(session.observation, session.info, first=True)
                    return
                except ServerUnreachable:
                    # A create is not retried by the client (not idempotent); reading a prompt is.
                    if attempt + 1 == PROMPT_ATTEMPTS:
                        raise

        async with AsyncEnvClient(self.url) as client:
            for start in range(0, len(task_ids), CHUNK):
                await asyncio.gather(*(one(client, t) for t in task_ids[start : start + CHUNK]))

    def row(self) -> dict[str, Any]:
        """What the epoch row reports of the source: the selection and the attempts' end statuses."""
        return {
            **self.selection.counts(),
            "real_env": self.env,
            "real_split": self.split,
            "real_pool": len(self.task_ids),
            "real_heldout_twins": self.twins,
            "real_end_statuses": end_status.count(self.statuses.elements()),
        }

    # ------------------------------------------------------------------ scoring
    def score(self, pairs: list[tuple[str, str]]) -> list[float | None]:
        """The env's reward of each (task id, reply), played as a one-step episode under the
        epoch's tag; None where no attempt got a verdict (module docstring)."""
        rewards: list[float | None] = [None] * len(pairs)
        pending = list(range(len(pairs)))
        for _attempt in range(self.config.real_retries + 1):
            failed: list[int] = []
            for start in range(0, len(pending), CHUNK):
                chunk = pending[start : start + CHUNK]
                for i, reward in zip(chunk, self._play([pairs[i] for i in chunk]), strict=True):
                    if reward is None:
                        failed.append(i)
                    rewards[i] = reward
            pending = failed
            if not pending:
                break
        if pending:
            log.warning(
                "%s: %d replies had no verdict after %d retries", self.arm, len(pending), self.config.real_retries
            )
        return rewards

    def _play(self, pairs: Sequence[tuple[str, str]]) -> list[float | None]:
        """One attempt at each pair: None for an episode that ended without a verdict."""
        return asyncio.run(self._play_together(pairs))

    async def _play_together(self, pairs: Sequence[tuple[str, str]]) -> list[float | None]:
        """The attempt's sessions are created together, stepped in one batch and closed together
        (a recording server then commits each stage once, not once per episode)."""
        async with AsyncEnvClient(self.url) as client:
            created = await asyncio.gather(
                *(client.create(task_id=task_id, seed=0, policy=self.tag) for task_id, _ in pairs),
                return_exceptions=True,
            )
            sessions: list[AsyncSession | None] = []
            for (task_id, _), made in zip(pairs, created, strict=True):
                if isinstance(made, AsyncSession):
                    sessions.append(made)
                    continue
                if not isinstance(made, EnvClientError):
                    raise made
                self._count(status_of(made), task_id, describe(made))
                sessions.append(None)
            live = [(s, reply) for s, (_, reply) in zip(sessions, pairs) if s is not None]
            try:
                results = await client.batch_step([(s.session_id, reply) for s, reply in live]) if live else []
            except EnvClientError as exc:  # the whole batch was lost
                for _ in live:
                    self._count(status_of(exc), "", describe(exc))
                await asyncio.gather(*(_close(s, status_of(exc), describe(exc)) for s, _ in live))
                return [None] * len(pairs)
            by_session = {s.session_id: r for (s, _), r in zip(live, results, strict=True)}
            rewards: list[float | None] = []
            closing: list[tuple[AsyncSession, str | None, str | None]] = []
            wrong: NotOneStep | None = None
            for session, (task_id, _) in zip(sessions, pairs):
                if session is None:
                    rewards.append(None)
                    continue
                item = by_session[session.session_id]
                if item.ok and item.result is not None:
                    result = item.result
                    closing.append((session, None, None))
                    if not (result.done or result.truncated):
                        wrong = wrong or NotOneStep(
                            f"{self.env} did not end task {task_id}'s episode after one reply: a real-task arm needs "
                            "one-reply episodes (API-Bank: --option decisions=first)"
                        )
                        rewards.append(None)
                        continue
                    success = bool(episode_success(result.done, result.truncated, result.info, result.reward))
                    self._count(end_status.scored_end(result.done, result.truncated, success), task_id, None)
                    rewards.append(min(1.0, max(0.0, float(result.reward))))
                else:
                    detail = item.error or ErrorDetail(code="batch_error", message="no result")
                    failure = error_for(item.status, detail.code, detail.message)
                    status = status_of(failure)
                    self._count(status, task_id, describe(failure))
                    closing.append((session, status, describe(failure)))
                    rewards.append(None)
            await asyncio.gather(*(_close(s, status, error) for s, status, error in closing))
        if wrong is not None:
            raise wrong
        return rewards

    def _count(self, status: str, task_id: str, error: str | None) -> None:
        self.statuses[str(status)] += 1
        if error is not None:
            log.info("%s: task %s ended %s (%s)", self.arm, task_id, status, error)

    # ------------------------------------------------------------------ the Simulator protocol
    def expert(self, task_id: str) -> str | None:
        with self.client.create(task_id=task_id, seed=0) as session:
            return session.expert_action()

    def demo(self, family: str) -> tuple[str, str] | None:
        """No demo turn: a real-task arm is shown its tasks after the system prompt alone."""
        return None

    def generate(self, count: int, seed: int, family: str | None = None) -> TaskBatch:
        """`count` tasks of the pool drawn uniformly with `seed`, outside any epoch (untagged):
        what the agent warm-up trains on when a real-task arm comes first (its epochs draw with
        `draw`)."""
        chosen = uniform_tasks(self.task_ids, count, random.Random(f"real-generate:{seed}")).task_ids
        asyncio.run(self._fetch_prompts([t for t in chosen if t not in self._prompts]))
        tasks = [self._task(task_id, None) for task_id in chosen]
        return TaskBatch(tasks, len(tasks), len(tasks), "untagged")

    def base_tasks(self, count: int, seed: int) -> list[BatchTask]:
        return []

    def load_policy(self, path: str) -> str:
        return self.tag

    def set_context(self, context: CurriculumContext) -> None:
        """No pi_env to tell: the curriculum acts in `draw`."""

    def policy_info(self) -> dict[str, Any]:
        return {"env": self.env, "split": self.split, "tag": self.tag}

    def close(self) -> None:
        self.client.close()


async def _close(session: AsyncSession, status: str | None, error: str | None) -> None:
    """Release a session, reporting a failure only the client saw (end_status.CLIENT_REPORTED)."""
    reported = status if status in {s.value for s in end_status.CLIENT_REPORTED} else None
    try:
        await session.close(reported, error if reported else None)
    except EnvClientError:
        pass  # the server is gone: its lease expires there
