"""How the expert carries out a request of AgentBoard's todo file through the tools.

A recognised request (data/agentboard.json: one rule per phrasing) names an operation and its
parameters: `ask` reads the account (a task's field, the tasks a filter selects, an extreme, a
comparison), `change` alters the tasks a filter selects (complete, delete, a new or shifted due
date) and then answers "done" or asks its follow-up question. Every value comes from the tools'
answers (get_projects, get_tasks, get_task_duration, get_task_description), read once each and
again after a change; the action lines taken are the plan the expert replays.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from datetime import date, timedelta
from pathlib import Path
from typing import Any

from coevo.envs.todo.toolkit import TodoToolkit
from coevo.envs.toolusage.env import tool_line

DATA = Path(__file__).parent / "data"
RULES: dict[str, Any] = json.loads((DATA / "agentboard.json").read_text(encoding="utf-8"))
_NUMBERS: dict[str, int] = RULES["numbers"]
_UNITS: dict[str, int] = RULES["day_units"]
#: Words a paraphrased task reference ("the chemistry experiment task") does not match on.
_STOPWORDS = frozenset(RULES["stopwords"])


class Unanswerable(LookupError):
    """The request names no task or project of the account, or has no single answer."""


def number(text: str) -> int:
    """A count written as digits or a word ("2", "two")."""
    text = text.strip().lower()
    if text.isdigit():
        return int(text)
    if text in _NUMBERS:
        return _NUMBERS[text]
    raise Unanswerable(f"not a number: {text!r}")


def minutes(text: str) -> int:
    """A length of time in the request ("1 hour", "90 minutes") in minutes."""
    m = re.fullmatch(r"\s*(\w+)\s*(hours?|minutes?)\s*", text, re.IGNORECASE)
    if m is None:
        raise Unanswerable(f"not a duration: {text!r}")
    return number(m.group(1)) * (60 if m.group(2).lower().startswith("hour") else 1)


def days(text: str) -> int:
    """A signed day count ("two days later" 2, "one day earlier" -1, "one week later" 7)."""
    m = re.fullmatch(r"\s*(?:to be\s+)?(\w+)\s+(days?|weeks?)\s+(later|earlier)\s*", text, re.IGNORECASE)
    if m is None:
        raise Unanswerable(f"not a shift: {text!r}")
    amount = number(m.group(1)) * _UNITS[m.group(2).lower().rstrip("s")]
    return amount if m.group(3).lower() == "later" else -amount


def _stems(text: str) -> set[str]:
    words = re.findall(r"[a-z]+", text.lower())
    return {w[:4] for w in words if w not in _STOPWORDS}


def _duration_minutes(text: str) -> tuple[int, str]:
    """'60(minute)' -> (60, 'minute')."""
    amount, _, unit = text.partition("(")
    return int(amount), unit.rstrip(")")


class Reader:
    """The expert's view of the account, each fact read through a tool once (again after a
    change); the calls it makes are the plan."""

    def __init__(self, toolkit: TodoToolkit) -> None:
        self.toolkit = toolkit
        self.lines: list[str] = []
        self._projects: list[dict[str, Any]] | None = None
        self._tasks: dict[str, list[dict[str, Any]]] = {}
        self._details: dict[tuple[str, str], Any] = {}
        self._today: date | None = None
        #: Tasks a change acted on, in order (the follow-up questions read them).
        self.changed: list[dict[str, Any]] = []

    def call(self, tool: str, **arguments: Any) -> Any:
        self.lines.append(tool_line(tool, arguments))
        return self.toolkit.call(tool, arguments)

    @property
    def today(self) -> date:
        """The user's date, asked once, and only by a request that depends on it."""
        if self._today is None:
            self._today = date.fromisoformat(self.call("get_user_current_date"))
        return self._today

    def projects(self) -> list[dict[str, Any]]:
        if self._projects is None:
            self._projects = self.call("get_projects")
        return self._projects

    def project(self, name: str) -> dict[str, Any]:
        """The project a request names: its exact name, or the name with a trailing 'project'."""
        wanted = name.strip().strip("\"'").lower()
        for candidate in (wanted, re.sub(r"\s+project$", "", wanted)):
            for project in self.projects():
                if project["name"].lower() == candidate:
                    return project
        raise Unanswerable(f"no project {name!r}")

    def tasks(self, project_name: str | None = None) -> list[dict[str, Any]]:
        """Open tasks of one project (or of all, project by project), each with its project's name."""
        chosen = [self.project(project_name)] if project_name else self.projects()
        found = []
        for project in chosen:
            if project["id"] not in self._tasks:
                self._tasks[project["id"]] = self.call("get_tasks", project_id=project["id"])
            found += [dict(task, project=project["name"]) for task in self._tasks[project["id"]]]
        return found

    def task(self, reference: str, project_name: str | None = None) -> dict[str, Any]:
        """The task a request names: by its exact content, else the one task sharing the most
        word stems with a paraphrase ("summarizing a history chapter"). Projects are read in
        order until an exact name shows."""
        wanted = reference.strip().strip("\"'").lower()
        seen: list[dict[str, Any]] = []
        chosen = [self.project(project_name)] if project_name else self.projects()
        for project in chosen:
            for task in self.tasks(project["name"]):
                if task["content"].lower() == wanted:
                    return task
                seen.append(task)
        stems = _stems(reference)
        scores = sorted(((len(stems & _stems(t["content"])), i) for i, t in enumerate(seen)), reverse=True)
        if not scores or scores[0][0] == 0 or (len(scores) > 1 and scores[1][0] == scores[0][0]):
            raise Unanswerable(f"no single task for {reference!r}")
        return seen[scores[0][1]]

    def duration(self, task: Mapping[str, Any]) -> tuple[int, str]:
        key = ("duration", task["id"])
        if key not in self._details:
            self._details[key] = self.call("get_task_duration", task_id=task["id"])["duration"]
        return _duration_minutes(self._details[key])

    def description(self, task: Mapping[str, Any]) -> str:
        key = ("description", task["id"])
        if key not in self._details:
            self._details[key] = self.call("get_task_description", task_id=task["id"])["description"]
        return str(self._details[key])

    def forget_tasks(self) -> None:
        """After a change: the next read asks the tools again."""
        self._projects = None
        self._tasks.clear()


