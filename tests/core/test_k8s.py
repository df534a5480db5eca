"""deploy/k8s/: every manifest validated offline against the Kubernetes schemas that the
kubernetes-validate package bundles (strict: unknown fields fail), and checked against the
registry, docker-compose.yml and the footprint bench the resource requests are sized from."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import kubernetes_validate
import pytest
import yaml

from coevo.envs import registry

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
KUBERNETES_VERSION = kubernetes_validate.latest_version()
#: bench/footprint.py's runs; an env measured in several counts by its latest run.
FOOTPRINTS = sorted(
    (ROOT / "bench" / "results").glob("footprint-run*.json"), key=lambda p: int(p.stem.rpartition("run")[2])
)


def _documents(path: Path) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(path.read_text()) if d is not None]


@pytest.fixture(scope="module")
def kustomization() -> dict[str, Any]:
    return yaml.safe_load((K8S / "kustomization.yaml").read_text())


@pytest.fixture(scope="module")
def resources(kustomization: dict[str, Any]) -> list[dict[str, Any]]:
    return [doc for name in kustomization["resources"] for doc in _documents(K8S / name)]


def _named(resources: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {r["metadata"]["name"]: r for r in resources if r["kind"] == kind}


def _container(statefulset: dict[str, Any]) -> dict[str, Any]:
    (container,) = statefulset["spec"]["template"]["spec"]["containers"]
    return container


def _mebibytes(quantity: str) -> float:
    number, unit = re.fullmatch(r"(\d+(?:\.\d+)?)(Mi|Gi)", quantity).groups()  # type: ignore[union-attr]
    return float(number) * (1024 if unit == "Gi" else 1)


def test_kustomization_lists_every_manifest_and_only_existing_ones(kustomization: dict[str, Any]) -> None:
    assert kustomization["apiVersion"] == "kustomize.config.k8s.io/v1beta1"
    assert kustomization["kind"] == "Kustomization"
    listed = set(kustomization["resources"])
    on_disk = {str(p.relative_to(K8S)) for p in K8S.rglob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk, f"unlisted: {on_disk - listed}; missing: {listed - on_disk}"


@pytest.mark.parametrize(
    "manifest", sorted(str(p.relative_to(K8S)) for p in K8S.rglob("*.yaml") if p.name != "kustomization.yaml")
)
def test_manifest_validates_against_the_kubernetes_schemas(manifest: str) -> None:
    documents = _documents(K8S / manifest)
    assert documents
    for document in documents:
        kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)


def test_the_validator_rejects_what_kubernetes_would() -> None:
    """The check above can fail: a misspelt field and a wrong type are both refused."""
    statefulset = next(d for d in _documents(K8S / "envs" / "bfcl.yaml") if d["kind"] == "StatefulSet")
    misspelt = json.loads(json.dumps(statefulset))
    misspelt["spec"]["replica"] = misspelt["spec"].pop("replicas")
    wrong_type = json.loads(json.dumps(statefulset))
    wrong_type["spec"]["replicas"] = "two"
    for bad in (misspelt, wrong_type):
        with pytest.raises(kubernetes_validate.ValidationError):
            kubernetes_validate.validate(bad, KUBERNETES_VERSION, strict=True)


def test_every_builtin_env_has_a_statefulset_behind_a_headless_service(resources: list[dict[str, Any]]) -> None:
    statefulsets, services = _named(resources, "StatefulSet"), _named(resources, "Service")
    served = {
        _container(s)["args"][1]: s for s in statefulsets.values() if _container(s).get("args", [""])[0] == "serve"
    }
    assert set(served) == set(registry.BUILTIN), f"envs without a StatefulSet: {set(registry.BUILTIN) - set(served)}"
    for env, statefulset in served.items():
        name = f"coevo-{env}"
        assert statefulset["metadata"]["name"] == name
        service = services[statefulset["spec"]["serviceName"]]
        assert service["spec"]["clusterIP"] == "None"  # headless: one A record per ready pod
        assert service["spec"]["selector"].items() <= statefulset["spec"]["template"]["metadata"]["labels"].items()
        assert statefulset["spec"]["selector"]["matchLabels"] == service["spec"]["selector"]


def test_the_container_command_is_docker_composes(resources: list[dict[str, Any]]) -> None:
    compose = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    dockerfile = (ROOT / "docker" / "Dockerfile").read_text()
    assert 'ENTRYPOINT ["coevo"]' in dockerfile  # so `args` here is compose's `command`
    for statefulset in _named(resources, "StatefulSet").values():
        container = _container(statefulset)
        if statefulset["metadata"]["labels"]["app.kubernetes.io/component"] != "env-server":
            continue
        env = container["args"][1]
        assert "command" not in container  # the image's ENTRYPOINT stays
        assert container["args"] == compose[env]["command"], env
        assert container["image"].split(":")[0] == compose[env]["image"].split(":")[0] == "coevo"
        port = container["ports"][0]
        assert port["containerPort"] == int(container["args"][container["args"].index("--port") + 1])


def test_probes_secrets_and_store(resources: list[dict[str, Any]]) -> None:
    for statefulset in _named(resources, "StatefulSet").values():
        if statefulset["metadata"]["labels"]["app.kubernetes.io/component"] != "env-server":
            continue
        container = _container(statefulset)
        for probe in ("readinessProbe", "livenessProbe", "startupProbe"):
            assert container[probe]["httpGet"] == {"path": "/health", "port": "http"}, probe
        env = {e["name"]: e for e in container["env"]}
        admin = env["COEVO_ADMIN_TOKEN"]["valueFrom"]["secretKeyRef"]
        assert admin["name"] == "coevo-admin" and admin.get("optional") is True  # no Secret: admin off
        assert "value" not in env["COEVO_ADMIN_TOKEN"]
        db_url = env["COEVO_DB_URL"]["value"]
        assert db_url.startswith("postgresql+psycopg://") and "@coevo-postgres:5432/" in db_url
        names = [e["name"] for e in container["env"]]
        assert names.index("COEVO_PG_PASSWORD") < names.index("COEVO_DB_URL")  # $(VAR) expands only earlier ones
        assert "$(COEVO_PG_PASSWORD)" in db_url
        mounts = {m["mountPath"] for m in container["volumeMounts"]}
        assert env["COEVO_CACHE_DIR"]["value"].startswith(tuple(mounts))
    postgres = _named(resources, "StatefulSet")["coevo-postgres"]
    pg_env = {e["name"]: e for e in _container(postgres)["env"]}
    assert pg_env["POSTGRES_PASSWORD"]["valueFrom"]["secretKeyRef"]["name"] == "coevo-postgres"
    assert "coevo-postgres" in _named(resources, "Service")


def test_memory_is_sized_from_the_footprint_bench(resources: list[dict[str, Any]]) -> None:
    measured = {row["env"]: row for path in FOOTPRINTS for row in json.loads(path.read_text())["envs"]}
    for statefulset in _named(resources, "StatefulSet").values():
        if statefulset["metadata"]["labels"]["app.kubernetes.io/component"] != "env-server":
            continue
        env = _container(statefulset)["args"][1]
        assert env in measured, f"{env}: no footprint measured (python bench/footprint.py --envs {env})"
        resources_ = _container(statefulset)["resources"]
        request, limit = (_mebibytes(resources_[k]["memory"]) for k in ("requests", "limits"))
        assert request >= measured[env]["rss_at_max_sessions_mb"], env
        assert limit >= 2 * request, env
        assert "cpu" in resources_["requests"] and "cpu" not in resources_.get("limits", {})  # no CPU throttling


def test_the_prometheus_job_scrapes_exactly_the_env_servers(resources: list[dict[str, Any]]) -> None:
    config = yaml.safe_load(_named(resources, "ConfigMap")["coevo-prometheus-scrape"]["data"]["coevo-scrape.yaml"])
    (job,) = config["scrape_configs"]
    assert job["metrics_path"] == "/metrics"
    keeps = [r for r in job["relabel_configs"] if r.get("action") == "keep"]
    label_rule = next(r for r in keeps if "pod_label" in r["source_labels"][0])
    label = label_rule["source_labels"][0].removeprefix("__meta_kubernetes_pod_label_")

    def prometheus_name(key: str) -> str:  # Prometheus turns every invalid character into _
        return re.sub(r"[^a-zA-Z0-9_]", "_", key)

    for statefulset in _named(resources, "StatefulSet").values():
        labels = {prometheus_name(k): v for k, v in statefulset["spec"]["template"]["metadata"]["labels"].items()}
        scraped = re.fullmatch(label_rule["regex"], labels.get(label, "")) is not None
        is_env = statefulset["metadata"]["labels"]["app.kubernetes.io/component"] == "env-server"
        assert scraped == is_env, statefulset["metadata"]["name"]
        if is_env:
            annotations = statefulset["spec"]["template"]["metadata"]["annotations"]
            assert annotations["prometheus.io/path"] == "/metrics"
            assert "http" in {p["name"] for p in _container(statefulset)["ports"]}
