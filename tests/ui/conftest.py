"""Live parts for the UI tests: env servers (`coevo serve` subprocesses, recording to one SQLite
store), a real `coevo eval` results file and a real GenEnv run folder (`coevo genenv --preset
ci`), `coevo ui` over all of them, and headless Chromium (Debian's `chromium` and
`chromium-driver`; nothing is downloaded)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest

from coevo.client.launcher import free_port
from tests.server.conftest import db_url, pg_base_url, pg_url, sqlite_url  # noqa: F401  (the store fixtures)

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("COEVO_CHROMIUM", "/usr/bin/chromium"))
CHROMEDRIVER = Path(os.environ.get("COEVO_CHROMEDRIVER", "/usr/bin/chromedriver"))


def coevo_command() -> list[str]:
    script = Path(sys.executable).parent / "coevo"
    return [str(script)] if script.exists() else [sys.executable, "-m", "coevo.cli"]


def _clean_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("COEVO_")}
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    return env


def wait_healthy(proc: subprocess.Popen[bytes], url: str, log: Path, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise RuntimeError(f"{url} exited: {log.read_text(errors='replace')[-2000:]}")
        try:
            if httpx.get(url, timeout=1).status_code < 500:
                return
        except httpx.HTTPError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not answer")
        time.sleep(0.1)


@dataclass
class Stack:
    """Everything the pages read: the store, the runs folder, the env servers and the UI."""

    db_url: str
    runs: Path
    guess: str
    echo: str
    ui: str
    logs: Path


def _start(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as sink:
        return subprocess.Popen(args, cwd=ROOT, env=_clean_env(), stdout=sink, stderr=subprocess.STDOUT)


@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    base = tmp_path_factory.mktemp("ui")
    store_url = f"sqlite:///{base / 'store.db'}"
    runs = base / "runs"
    logs = base / "logs"
    logs.mkdir()
    procs: list[subprocess.Popen[bytes]] = []
    try:
        urls = {}
        for name, spec in (("guess", "tests.fixture_env:GuessEnv"), ("echo", "tests.ui.echo_env:EchoEnv")):
            port = free_port()
            proc = _start(
                [*coevo_command(), "serve", spec, "--port", str(port), "--db-url", store_url], logs / f"{name}.log"
            )
            procs.append(proc)
            urls[name] = f"http://127.0.0.1:{port}"
            wait_healthy(proc, f"{urls[name]}/health", logs / f"{name}.log")
        # A real evaluation (the expert on five tasks) for the leaderboard and its episodes.
        subprocess.run(
            [*coevo_command(), "eval", "--env", "tests.fixture_env:GuessEnv", "--url", urls["guess"], "--policy",
             "expert", "--n", "5", "--split", "test", "--out", str(runs / "eval" / "eval-guess-test-expert.json"),
             "--db-url", store_url],
            cwd=ROOT, env=_clean_env(), check=True, capture_output=True,
        )  # fmt: skip
        # A real GenEnv run (the CI preset: a tiny agent, every arm, two epochs, BFCL held-out rows).
        subprocess.run(
            [*coevo_command(), "genenv", "--preset", "ci", "--output-dir", str(runs / "genenv" / "ci")],
            cwd=base, env=_clean_env(), check=True, capture_output=True,
        )  # fmt: skip
        port = free_port()
        ui = f"http://127.0.0.1:{port}"
        proc = _start(
            [*coevo_command(), "ui", "--port", str(port), "--db-url", store_url, "--runs", str(runs),
             "--server", urls["guess"], "--server", urls["echo"]],
            logs / "ui.log",
        )  # fmt: skip
        procs.append(proc)
        wait_healthy(proc, f"{ui}/episodes", logs / "ui.log")
        yield Stack(store_url, runs, urls["guess"], urls["echo"], ui, logs)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """Headless Chromium driven through chromedriver; skips (outside CI) when either is absent."""
    if not CHROMIUM.exists() or not CHROMEDRIVER.exists():
        pytest.skip(
            f"no chromium browser ({CHROMIUM}) or chromium-driver ({CHROMEDRIVER}): apt-get install chromium chromium-driver"
        )
    webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (the test extra) is not installed")
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # selenium-manager must never fetch a driver or browser
    options = webdriver.ChromeOptions()
    options.binary_location = str(CHROMIUM)
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1280,1000",
    ):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=str(CHROMEDRIVER)), options=options)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where screenshots go: $COEVO_UI_SCREENSHOTS (e.g. docs/ui, to refresh the README's) or a
    temporary folder."""
    wanted = os.environ.get("COEVO_UI_SCREENSHOTS")
    folder = Path(wanted) if wanted else tmp_path_factory.mktemp("shots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def copy_run(source: Path, target: Path) -> Path:
    shutil.copytree(source, target, ignore=shutil.ignore_patterns("*.db", "tiny-model", "*.safetensors"))
    return target
