"""SearchQA as AgentGym's search server presents it (`agentenv-searchqa`), for its routes.

AgentGym's server reads a reply differently from Search-R1: the first `<search>...</search>` or
`<answer>...</answer>` anywhere in the reply picks the action (no cut after the first closing
tag); an answer is scored on the reply's *last* `<answer>...</answer>` (normalized exact match,
its reward 1 or 0); a correct answer ends the episode with a congratulation, a wrong one is
answered with "Sorry, your answer is incorrect. Please try again." and the episode goes on.
Search results come back as `<information>Doc 1(Title: ...) ...</information>` without the blank
lines around it, and the prompt (also what its /observation repeats) is its own. It has no
search limit and no end state (a reply after the correct answer is read like any other:
`steps_after_done`); the episode cap (`max_steps`) is still ours. Its items are the test
questions first (0-51712), then the train ones; the session travels in env_idx, the item index
in id (the env_idx_item style). `PROFILE` declares all of that for the AgentGym routes
(envs/agentgym.py).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from coevo.envs.agentgym import AgentGymAdapter, AgentGymProfile
from coevo.envs.searchqa.actions import Passage, render_passages, search_r1_question

if TYPE_CHECKING:
    from coevo.envs.searchqa.env import SearchQAEnv

_ACTION = re.compile(r"<(search|answer)>(.*?)</\1>", re.DOTALL)
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL)

PROMPT = (
    "You must reason inside <think>...</think> first. If you do not have enough knowledge, issue a "
    "<search>...</search> and then STOP. Do not generate <information> or <answer> yet. Wait for external "
    "input wrapped in <information>...</information>. After receiving information, reason again in "
    "<think>. If confident, output your final answer in <answer>...</answer>. Do not output <answer> "
    "before receiving <information> unless you are fully confident. If you find no further external "
    "knowledge needed, you can directly provide the answer inside <answer> and </answer>, without "
    "detailed illustrations. For example, <answer> Beijing </answer>. Follow this process every "
    "time.\n\n Question: {question}"
)
CORRECT = "Congratulations! You have answered the question correctly."
INCORRECT = "Sorry, your answer is incorrect. Please try again."
INVALID_ACTION = (
    "Your previous action is invalid. If you want to search, you should put the query between <search> "
    "and </search>. If you want to give the final answer, you should put the answer between <answer> and "
    "</answer>. Please try again."
)


def prompt(question: str) -> str:
    """AgentGym's first observation: its instruction, then the question as its data files store
    it (Search-R1's data scripts: stripped, ending in '?'; `actions.search_r1_question`)."""
    return PROMPT.format(question=question.strip())


def parse_action(reply: str) -> tuple[str, str] | None:
    """("search"|"answer", content) as AgentGym's server reads the reply, or None (invalid)."""
    m = _ACTION.search(reply)
    return (m.group(1), m.group(2).strip()) if m else None


def scored_answer(reply: str) -> str | None:
    """The answer AgentGym's exact-match scorer reads: the reply's last `<answer>` content."""
    matches = _ANSWER.findall(reply)
    return matches[-1].strip() if matches else None


def information(passages: Sequence[Passage]) -> str:
    """The observation after a search on AgentGym's server."""
    return f"<information>{render_passages(passages).strip()}</information>"


class SearchQAAgentGym(AgentGymAdapter[Any]):
    """AgentGym's search server's /observation: it repeats the question's prompt."""

    env: SearchQAEnv

    def observation(self) -> str | None:
        question = self.env.question
        return prompt(search_r1_question(question.question)) if question else None


#: AgentGym's search server (`agentenv-searchqa`), as its routes answer: "ok" to `GET /`.
PROFILE = AgentGymProfile(
    style="env_idx_item",
    indices=(("test", 0), ("train", 51713)),
    hello="ok",
    steps_after_done=True,
    adapter=SearchQAAgentGym,
)
