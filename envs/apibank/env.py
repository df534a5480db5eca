"""The API-Bank env: play the AI side of a tool-use dialogue, scored as API-Bank scores it.

An episode is one dialogue. The agent acts where API-Bank evaluates: at every API call of the
ground truth (it must emit `API-Request: [Name(...)]`) and at every AI reply that directly
follows a call (free text). Other turns are revealed as the dialogue advances. As in API-Bank's
evaluation the history is the ground truth's (teacher forcing): after each step the recorded turn
is shown, and the session's sandbox executes the ground-truth call so its databases follow the
dialogue. The agent's own call runs on fresh databases (official scoring, as API-Bank's
evaluator does) or a throw-away fork of that sandbox (corrected) and is correct when the API name
matches and API-Bank's rule accepts its result (score 1, else 0); a reply scores its
ROUGE-L F against the recorded reply. A step's reward is its score divided by the number of
decision points, so an episode's rewards add up to its mean score, between 0 and 1. The `scoring` option picks how (modes.py): `official`
(default) judges as API-Bank's released evaluator does, `corrected` with the env's repairs; the
reward follows the selected mode and `info` carries both modes' figures side by side (the
running API accuracy, the mean ROUGE-L and, at the end, `success`: every call correct).

Tasks: `l1-*` and `l2-*` are the benchmark's level-1/2 dialogues (splits level1, level2; only
when an API-Bank folder is configured); `gen-train-*` and `gen-test-*` are generated dialogues of
levels 1-3 over the loaded databases.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from coevo.envs.apibank.judge import judge_call
from coevo.envs.apibank.modes import DEFAULT_MODE, MODES, ScoringMode, scoring_mode
from coevo.envs.apibank.parsing import format_api_call, is_api_request, request_text
from coevo.envs.apibank.render import ASK_API, ASK_REPLY, api_line, header
from coevo.envs.apibank.reply_score import rouge_l
from coevo.envs.apibank.resources import Resources, build_resources
from coevo.envs.apibank.sandbox import SandboxSession, hints_from_record
from coevo.envs.apibank.specs import catalogue
from coevo.envs.apibank.tasks import LEVEL_CYCLE, Dialogue, generate
from coevo.envs.apibank.tool_schema import api_tool
from coevo.envs.base import Env, EpisodeTool, ResetResult, StepResult, ToolCall, UnknownTask, UnknownTool

GENERATED_SPLITS = ("train", "test")
#: The `decisions` option: an episode is every decision point of its dialogue (`all`, API-Bank's
#: evaluation), or only the first (`first`: one reply, usually one API call, judged; GenEnv's
#: one-reply agent trains and is scored on these, docs/genenv.md "The real-task arms").
DECISIONS = ("all", "first")


def decisions_option(value: object) -> str:
    """The `decisions` env option: `all` or `first`."""
    text = str(value).strip().lower()
    if text not in DECISIONS:
        raise ValueError(f"decisions must be one of {', '.join(DECISIONS)}, got {value!r}")
    return text


def _seed_of(task_id: str) -> int:
    return int.from_bytes(hashlib.sha256(task_id.encode()).digest()[:8], "big")


@dataclass
class Shared:
    resources: Resources
    sizes: dict[str, int]
    shipped: dict[str, Dialogue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._generated = lru_cache(maxsize=4096)(self._generate)

    def _generate(self, task_id: str) -> Dialogue:
        _, split, number = task_id.split("-")
        level = LEVEL_CYCLE[int(number) % len(LEVEL_CYCLE)]
        return generate(self.resources, task_id, _seed_of(task_id), level)

    def dialogue(self, task_id: str) -> Dialogue:
        if task_id in self.shipped:
            return self.shipped[task_id]
        self.split_of(task_id)
        return self._generated(task_id)

    def split_of(self, task_id: str) -> str:
        if task_id in self.shipped:
            return "level1" if task_id.startswith("l1-") else "level2"
        parts = task_id.split("-")
        if (
            len(parts) == 3
            and parts[0] == "gen"
            and parts[1] in GENERATED_SPLITS
            and parts[2].isdigit()
            and int(parts[2]) < self.sizes[parts[1]]
        ):
            return parts[1]
        raise UnknownTask(f"unknown task id {task_id!r}")


def decision_points(dialogue: Dialogue) -> list[int]:
    """Turns API-Bank evaluates: each API call, and each AI reply right after one.

    A dialogue without calls (two of the benchmark's have none) is scored on its last AI reply.
    """
    points: list[int] = []
    for i, turn in enumerate(dialogue.turns):
        if turn.role == "API" or (turn.role == "AI" and i > 0 and dialogue.turns[i - 1].role == "API"):
            points.append(i)
    if not points:
        points = [i for i, turn in enumerate(dialogue.turns) if turn.role == "AI"][-1:]
    return points


class ApiBankEnv(Env):
    name = "apibank"
    version = "1"
    action_format = (
        "API-Request: [ApiName(key1='value1', key2='value2', ...)] when an API call "
        "is expected, otherwise the AI's reply to the user"
    )
    max_steps = 64
    default_split = "train"
    action_example = (
        "The user asks for the weather, so I call the weather API.",
        "API-Request: [QueryWeather(city='Paris', date='2023-03-01')]",
    )
    heldout_splits = ("level1", "test")
    cpu_heavy = False

    def __init__(self, shared: Any = None, **options: Any) -> None:
        super().__init__(shared, **options)
        #: `official` (API-Bank's evaluator) or `corrected`: which mode's figures are the reward.
        self.scoring: ScoringMode = scoring_mode(options.get("scoring", DEFAULT_MODE))
        #: `all` decision points of a dialogue per episode, or only the `first` (DECISIONS).
        self.decisions = decisions_option(options.get("decisions", "all"))

    # ----------------------------------------------------------------- shared data
    @classmethod
    def load_shared(
        cls,
        data_dir: str | None = None,
        retriever: str = "bm25",
        train_size: int | str = 5000,
        test_size: int | str = 500,
        **_: Any,
    ) -> Shared:
        resources = build_resources(data_dir, retriever=str(retriever))
        sizes = {"train": int(train_size), "test": int(test_size)}
        shipped = {d.task_id: d for level in sorted(resources.shipped) for d in resources.shipped[level]}
        return Shared(resources, sizes, shipped)

    # ----------------------------------------------------------------- catalogue
    def splits(self) -> Mapping[str, int]:
        counts = dict(self.shared.sizes)
        for level, dialogues in sorted(self.shared.resources.shipped.items()):
            counts[f"level{level}"] = len(dialogues)
        return counts

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        sizes = self.splits()
        if split not in sizes:
            return []
        stop = sizes[split] if limit is None else min(sizes[split], offset + limit)
        if split in GENERATED_SPLITS:
            return [f"gen-{split}-{i:06d}" for i in range(offset, stop)]
        level = int(split[-1])
        return [d.task_id for d in self.shared.resources.shipped[level][offset:stop]]

    def split_of(self, task_id: str) -> str:
        return self.shared.split_of(task_id)

    def describe_task(self, task_id: str) -> dict[str, Any]:
        dialogue = self.shared.dialogue(task_id)
        return {"level": dialogue.level, "apis": list(dialogue.api_names), "source": dialogue.source}

    # ----------------------------------------------------------------- episode
    def _docs(self) -> list:
        specs = catalogue(self.dialogue.level)
        if self.dialogue.level == 1:
            return [specs[name] for name in self.dialogue.api_names if name in specs]
        return [specs["ToolSearcher"]]

    def episode_tools(self) -> list[EpisodeTool]:
        """The APIs the prompt describes (level 1: the dialogue's; levels 2-3: ToolSearcher)."""
        if getattr(self, "dialogue", None) is None:
            return []
        return [api_tool(spec) for spec in self._docs()]

    def tool_calls_action(self, calls: Sequence[ToolCall]) -> str:
        """One `API-Request:` line. Any API of the level may be called: levels 2 and 3 find
        theirs through ToolSearcher."""
        if len(calls) != 1:
            raise UnknownTool(f"API-Bank takes one API call per step, not {len(calls)}")
        call = calls[0]
        if getattr(self, "dialogue", None) is None or call.name not in catalogue(self.dialogue.level):
            raise UnknownTool(f"no API {call.name!r} at this level")
        return request_text(call.name, {k: v for k, v in call.arguments.items()})

    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.dialogue = self.shared.dialogue(task_id)
        self.points = decision_points(self.dialogue)
        if self.decisions == "first":
            self.points = self.points[:1]
        self.point = 0
        self.world = SandboxSession(self.shared.resources, self.dialogue.level, seed=seed)
        self.api_calls = self.replies = 0
        self.api_correct = dict.fromkeys(MODES, 0)
        self.rouge_total = dict.fromkeys(MODES, 0.0)
        first_user = next((t.text for t in self.dialogue.turns if t.role == "User"), "")
        info = {
            "task": first_user,
            "level": self.dialogue.level,
            "scoring": self.scoring,
            "expects": self._expects(),
            "decision_points": len(self.points),
        }
        return ResetResult(self._observation(), info)

    def _expects(self) -> str | None:
        if self.point >= len(self.points):
            return None
        return "api" if self.dialogue.turns[self.points[self.point]].role == "API" else "reply"

    def _history(self, upto: int) -> list[str]:
        lines = []
        for turn in self.dialogue.turns[:upto]:
            if turn.role == "API":
                lines.append(api_line(format_api_call(turn.api_name, turn.param_dict), turn.result))
            else:
                lines.append(f"{turn.role}: {turn.text}")
        return lines

    def _observation(self) -> str:
        upto = self.points[self.point] if self.point < len(self.points) else len(self.dialogue.turns)
        lines = [header(self.dialogue.level, self._docs()), "", *self._history(upto)]
        expects = self._expects()
        if expects is not None:
            lines.append(ASK_API if expects == "api" else ASK_REPLY)
        return "\n".join(lines)

    def _step(self, action: str) -> StepResult:
        index = self.points[self.point]
        truth = self.dialogue.turns[index]
        info: dict[str, Any] = {"kind": "api" if truth.role == "API" else "reply"}
        if truth.role == "API":
            verdicts = {mode: judge_call(action, truth, self.dialogue.level, self.world, mode) for mode in MODES}
            info.update(verdicts[self.scoring].info())
            for mode, verdict in verdicts.items():
                info[f"correct_{mode}"] = verdict.correct
                self.api_correct[mode] += int(verdict.correct)
            reward = 1.0 if verdicts[self.scoring].correct else 0.0
            self.api_calls += 1
            # The world follows the ground truth (teacher forcing), whatever the agent did.
            self.world.call(truth.api_name, truth.param_dict, hints_from_record(truth.api_name, truth.result))
        else:
            scores = {mode: rouge_l(truth.text, action, mode, self.dialogue.level) for mode in MODES}
            for mode, score in scores.items():
                info[f"rouge_l_{mode}"] = score
                self.rouge_total[mode] += score
            reward = scores[self.scoring]
            info["rouge_l"] = reward
            info["is_api_request"] = is_api_request(action)
            self.replies += 1
        # Each decision point weighs 1/len(points): an episode's rewards add up to its mean score
        # (0-1, as every other env's return), not to the number of calls and replies.
        reward /= len(self.points)
        self.point += 1
        done = self.point >= len(self.points)
        info.update(self._progress(done))
        return StepResult(self._observation(), reward, done, info=info)

    def _progress(self, done: bool) -> dict[str, Any]:
        """Running figures: the selected mode's under the plain names, each mode's suffixed."""
        progress: dict[str, Any] = {"api_calls": self.api_calls, "expects": self._expects()}
        for mode in MODES:
            progress[f"api_correct_{mode}"] = self.api_correct[mode]
            progress[f"api_accuracy_{mode}"] = self.api_correct[mode] / self.api_calls if self.api_calls else None
            progress[f"mean_rouge_l_{mode}"] = self.rouge_total[mode] / self.replies if self.replies else None
            if done:
                progress[f"success_{mode}"] = self.api_correct[mode] == self.api_calls
        for key in ("api_correct", "api_accuracy", "mean_rouge_l", *(("success",) if done else ())):
            progress[key] = progress[f"{key}_{self.scoring}"]
        return progress

    def expert_action(self) -> str | None:
        if self.task_id is None or self.done or self.point >= len(self.points):
            return None
        truth = self.dialogue.turns[self.points[self.point]]
        if truth.role == "API":
            return request_text(truth.api_name, truth.param_dict)
        return truth.text
