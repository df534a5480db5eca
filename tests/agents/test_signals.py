"""SIGTERM and Ctrl-C in the commands: callbacks (a policy's cancel) run before the exit starts."""

from __future__ import annotations

import signal

import pytest

from coevo.cli import signals
from coevo.cli.progress import ProgressLog


def test_signals_run_callbacks_then_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    monkeypatch.setattr(signals, "_ON_SIGNAL", [])
    signals.on_signal(lambda: calls.append("cancel"))
    with pytest.raises(SystemExit) as exited:
        signals._handle(signal.SIGTERM, None)
    assert exited.value.code == 128 + signal.SIGTERM and calls == ["cancel"]
    with pytest.raises(KeyboardInterrupt):
        signals._handle(signal.SIGINT, None)
    assert calls == ["cancel", "cancel"]


def test_progress_log_lines(tmp_path: pytest.TempPathFactory) -> None:
    path = tmp_path / "sub" / "p.log"  # type: ignore[operator]
    progress = ProgressLog(path, "env/test · model", 2)
    progress.episode(True)
    progress.episode(False)
    progress.close()
    lines = path.read_text().splitlines()
    assert len(lines) == 4 and "start: env/test · model, 2 episodes" in lines[0]
    assert "2/2 episodes, 1 successful" in lines[2] and lines[3].endswith("end: env/test · model, 1/2 successful")
