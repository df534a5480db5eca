"""TravelPlanner as an Env: tool calls against the shared sandbox, then one scored plan.

Two modes (option `mode`):
- "two-stage" (default): the agent calls FlightSearch / GoogleDistanceMatrix /
  AccommodationSearch / RestaurantSearch / AttractionSearch / CitySearch / NotebookWrite, each
  answered with the official tool output, and ends the episode with Planner[<plan>];
- "sole-planning": the first observation holds the reference information and the agent's
  first readable plan ends the episode.
The reward is the official final pass (1 when every commonsense check and hard constraint
passes, else 0); the step that scores a plan puts every check in info["evaluation"].
A session keeps only its notebook as (description, tool call) pairs: contents are re-derived
from the shared sandbox when needed, so thousands of sessions stay small.
"""

from __future__ import annotations

import json
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from coevo.envs.base import Env, EpisodeTool, ResetResult, StepResult, ToolCall, UnknownTool
from coevo.envs.travelplanner import tool_schema
from coevo.envs.travelplanner.database import Sandbox, open_sandbox
from coevo.envs.travelplanner.plans import PlanFormatError, parse_plan, render_text
from coevo.envs.travelplanner.prompts import SOLE_PLANNING, TWO_STAGE
from coevo.envs.travelplanner.reference import reference_information
from coevo.envs.travelplanner.scoring import PlanEvaluation, evaluate_plan
from coevo.envs.travelplanner.tasks import Task, TaskStore, parse_split_sizes
from coevo.envs.travelplanner.tools import INVALID_ACTION, NULL_ACTION, SEARCH_TOOLS, ToolResult, notebook_message

MODES = ("two-stage", "sole-planning")
_ACTION = re.compile(r"^(\w+)\[(.*)\]$", re.DOTALL)
_ACTION_LABEL = re.compile(r"^\s*Action\s*\d*\s*:\s*", re.IGNORECASE)


@dataclass
class TravelPlannerShared:
    """Per-process data every session reads: the sandbox, the tasks, cached tool answers."""

    db: Sandbox
    tasks: TaskStore
    mode: str
    expert_plan_format: str
    _tool_cache: OrderedDict[tuple[str, str], ToolResult]
    _reference_cache: OrderedDict[str, str]
    _lock: threading.Lock

    TOOL_CACHE_SIZE = 20_000
    REFERENCE_CACHE_SIZE = 256

    def run_tool(self, tool: str, argument: str) -> ToolResult:
        key = (tool, argument)
        with self._lock:
            hit = self._tool_cache.get(key)
            if hit is not None:
                self._tool_cache.move_to_end(key)
                return hit
        result = SEARCH_TOOLS[tool](self.db, argument)
        with self._lock:
            self._tool_cache[key] = result
            if len(self._tool_cache) > self.TOOL_CACHE_SIZE:
                self._tool_cache.popitem(last=False)
        return result

    def reference(self, task: Task) -> str:
        with self._lock:
            hit = self._reference_cache.get(task.task_id)
        if hit is not None:
            return hit
        text = reference_information(task.query, task.itinerary, self.db)
        with self._lock:
            self._reference_cache[task.task_id] = text
            if len(self._reference_cache) > self.REFERENCE_CACHE_SIZE:
                self._reference_cache.popitem(last=False)
        return text


def _looks_like_plan(text: str) -> bool:
    head = text.lstrip()
    return head[:1] in ("[", "{") or head.startswith("```") or bool(re.match(r"\**\s*Day\s+1\b", head, re.IGNORECASE))


