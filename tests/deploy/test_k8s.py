"""deploy/k8s, checked without a cluster: the objects the issue asks for, labels and
selectors that meet, Service ports that name container ports, command lines that the
real CLI parses and that listen where the manifests say, and the scrape annotations."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

import pytest

from arena.bots.examples import EXAMPLES
from tests.deploy.support import (
    ALL_INTERFACES,
    DEPLOY,
    K8S,
    OTHER_ARENA_ENV,
    PROJECT_IMAGE,
    ROOT,
    Invocation,
    arena_env_names_in_code,
    image_is_pinned,
    invocations,
    k8s_documents,
    load_yaml,
    redis_port,
)

DOCS = k8s_documents()
NAMESPACE = load_yaml(K8S / "kustomization.yaml")["namespace"]
WORKLOAD_KINDS = ("Deployment", "StatefulSet", "Job")
CLUSTER_SCOPED = {"Namespace"}
COMPONENT = "app.kubernetes.io/component"
SECRET = "<from a Secret>"


def objects(kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in DOCS if d["kind"] == kind}


def get(kind: str, name: str) -> dict[str, Any]:
    found = objects(kind)
    assert name in found, f"no {kind} {name}"
    return found[name]


def config_maps() -> dict[str, dict[str, str]]:
    return {name: cm.get("data", {}) for name, cm in objects("ConfigMap").items()}


@dataclass
class Container:
    workload: str
    pod: dict[str, Any]
    spec: dict[str, Any]

    @property
    def image(self) -> str:
        image: str = self.spec["image"]
        return image

    @property
    def is_arena(self) -> bool:
        return self.image == PROJECT_IMAGE

    @property
    def env(self) -> dict[str, str]:
        env: dict[str, str] = {}
        for source in self.spec.get("envFrom", []):
            env.update(config_maps()[source["configMapRef"]["name"]])
        for item in self.spec.get("env", []):
            env[item["name"]] = str(item["value"]) if "value" in item else SECRET
        return env

    def secret_refs(self) -> dict[str, tuple[str, str]]:
        """Environment taken from Secrets: name -> (secret, key)."""
        return {
            item["name"]: (ref["name"], ref["key"])
            for item in self.spec.get("env", [])
            if (ref := item.get("valueFrom", {}).get("secretKeyRef"))
        }

    def invocations(self) -> list[Invocation]:
        if not self.is_arena:
            return []
        return invocations(self.spec.get("command"), self.spec.get("args", []), self.env)

    def ports(self) -> dict[str, int]:
        """Container ports by name (and by number, as a string)."""
        found = {}
        for port in self.spec.get("ports", []):
            found[str(port["containerPort"])] = int(port["containerPort"])
            if "name" in port:
                found[port["name"]] = int(port["containerPort"])
        return found

    def listen_ports(self) -> set[int]:
        if self.is_arena:
            return set().union(*(i.listen_ports() for i in self.invocations()))
        assert self.image.startswith("redis:"), self.image
        return {redis_port()}


def pod_templates() -> Iterator[tuple[str, str, dict[str, Any]]]:
    for doc in DOCS:
        if doc["kind"] in WORKLOAD_KINDS:
            yield doc["kind"], doc["metadata"]["name"], doc["spec"]["template"]


def containers() -> list[Container]:
    return [
        Container(f"{kind}/{name}", template, spec)
        for kind, name, template in pod_templates()
        for spec in template["spec"]["containers"]
    ]


def arena_containers() -> list[Container]:
    return [c for c in containers() if c.is_arena]


def selected_pods(selector: dict[str, str]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (f"{kind}/{name}", template)
        for kind, name, template in pod_templates()
        if selector.items() <= template["metadata"]["labels"].items()
    ]


def service_target(service_name: str, port: int) -> tuple[Container, int]:
    """The container and container port behind ``service_name:port``."""
    service = get("Service", service_name)
    pods = selected_pods(service["spec"]["selector"])
    assert len(pods) == 1, f"Service {service_name} selects {len(pods)} workloads, not one"
    workload, template = pods[0]
    ports = [p for p in service["spec"]["ports"] if p["port"] == port]
    assert ports, f"Service {service_name} has no port {port}"
    target = str(ports[0].get("targetPort", port))
    for spec in template["spec"]["containers"]:
        container = Container(workload, template, spec)
        if target in container.ports():
            return container, container.ports()[target]
    raise AssertionError(f"Service {service_name}: no container port {target} in {workload}")


def test_the_manifests_have_every_object_asked_for() -> None:
    for name in ("referee", "api", "worker", "leaderboard"):
        get("Deployment", name)
    for name in ("referee", "api", "leaderboard", "redis"):
        get("Service", name)
    assert get("StatefulSet", "redis")["spec"]["volumeClaimTemplates"]
    assert get("HorizontalPodAutoscaler", "worker")["apiVersion"] == "autoscaling/v2"
    assert {"arena-settings", "redis-config"} <= set(objects("ConfigMap"))
    assert set(objects("Namespace")) == {NAMESPACE}
    bots = [c for c in arena_containers() if c.invocations()[0].command == "bot serve"]
    assert len(bots) >= 2


# Manifests that are not resources: the hosted bots' pod template, which the referee
# renders per seat, their package volume, applied with the pod launcher, and the kubelet
# settings of the nodes that run them (not an API object at all).
NOT_RESOURCES = {
    "hosted-bot/pod.yaml",
    "hosted-bot/packages.yaml",
    "hosted-bot/kubelet-config.yaml",
}


def test_the_kustomization_lists_every_manifest() -> None:
    listed = set(load_yaml(K8S / "kustomization.yaml")["resources"])
    on_disk = {p.relative_to(K8S).as_posix() for p in K8S.rglob("*.yaml")}
    assert on_disk >= NOT_RESOURCES
    assert listed == on_disk - NOT_RESOURCES - {"kustomization.yaml"}


def test_everything_is_in_the_arena_namespace() -> None:
    for doc in DOCS:
        if doc["kind"] not in CLUSTER_SCOPED:
            assert doc["metadata"].get("namespace") == NAMESPACE, doc["metadata"]["name"]


def test_workload_selectors_match_their_pod_labels() -> None:
    for doc in DOCS:
        if doc["kind"] in ("Deployment", "StatefulSet"):
            selector = doc["spec"]["selector"]["matchLabels"]
            labels = doc["spec"]["template"]["metadata"]["labels"]
            assert selector.items() <= labels.items(), doc["metadata"]["name"]
            assert selected_pods(selector) == [
                (f"{doc['kind']}/{doc['metadata']['name']}", doc["spec"]["template"])
            ]


def test_services_select_one_workload_and_target_its_ports() -> None:
    for name, service in objects("Service").items():
        for port in service["spec"]["ports"]:
            container, container_port = service_target(name, port["port"])
            assert container_port in container.listen_ports(), (name, port)


@pytest.mark.parametrize("workload", sorted({c.workload for c in arena_containers()}))
def test_arena_command_lines_parse(workload: str) -> None:
    for container in arena_containers():
        if container.workload == workload:
            assert container.invocations(), workload


def test_container_ports_are_the_ports_the_commands_listen_on() -> None:
    for container in containers():
        declared = {p["containerPort"] for p in container.spec.get("ports", [])}
        assert declared == container.listen_ports(), container.workload
        for invocation in container.invocations():
            assert invocation.bind_hosts() <= {ALL_INTERFACES}, container.workload


def test_probes_check_what_the_container_serves() -> None:
    for container in containers():
        invocations_ = container.invocations()
        serves = any(i.serves for i in invocations_) or not container.is_arena
        probes = {
            k: container.spec[k] for k in ("readinessProbe", "livenessProbe") if k in container.spec
        }
        if serves:
            assert probes, f"{container.workload} has no probe"
        for kind, probe in probes.items():
            if "grpc" in probe:
                health = {i.grpc_health_port for i in invocations_}
                assert probe["grpc"]["port"] in health, (container.workload, kind)
            elif "tcpSocket" in probe or "httpGet" in probe:
                port = str((probe.get("tcpSocket") or probe["httpGet"])["port"])
                assert port in container.ports(), (container.workload, kind)
            else:
                assert probe["exec"]["command"] == ["redis-cli", "ping"], container.workload


def test_every_address_dialled_is_a_service_that_leads_to_a_listener() -> None:
    suffix = re.compile(rf"\.{NAMESPACE}(\.svc(\.cluster\.local)?)?$")
    for container in arena_containers():
        for invocation in container.invocations():
            for dial in invocation.dials():
                service = suffix.sub("", dial.host)
                assert service in objects("Service"), f"{container.workload}: {dial}"
                target, port = service_target(service, dial.port)
                assert port in target.listen_ports(), f"{container.workload}: {dial}"


def test_redis_is_a_stateful_set_with_a_volume_and_the_aof_config() -> None:
    redis = get("StatefulSet", "redis")
    headless = get("Service", redis["spec"]["serviceName"])
    assert headless["spec"]["clusterIP"] == "None"
    assert (
        headless["spec"]["selector"].items()
        <= redis["spec"]["template"]["metadata"]["labels"].items()
    )
    (claim,) = redis["spec"]["volumeClaimTemplates"]
    assert claim["spec"]["resources"]["requests"]["storage"]
    assert claim["spec"]["accessModes"] == ["ReadWriteOnce"]
    pod = redis["spec"]["template"]["spec"]
    (container,) = pod["containers"]
    assert image_is_pinned(container["image"])
    mounts = {m["name"]: m["mountPath"] for m in container["volumeMounts"]}
    assert mounts[claim["metadata"]["name"]] == "/data"
    config_path = PurePosixPath(container["args"][1])
    assert container["args"][0] == "redis-server"
    volumes = {v["name"]: v for v in pod["volumes"]}
    (config_volume,) = [
        n for n, path in mounts.items() if PurePosixPath(path) == config_path.parent
    ]
    config_map = volumes[config_volume]["configMap"]["name"]
    assert config_maps()[config_map][config_path.name] == (DEPLOY / "redis.conf").read_text()


def test_the_worker_autoscaler_targets_the_worker_deployment() -> None:
    hpa = get("HorizontalPodAutoscaler", "worker")["spec"]
    target = hpa["scaleTargetRef"]
    assert (target["apiVersion"], target["kind"]) == ("apps/v1", "Deployment")
    worker = get("Deployment", target["name"])
    (container,) = worker["spec"]["template"]["spec"]["containers"]
    assert (
        Container("worker", worker["spec"]["template"], container).invocations()[0].command
        == "worker"
    )
    assert 1 <= hpa["minReplicas"] <= hpa["maxReplicas"]
    for metric in hpa["metrics"]:
        resource = metric["resource"]["name"]
        assert container["resources"]["requests"][resource], "utilization needs a request"


def test_environment_names_exist_in_the_code() -> None:
    in_code = arena_env_names_in_code()
    for container in containers():
        for name in container.env:
            assert name in in_code | OTHER_ARENA_ENV, f"{container.workload}: {name} is not read"
    settings = config_maps()["arena-settings"]
    assert set(settings) <= in_code
    assert float(settings["ARENA_VISIBILITY_TIMEOUT"]) >= 3600


def test_api_and_workers_read_the_same_settings() -> None:
    by_command = {c.invocations()[0].command: c.spec for c in arena_containers()}
    for command in ("api serve", "worker"):
        assert by_command[command]["envFrom"] == [{"configMapRef": {"name": "arena-settings"}}]


def test_multiprocess_metrics_directory_is_inside_an_empty_dir() -> None:
    for container in containers():
        directory = container.env.get("PROMETHEUS_MULTIPROC_DIR")
        if directory is None:
            continue
        empty_dirs = {v["name"] for v in container.pod["spec"]["volumes"] if "emptyDir" in v}
        mounts = [
            PurePosixPath(m["mountPath"])
            for m in container.spec["volumeMounts"]
            if m["name"] in empty_dirs
        ]
        assert any(m in PurePosixPath(directory).parents for m in mounts), container.workload


def test_metrics_ports_are_annotated_for_prometheus() -> None:
    components = set()
    for container in arena_containers():
        metrics = {i.metrics_port() for i in container.invocations()} - {None}
        annotations = container.pod["metadata"].get("annotations", {})
        if not metrics:
            assert "prometheus.io/scrape" not in annotations, container.workload
            continue
        (port,) = metrics
        assert container.ports()["metrics"] == port, container.workload
        assert annotations["prometheus.io/scrape"] == "true"
        assert annotations["prometheus.io/port"] == str(port)
        assert annotations["prometheus.io/path"] == "/metrics"
        components.add(container.pod["metadata"]["labels"][COMPONENT])
    # deploy/prometheus/prometheus-kubernetes.yml keeps these components' "metrics" ports.
    assert components == {"api", "referee", "worker"}


def test_images_are_the_project_image_or_pinned() -> None:
    for container in containers():
        assert container.is_arena or image_is_pinned(container.image), container.workload


def test_arena_pods_run_as_the_image_user() -> None:
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    user = re.search(r"^USER (\d+)", dockerfile, re.MULTILINE)
    assert user is not None, "the Dockerfile names its user by uid"
    uid = int(user.group(1))
    for container in arena_containers():
        security = container.pod["spec"]["securityContext"]
        assert security["runAsNonRoot"] is True, container.workload
        assert security["runAsUser"] == uid, container.workload


def test_example_bots_exist_and_are_registered() -> None:
    served = set()
    registered = set()
    for container in arena_containers():
        for invocation in container.invocations():
            if invocation.command == "bot serve":
                assert invocation.args.name in EXAMPLES
                for name, service in objects("Service").items():
                    if selected_pods(service["spec"]["selector"])[0][1] is container.pod:
                        served.add(name)
            if invocation.command == "bot register":
                registered.add(invocation.args.address.rsplit(":", 1)[0])
    assert registered == served


def test_the_register_job_retries() -> None:
    job = get("Job", "register-bots")["spec"]
    assert job["template"]["spec"]["restartPolicy"] == "OnFailure"
    assert job["backoffLimit"] >= 3


def test_each_token_is_generated_once_and_read_by_its_server_and_its_callers() -> None:
    """The referee's PlayMatch needs the token the workers send (its CheckBot the same
    one, which the API sends), the API's writes the one the registering job sends, and
    the API and the referee spare the leaderboard's costly reads and watching for the
    read token it sends: each
    group reads one Secret, which the kustomization generates from a file kept out of
    git."""
    generated = {
        g["name"]: g["files"][0] for g in load_yaml(K8S / "kustomization.yaml")["secretGenerator"]
    }
    readers = {
        "referee-token": ("ARENA_REFEREE_TOKEN", ("referee serve", "worker", "api serve")),
        "api-token": ("ARENA_API_TOKEN", ("api serve", "bot register")),
        "read-token": ("ARENA_READ_TOKEN", ("api serve", "referee serve", "leaderboard serve")),
    }
    assert set(generated) == set(readers)
    by_command = {i.command: c for c in arena_containers() for i in c.invocations()}
    expected: dict[str, dict[str, tuple[str, str]]] = {}
    for secret, (variable, commands) in readers.items():
        key = generated[secret].partition("=")[0]
        for command in commands:
            expected.setdefault(command, {})[variable] = (secret, key)
    for command, refs in expected.items():
        assert by_command[command].secret_refs() == refs, command
    for secret in readers:
        file = generated[secret].partition("=")[2]
        ignored = subprocess.run(["git", "check-ignore", "-q", str(K8S / file)], cwd=ROOT)
        assert ignored.returncode == 0, f"deploy/k8s/{file} holds a secret: keep it out of git"


def test_the_leaderboard_probes_its_liveness_and_readiness_routes() -> None:
    """Ready only while the API answers, alive while the process does: an API outage takes
    the pods out of the Service but restarts none of them."""
    from starlette.testclient import TestClient

    from arena.web.app import create_app

    (deployment,) = [
        d for d in DOCS if d["kind"] == "Deployment" and d["metadata"]["name"] == "leaderboard"
    ]
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] == "/readyz"
    assert container["livenessProbe"]["httpGet"]["path"] == "/livez"
    with TestClient(create_app("127.0.0.1:1")) as web:  # an API that is not there
        assert web.get("/livez").status_code == 200
        assert web.get("/readyz").status_code == 503
