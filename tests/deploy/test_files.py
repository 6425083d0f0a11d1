"""Every file under deploy/ parses; the Dockerfile builds the image the compose file and
the manifests run; the container healthcheck works; the README names real files."""

from __future__ import annotations

import json
import re
import socket
from collections.abc import Iterator
from concurrent import futures
from pathlib import Path
from types import ModuleType

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from tests.deploy.support import (
    DASHBOARD,
    DEPLOY,
    K8S,
    PROJECT_IMAGE,
    ROOT,
    compose,
    k8s_documents,
    load_yaml,
    load_yaml_documents,
)

YAML_FILES = sorted([*DEPLOY.rglob("*.yml"), *DEPLOY.rglob("*.yaml")])
DOCKERFILE = DEPLOY / "Dockerfile"


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments), continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n\s*", " ", DOCKERFILE.read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            instruction, _, rest = line.partition(" ")
            found.append((instruction.upper(), rest.strip()))
    return found


@pytest.mark.parametrize("path", YAML_FILES, ids=lambda p: str(p.relative_to(DEPLOY)))
def test_yaml_parses(path: Path) -> None:
    documents = load_yaml_documents(path)
    assert documents, f"{path} is empty"
    assert all(isinstance(d, dict) for d in documents)


def test_yaml_files_were_found() -> None:
    names = {str(p.relative_to(DEPLOY)) for p in YAML_FILES}
    assert {"compose.yaml", "prometheus/alerts.yml", "k8s/kustomization.yaml"} <= names


def test_every_kubernetes_object_has_kind_and_name() -> None:
    documents = k8s_documents()
    assert len(documents) >= 10
    for doc in documents:
        assert doc["apiVersion"] and doc["kind"] and doc["metadata"]["name"], doc
    for path in K8S.glob("*.yaml"):
        if path.name != "kustomization.yaml":
            for doc in load_yaml_documents(path):
                assert {"apiVersion", "kind", "metadata"} <= set(doc), path.name


def test_dashboard_json_parses() -> None:
    dashboard = json.loads(DASHBOARD.read_text())
    assert dashboard["uid"] == "card-arena"
    assert dashboard["panels"]


def test_dockerfile_builds_the_arena_image_as_a_user() -> None:
    instructions = dockerfile_instructions()
    assert instructions[0] == ("FROM", "python:3.11-slim")
    runs = " ".join(args for name, args in instructions if name == "RUN")
    assert "pip install --no-cache-dir ." in runs
    users = [args for name, args in instructions if name == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    (entrypoint,) = [json.loads(args) for name, args in instructions if name == "ENTRYPOINT"]
    assert entrypoint[-1] == "arena"
    assert entrypoint[:-1] in ([], ["/usr/bin/tini", "--"])


def test_dockerfile_copies_files_that_exist_and_are_in_the_build_context() -> None:
    allowed = [
        line[1:].strip()
        for line in (ROOT / ".dockerignore").read_text().splitlines()
        if line.startswith("!")
    ]
    for name, args in dockerfile_instructions():
        if name == "COPY":
            *sources, _ = args.split()
            for source in sources:
                assert (ROOT / source).exists(), source
                assert any(
                    source == entry or source.startswith(entry + "/") for entry in allowed
                ), f"{source} is excluded by .dockerignore"


def test_dockerfile_exposes_the_ports_compose_uses() -> None:
    exposed = {
        int(port)
        for name, args in dockerfile_instructions()
        if name == "EXPOSE"
        for port in args.split()
    }
    from tests.support.compose import arena_services

    used = set().union(*(s.listen_ports() for s in arena_services()))
    assert used <= exposed


def test_compose_builds_the_image_the_manifests_run() -> None:
    images = {s["image"] for s in compose()["services"].values() if "build" in s}
    assert images == {PROJECT_IMAGE}
    assert re.search(
        rf"docker build -f deploy/Dockerfile -t {PROJECT_IMAGE} \.", DOCKERFILE.read_text()
    )


# --- deploy/healthcheck.py, installed in the image as arena-healthcheck ----------------


def healthcheck_module() -> ModuleType:
    """deploy/healthcheck.py as a module (compiled here, so no __pycache__ in deploy/)."""
    path = DEPLOY / "healthcheck.py"
    module = ModuleType("arena_healthcheck")
    module.__file__ = str(path)
    exec(compile(path.read_text(), str(path), "exec"), module.__dict__)
    return module


@pytest.fixture
def health_server() -> Iterator[tuple[int, health.HealthServicer]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield port, servicer
    server.stop(None)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def test_healthcheck_asks_the_grpc_health_service(
    health_server: tuple[int, health.HealthServicer],
) -> None:
    port, servicer = health_server
    check = healthcheck_module()
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert check.main(["grpc", f"127.0.0.1:{port}"]) == 0
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)
    assert check.main(["grpc", f"127.0.0.1:{port}"]) == 1
    assert check.main(["grpc", f"127.0.0.1:{closed_port()}"]) == 1


def test_healthcheck_connects_over_tcp(health_server: tuple[int, health.HealthServicer]) -> None:
    port, _ = health_server
    check = healthcheck_module()
    assert check.main(["tcp", f"127.0.0.1:{port}"]) == 0
    assert check.main(["tcp", f"127.0.0.1:{closed_port()}"]) == 1
    assert check.main(["http", f"127.0.0.1:{port}"]) == 2
    assert check.main(["tcp"]) == 2


def test_healthcheck_is_installed_where_compose_calls_it() -> None:
    copies = [args for name, args in dockerfile_instructions() if name == "COPY"]
    assert "deploy/healthcheck.py /usr/local/bin/arena-healthcheck" in copies
    assert (DEPLOY / "healthcheck.py").read_text().startswith("#!/usr/bin/env python3\n")


# --- deploy/README.md -------------------------------------------------------------------


def test_readme_names_files_that_exist_and_says_how_to_run_each_part() -> None:
    readme = (DEPLOY / "README.md").read_text()
    for path in set(re.findall(r"(?<![\w/])(deploy/[\w./-]+\w)", readme)):
        assert (ROOT / path).exists(), f"deploy/README.md names {path}, which does not exist"
    for command in (
        f"docker build -f deploy/Dockerfile -t {PROJECT_IMAGE} .",
        "docker compose -f deploy/compose.yaml up",
        "kubectl apply -k deploy/k8s",
    ):
        assert command in readme, command
    assert "ARENA_VISIBILITY_TIMEOUT" in readme
    assert "appendonly yes" in readme


def test_readme_lists_the_ports_of_compose() -> None:
    readme = (DEPLOY / "README.md").read_text()
    published = {
        str(p).rsplit(":", 1)[-1]
        for service in compose()["services"].values()
        for p in service.get("ports", [])
    }
    for port in published:
        assert port in readme, f"port {port} is published but not in deploy/README.md"


def test_redis_config_is_the_one_compose_and_k8s_use() -> None:
    config = (DEPLOY / "redis.conf").read_text()
    assert re.search(r"^appendonly yes$", config, re.MULTILINE)
    assert re.search(r"^maxmemory-policy noeviction$", config, re.MULTILINE)
    data = {
        doc["metadata"]["name"]: doc.get("data", {})
        for doc in load_yaml_documents(K8S / "config.yaml")
    }
    assert data["redis-config"]["redis.conf"] == config
    assert load_yaml(DEPLOY / "compose.yaml")["services"]["redis"]["volumes"][0].startswith(
        "./redis.conf:"
    )
