"""`coevo play ENV`: a person plays one episode in the terminal, through the real HTTP path."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import typer
from rich.console import Console
from rich.panel import Panel

from coevo.cli import app

HELP = (
    "Type an action and press Enter. Commands: ':expert' shows the expert's next action, "
    "':auto' lets the expert finish the episode, ':actions' lists available actions, "
    "':reset' starts over, ':quit' leaves (so does end of input, Ctrl-D)."
)


@contextlib.contextmanager
def _server(env: str, url: str | None, options: list[str]) -> Iterator[str]:
    if url:
        yield url
        return
    from coevo.client.launcher import ServerSpec, launch_local

    opts = dict(o.split("=", 1) for o in options)
    with launch_local([ServerSpec(env, opts)]) as urls:
        yield urls[env]


@app.command("play")
def play(
    env: str = typer.Argument(..., help="Env name (see `coevo envs`)"),
    task_id: str = typer.Option(None, "--task", help="Task id; default: picked from --seed"),
    split: str = typer.Option(None, help="Split to pick the task from"),
    seed: int = typer.Option(None, help="Seed: the same seed plays the same episode"),
    url: str = typer.Option(None, help="Play against a running server instead of starting one"),
    option: list[str] = typer.Option([], "--option", help="Env option key=value for the local server"),
    expert: bool = typer.Option(False, "--expert", help="Let the expert play the whole episode"),
    list_tasks: bool = typer.Option(
        False, "--list", help="List the split's tasks (ids to pass to --task) instead of playing"
    ),
    limit: int = typer.Option(20, help="With --list: how many tasks to show"),
) -> None:
    """Play one episode of ENV in the terminal (starts a local server unless --url is given).

    Without --task or --seed the task is picked by a random seed, printed so that --seed replays
    it; `--list` shows the task ids of a split."""
    import random

    from coevo.client import EnvClient

    console = Console()
    with _server(env, url, option) as base, EnvClient(base) as client:
        info = client.info()
        if list_tasks:
            _list(console, client, split or info.default_split, limit, env)
            return
        console.print(Panel(f"{info.env} v{info.env_version} — action format: {info.action_format}\n{HELP}"))
        if task_id is None and seed is None:
            seed = random.randrange(1_000_000)
        session = client.create(task_id=task_id, split=split, seed=seed)
        with session:
            _play(console, session, auto=expert, seed=None if task_id else seed, env=env)


def _list(console: Console, client, split: str, limit: int, env: str) -> None:  # type: ignore[no-untyped-def]
    """The first `limit` task ids of `split`, with what each task's metadata says about it."""
    page = client.tasks(split=split, limit=limit)
    splits = ", ".join(f"{k} ({v})" for k, v in client.info().splits.items())
    console.print(f"split {page.split}: {page.total} tasks; first {len(page.tasks)} (splits: {splits})")
    for task in page.tasks:
        meta = ", ".join(f"{k}={v}" for k, v in task.meta.items() if isinstance(v, str | int | float))
        console.print(
            f"  {task.task_id}" + (f"  [dim]{meta[:100]}[/dim]" if meta else ""), highlight=False, soft_wrap=True
        )
    console.print(f"play one with: coevo play {env} --task ID  (--split S --list: another split)", highlight=False)


def _play(console: Console, session, auto: bool, seed: int | None, env: str) -> None:  # type: ignore[no-untyped-def]
    task, split = session.info.get("task_id"), session.info.get("split")
    replay = f"--seed {seed} replays it, " if seed is not None else ""
    console.print(
        f"[dim]task {task} (split {split}; {replay}--task ID plays another, `coevo play {env} --list` lists them)[/dim]"
    )
    console.print(session.observation)
    total, steps = 0.0, 0

    def leave(why: str) -> None:
        console.print(f"[bold]{why}: episode left unfinished after {_steps(steps)}, total reward {total:g}[/bold]")

    while True:
        if auto:
            action = session.expert_action()
            if action is None:
                console.print("[red]the expert has no action here[/red]")
                return
            console.print(f"[bold cyan]> {action}[/bold cyan]")
        else:
            try:
                action = console.input(f"[bold cyan]step {steps + 1}> [/bold cyan]").strip()
            except EOFError:  # end of input (Ctrl-D, a piped script) leaves like :quit
                console.print()
                leave("end of input")
                return
            if action in (":quit", ":q"):
                leave("quit")
                return
            if action in (":help", ":h", "?"):
                console.print(HELP)
                continue
            if action == ":expert":
                console.print(f"[dim]expert: {session.expert_action()}[/dim]")
                continue
            if action == ":auto":
                auto = True
                continue
            if action == ":actions":
                console.print(session.info.get("available_actions") or "[dim]this env lists no actions[/dim]")
                continue
            if action == ":reset":
                session.reset()
                console.print(session.observation)
                total, steps = 0.0, 0
                continue
            if not action:
                continue
        result = session.step(action)
        total += result.reward
        steps += 1
        console.print(result.observation)
        console.print(f"[dim]step {steps} · reward {result.reward:g} · total {total:g}[/dim]")
        if result.done or result.truncated:
            end = "done" if result.done else "truncated"
            console.print(f"[bold]{end} after {_steps(steps)} — reward {result.reward:g}, total {total:g}[/bold]")
            return


def _steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"
