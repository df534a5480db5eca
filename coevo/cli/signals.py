"""SIGTERM and Ctrl-C in the long-running commands: callbacks first (a policy's cancel), then an
exit that runs `finally` blocks, so started servers are stopped."""

from __future__ import annotations

import signal
import sys
from collections.abc import Callable
from typing import Any

#: Called first when SIGTERM or SIGINT arrives (e.g. a policy's cancel, so a generation in a
#: worker thread stops at its next token instead of holding up the exit).
_ON_SIGNAL: list[Callable[[], None]] = []


def on_signal(callback: Callable[[], None]) -> None:
    """Run `callback` when SIGTERM or Ctrl-C arrives, before the exit starts."""
    _ON_SIGNAL.append(callback)


def _handle(signum: int, frame: Any) -> None:
    for callback in list(_ON_SIGNAL):
        callback()
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    sys.exit(128 + signum)


def exit_cleanly_on_sigterm() -> None:
    """Turn SIGTERM into SystemExit so `finally` blocks run and started servers are stopped
    (Python's default SIGTERM action kills the process on the spot and orphans them); on both
    SIGTERM and Ctrl-C, the `on_signal` callbacks run first."""
    signal.signal(signal.SIGTERM, _handle)
    signal.signal(signal.SIGINT, _handle)