class TravelPlannerEnv(Env):
    name = "travelplanner"
    version = "1"
    action_format = (
        "FlightSearch[Departure City, Destination City, YYYY-MM-DD] | GoogleDistanceMatrix[Origin, Destination, "
        "self-driving|taxi] | AccommodationSearch[City] | RestaurantSearch[City] | AttractionSearch[City] | "
        "CitySearch[State] | NotebookWrite[Short Description] | Planner[<plan: JSON list of days or 'Day 1:' text>]"
    )
    #: The official ReAct agent's step limit.
    max_steps = 30
    default_split = "train"
    action_example = (
        "I need flights first, so I search them for the travel dates.",
        "FlightSearch[New York, London, 2022-03-16]",
    )
    heldout_splits = ("validation",)
    cpu_heavy = True

    # ----------------------------------------------------------------- shared data
    @classmethod
    def load_shared(
        cls,
        *,
        mode: str = "two-stage",
        seed: int | str = 0,
        split_sizes: Mapping[str, Any] | str | None = None,
        queries: str | None = None,
        database_dir: str | None = None,
        db_url: str | None = None,
        expert_plan_format: str = "json",
        **_: Any,
    ) -> TravelPlannerShared:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {MODES}, got {mode!r}")
        if expert_plan_format not in ("json", "text"):
            raise ValueError("expert_plan_format must be 'json' or 'text'")
        db = open_sandbox(seed=int(seed), database_dir=database_dir, db_url=db_url)
        tasks = TaskStore(db, seed=int(seed), split_sizes=parse_split_sizes(split_sizes), queries=queries)
        return TravelPlannerShared(db, tasks, mode, expert_plan_format, OrderedDict(), OrderedDict(), threading.Lock())

    # ----------------------------------------------------------------- catalogue
    def splits(self) -> Mapping[str, int]:
        return self.shared.tasks.sizes

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        return self.shared.tasks.ids(split, offset, limit)

    def split_of(self, task_id: str) -> str:
        return self.shared.tasks.locate(task_id)[0]

    def describe_task(self, task_id: str) -> dict[str, Any]:
        return self.shared.tasks.describe(task_id)

    # ----------------------------------------------------------------- episode
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        self.task: Task = self.shared.tasks.get(task_id)
        self.notebook: list[tuple[str, tuple[str, str] | None]] = []
        self.current: tuple[str, str] | None = None
        query = self.task.query
        if self.shared.mode == "two-stage":
            observation = TWO_STAGE.format(query=query.query)
        else:
            observation = SOLE_PLANNING.format(information=self.shared.reference(self.task), query=query.query)
        return ResetResult(
            observation,
            {"task": query.query, "query": query.public_dict(), "mode": self.shared.mode},
        )

    def episode_tools(self) -> list[EpisodeTool]:
        return tool_schema.tools(self.shared.mode) if self.task_id is not None else []

    def tool_calls_action(self, calls: Sequence[ToolCall]) -> str:
        """`Tool[arguments]`, one per step, as the ReAct agent writes it."""
        if len(calls) != 1:
            raise UnknownTool(f"TravelPlanner takes one tool call per step, not {len(calls)}")
        return tool_schema.action(self.shared.mode, calls[0].name, calls[0].arguments)

    def _step(self, action: str) -> StepResult:
        text = _ACTION_LABEL.sub("", action.strip(), count=1).strip()
        if not text:
            return StepResult(NULL_ACTION, 0.0, False, info={"valid": False})
        match = _ACTION.match(text)
        if self.shared.mode == "sole-planning":
            plan_text = match.group(2) if match and match.group(1) == "Planner" else text
            return self._submit(plan_text)
        if match is None:
            if _looks_like_plan(text):
                return self._submit(text)
            return StepResult(INVALID_ACTION, 0.0, False, info={"valid": False})
        tool, argument = match.group(1), match.group(2)
        if tool == "Planner":
            return self._submit(argument)
        if tool == "NotebookWrite":
            description = argument.replace("\n", "")
            self.notebook.append((description, self.current))
            return StepResult(notebook_message(len(self.notebook) - 1), 0.0, False, info={"valid": True, "tool": tool})
        if tool not in SEARCH_TOOLS:
            return StepResult(INVALID_ACTION, 0.0, False, info={"valid": False})
        argument = argument.replace("\n", "")
        result = self.shared.run_tool(tool, argument)
        if result.data is not None:
            self.current = (tool, argument)
        return StepResult(result.observation, 0.0, False, info={"valid": result.ok, "tool": tool})

    def _submit(self, plan_text: str) -> StepResult:
        try:
            plan = parse_plan(plan_text)
        except PlanFormatError as exc:
            return StepResult(
                f"The plan could not be read: {exc}. Submit Planner[...] with a JSON list of day records "
                "or the 'Day 1:' text form.",
                0.0,
                False,
                info={"valid": False},
            )
        evaluation = evaluate_plan(self.task.query, plan, self.shared.db)
        return StepResult(
            _summary(evaluation),
            1.0 if evaluation.final_pass else 0.0,
            True,
            info={"valid": True, "evaluation": evaluation.to_dict(), "plan": plan},
        )

    def notebook_contents(self) -> list[dict[str, Any]]:
        """The notebook as the official Planner tool reads it (index, description, content)."""
        entries = []
        for index, (description, source) in enumerate(self.notebook):
            content = None if source is None else self.shared.run_tool(*source).data
            entries.append({"index": index, "Short Description": description, "Content": content})
        return entries

    # ----------------------------------------------------------------- expert
    def expert_action(self) -> str | None:
        if self.task_id is None or self.done or self.task.itinerary is None:
            return None
        plan = self.task.itinerary.plan()
        plan_text = (
            json.dumps(plan, ensure_ascii=False) if self.shared.expert_plan_format == "json" else render_text(plan)
        )
        if self.shared.mode == "sole-planning":
            return plan_text
        script = expert_script(self.task)
        done = _matched_prefix(script, self.actions)
        # Always leave room to submit before the step limit.
        if done < len(script) and self.max_steps - self.steps > len(script) - done:
            return script[done]
        return f"Planner[{plan_text}]"


