"""The expert: a task's gold answer written as the agent should write it (the env's
expert_action, the LLM policy's worked examples, and the validity gate, which refuses a task
whose own gold answer does not score 1)."""

from __future__ import annotations

import json
from typing import Any

from coevo.simulator.task_record import SimTask


def render_value(value: Any) -> str:
    """A literal as Python source (what an agent should write inside a call)."""
    if isinstance(value, str):
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, list):
        return "[" + ", ".join(render_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{render_value(k)}: {render_value(v)}" for k, v in value.items()) + "}"
    return repr(value)


def render_call(call: dict[str, Any]) -> str:
    args = ", ".join(f"{k}={render_value(v)}" for k, v in call["arguments"].items())
    return f"{call['name']}({args})"


def gold_answer_text(task: SimTask) -> str:
    """The answer an expert gives: the gold call(s) as Python syntax, or the first reference."""
    if task.checker == "tool_call":
        calls = [render_call(c) for c in task.answer]
        return calls[0] if len(calls) == 1 else "[" + ", ".join(calls) + "]"
    return str(task.answer[0])
