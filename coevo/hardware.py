"""What the local hardware does fast: decides mixed precision when a config says "auto".

On CPUs with Intel AMX (Sapphire Rapids and later) oneDNN runs bf16 matrix products on the
tile units — about ten times the fp32 rate of one core here — so training a small model under
bf16 autocast is several times faster; without AMX, bf16 on a CPU is emulated and slower.
"""

from __future__ import annotations

import functools
from pathlib import Path

SETTINGS = ("auto", "true", "false")


@functools.cache
def cpu_flags() -> frozenset[str]:
    """The CPU feature flags the kernel reports (empty where /proc/cpuinfo is unavailable)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return frozenset()
    for line in text.splitlines():
        if line.startswith("flags"):
            return frozenset(line.partition(":")[2].split())
    return frozenset()


def cpu_has_amx_bf16() -> bool:
    return "amx_bf16" in cpu_flags()


def use_bf16(setting: str) -> bool:
    """Resolve a bf16 setting: "true", "false", or "auto" (CUDA with bf16 support, else a CPU
    with AMX)."""
    if setting not in SETTINGS:
        raise ValueError(f"bf16 must be one of {', '.join(SETTINGS)}, got {setting!r}")
    if setting != "auto":
        return setting == "true"
    import torch

    if torch.cuda.is_available():
        return torch.cuda.is_bf16_supported()
    return cpu_has_amx_bf16()