def description_line(text: str, label: str) -> str:
    """The value of a description's `- <label>: value` line."""
    for line in text.splitlines():
        key, sep, value = line.lstrip("- ").partition(":")
        if sep and key.strip().lower() == label.lower():
            return value.strip()
    raise Unanswerable(f"no {label!r} line")


def date_value(r: Reader, text: str) -> str:
    """A date a request gives: ISO, 'tomorrow', 'today' or 'N days from today'."""
    text = text.strip().strip("\"'").lower()
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
        return text
    if text in ("today", "tomorrow"):
        return (r.today + timedelta(days=1 if text == "tomorrow" else 0)).isoformat()
    m = re.fullmatch(r"(\w+) days? from today", text)
    if m is None:
        raise Unanswerable(f"not a date: {text!r}")
    return (r.today + timedelta(days=number(m.group(1)))).isoformat()


# ----------------------------------------------------------------- reading one value of a task
def _value(r: Reader, task: Mapping[str, Any], key: str) -> Any:
    if key in ("due_date", "priority", "content", "project"):
        return task[key]
    if key == "duration":
        return r.duration(task)[0]
    if key == "description":
        return r.description(task)
    if key.startswith("line:"):
        return description_line(r.description(task), key.removeprefix("line:"))
    raise Unanswerable(f"unknown field {key!r}")


# ----------------------------------------------------------------- selecting tasks
def _keep(r: Reader, task: Mapping[str, Any], p: Mapping[str, Any]) -> bool:
    """Whether a task passes every filter the request gives (parameters named after them)."""
    if "priority_eq" in p and task["priority"] != number(p["priority_eq"]):
        return False
    if "priority_ge" in p and task["priority"] < number(p["priority_ge"]):
        return False
    if "priority_not" in p and task["priority"] == number(p["priority_not"]):
        return False
    if "due_before" in p and not task["due_date"] < date_value(r, p["due_before"]):
        return False
    if "overdue" in p and not task["due_date"] < r.today.isoformat():
        return False
    if "within_days" in p:
        last = (r.today + timedelta(days=number(p["within_days"]))).isoformat()
        if not r.today.isoformat() <= task["due_date"] <= last:
            return False
    if "due_before_task" in p:
        if not task["due_date"] < r.task(p["due_before_task"], p.get("ref_project"))["due_date"]:
            return False
    if "same_as" in p:
        other = r.task(p["same_as"], p.get("ref_project"))
        if task["id"] == other["id"] or _value(r, task, p["key"]) != _value(r, other, p["key"]):
            return False
    if "mentions" in p and p["mentions"].lower() not in r.description(task).lower():
        return False
    if "place" in p and description_line(r.description(task), "Place") != p["place"]:
        return False
    if "duration_gt" in p and not r.duration(task)[0] > minutes(p["duration_gt"]):
        return False
    if "duration_lt" in p and not r.duration(task)[0] < minutes(p["duration_lt"]):
        return False
    return True