def expert_script(task: Task) -> list[str]:
    """The searches the expert makes (each followed by NotebookWrite) before it submits."""
    itinerary = task.itinerary
    assert itinerary is not None
    script: list[str] = []
    if len(itinerary.cities) > 1 or task.query.days > 3:
        script.append(f"CitySearch[{task.query.dest}]")
    for leg in itinerary.legs:
        if leg.mode == "flight":
            script += [
                f"FlightSearch[{leg.origin}, {leg.destination}, {leg.date}]",
                f"NotebookWrite[Flights from {leg.origin} to {leg.destination} on {leg.date}]",
            ]
        else:
            label = "Self-driving" if leg.mode == "self-driving" else "Taxi"
            script += [
                f"GoogleDistanceMatrix[{leg.origin}, {leg.destination}, {leg.mode}]",
                f"NotebookWrite[{label} from {leg.origin} to {leg.destination}]",
            ]
    for city in itinerary.cities:
        script += [
            f"AccommodationSearch[{city}]",
            f"NotebookWrite[Accommodations in {city}]",
            f"RestaurantSearch[{city}]",
            f"NotebookWrite[Restaurants in {city}]",
            f"AttractionSearch[{city}]",
            f"NotebookWrite[Attractions in {city}]",
        ]
    return script


def _matched_prefix(script: Sequence[str], actions: Sequence[str]) -> int:
    """How much of the script the episode's actions have covered, in order."""
    done = 0
    for action in actions:
        if done < len(script) and action.strip() == script[done]:
            done += 1
    return done


def _summary(evaluation: PlanEvaluation) -> str:
    lines = ["Plan received and evaluated."]
    data = evaluation.to_dict()
    for part in ("commonsense", "hard"):
        checks = data[part]
        if checks is None:
            lines.append(f"{part.capitalize()} constraints: not evaluated.")
            continue
        failed = [f"{c['name']} ({c['message']})" for c in checks.values() if c["passed"] is False]
        lines.append(
            f"{part.capitalize()} constraints: "
            + ("all passed." if not failed else "failed " + "; ".join(failed) + ".")
        )
    lines.append(f"Final pass: {'yes' if evaluation.final_pass else 'no'}.")
    return "\n".join(lines)
