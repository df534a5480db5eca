"""BFCL served as episodes: every single-turn and multi-turn category of bfcl-eval 2026.3.23.

Single-turn (simple_*, multiple, parallel*, live_*, irrelevance, live_relevance): the reset shows
BFCL's system prompt with the function docs and the entry's messages; one reply (Python-call
syntax, read as BFCL's prompting decoder reads it; JSON tool calls too with decoder=lenient)
ends the episode with reward 1 or 0 from `checker` (relevance: 1 when
a call is made; irrelevance: 1 when none is).

Multi-turn (multi_turn_base / miss_func / miss_param / long_context): user turns arrive one after
another. A reply with calls is executed on the entry's API instances and the results come back
as the next observation; a reply with no call (plain text, `[]`, or text that does not parse as
calls) ends the turn, exactly like BFCL's inference loop. A turn with more than 20 call steps
force-quits the episode (reward 0). When a turn ends it is checked as BFCL's multi-turn checker
checks it (state of every instance equal to the ground truth's; the ground truth's results of
that turn found among all results so far; at least one call when the ground truth has calls).
The episode's reward, given when the last turn ends, is 1 when every turn passed.
"""

from __future__ import annotations

import threading
from collections import Counter, OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coevo.envs.base import Env, EpisodeTool, ResetResult, StepResult, ToolCall, UnknownSplit, UnknownTool
from coevo.envs.bfcl import expert, prompts
from coevo.envs.bfcl.apis import ApiWorld, TurnTruth, ground_truth_trajectory
from coevo.envs.bfcl.calls import (
    DECODERS,
    DEFAULT_DECODER,
    Call,
    Decoded,
    decode_reply,
    looks_like_call_attempt,
)
from coevo.envs.bfcl.prompting import execution_error
from coevo.envs.bfcl.scoring import check_answer
from coevo.envs.bfcl.tool_schema import json_schema
from coevo.envs.bfcl.tasks import (
    CATEGORIES,
    BfclCatalog,
    Entry,
    is_relevance_category,
)
from coevo.wire import AgentPrompt

#: The most turns any BFCL multi-turn entry has.
MAX_TURNS = 8

_RELEVANCE_TEXT = {  # (a call is wanted, a call was made) -> observation
    (True, True): "Correct: a function call was made.",
    (True, False): "Incorrect: no function call was made.",
    (False, False): "Correct: no function was called.",
    (False, True): "Incorrect: a function was called but none applies.",
}
_NOT_FULFILLED = " Not every request was fulfilled."
_UNREADABLE_NOTE = "(No function call could be read from your last reply: {error}. The turn ended.)\n\n"


