"""The per-epoch CPU thread choice: a neighbour's load means one thread, the run's own load does
not count as a neighbour's."""

from __future__ import annotations

import os

import pytest

torch = pytest.importorskip("torch")

from coevo.genenv import trainer  # noqa: E402


@pytest.fixture(autouse=True)
def _restore_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def _clock(monkeypatch: pytest.MonkeyPatch, wall: float, cpu: float, load: float, cores: int = 4) -> None:
    ticks = iter([(0.0, 0.0), (wall, cpu)])
    state = {}

    def monotonic() -> float:
        state["now"] = next(ticks)
        return state["now"][0]

    monkeypatch.setattr(trainer.time, "monotonic", monotonic)
    monkeypatch.setattr(trainer.time, "process_time", lambda: state["now"][1])
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(os, "cpu_count", lambda: cores)


def test_a_requested_count_is_used_as_is(monkeypatch: pytest.MonkeyPatch) -> None:
    _clock(monkeypatch, wall=60, cpu=0, load=8.0)
    assert trainer._CpuThreads(3).choose() == 3 and torch.get_num_threads() == 3


def test_own_work_is_not_a_neighbours_load(monkeypatch: pytest.MonkeyPatch) -> None:
    # load 3.9 on 4 cores, of which this process used 3.5 cores over the last minute
    _clock(monkeypatch, wall=60, cpu=210, load=3.9)
    assert trainer._CpuThreads(0).choose() == 4


def test_a_busy_neighbour_means_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # load 3.0, this process used one core: others keep two cores busy
    _clock(monkeypatch, wall=60, cpu=60, load=3.0)
    assert trainer._CpuThreads(0).choose() == 1 and torch.get_num_threads() == 1
