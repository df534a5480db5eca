"""Resolving the bf16 setting: explicit values win, "auto" follows the hardware."""

from __future__ import annotations

import pytest

from coevo import hardware


def test_explicit_settings_and_bad_values() -> None:
    assert hardware.use_bf16("true") is True
    assert hardware.use_bf16("false") is False
    with pytest.raises(ValueError, match="bf16 must be one of"):
        hardware.use_bf16("yes")


@pytest.mark.parametrize("flags, expected", [({"avx512f", "amx_bf16", "amx_tile"}, True), ({"avx512f", "avx2"}, False)])
def test_auto_on_a_cpu_follows_amx(monkeypatch: pytest.MonkeyPatch, flags: set[str], expected: bool) -> None:
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