class _TruthCache:
    """Ground-truth trajectories by task id, computed on demand and shared by all sessions."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._items: OrderedDict[str, tuple[TurnTruth, ...]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, entry: Entry) -> tuple[TurnTruth, ...]:
        with self._lock:
            found = self._items.get(entry.id)
            if found is not None:
                self._items.move_to_end(entry.id)
                return found
        truth = ground_truth_trajectory(
            entry.answer or [],
            entry.involved_classes,
            entry.initial_config,
            long_context="long_context" in entry.category,
        )
        with self._lock:
            self._items[entry.id] = truth
            while len(self._items) > self.size:
                self._items.popitem(last=False)
        return truth


@dataclass
class BfclShared:
    catalog: BfclCatalog
    truth: _TruthCache
    underscore_names: bool = False
    decoder: str = DEFAULT_DECODER
    prompt_cache: dict[Any, Any] = field(default_factory=dict)


@dataclass
class _TurnState:
    """Per-session multi-turn bookkeeping (kept small: the API world is the only big part)."""

    world: ApiWorld
    turn: int = 0
    turn_steps: int = 0
    results: Counter = field(default_factory=Counter)
    failures: list[dict[str, Any]] = field(default_factory=list)


class BfclEnv(Env):
    name = "bfcl"
    version = "1"
    action_format = (
        "function calls in Python syntax, e.g. [func_a(x=1, y='b'), func_b(z=[1, 2])], as BFCL "
        "reads them (no code fence); a reply with no call ends a turn"
    )
    #: A turn allows 20 call steps (the 21st force-quits) plus the reply that ends it.
    max_steps = MAX_TURNS * 22
    default_split = "simple_python"
    action_example = (
        "The user wants the weather in Paris, so I call get_weather with that city.",
        "[get_weather(city='Paris')]",
    )
    agent_prompt = AgentPrompt.from_file(Path(__file__).parent / "data" / "agent_prompt.json")
    heldout_splits = ("simple_python", "multiple", "parallel", "parallel_multiple")
    #: Python calls like the held-out categories', from the live (user-contributed) entries.
    train_split = "live_simple"
    #: Multi-turn steps run API code (about a millisecond, tens on a long-context world's first
    #: check), so the server runs steps off its event loop.
    cpu_heavy = True

    @classmethod
    def load_shared(
        cls,
        data_dir: str | None = None,
        underscore_names: bool | str = False,
        truth_cache_size: int | str = 256,
        decoder: str = DEFAULT_DECODER,
        **_: Any,
    ) -> BfclShared:
        """`data_dir`: a copy of bfcl-eval's data folder (default: the installed package's).
        `underscore_names`: show and expect dotted function names with `_` instead of `.`, as
        BFCL does for providers whose tool names cannot contain dots. `decoder`: "bfcl" reads
        replies exactly as BFCL's prompting decoder does; "lenient" also unwraps code fences
        and reads JSON tool calls (see calls.py)."""
        if isinstance(underscore_names, str):
            underscore_names = underscore_names.lower() in ("1", "true", "yes")
        if decoder not in DECODERS:
            raise ValueError(f"unknown decoder {decoder!r}; known: {list(DECODERS)}")
        return BfclShared(
            catalog=BfclCatalog(data_dir),
            truth=_TruthCache(int(truth_cache_size)),
            underscore_names=bool(underscore_names),
            decoder=decoder,
        )

    def __init__(self, shared: Any = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.entry: Entry | None = None
        self.turns: _TurnState | None = None

    # ----------------------------------------------------------------- catalogue
    @property
    def catalog(self) -> BfclCatalog:
        return self.shared.catalog

    def splits(self) -> Mapping[str, int]:
        return self.catalog.splits()

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        if split not in self.catalog.counts:
            raise UnknownSplit(f"unknown split {split!r}; known: {list(CATEGORIES)}")
        ids = self.catalog.ids(split)
        stop = len(ids) if limit is None else min(len(ids), offset + limit)
        return list(ids[offset:stop])

    def split_of(self, task_id: str) -> str:
        return self.catalog.entry(task_id).category

    def describe_task(self, task_id: str) -> dict[str, Any]:
        entry = self.catalog.entry(task_id)
        info: dict[str, Any] = {
            "category": entry.category,
            "language": entry.language.value,
            "multi_turn": entry.multi_turn,
            "turns": len(entry.question),
        }
        if entry.multi_turn:
            info["involved_classes"] = list(entry.involved_classes)
        else:
            info["functions"] = [f["name"] for f in entry.functions]
        return info

    # ----------------------------------------------------------------- episode
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        entry = self.catalog.entry(task_id)
        self.entry = entry
        functions = self._shown_functions(entry)
        messages = prompts.opening_messages(entry.question[0], functions)
        info: dict[str, Any] = {
            "task": "\n\n".join(m["content"] for m in entry.question[0] if m["role"] == "user"),
            "category": entry.category,
            "language": entry.language.value,
            "multi_turn": entry.multi_turn,
            "functions": functions,
            "messages": messages,
        }
        if entry.multi_turn:
            long_context = "long_context" in entry.category
            world = ApiWorld(entry.involved_classes, entry.initial_config, long_context)
            self.turns = _TurnState(world)
            info.update(turn=0, turns=len(entry.question))
        else:
            self.turns = None
        return ResetResult(prompts.render_messages(messages), info)

    def _shown_functions(self, entry: Entry) -> list[dict[str, Any]]:
        if not entry.multi_turn:
            return prompts.prompt_functions(entry.functions, entry.category, self.shared.underscore_names)
        key = (tuple(entry.involved_classes), tuple(self._missed_names(entry)))
        cached = self.shared.prompt_cache.get(key)
        if cached is None:
            docs = [d for c in entry.involved_classes for d in self.catalog.class_docs(c)]
            for name in self._missed_names(entry):
                index = next((i for i, d in enumerate(docs) if d["name"] == name), None)
                if index is not None:
                    docs.pop(index)
            cached = prompts.prompt_functions(docs, entry.category)
            self.shared.prompt_cache[key] = cached
        return cached

    def episode_tools(self) -> list[EpisodeTool]:
        """The functions shown so far: the task's, plus those a multi-turn episode added."""
        entry = self.entry
        if entry is None:
            return []
        docs = list(self._shown_functions(entry))
        if self.turns is not None:
            for turn in range(1, self.turns.turn + 1):
                added = entry.missed_function.get(str(turn))
                if added:
                    docs += self._held_out_docs(entry, added)
        return [EpisodeTool(d["name"], d["description"], json_schema(d["parameters"])) for d in docs]

    def tool_calls_action(self, calls: Sequence[ToolCall]) -> str:
        """The calls as one reply in Python syntax (what BFCL's decoder reads; BFCL scores
        parallel calls made together); JSON values are Python literals there."""
        offered = {tool.name for tool in self.episode_tools()}
        for call in calls:
            if call.name not in offered:
                raise UnknownTool(f"this episode offers no function {call.name!r}; offered: {sorted(offered)}")
        return expert.render_calls([Call(c.name, dict(c.arguments)) for c in calls])

    def _held_out_docs(self, entry: Entry, names: Sequence[str]) -> list[dict[str, Any]]:
        docs = [d for c in entry.involved_classes for d in self.catalog.class_docs(c)]
        return [dict(next(d for d in docs if d["name"] == name)) for name in names]

    @staticmethod
    def _missed_names(entry: Entry) -> list[str]:
        held_out = entry.missed_function
        return [name for turn in sorted(held_out, key=int) for name in held_out[turn]]

    def _step(self, action: str) -> StepResult:
        assert self.entry is not None
        if self.turns is None:
            return self._single_turn_step(action)
        return self._multi_turn_step(action)

    # ----------------------------------------------------------------- single turn
    def _single_turn_step(self, action: str) -> StepResult:
        entry = self.entry
        assert entry is not None
        decoded = decode_reply(action, entry.language, self.shared.decoder)
        info: dict[str, Any] = {
            "calls": [c.as_bfcl() for c in decoded.calls],
            "format": decoded.format,
        }
        if is_relevance_category(entry.category):
            made_call = decoded.has_call
            wanted = "irrelevance" not in entry.category
            valid = made_call == wanted
            info.update(valid=valid, made_call=made_call)
            text = _RELEVANCE_TEXT[(wanted, made_call)]
            return StepResult(text, float(valid), True, info=info)
        if decoded.error is not None:
            info.update(valid=False, error=[decoded.error], error_type="ast_decoder:decoder_failed")
            text = f"Incorrect: could not read function calls: {decoded.error}"
            return StepResult(text, 0.0, True, info=info)
        result = check_answer(
            entry.functions,
            decoded.calls,
            entry.answer or [],
            entry.category,
            entry.language,
            self.shared.underscore_names,
        )
        info.update(valid=result.valid, error=result.errors, error_type=result.error_type)
        text = "Correct." if result.valid else "Incorrect: " + " ".join(map(str, result.errors[:3]))
        return StepResult(text, float(result.valid), True, info=info)

    # ----------------------------------------------------------------- multi turn
    def _multi_turn_step(self, action: str) -> StepResult:
        entry, state = self.entry, self.turns
        assert entry is not None and state is not None
        decoded = decode_reply(action, entry.language, self.shared.decoder)
        if self.shared.decoder == "bfcl":  # BFCL writes the calls back as code to run them
            unwritable = next(filter(None, (execution_error(c.kwargs) for c in decoded.calls)), None)
            if unwritable is not None:
                decoded = Decoded([], decoded.format, unwritable)
        info: dict[str, Any] = {"turn": state.turn}
        if not decoded.has_call:
            attempt = decoded.error is not None and looks_like_call_attempt(action)
            if attempt:
                info["parse_error"] = decoded.error
            return self._end_turn(info, decoded.error if attempt else None)
        results = [state.world.execute(c) for c in decoded.calls]
        state.results.update(results)
        state.turn_steps += 1
        names = [c.render() for c in decoded.calls]
        info.update(turn_step=state.turn_steps, calls=names, results=results)
        if state.turn_steps > prompts.max_steps_per_turn():
            state.failures.append({"turn": state.turn, "error_type": "multi_turn:force_terminated"})
            info.update(force_quit=True, valid=False, failures=list(state.failures))
            text = (
                f"Too many steps: more than {prompts.max_steps_per_turn()} call steps in one turn. "
                "The conversation is over."
            )
            return StepResult(text, 0.0, True, info=info)
        return StepResult(prompts.tool_results_message(names, results), 0.0, False, info=info)

    def _end_turn(self, info: dict[str, Any], parse_error: str | None) -> StepResult:
        entry, state = self.entry, self.turns
        assert entry is not None and state is not None
        check = self._check_turn()
        if check is not None:
            state.failures.append(check)
        info.update(turn_ended=True, turn_valid=check is None)
        state.turn += 1
        state.turn_steps = 0
        if state.turn >= len(entry.question):
            valid = not state.failures
            info.update(valid=valid, failures=list(state.failures))
            text = "The conversation is over." + ("" if valid else _NOT_FULFILLED)
            return StepResult(text, float(valid), True, info=info)
        note = "" if parse_error is None else _UNREADABLE_NOTE.format(error=parse_error)
        added = entry.missed_function.get(str(state.turn))
        if added:
            docs = self._held_out_docs(entry, added)
            message = prompts.added_functions_message(docs)
            info["new_functions"] = docs
        else:
            message = prompts.render_messages(entry.question[state.turn])
        info["turn"] = state.turn
        return StepResult(note + message, 0.0, False, info=info)

    def _check_turn(self) -> dict[str, Any] | None:
        """BFCL's per-turn check of the turn that just ended; None when it passes."""
        entry, state = self.entry, self.turns
        assert entry is not None and state is not None
        truth = self.shared.truth.get(entry)[state.turn]
        if not truth.calls:
            return None  # nothing is expected (a held-out function or a missing parameter)
        made_call = state.turn_steps > 0
        if not made_call:
            return {"turn": state.turn, "error_type": "multi_turn:empty_turn_model_response"}
        differences = state.world.state_differences(truth.state)
        if differences:
            return {
                "turn": state.turn,
                "error_type": "multi_turn:instance_state_mismatch",
                "differences": differences,
            }
        missing = Counter(truth.results) - state.results
        if missing:
            return {
                "turn": state.turn,
                "error_type": "multi_turn:execution_response_mismatch",
                "missing": sorted(missing)[:5],
            }
        return None

    # ----------------------------------------------------------------- expert
    def expert_action(self) -> str | None:
        entry = self.entry
        if entry is None or self.done:
            return None
        if self.turns is None:
            if is_relevance_category(entry.category):
                return None if "irrelevance" not in entry.category else expert.NO_CALL_REPLY
            return expert.single_turn_answer(
                entry.functions, entry.answer or [], entry.language, self.shared.underscore_names
            )
        state = self.turns
        truth = self.shared.truth.get(entry)[state.turn]
        if not truth.calls:
            return expert.CANNOT_PROCEED_REPLY
        if state.turn_steps == 0:
            return expert.render_calls(truth.calls)
        return expert.TURN_DONE_REPLY

    def close(self) -> None:
        self.turns = None
