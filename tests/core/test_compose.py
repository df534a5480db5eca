"""docker-compose.yml and the Dockerfile: validated without an engine (none runs on CI machines)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from coevo.envs import registry

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load(COMPOSE.read_text())


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose (Debian package) not installed")
def test_docker_compose_config_validates() -> None:
    done = subprocess.run(["docker-compose", "-f", str(COMPOSE), "config", "-q"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(shutil.which("docker-compose") is None, reason="docker-compose (Debian package) not installed")
def test_postgres_profile_validates() -> None:
    done = subprocess.run(
        ["docker-compose", "-f", str(COMPOSE), "--profile", "postgres", "config", "--services"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "postgres" in done.stdout.split()


def _server_services(compose: dict) -> dict[str, dict]:
    return {name: svc for name, svc in compose["services"].items() if svc.get("command", [None])[0] == "serve"}


def test_every_builtin_env_has_a_service(compose: dict) -> None:
    served = {svc["command"][1] for svc in _server_services(compose).values()}
    assert set(registry.BUILTIN) <= served, f"envs without a compose service: {set(registry.BUILTIN) - served}"
    for env in served:
        registry.spec(env)  # every served env name is registered


def test_services_are_healthchecked_restarted_and_local_only(compose: dict) -> None:
    services = _server_services(compose)
    assert services
    ports = []
    for name, svc in services.items():
        assert "/health" in " ".join(svc["healthcheck"]["test"]), name
        assert svc["restart"] in {"unless-stopped", "always", "on-failure"}, name
        for port in svc["ports"]:
            assert port.startswith("127.0.0.1:"), f"{name} publishes {port} beyond loopback"
            ports.append(port.split(":")[1])
        assert "COEVO_DB_URL" in svc["environment"], name
    assert len(ports) == len(set(ports)), "two services publish the same host port"


def test_dockerfile_installs_and_starts_like_ci() -> None:
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert "bash scripts/bootstrap.sh" in dockerfile  # the install step CI runs via `make test`
    assert "make test" in (ROOT / ".ci" / "run").read_text()
    assert "bootstrap" in (ROOT / "Makefile").read_text()
    assert "HEALTHCHECK" in dockerfile and "/health" in dockerfile
    assert 'ENTRYPOINT ["coevo"]' in dockerfile
