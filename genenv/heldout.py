"""GenEnv's agent scored on real benchmarks' held-out tasks, in the view it was trained in.

The agent learns on simulator tasks shown as "Tools: <signatures> / Request: <text>" after its
system prompt (AgentPrompts). Scoring it on a real function-calling benchmark in that
benchmark's own, very different conversation would measure the change of prompt as much as
the training. So a real task is shown to the agent as the simulator shows one: its functions'
signatures and the user's request (the env's reset info carries both), after the same system
prompt and demo turn; the reply goes to the real env, which scores it with the benchmark's own
checker. The base model is scored in the same view on the same tasks, so the difference
between the two is what training did. One reply per task, as in training (no retry turns).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from coevo.client.heldout import HeldoutEvaluator, HeldoutRow, HeldoutSplit
from coevo.client.http import AsyncEnvClient
from coevo.client.policies.base import Message, Sampling
from coevo.client.policies.prompts import EnvPrompt
from coevo.models.registry import host_batch_rows
from coevo.simulator.families.function_calling import render_prompt
from coevo.training import write_json

if TYPE_CHECKING:
    from coevo.genenv.config import GenEnvConfig
    from coevo.genenv.simulator import Simulator

log = logging.getLogger(__name__)


def signature(doc: Mapping[str, Any]) -> str:
    """A JSON-schema function doc as the simulator writes a tool: name(param, ...)."""
    params = (doc.get("parameters") or {}).get("properties") or {}
    return f"{doc['name']}({', '.join(params)})"


@dataclass(frozen=True)
class AgentView(EnvPrompt):
    """A real env's task shown as a simulator task: `head` (the agent's system prompt and demo
    turn), then the functions and the request of the env's first observation. Observations
    without functions (another kind of env) are shown as the env wrote them."""

    head: tuple[Message, ...] = ()

    def start(self) -> list[Message]:
        return [Message(role=m["role"], content=m["content"]) for m in self.head]

    def render_observation(self, observation: str, info: Mapping[str, Any], *, first: bool = False) -> str:
        functions, request = info.get("functions"), info.get("task")
        if first and isinstance(functions, list) and functions and isinstance(request, str) and request.strip():
            return render_prompt([signature(doc) for doc in functions], request.strip())
        return observation.strip()


@dataclass
class HeldoutResult:
    """One model on every held-out split: a row per split and the task lists scored."""

    rows: list[HeldoutRow]
    task_lists: dict[str, list[str]]

    def save(self, path: Path, **about: Any) -> None:
        write_json(path, {**about, "rows": [asdict(r) for r in self.rows], "task_lists": self.task_lists})

    @classmethod
    def load(cls, path: Path) -> HeldoutResult:
        document = json.loads(path.read_text())
        return cls([HeldoutRow(**r) for r in document["rows"]], document["task_lists"])


@dataclass(frozen=True)
class AgentHeldout:
    """How a run scores its agents: which splits, on which servers, in which view and budget."""

    splits: tuple[HeldoutSplit, ...]
    urls: Mapping[str, str]
    head: tuple[Message, ...]
    seed: int
    max_new_tokens: int
    backend: str = "auto"
    max_rounds: int = 1
    #: Episodes in flight and rows per generate call: a GPU host decodes every pending first turn
    #: in one batch (coevo.models.registry.batch_rows), two CPU cores 16 at a time.
    concurrency: int = field(default_factory=lambda: max(32, host_batch_rows()))
    max_batch_size: int = field(default_factory=lambda: host_batch_rows())

    @classmethod
    def for_run(
        cls, config: GenEnvConfig, urls: Mapping[str, str], head: Sequence[Message] | None = None
    ) -> AgentHeldout:
        """A run's held-out settings (`heldout`, `heldout_n`, `seed`, the completion budget and the
        sampling pass's engine). `head` defaults to the system prompt alone, which is what the
        agent sees before a task unless `agent_demo` adds a demo turn (the trainer passes it)."""
        if head is None:
            head = [Message(role="system", content=config.agent_system_prompt)]
        return cls(
            parse_splits(config.heldout, config.heldout_n), dict(urls), tuple(head), seed=config.seed,
            max_new_tokens=config.max_completion_length, backend=config.sample_backend,
        )  # fmt: skip

    def evaluate(self, model_dir: str | Path) -> HeldoutResult:
        """Greedy replies of the model in `model_dir` on every split's fixed task list."""
        return asyncio.run(self._evaluate(str(model_dir)))

    async def _evaluate(self, model_dir: str) -> HeldoutResult:
        from coevo.client.policies.factory import local_policy

        envs = sorted({s.env for s in self.splits})
        missing = [env for env in envs if env not in self.urls]
        if missing:
            raise ValueError(f"no server URL for held-out env(s) {missing}")
        clients = {env: [AsyncEnvClient(self.urls[env])] for env in envs}
        prompts = {env: AgentView(env=env, instruction="", head=self.head) for env in envs}
        sampling = Sampling(temperature=0.0, max_new_tokens=self.max_new_tokens)
        # A checkpoint scored once: no GGUF copy of it is left in the shared cache.
        policy = local_policy(
            model_dir, backend=self.backend, sampling=sampling, max_batch_size=self.max_batch_size, cache_gguf=False
        )
        try:
            evaluator = HeldoutEvaluator(
                clients, self.splits, seed=self.seed, max_rounds=self.max_rounds, concurrency=self.concurrency
            )
            rows = await evaluator.evaluate(policy, prompts=prompts)
            return HeldoutResult(rows, evaluator.recorded_lists())
        finally:
            await policy.aclose()
            for group in clients.values():
                for client in group:
                    await client.aclose()


