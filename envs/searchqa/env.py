"""SearchQA env: answer a compositional question, searching an offline corpus as often as needed.

Actions, observations and the prompt are Search-R1's (envs/searchqa/actions.py): `<search>query
</search>` returns the top-k passages as `<information>Doc 1(Title: "T") text ...</information>`;
`<answer>text</answer>` ends the episode; any other reply gets Search-R1's "My previous action
is invalid..." text and the episode goes on. Sessions of the AgentGym routes (`Env.agentgym`)
get AgentGym's search server's prompt, texts and answer handling instead (a wrong answer lets
the episode go on; envs/searchqa/agentgym.py).

Options: `passages` (generated corpus size, default 100,000), `seed`, `corpus` + `questions`
(a user's JSONL passages and Bamboogle, FlashRAG or Search-R1 question files), `top_k` (3),
`max_searches` (4), `lenient` (false: also read tags in any case and `search[...]` /
`answer[...]` replies), `scoring` (`search_r1`, the default: the last `<answer>` anywhere in the
episode, as Search-R1's reward reads it, also at the step cap; `answer_step`: only the answer
action that ended the episode; envs/searchqa/episode_answer.py). Reward: normalized exact match
(1/0) at the end of the episode; `info` carries token F1 and the gold answers there.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from coevo.envs.base import Env, ResetResult, StepResult, UnknownTask
from coevo.envs.options import flag
from coevo.envs.searchqa import agentgym, expert
from coevo.envs.searchqa.actions import INVALID_ACTION, cut_reply, information, parse_action, search_r1_question
from coevo.envs.searchqa.corpus import SearchIndex, build_generated, build_user
from coevo.envs.searchqa.episode_answer import SEARCH_R1, last_answer, scoring_mode
from coevo.envs.searchqa.scoring import exact_match, f1
from coevo.envs.searchqa.tasks import Question

DEFAULT_PASSAGES = 100_000

# Search-R1's prompt (its `make_prefix`, template "base"), typos included: models trained on it
# expect it word for word.
PROMPT = (
    "Answer the given question. You must conduct reasoning inside <think> and </think> first every time you "
    "get new information. After reasoning, if you find you lack some knowledge, you can call a search engine "
    "by <search> query </search> and it will return the top searched results between <information> and "
    "</information>. You can search as many times as your want. If you find no further external knowledge "
    "needed, you can directly provide the answer inside <answer> and </answer>, without detailed "
    "illustrations. For example, <answer> Beijing </answer>. Question: {question}\n"
)


def prompt(question: str) -> str:
    return PROMPT.format(question=search_r1_question(question))


@dataclass(frozen=True)
class Shared:
    index: SearchIndex
    by_id: dict[str, tuple[str, Question]]
    top_k: int
    max_searches: int
    lenient: bool
    scoring: str = SEARCH_R1


class SearchQAEnv(Env):
    name = "searchqa"
    version = "1"
    action_format = "<search>query</search> or <answer>text</answer>"
    max_steps = 8
    default_split = "train"
    action_example = (
        "I need the founder first, so I search for the company.",
        "<search>founder of Velmora Works</search>",
    )
    heldout_splits = ("test",)
    cpu_heavy = True
    agentgym_profile = agentgym.PROFILE

    @classmethod
    def load_shared(
        cls,
        passages: int | str = DEFAULT_PASSAGES,
        seed: int | str = 0,
        corpus: str | None = None,
        questions: str | None = None,
        build_dir: str | None = None,
        top_k: int | str = 3,
        max_searches: int | str = 4,
        lenient: bool | str = False,
        scoring: str = SEARCH_R1,
        **_: Any,
    ) -> Shared:
        if build_dir:
            path = Path(build_dir)
        elif corpus:
            path = build_user(Path(corpus), Path(questions) if questions else None)
        else:
            path = build_generated(int(passages), int(seed))
        index = SearchIndex(path)
        by_id = {q.qid: (split, q) for split, qs in index.questions.items() for q in qs}
        return Shared(index, by_id, int(top_k), int(max_searches), flag(lenient), scoring_mode(scoring))

    def __init__(self, shared: Shared | None = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.max_steps = 2 * self.shared.max_searches + 2  # room for malformed turns and the answer
        self.question: Question | None = None
        self.searches = 0
        self.seen: dict[str, str] = {}  # title -> text of every passage shown this episode
        self.transcript = ""  # the episode as Search-R1's reward reads it: prompt, cut replies, observations

    # --------------------------------------------------------------- catalogue
    def splits(self) -> Mapping[str, int]:
        return {split: len(qs) for split, qs in self.shared.index.questions.items()}

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        qs = self.shared.index.questions.get(split, [])
        stop = len(qs) if limit is None else offset + limit
        return [q.qid for q in qs[offset:stop]]

    def split_of(self, task_id: str) -> str:
        try:
            return self.shared.by_id[task_id][0]
        except KeyError:
            raise UnknownTask(f"unknown task id {task_id!r}") from None

    def describe_task(self, task_id: str) -> dict[str, Any]:
        q = self.shared.by_id[task_id][1]
        return {"task_type": _task_type(q), "question": q.question}

    # --------------------------------------------------------------- episode
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.question = self.shared.by_id[task_id][1]
        self.searches, self.seen = 0, {}
        question = self.question.question
        text = agentgym.prompt(search_r1_question(question)) if self.agentgym else prompt(question)
        self.transcript = text
        return ResetResult(text, {"task": question, "task_type": _task_type(self.question)})

    def _step(self, action: str) -> StepResult:
        assert self.question is not None
        if self.agentgym:
            return self._agentgym_step(action)
        result = self._native_step(action)
        self.transcript += cut_reply(action) + result.observation
        if self.shared.lenient and result.done:
            # An answer only the lenient reading finds (`<Answer>x</Answer>`, `answer[x]`) is the
            # episode's last answer, as if written in Search-R1's form.
            self.transcript += f"<answer>{result.info['answer']}</answer>"
        last_step = self.steps + 1 >= self.max_steps  # the base class truncates after this step
        if self.shared.scoring == SEARCH_R1 and (result.done or last_step):
            answer = last_answer(self.transcript)
            result.reward = self._score(answer, result.info) if answer is not None else 0.0
        return result

    def _score(self, answer: str, info: dict[str, Any]) -> float:
        """Exact match of `answer`, with what was scored in `info` (F1 and the gold answers)."""
        assert self.question is not None
        em = exact_match(answer, self.question.answers)
        info.update(answer=answer, em=em, f1=f1(answer, self.question.answers), answers=self.question.answers)
        return em

    def _native_step(self, action: str) -> StepResult:
        """A step as Search-R1 takes it; the reward is the answer step's own (`scoring=answer_step`)."""
        parsed = parse_action(action, lenient=self.shared.lenient)
        if parsed is None:
            return StepResult(INVALID_ACTION, 0.0, False, info={"valid": False, "searches": self.searches})
        kind, arg = parsed
        if kind == "answer":  # Search-R1 shows nothing after the answer: the episode is over
            info: dict[str, Any] = {"valid": True, "searches": self.searches}
            return StepResult("", self._score(arg, info), True, info=info)
        if self.searches >= self.shared.max_searches:
            return StepResult(
                f"Search limit reached ({self.shared.max_searches}). Give your answer now.",
                0.0,
                False,
                info={"valid": False, "searches": self.searches},
            )
        self.searches += 1
        hits = self.shared.index.search(arg, self.shared.top_k)
        self.seen.update((h.title, h.text) for h in hits)
        return StepResult(information(hits), 0.0, False, info={"valid": True, "searches": self.searches})

    def _agentgym_step(self, action: str) -> StepResult:
        """A step as AgentGym's search server takes it (envs/searchqa/agentgym.py)."""
        assert self.question is not None
        parsed = agentgym.parse_action(action)
        if parsed is None:
            return StepResult(agentgym.INVALID_ACTION, 0.0, False, info={"valid": False, "searches": self.searches})
        kind, arg = parsed
        if kind == "answer":
            answer = agentgym.scored_answer(action) or ""
            em = exact_match(answer, self.question.answers)
            info = {"valid": True, "answer": answer, "em": em, "searches": self.searches}
            if em == 1.0:
                info.update(f1=f1(answer, self.question.answers), answers=self.question.answers)
                return StepResult(agentgym.CORRECT, em, True, info=info)
            return StepResult(agentgym.INCORRECT, 0.0, False, info=info)
        self.searches += 1
        hits = self.shared.index.search(arg, self.shared.top_k)
        self.seen.update((h.title, h.text) for h in hits)
        return StepResult(agentgym.information(hits), 0.0, False, info={"valid": True, "searches": self.searches})

    # --------------------------------------------------------------- expert
    def expert_action(self) -> str | None:
        """The expert's next reply (envs/searchqa/expert.py): it reads only passages shown this episode."""
        if self.question is None or self.done:
            return None
        return expert.next_action(self.question, self.searches, self.seen)


def _task_type(q: Question) -> str:
    return q.template or q.source or "user"
