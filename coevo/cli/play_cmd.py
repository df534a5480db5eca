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
    "':reset' starts over, ':quit' leaves."
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
) -> None:
    """Play one episode of ENV in the terminal (starts a local server unless --url is given)."""
    from coevo.client import EnvClient

    console = Console()
    with _server(env, url, option) as base, EnvClient(base) as client:
        info = client.info()
        console.print(Panel(f"{info.env} v{info.env_version} — action format: {info.action_format}\n{HELP}"))
        session = client.create(task_id=task_id, split=split, seed=seed)
        with session:
            _play(console, session, auto=expert)


def _play(console: Console, session, auto: bool) -> None:  # type: ignore[no-untyped-def]
    console.print(f"[dim]task {session.info.get('task_id')} (split {session.info.get('split')})[/dim]")
    console.print(session.observation)
    total, steps = 0.0, 0
    while True:
        if auto:
            action = session.expert_action()
            if action is None:
                console.print("[red]the expert has no action here[/red]")
                return
            console.print(f"[bold cyan]> {action}[/bold cyan]")
        else:
            try:
                action = console.input("[bold cyan]> [/bold cyan]").strip()
            except EOFError:  # end of input (Ctrl-D, a piped script) leaves like :quit
                console.print()
                return
            if action in (":quit", ":q"):
                return
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
        if result.done or result.truncated:
            end = "done" if result.done else "truncated"
            console.print(f"[bold]{end} after {steps} steps — reward {result.reward:g}, total {total:g}[/bold]")
            return
