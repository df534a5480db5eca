"""The LLM environment policy: shown a few base tasks, it writes a new similar task and its
answer. The difficulty context (how the agent currently fares) is part of the prompt.

Output format (the assistant turn starts after a prefilled "### Task" header):

    ### Task
    <what the agent will see>
    ### Answer
    <the gold answer>

The new task inherits the checker of the base tasks it imitates: a tool-call answer must
parse into calls with literal arguments, other answers are taken as text.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from coevo.simulator.curriculum_context import CurriculumContext
from coevo.simulator.expert import gold_answer_text
from coevo.simulator.policies.base import Proposal
from coevo.models.text_generators import Messages, TextGenerator
from coevo.simulator.scoring import Unparsed, parse_calls
from coevo.simulator.task_record import SimTask

TASK_HEADER = "### Task\n"
ANSWER_HEADER = "### Answer"
SYSTEM = (
    "You write new tasks for training an AI agent. A task is what the agent is shown; "
    "its answer is the single correct reply."
)
_SPLIT = re.compile(r"^\s*###\s*Answer\s*:?\s*$", re.MULTILINE)
_NEXT_BLOCK = re.compile(r"^\s*###", re.MULTILINE)


def render_example(task: SimTask) -> str:
    return f"{TASK_HEADER}{task.prompt.strip()}\n{ANSWER_HEADER}\n{gold_answer_text(task)}"


STEERS = {
    "harder": "Make the new task harder than the examples.",
    "easier": "Make the new task easier than the examples.",
    "same": "Keep the new task about as hard as the examples.",
}


def difficulty_phrase(context: CurriculumContext) -> str:
    """The difficulty context in words: the agent's recent success and where to steer."""
    steer = context.steer()
    if not steer:
        return ""
    return f"The agent currently solves {context.agent_success:.0%} of tasks like these. {STEERS[steer]}"


def build_messages(examples: Sequence[SimTask], context: CurriculumContext) -> Messages:
    shown = "\n\n".join(render_example(t) for t in examples)
    ask = "Write one new task of the same kind, different from the examples, and its answer."
    phrase = difficulty_phrase(context)
    user = f"Example tasks:\n\n{shown}\n\n{ask}" + (f" {phrase}" if phrase else "")
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


def parse_generation(text: str, template: SimTask, family: str) -> SimTask:
    """The task in an LLM output; raises ValueError with the reason when it does not parse."""
    body = text.strip()
    if body.startswith(TASK_HEADER.strip()):
        body = body[len(TASK_HEADER.strip()) :]
    parts = _SPLIT.split(body, maxsplit=1)
    if len(parts) != 2:
        raise ValueError("no '### Answer' block")
    prompt = parts[0].strip()
    answer = _NEXT_BLOCK.split(parts[1], maxsplit=1)[0].strip()
    if not prompt:
        raise ValueError("empty task")
    if not answer:
        raise ValueError("empty answer")
    if template.checker == "tool_call":
        calls = parse_calls(answer)
        if not calls:
            raise ValueError("the answer is not a function call")
        if any(c.positional for c in calls) or any(
            isinstance(v, Unparsed) for c in calls for v in c.arguments.values()
        ):
            raise ValueError("the answer's call has non-literal or positional arguments")
        gold: Any = [{"name": c.name, "arguments": dict(c.arguments)} for c in calls]
    else:
        gold = [answer.splitlines()[0].strip()]
    return SimTask(family=family, prompt=prompt, answer=gold, checker=template.checker)


class LLMPolicy:
    kind = "llm"

    def __init__(
        self,
        generator: TextGenerator,
        base_pool: Sequence[SimTask],
        *,
        examples_per_prompt: int = 2,
        max_new_tokens: int = 256,
        temperature: float = 0.8,
        top_p: float = 0.95,
    ) -> None:
        if not base_pool:
            raise ValueError("the LLM environment policy needs a non-empty base pool")
        self.generator = generator
        self.by_family: dict[str, list[SimTask]] = defaultdict(list)
        for task in base_pool:
            self.by_family[task.family].append(task)
        self.examples_per_prompt = examples_per_prompt
        self.max_new_tokens = max_new_tokens
        self.temperature = temperature
        self.top_p = top_p
        #: Difficulty context shown to the generator (set by the trainer through admin).
        self.context = CurriculumContext()
        self._loads = 0

    @property
    def version(self) -> str:
        """Hot-load count, the weights directory's name, and a hash of its full path."""
        where = str(self.generator.model_dir)
        digest = hashlib.sha256(where.encode()).hexdigest()[:8]
        return f"llm-{self._loads}-{Path(where).name[:32]}-{digest}"

    def load(self, path: str) -> None:
        self.generator.load(path)
        self._loads += 1

    def describe(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "version": self.version,
            "generator": self.generator.name,
            "model": self.generator.model_dir,
            "context": self.context.model_dump(),
            "base_families": {f: len(ts) for f, ts in self.by_family.items()},
        }

    def contexts(self, count: int, seed: int, family: str | None) -> list[dict[str, Any]]:
        """Which base tasks each generation imitates (all from one family, so one checker)."""
        rng = random.Random(f"llm:{seed}")
        families = sorted(self.by_family)
        if family is not None and family not in self.by_family:
            raise KeyError(f"no base tasks of family {family!r}; have {families}")
        out = []
        for _ in range(count):
            fam = family or rng.choice(families)
            pool = self.by_family[fam]
            examples = rng.sample(pool, min(self.examples_per_prompt, len(pool)))
            out.append(
                {
                    "family": fam,
                    "base_task_ids": [t.task_id for t in examples],
                    "difficulty": self.context,
                    "_examples": examples,
                }
            )
        return out

    def propose(self, count: int, seed: int, family: str | None = None) -> list[Proposal]:
        contexts = self.contexts(count, seed, family)
        conversations = [build_messages(c["_examples"], c["difficulty"]) for c in contexts]
        outputs = self.generator.generate(
            conversations,
            seed=seed,
            max_new_tokens=self.max_new_tokens,
            temperature=self.temperature,
            top_p=self.top_p,
            assistant_prefix=TASK_HEADER,
        )
        proposals = []
        for ctx, messages, output in zip(contexts, conversations, outputs):
            examples = ctx.pop("_examples")
            ctx["difficulty"] = ctx["difficulty"].model_dump()
            ctx["messages"] = messages
            try:
                task = parse_generation(output, examples[0], f"llm:{ctx['family']}")
                proposals.append(Proposal(ctx, output, task))
            except ValueError as exc:
                proposals.append(Proposal(ctx, output, None, str(exc)))
        return proposals