def parse_splits(items: Sequence[str], default_n: int) -> tuple[HeldoutSplit, ...]:
    return tuple(HeldoutSplit.parse(item, default_n) for item in items)


class HeldoutScoring:
    """A run's held-out evaluation (the main process scores): servers for the held-out envs
    while the run lasts, the evaluator in the agent's training view, and the files of every
    agent scored (the trainer records the rows in its metrics log)."""

    def __init__(self, config: GenEnvConfig, out: Path, main_process: bool) -> None:
        self.config, self.out, self.main_process = config, out, main_process
        #: {env: url} of the held-out envs' servers while a run is in progress.
        self.urls: dict[str, str] = {}

    @contextlib.contextmanager
    def servers(self) -> Iterator[dict[str, str]]:
        """{env: url} of the held-out envs' servers: the configured URLs, and local subprocesses
        for the rest, stopped when the run ends (none outside the main process)."""
        cfg = self.config
        if not cfg.heldout or not self.main_process:
            yield {}
            return
        from coevo.client.launcher import ServerSpec, launch_local

        envs = sorted({s.env for s in parse_splits(cfg.heldout, cfg.heldout_n)} - set(cfg.heldout_urls))
        specs = [ServerSpec(env, self._options(env)) for env in envs]
        with launch_local(specs, log_dir=str(self.out)) as started:
            self.urls = {**cfg.heldout_urls, **started}
            try:
                yield self.urls
            finally:
                self.urls = {}

    def _options(self, env: str) -> dict[str, str]:
        """A local held-out server's env options: the simulator's held-out split holds out
        combinations of the run's own families; the real-task env scores one-reply episodes
        (real_options), as the real-task arms train on them."""
        cfg = self.config
        if env == "simulator":
            return {"families": ",".join(cfg.families)}
        return dict(cfg.real_options) if env == cfg.real_env else {}

    def evaluator(self, simulator: Simulator) -> AgentHeldout | None:
        """The held-out evaluator, in the prompts `simulator`'s tasks are shown in (None: no
        held-out splits, or not while the servers are up)."""
        cfg = self.config
        if not self.urls:
            return None
        from coevo.genenv.agent_prompts import AgentPrompts

        head = AgentPrompts(cfg, simulator).head("function_calling")
        return AgentHeldout.for_run(cfg, self.urls, [Message(role=m["role"], content=m["content"]) for m in head])  # type: ignore[typeddict-item]

    def score(self, heldout: AgentHeldout, arm: str, epoch: int, model_dir: str | Path) -> list[HeldoutRow]:
        """Held-out rows of one agent, one per split, and the file heldout/ARM-epoch-NNN.json
        (per-task outcomes and task lists, for paired comparisons). Epoch -1 is the starting
        agent, scored once for all arms."""
        t0 = time.time()
        cached = self.out / "heldout" / "start.json"
        if epoch < 0 and cached.exists():
            result = HeldoutResult.load(cached)
        else:
            result = heldout.evaluate(model_dir)
            target = cached if epoch < 0 else self.out / "heldout" / f"{arm}-epoch-{epoch:03d}.json"
            result.save(target, arm=arm, epoch=epoch, model=str(model_dir))
        log.info("%s epoch %d: held-out splits scored in %.0fs", arm, epoch, time.time() - t0)
        return result.rows
