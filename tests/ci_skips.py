"""A pytest plugin: under CI (`COEVO_CI=1`, set by .ci/run) a skipped test fails the run unless
what it lacks is something the repository does not own and set-up does not install
(EXTERNAL_SKIPS). Set-up installs every extra, PostgreSQL runs and the repository's own data is
committed, so a skip for any of those means something is broken, not absent."""

from __future__ import annotations

import os
from typing import Any

import pytest

#: Skip reasons CI accepts (lower case): data the user owns (API-Bank's release, ALFWorld's game
#: files), a Docker engine, a Linux-only file.
EXTERNAL_SKIPS = ("api-bank data", "no alfworld games", "docker engine", "/proc/stat")

_skipped: list[tuple[str, str]] = []


def _reason(report: pytest.TestReport) -> str:
    longrepr: Any = report.longrepr
    return str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if report.skipped and not hasattr(report, "wasxfail"):
        _skipped.append((report.nodeid, _reason(report)))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not os.environ.get("COEVO_CI"):
        return
    broken = [(node, why) for node, why in _skipped if not any(ok in why.lower() for ok in EXTERNAL_SKIPS)]
    if broken:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.write_sep("=", "skips CI does not accept (COEVO_CI=1; tests/conftest.py)", red=True)
            for node, why in broken:
                reporter.write_line(f"{node}: {why}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
