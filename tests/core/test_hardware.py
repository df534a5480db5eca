"""Resolving the bf16 setting: explicit values win, "auto" follows the hardware."""

from __future__ import annotations

import time

import pytest

from coevo import hardware


def test_explicit_settings_and_bad_values() -> None:
    assert hardware.use_bf16("true") is True
    assert hardware.use_bf16("false") is False
    with pytest.raises(ValueError, match="bf16 must be one of"):
        hardware.use_bf16("yes")


@pytest.mark.parametrize(
    "flags, expected",
    [({"avx512f", "amx_bf16", "amx_tile"}, True), ({"avx512f", "avx512_bf16"}, True), ({"avx512f", "avx2"}, False)],
)
def test_auto_on_a_cpu_follows_native_bf16(monkeypatch: pytest.MonkeyPatch, flags: set[str], expected: bool) -> None:
    torch = pytest.importorskip("torch")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.setattr(hardware, "cpu_flags", lambda: frozenset(flags))
    assert hardware.use_bf16("auto") is expected


def test_cpu_flags_read_this_machine() -> None:
    flags = hardware.cpu_flags()
    # Linux reports the base x86 or ARM features; elsewhere the set is empty, never an error.
    assert isinstance(flags, frozenset)
    if flags:
        assert flags & {"fpu", "sse2", "fp", "asimd"}


def test_threads_drop_to_one_while_other_processes_keep_half_the_cores_busy(monkeypatch: pytest.MonkeyPatch) -> None:
    samples = iter([
        hardware.CpuSample(busy_s=0.0, own_s=0.0, at=0.0),    # at construction
        hardware.CpuSample(busy_s=1.9, own_s=1.8, at=1.0),    # this process used 1.8 of 1.9 busy core-seconds
        hardware.CpuSample(busy_s=3.9, own_s=2.8, at=2.0),    # others: 1.0 core-second in one second
        hardware.CpuSample(busy_s=5.8, own_s=4.6, at=3.0),    # others: 0.1
        hardware.CpuSample(busy_s=5.8, own_s=4.6, at=3.01),   # too soon to judge: unchanged
    ])  # fmt: skip
    monkeypatch.setattr(hardware, "cpu_sample", lambda: next(samples))
    chooser = hardware.ThreadChooser(cores=2)
    assert [chooser.choose() for _ in range(4)] == [2, 1, 2, 2]
    assert hardware.others_busy_cores(hardware.CpuSample(0, 0, 0), hardware.CpuSample(4, 1, 2)) == 1.5
    assert hardware.others_busy_cores(hardware.CpuSample(0, 0, 0), hardware.CpuSample(1, 3, 1)) == 0.0  # never negative


def test_a_real_sample_counts_this_process_cpu_time() -> None:
    before = hardware.cpu_sample()
    if before is None:
        pytest.skip("no /proc/stat here")
    end = time.process_time() + 0.2
    while time.process_time() < end:
        pass
    after = hardware.cpu_sample()
    assert after is not None and after.own_s - before.own_s >= 0.2 and after.busy_s >= before.busy_s
