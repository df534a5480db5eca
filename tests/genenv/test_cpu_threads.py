"""The per-epoch CPU thread choice: a neighbour's load means one thread, the run's own load does
not count as a neighbour's, and a job that has ended no longer counts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from coevo import hardware  # noqa: E402
from coevo.genenv import trainer  # noqa: E402


@pytest.fixture(autouse=True)
def _restore_threads():
    before = torch.get_num_threads()
    yield
    torch.set_num_threads(before)


def _clock(monkeypatch: pytest.MonkeyPatch, wall: float, cpu: float, load: float, cores: int = 4) -> None:
    """The load-average fallback (no /proc/stat): `wall` seconds since the last choice, of which
    this process used `cpu` CPU seconds, and a 1-minute load average of `load`."""

    def ticks():
        yield (0.0, 0.0)
        while True:
            yield (wall, cpu)

    ticks = ticks()
    state = {}

    def monotonic() -> float:
        state["now"] = next(ticks)
        return state["now"][0]

    monkeypatch.setattr(trainer.time, "monotonic", monotonic)
    monkeypatch.setattr(trainer.time, "process_time", lambda: state["now"][1])
    monkeypatch.setattr(os, "getloadavg", lambda: (load, load, load))
    monkeypatch.setattr(os, "cpu_count", lambda: cores)
    monkeypatch.setattr(trainer, "_others_busy_cores", lambda: None)


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


@pytest.mark.parametrize(("others", "threads"), [(0.2, 2), (0.9, 2), (1.0, 1), (1.8, 1)])
def test_the_sampled_load_of_other_processes_decides(
    monkeypatch: pytest.MonkeyPatch, others: float, threads: int
) -> None:
    monkeypatch.setattr(trainer, "_others_busy_cores", lambda: others)
    monkeypatch.setattr(os, "getloadavg", lambda: (8.0, 8.0, 8.0))  # a stale load average is ignored
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    assert trainer._CpuThreads(0).choose() == threads


def test_the_sample_counts_other_processes_cpu_and_not_this_ones(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """/proc/stat's first line in clock ticks (user nice system idle iowait irq softirq steal):
    over a 2 s sample the machine was busy 3.0 CPU-seconds, 1.0 of them this process's own."""
    stat = tmp_path / "stat"
    stat.write_text("cpu  1000 0 500 9000 100 0 0 0 0 0\ncpu0 ...\n")
    clock = {"wall": 0.0, "cpu": 0.0}

    def sleep(seconds: float) -> None:
        stat.write_text("cpu  1200 0 600 9100 100 0 0 0 0 0\ncpu0 ...\n")  # +300 busy ticks
        clock["wall"] += seconds
        clock["cpu"] += 1.0

    monkeypatch.setattr(hardware, "_PROC_STAT", stat)
    monkeypatch.setattr(os, "sysconf", lambda name: 100)
    monkeypatch.setattr(trainer.time, "sleep", sleep)
    monkeypatch.setattr(trainer.time, "monotonic", lambda: clock["wall"])
    monkeypatch.setattr(trainer.time, "process_time", lambda: clock["cpu"])
    assert trainer._others_busy_cores(2.0) == pytest.approx((3.0 - 1.0) / 2.0)
    monkeypatch.setattr(hardware, "_PROC_STAT", tmp_path / "missing")
    assert trainer._others_busy_cores(2.0) is None  # then the load average decides


@pytest.mark.skipif(not Path("/proc/stat").exists(), reason="needs Linux /proc/stat")
def test_the_sample_reads_this_machine() -> None:
    busy = trainer._others_busy_cores(0.2)
    assert busy is not None and 0.0 <= busy <= (os.cpu_count() or 1) + 0.5
