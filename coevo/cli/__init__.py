"""The `coevo` command line. Each command group lives in its own module of this package."""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    name="coevo",
    help="Environment servers for LLM agents, and the AgentEvol / GenEnv trainers.",
    no_args_is_help=True,
    add_completion=False,
)


@app.callback()
def _root() -> None:
    """Environment servers for LLM agents, and the AgentEvol / GenEnv trainers."""


#: Modules that add commands to `app` when imported (one line per command module).
COMMAND_MODULES = [
    "coevo.cli.envs_cmd",
    "coevo.cli.serve_cmd",
    "coevo.cli.play_cmd",
    "coevo.cli.searchqa_cmd",
    "coevo.cli.webshop_cmd",
    "coevo.cli.eval_cmd",
    "coevo.cli.rescore_cmd",
    "coevo.cli.demo_cmd",
    "coevo.cli.agentevol_cmd",
    "coevo.cli.travelplanner_cmd",
    "coevo.cli.genenv_cmd",
    "coevo.cli.ui_cmd",
]


def main() -> None:
    for module in COMMAND_MODULES:
        importlib.import_module(module)
    app()
