"""The expert: it replays the task's gold SQL, which by BIRD's measure answers the question.

Where the gold result is larger than the row cap the replay cannot win (its result is cut);
`bench/birdsql.py` lists such tasks.
"""

from __future__ import annotations

from coevo.envs.birdsql.tasks import Task


def next_action(task: Task) -> str:
    """The reply that answers `task`: its gold SQL in the fence SQLGym's prompt asks for."""
    return f"```sql\n{task.sql}\n```"
