"""What the agent reads: BFCL's default prompting-mode conversation.

BFCL puts the function docs (with a language hint, and for Java/JavaScript with every parameter
re-declared as a string) into its default system prompt, sends the entry's messages, returns
tool results as one user message holding `repr([{"role": "tool", "name": call, "content":
result}, ...])`, and announces held-out functions (miss_func) with a user message. The template
text comes from the installed package's `bfcl_eval.constants.default_prompts`, which is plain
constants.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from coevo.envs.bfcl.tasks import Language, language_of

_LANGUAGE_HINT = {
    Language.PYTHON: " Note that the provided function is in Python 3 syntax.",
    Language.JAVA: " Note that the provided function is in Java 8 SDK syntax.",
    Language.JAVASCRIPT: " Note that the provided function is in JavaScript syntax.",
}
_LANGUAGE_NAME = {Language.JAVA: "Java", Language.JAVASCRIPT: "JavaScript"}
_SOURCE_LIST_TYPES = {Language.JAVA: ("ArrayList", "Array"), Language.JAVASCRIPT: ("array",)}


@lru_cache(maxsize=1)
def _templates() -> Any:
    from bfcl_eval.constants import default_prompts

    return default_prompts


def max_steps_per_turn() -> int:
    """BFCL's MAXIMUM_STEP_LIMIT: a turn whose step count exceeds it force-quits the entry."""
    return int(_templates().MAXIMUM_STEP_LIMIT)


def prompt_functions(
    functions: Sequence[dict[str, Any]], category: str, underscore_names: bool = False
) -> list[dict[str, Any]]:
    """The docs as BFCL shows them at inference: language hint appended to each description,
    Java/JavaScript parameters declared as strings of source text."""
    language = language_of(category)
    shown = copy.deepcopy(list(functions))
    for doc in shown:
        doc["description"] = doc["description"] + _LANGUAGE_HINT[language]
        if underscore_names:
            doc["name"] = doc["name"].replace(".", "_")
        if language is Language.PYTHON:
            continue
        lang = _LANGUAGE_NAME[language]
        for spec in doc["parameters"]["properties"].values():
            if spec["type"] == "any":
                spec["description"] += f" This parameter can be of any type of {lang} object in string representation."
            else:
                spec["description"] += f" This is {lang} {spec['type']} type parameter in string representation."
            if spec["type"] in _SOURCE_LIST_TYPES[language]:
                spec["description"] += (
                    f" The list elements are of type {spec['items']['type']}; they are not in string representation."
                )
                del spec["items"]
            if language is Language.JAVASCRIPT and spec["type"] == "dict" and "properties" in spec:
                spec["description"] += (
                    " The dictionary entries have the following schema; they are not in string "
                    f"representation. {json.dumps(spec['properties'])}"
                )
                del spec["properties"]
            spec["type"] = "string"
    return shown


def system_prompt(functions: Sequence[dict[str, Any]]) -> str:
    """BFCL's default system prompt (python return format, JSON docs, plaintext, classic)."""
    t = _templates()
    style = t.PROMPT_STYLE_TEMPLATES["classic"]
    tool_call_format = style["tool_call_no_tag"].format(
        output_format=t.OUTPUT_FORMAT_MAPPING["python"], param_types=t.PARAM_TYPE_MAPPING["python"]
    )
    available = style["available_tools"].format(format="json", functions=json.dumps(list(functions), indent=4))
    return t.PROMPT_TEMPLATE_MAPPING["plaintext"].format(
        persona=style["persona"],
        task=style["task"],
        tool_call_format=tool_call_format,
        multiturn_behavior=style["multiturn_behavior"],
        available_tools=available,
    )


def opening_messages(first_turn: Sequence[dict[str, str]], functions: Sequence[dict[str, Any]]) -> list[dict[str, str]]:
    """The first turn's messages with the system prompt in front (merged into an entry's own
    system message, as BFCL does)."""
    messages = [dict(m) for m in first_turn]
    prompt = system_prompt(functions)
    if messages and messages[0]["role"] == "system":
        messages[0]["content"] = prompt + "\n\n" + messages[0]["content"]
    else:
        messages.insert(0, {"role": "system", "content": prompt})
    return messages


def render_messages(messages: Sequence[dict[str, str]]) -> str:
    """A plain-text rendering of chat messages for agents that read one string."""
    if len(messages) == 1 and messages[0]["role"] == "user":
        return messages[0]["content"]
    return "\n\n".join(f"[{m['role']}]\n{m['content']}" for m in messages)


def added_functions_message(docs: Sequence[dict[str, Any]]) -> str:
    """miss_func: the user message that hands over the held-out functions."""
    return _templates().DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING.format(functions=list(docs))


def tool_results_message(call_names: Sequence[str], results: Sequence[str]) -> str:
    """The user message carrying one step's execution results."""
    return repr([{"role": "tool", "name": name, "content": content} for name, content in zip(call_names, results)])
