"""BIRD-SQL env: answer a question about a SQLite database with one SQL query.

An episode is one BIRD question. The observation shows the database's schema, the question and
its evidence hint (BIRD's external knowledge); the action is one SQL statement (a reply's
```sql fence is read as SQLGym's client reads it, envs/birdsql/actions.py). The statement runs
read-only on the real database file with a time limit and a row cap (envs/birdsql/sandbox.py);
the result is shown and scored by BIRD's execution accuracy (envs/birdsql/scoring.py), and the
episode ends, as in SQLGym. Sessions of the AgentGym routes get SQLGym's observation and state
text (envs/birdsql/agentgym.py).

Options: `data_dir` (a BIRD copy: `dev.json`, `dev_tables.json`, `dev_databases/`, or `train/` and
`dev/` folders; default: the generated set, built at first use), `seed` (of the generated set),
`time_limit` (seconds a statement may run, 5), `row_cap` (rows kept of a result, 10,000).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
import threading
from pathlib import Path
from typing import Any

from coevo.envs.base import EpisodeTool, Env, ResetResult, StepResult, ToolCall, UnknownTask, UnknownTool
from coevo.envs.birdsql import agentgym, expert
from coevo.envs.birdsql.actions import extract_sql
from coevo.envs.birdsql.generator import build_generated
from coevo.envs.birdsql.sandbox import QueryResult, run_readonly
from coevo.envs.birdsql.scoring import execution_accuracy
from coevo.envs.birdsql.tasks import Database, Task, load
from coevo.wire import AgentPrompt

#: Characters of a result the native observation shows (SQLGym's AgentGym server shows 100).
NATIVE_RESULT_CHARS = 2000

PROMPT = (
    "Database {db_id} (SQLite), its tables:\n\n{schema}\n\n"
    "Question: {question}\nEvidence: {evidence}\n\n"
    "Answer with one SQLite SELECT statement that returns exactly what the question asks for."
)
SQL_TOOL = EpisodeTool(
    name="execute_sql",
    description="Run one read-only SQLite statement as the answer to the question; its result is scored.",
    parameters={
        "type": "object",
        "properties": {"sql": {"type": "string", "description": "one SQLite SELECT statement"}},
        "required": ["sql"],
    },
)


@dataclass(frozen=True)
class Shared:
    tasks: dict[str, list[Task]]
    by_id: dict[str, Task]
    databases: dict[tuple[str, str], Database]
    time_limit: float
    row_cap: int

    def database(self, task: Task) -> Database:
        return self.databases[(task.split, task.db_id)]


#: Gold results kept per process (small ones only: a BIRD gold result may be thousands of rows).
GOLD_CACHE_SIZE = 4096
GOLD_CACHE_ROWS = 1000
_gold_cache: dict[tuple[Path, str], QueryResult] = {}
_gold_lock = threading.Lock()  # steps run on the server's env thread pool


def gold_time_limit(time_limit: float) -> float:
    """A gold query's time limit: at least BIRD's evaluation's 30 s, so a slow gold SQL on
    BIRD's large databases is not mistaken for an unanswerable question."""
    return max(time_limit, 30.0)


def gold_result(path: Path, sql: str, time_limit: float, row_cap: int) -> QueryResult:
    """A gold query's result, run once per process where it is small (every episode of a task
    compares with it)."""
    key = (path, sql)
    with _gold_lock:
        found = _gold_cache.get(key)
    if found is None:
        found = run_readonly(path, sql, time_limit=gold_time_limit(time_limit), row_cap=row_cap)
        if len(found.rows) <= GOLD_CACHE_ROWS:
            with _gold_lock:
                if len(_gold_cache) >= GOLD_CACHE_SIZE:
                    _gold_cache.pop(next(iter(_gold_cache)))
                _gold_cache[key] = found
    return found


def result_text(result: QueryResult) -> str:
    """A result as SQLGym shows it: the rows' Python repr, or the error text."""
    return repr(result.rows) if result.ok else str(result.error)