def _scope(r: Reader, p: Mapping[str, Any]) -> str | None:
    """The project whose tasks a request reads (None: all). A rule marked `within:
    reference_project` reads, where the request names no project, the project of the task it
    compares against: the file answers every "before task X" question within X's project, also
    where it says "in the Todoist account" (docs/todo.md)."""
    if "project" in p:
        return str(p["project"])
    if p.get("within") == "reference_project":
        return str(r.task(p["due_before_task"], p.get("ref_project"))["project"])
    return None


def select(r: Reader, p: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The open tasks of the request's project (or all) that pass the filters, in account
    order; a yes/no question stops reading at the first one found."""
    found = []
    for task in r.tasks(_scope(r, p)):
        if _keep(r, task, p):
            found.append(task)
            if p.get("as") == "yes_no":
                break
    return found


def _answer(r: Reader, tasks: list[dict[str, Any]], how: str) -> Any:
    if how == "list":
        return sorted(t["content"] for t in tasks)
    if how == "count":
        return len(tasks)
    if how == "yes_no":
        return "Yes" if tasks else "No"
    if how == "by_priority":  # highest first (`finish` sorts a list, so the order is not scored)
        return [t["content"] for t in sorted(tasks, key=lambda t: -int(t["priority"]))]
    if how == "due_dates":
        return sorted(t["due_date"] for t in tasks)
    if how in ("minutes", "duration"):
        spans = [r.duration(t) for t in tasks]
        total = sum(amount for amount, _ in spans)
        unit = spans[-1][1] if spans else "minute"
        return total if how == "minutes" else f"{total}({unit})"
    if how == "name":
        if len(tasks) != 1:
            raise Unanswerable(f"{len(tasks)} tasks where one is asked")
        return tasks[0]["content"]
    raise Unanswerable(f"unknown answer form {how!r}")


# ----------------------------------------------------------------- questions
def ask_field(r: Reader, p: Mapping[str, Any]) -> Any:
    """One field of one task (its due date, priority, duration, description, project, a line
    of its description, or its status in the file's sentence)."""
    task = r.task(p["task"], p.get("project"))
    if p["field"] == "duration":
        amount, unit = r.duration(task)
        return f"{amount}({unit})"
    if p["field"] == "status":
        return str(RULES["status"][str(task["is_completed"]).lower()]).format(task=task["content"])
    return _value(r, task, p["field"])


def ask_select(r: Reader, p: Mapping[str, Any]) -> Any:
    """The tasks the filters select, answered as a list, count, yes/no, their due dates or
    their total duration."""
    return _answer(r, select(r, p), p["as"])


def ask_named(r: Reader, p: Mapping[str, Any]) -> Any:
    """The tasks the request names one by one (task, task2), answered as ask_select does."""
    tasks = [r.task(p[key], p.get("project")) for key in ("task", "task2") if key in p]
    return _answer(r, tasks, p["as"])


def ask_extreme(r: Reader, p: Mapping[str, Any]) -> Any:
    """The selected tasks with the highest (or lowest) value of a key, ties included; 'name'
    asks for the one such task."""
    tasks = select(r, p)
    if not tasks:
        raise Unanswerable("no task to compare")
    values = [_value(r, t, p["key"]) for t in tasks]
    best = max(values) if p["most"] == "max" else min(values)
    return _answer(r, [t for t, v in zip(tasks, values) if v == best], p["as"])


def ask_which_of(r: Reader, p: Mapping[str, Any]) -> Any:
    """Of two named tasks, the one with the higher (lower) key: answered in the request's own
    words, or as a one-item list."""
    options = [(p["task"], r.task(p["task"])), (p["task2"], r.task(p["task2"]))]
    values = [_value(r, task, p["key"]) for _, task in options]
    if values[0] == values[1]:
        raise Unanswerable("the two tasks are equal")
    pick = values.index(max(values) if p["most"] == "max" else min(values))
    words, task = options[pick]
    if p["as"] == "list":
        return [task["content"]]
    return words.strip().strip("\"'") if p["as"] == "words" else task["content"]


def ask_same(r: Reader, p: Mapping[str, Any]) -> Any:
    """Whether two named tasks share a value (e.g. the Place of their descriptions)."""
    first, second = r.task(p["task"]), r.task(p["task2"])
    return "Yes" if _value(r, first, p["key"]) == _value(r, second, p["key"]) else "No"


def ask_projects(r: Reader, p: Mapping[str, Any]) -> Any:
    """Account-wide project questions: how many, the favourite, the one with most tasks, the
    one holding the highest-priority task."""
    projects = r.projects()
    if p["what"] == "count":
        return len(projects)
    if p["what"] == "favorite":
        favourites = [project["name"] for project in projects if project["is_favorite"]]
        return ", ".join(favourites) if favourites else "None"
    tasks = r.tasks()
    if p["what"] == "most_tasks":
        counts = {project["name"]: sum(t["project"] == project["name"] for t in tasks) for project in projects}
        top = max(counts.values())
        winners = [name for name, count in counts.items() if count == top]
    else:  # most_urgent: the first project holding a task of the top priority
        top = max(t["priority"] for t in tasks)
        winners = [next(t["project"] for t in tasks if t["priority"] == top)]
    if len(winners) != 1:
        raise Unanswerable("several projects tie")
    return winners[0]


def ask_changed(r: Reader, p: Mapping[str, Any]) -> Any:
    """A follow-up about the tasks the change acted on (their names, or how many)."""
    return _answer(r, r.changed, p["as"])


ASKS: dict[str, Callable[[Reader, Mapping[str, Any]], Any]] = {
    "field": ask_field,
    "select": ask_select,
    "named": ask_named,
    "extreme": ask_extreme,
    "which_of": ask_which_of,
    "same": ask_same,
    "projects": ask_projects,
    "changed": ask_changed,
}


# ----------------------------------------------------------------- changes
def change(r: Reader, p: Mapping[str, Any]) -> None:
    """Apply the request's change to the named task, or to the tasks the filters select, or to
    the project (favourite); the next read asks the tools again."""
    action = p["action"]
    if action == "favorite":
        project = r.project(p["project"]) if "project" in p else r.project(r.task(p["task"])["project"])
        r.call("update_project", project_id=project["id"], is_favorite="True")
        r.forget_tasks()
        return
    targets = [r.task(p["task"], p.get("project"))] if "task" in p else select(r, p)
    for task in targets:
        if action == "complete":
            r.call("complete_task", task_id=task["id"])
        elif action == "delete":
            r.call("delete_task", task_id=task["id"])
        else:
            r.call("update_task", task_id=task["id"], due_date=_new_due(r, task, p))
        r.changed.append(task)
    r.forget_tasks()


def _new_due(r: Reader, task: Mapping[str, Any], p: Mapping[str, Any]) -> str:
    if p["action"] == "shift":
        return (date.fromisoformat(task["due_date"]) + timedelta(days=days(p["shift"]))).isoformat()
    return date_value(r, p["date"])


def carry_out(toolkit: TodoToolkit, rule: Mapping[str, Any], params: Mapping[str, Any]) -> tuple[Any, list[str]]:
    """(answer, action lines ending with finish) for a recognised request: its change if any,
    then its question (a change alone answers "done")."""
    r = Reader(toolkit)
    merged = {**{k: v for k, v in rule.items() if k not in ("kind", "pattern", "then")}, **params}
    if merged["op"] == "change":
        change(r, {k: v for k, v in merged.items() if not k.startswith("then_")})
        then = rule.get("then")
        if then is None:
            answer: Any = "done"
        else:
            asked = {**then, **{k.removeprefix("then_"): v for k, v in params.items() if k.startswith("then_")}}
            answer = ASKS[asked["op"]](r, asked)
    else:
        answer = ASKS[merged["op"]](r, merged)
    r.lines.append(tool_line("finish", {"answer": answer}))
    return answer, r.lines
