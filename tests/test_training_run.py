"""The trainers' shared run plumbing (coevo.training): metrics.jsonl survives a crash mid-write,
a step's held-out rows and its own row land together, a directory refuses a resume with a config
that changes results, callbacks hear of every row, and both trainers' configs list their options
under help sections."""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console

pytest.importorskip("torch")  # the configs check backends through the client's policy factory

from coevo.agentevol.config import AgentEvolConfig  # noqa: E402
from coevo.genenv.config import GenEnvConfig  # noqa: E402
from coevo.trainer_config import TrainerConfig  # noqa: E402
from coevo.training import (  # noqa: E402
    ConfigMismatch,
    LogHeldout,
    MetricsLog,
    RunDirectory,
    TrainerCallback,
    TrainingRun,
    write_json,
)
from coevo.training.results_table import Column, ResultsTable, field, percent  # noqa: E402

CONFIGS = [AgentEvolConfig, GenEnvConfig]


def test_a_torn_last_line_is_skipped_and_cut_before_the_next_append(tmp_path: Path) -> None:
    log = MetricsLog(tmp_path / "metrics.jsonl", default_kind="epoch")
    log.append([{"arm": "genenv", "epoch": 0}, {"kind": "heldout", "arm": "genenv", "epoch": 0, "n": 3}])
    with log.path.open("a") as f:  # a run killed in the middle of its next write
        f.write('{"arm": "genenv", "epo')
    assert log.rows() == [{"arm": "genenv", "epoch": 0}, {"kind": "heldout", "arm": "genenv", "epoch": 0, "n": 3}]
    log.write({"arm": "genenv", "epoch": 1})
    lines = log.path.read_text().splitlines()
    assert [json.loads(line) for line in lines] == [*log.rows()]  # every line parses again
    assert [r["epoch"] for r in log.rows("epoch")] == [0, 1] and len(log.rows("heldout")) == 1


def test_forget_drops_what_an_interrupted_epoch_left(tmp_path: Path) -> None:
    log = MetricsLog(tmp_path / "m.jsonl", default_kind="epoch")
    log.append([{"arm": a, "epoch": e} for a in ("genenv", "random") for e in (-1, 0, 1)])
    assert log.forget(lambda r: r["arm"] == "genenv" and r["epoch"] >= 0) == 2
    assert [(r["arm"], r["epoch"]) for r in log.rows()] == [("genenv", -1), *(("random", e) for e in (-1, 0, 1))]
    assert log.forget(lambda r: False) == 0 and not (tmp_path / "m.jsonl.tmp").exists()


class Recorder(TrainerCallback):
    def __init__(self) -> None:
        self.events: list[tuple[str, Any]] = []

    def on_run_begin(self, run: TrainingRun) -> None:
        self.events.append(("begin", run.dir.config.is_file()))

    def on_evaluate(self, run: TrainingRun, at: Mapping[str, Any], rows: Sequence[dict[str, Any]]) -> None:
        self.events.append(("evaluate", [r["split"] for r in rows]))

    def on_record(self, run: TrainingRun, row: dict[str, Any]) -> None:
        # the row is on disk when callbacks hear of it
        self.events.append(("record", row["stage"], run.metrics.rows()[-1] == row))

    def on_run_end(self, run: TrainingRun, rows: Sequence[dict[str, Any]]) -> None:
        self.events.append(("end", len(rows)))


class Split:
    """A held-out split's score, as coevo.client.heldout.HeldoutRow gives it."""

    def __init__(self, split: str) -> None:
        self.split = split

    def metrics(self) -> dict[str, Any]:
        return {"env": "alfworld", "split": self.split, "n": 2, "success_rate": 0.5, "ci95_low": 0.1, "ci95_high": 0.9}


def test_a_step_is_recorded_with_its_heldout_rows_in_one_append(tmp_path: Path) -> None:
    config = AgentEvolConfig.from_preset("ci", output_dir=str(tmp_path / "run"))
    recorder, logged = Recorder(), []
    run = TrainingRun(config, RunDirectory(tmp_path / "run"), callbacks=[recorder, LogHeldout(logged.append)])
    run.begin()
    at = {"stage": "bc", "arm": "agentevol"}
    run.record({"kind": "stage", "stage": "bc"}, at=at, heldout=[Split("valid_seen"), Split("valid_unseen")])
    done = {"env": "guess", "split": "test", "n": 1, "success_rate": 1.0, "ci95_low": 0.2, "ci95_high": 1.0}
    run.record(None, at={"stage": "base", "arm": "agentevol"}, heldout=[done])
    run.end([{"stage": "bc"}])
    lines = (tmp_path / "run" / "metrics.jsonl").read_text().splitlines()
    # the point's fields first, in the trainer's order, then the split's: the rows trainers wrote before
    assert lines[0] == json.dumps(
        {"kind": "heldout", "stage": "bc", "arm": "agentevol", "env": "alfworld", "split": "valid_seen", "n": 2,
         "success_rate": 0.5, "ci95_low": 0.1, "ci95_high": 0.9}
    )  # fmt: skip
    assert [json.loads(line).get("split") for line in lines] == ["valid_seen", "valid_unseen", None, "test"]
    assert [h["stage"] for h in run.heldout()] == ["bc", "bc", "base"]
    assert logged == [
        "stage bc arm agentevol held-out alfworld:valid_seen: 0.500 [0.100, 0.900] of 2",
        "stage bc arm agentevol held-out alfworld:valid_unseen: 0.500 [0.100, 0.900] of 2",
        "stage base arm agentevol held-out guess:test: 1.000 [0.200, 1.000] of 1",
    ]
    assert recorder.events == [
        ("begin", True), ("evaluate", ["valid_seen", "valid_unseen"]), ("record", "bc", True), ("evaluate", ["test"]),
        ("end", 1),
    ]  # fmt: skip

    # another process of a distributed run checks the directory but writes nothing
    quiet = Recorder()
    other = TrainingRun(config, RunDirectory(tmp_path / "run"), writer=False, callbacks=[quiet])
    other.begin()
    other.record({"kind": "stage", "stage": "iter1"})
    other.end([])
    assert len((tmp_path / "run" / "metrics.jsonl").read_text().splitlines()) == 4 and quiet.events == []