class BirdSqlEnv(Env):
    name = "birdsql"
    version = "1"
    action_format = "one SQLite SELECT statement, optionally in a ```sql fence"
    action_example = (
        "Students are in the student table; the department name needs a join on dept_id.",
        "```sql\nSELECT COUNT(T1.student_id) FROM student AS T1 INNER JOIN department AS T2 "
        "ON T1.dept_id = T2.dept_id WHERE T2.name = 'Physics'\n```",
    )
    max_steps = 1
    default_split = "train"
    heldout_splits = ("dev",)
    cpu_heavy = True
    agent_prompt = AgentPrompt.from_file(Path(__file__).parent / "data" / "agent_prompt.json")
    agentgym_profile = agentgym.PROFILE

    @classmethod
    def load_shared(
        cls,
        data_dir: str | None = None,
        seed: int | str = 0,
        time_limit: float | str = 5.0,
        row_cap: int | str = 10_000,
        **_: Any,
    ) -> Shared:
        path = Path(data_dir) if data_dir else build_generated(int(seed))
        tasks, databases = load(path)
        if float(time_limit) <= 0 or int(row_cap) < 1:
            raise ValueError("time_limit must be positive and row_cap at least 1")
        by_id = {t.task_id: t for split in tasks.values() for t in split}
        return Shared(tasks, by_id, databases, float(time_limit), int(row_cap))

    def __init__(self, shared: Shared | None = None, **options: Any) -> None:
        super().__init__(shared, **options)
        self.task: Task | None = None
        self.prompt = ""

    # --------------------------------------------------------------- catalogue
    def splits(self) -> Mapping[str, int]:
        return {split: len(tasks) for split, tasks in self.shared.tasks.items()}

    def task_ids(self, split: str, offset: int = 0, limit: int | None = None) -> Sequence[str]:
        tasks = self.shared.tasks.get(split, [])
        stop = len(tasks) if limit is None else offset + limit
        return [t.task_id for t in tasks[offset:stop]]

    def split_of(self, task_id: str) -> str:
        try:
            return self.shared.by_id[task_id].split
        except KeyError:
            raise UnknownTask(f"unknown task id {task_id!r}") from None

    def describe_task(self, task_id: str) -> dict[str, Any]:
        task = self.shared.by_id[task_id]
        return {"task_type": task.kind, "db_id": task.db_id, "difficulty": task.difficulty, "question": task.question}

    # --------------------------------------------------------------- episode
    def _reset(self, task_id: str, seed: int) -> ResetResult:
        task = self.task = self.shared.by_id[task_id]
        db = self.shared.database(task)
        if self.agentgym:
            self.prompt = agentgym.observation(db.description, task.question)
        else:
            self.prompt = PROMPT.format(
                db_id=db.db_id, schema=db.create_sql, question=task.question, evidence=task.evidence or "none"
            )
        info = {"task": task.question, "task_type": task.kind, "db_id": task.db_id, "evidence": task.evidence}
        return ResetResult(self.prompt, info)

    def _step(self, action: str) -> StepResult:
        assert self.task is not None
        sql = action.strip() if self.agentgym else extract_sql(action)
        shared = self.shared
        path = shared.database(self.task).path
        predicted = run_readonly(path, sql, time_limit=shared.time_limit, row_cap=shared.row_cap)
        gold = gold_result(path, self.task.sql, shared.time_limit, shared.row_cap)
        reward = execution_accuracy(predicted, gold)
        text = result_text(predicted)
        if self.agentgym:
            observation = agentgym.state_text(text)
        else:
            observation = text if len(text) <= NATIVE_RESULT_CHARS else text[:NATIVE_RESULT_CHARS] + "..."
            if predicted.truncated:
                observation += f"\n(more than {shared.row_cap} rows; only the first {shared.row_cap} were kept)"
        info: dict[str, Any] = {
            "ground_truth": self.task.sql,
            "sql": sql,
            "success": reward == 1.0,
            "rows": len(predicted.rows),
            "truncated": predicted.truncated,
            "refused": predicted.refused,
            "timed_out": predicted.timed_out,
            "error": predicted.error,
        }
        return StepResult(observation, reward, True, info=info)

    # --------------------------------------------------------------- tools and expert
    def episode_tools(self) -> list[EpisodeTool]:
        return [SQL_TOOL] if self.task is not None else []

    def tool_calls_action(self, calls: Sequence[ToolCall]) -> str:
        if len(calls) != 1 or calls[0].name != SQL_TOOL.name:
            names = ", ".join(c.name for c in calls) or "none"
            raise UnknownTool(f"BIRD-SQL takes one {SQL_TOOL.name} call per step, not: {names}")
        sql = calls[0].arguments.get("sql")
        if not isinstance(sql, str):
            raise UnknownTool(f"{SQL_TOOL.name} needs a string argument `sql`")
        return sql

    def expert_action(self) -> str | None:
        if self.task is None or self.done:
            return None
        return expert.next_action(self.task)