@pytest.mark.parametrize(
    ("config", "resumable", "refused"),
    [
        (AgentEvolConfig.from_preset("ci"), {"iterations": 5, "concurrency": 2}, {"seed": 7}),
        (GenEnvConfig.from_preset("ci"), {"epochs": 5, "cpu_threads": 1}, {"seed": 7, "alpha": 0.4}),
    ],
)
def test_a_run_resumes_only_with_a_config_that_gives_the_same_results(
    tmp_path: Path, config: TrainerConfig, resumable: dict[str, Any], refused: dict[str, Any]
) -> None:
    directory = RunDirectory(tmp_path / "run")
    config = config.replace(output_dir=str(directory.root))
    directory.begin(config)
    assert type(config).load(directory.config) == config.replace(**{f.name: None for f in fields(config)
                                                                     if f.metadata.get("secret")})  # fmt: skip
    directory.begin(config.replace(**resumable))  # more epochs, other hardware: the same run, resumed
    assert type(config).load(directory.config) == config.replace(**resumable)
    with pytest.raises(ConfigMismatch, match=", ".join(sorted(refused))):
        directory.begin(config.replace(**refused))
    assert type(config).load(directory.config) == config.replace(**resumable)  # the refused config is not saved


def test_agentevol_refuses_to_resume_a_directory_of_another_run(tmp_path: Path) -> None:
    from coevo.agentevol.trainer import AgentEvolTrainer

    out = str(tmp_path / "run")
    AgentEvolTrainer(AgentEvolConfig.from_preset("ci", output_dir=out))._prepare_run()
    with pytest.raises(ConfigMismatch, match=r"\(bc_tasks\); use another --output-dir"):
        AgentEvolTrainer(AgentEvolConfig.from_preset("ci", output_dir=out, bc_tasks=9))._prepare_run()


def test_write_json_leaves_the_old_file_or_the_new(tmp_path: Path) -> None:
    path = tmp_path / "arm" / "state.json"
    write_json(path, {"epochs_done": 1})
    write_json(path, {"epochs_done": 2})
    assert json.loads(path.read_text()) == {"epochs_done": 2} and [p.name for p in path.parent.iterdir()] == [
        "state.json"
    ]


@pytest.mark.parametrize("config", CONFIGS)
def test_every_option_is_listed_once_under_a_help_section(config: type[TrainerConfig]) -> None:
    sections = config.sections()
    assert "other" not in sections, f"{config.__name__} fields in no section: {sections.get('other')}"
    named = [name for names in sections.values() for name in names]
    assert sorted(named) == sorted(f.name for f in fields(config)), "a field is in two sections"
    assert {"agent", "held-out", "hardware"} <= set(sections)
    text = config.describe_options()
    for title, names in sections.items():
        block = text.split(f"{title}:\n", 1)[1].split("\n\n", 1)[0].splitlines()
        assert [line.split(" ", 3)[2] for line in block] == [f"--{n.replace('_', '-')}" for n in names]
    assert "environment policy" in GenEnvConfig.sections()


def test_sections_naming_an_unknown_field_are_refused() -> None:
    class Broken(AgentEvolConfig):
        SECTIONS = {"agent": ("model", "colour")}

    with pytest.raises(ValueError, match="SECTIONS names no such fields: colour"):
        Broken.sections()


def test_a_results_table_shows_missing_values_as_a_dash() -> None:
    table = ResultsTable(
        (Column("stage", field("stage"), "left"), Column("loss", field("train_loss", "{:.3f}")),
         Column("success", percent("success_rate"))),
        title="stages",
    )  # fmt: skip
    out = io.StringIO()
    Console(file=out, width=100).print(table.render([{"stage": "base", "success_rate": 0.25},
                                                     {"stage": "bc", "train_loss": 1.5, "success_rate": 0.5}]))  # fmt: skip
    body = [[c.strip() for c in line.strip("│").split("│")] for line in out.getvalue().splitlines() if "│" in line]
    assert body == [["base", "-", "25.0%"], ["bc", "1.500", "50.0%"]]


@pytest.mark.parametrize(("command", "config"), [("agentevol", AgentEvolConfig), ("genenv", GenEnvConfig)])
def test_list_options_shows_the_help_sections(command: str, config: type[TrainerConfig]) -> None:
    from typer.testing import CliRunner

    import coevo.cli.agentevol_cmd  # noqa: F401  (registers the commands)
    import coevo.cli.genenv_cmd  # noqa: F401
    from coevo.cli import app

    result = CliRunner().invoke(app, [command, "--list-options"], env={"COLUMNS": "2000"})
    assert result.exit_code == 0, result.output
    headings = [line[:-1] for line in result.output.splitlines() if line and not line.startswith(" ")]
    assert headings == list(config.sections())
    assert "  --heldout (default " in result.output
