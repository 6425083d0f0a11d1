"""deploy/compose.yaml, checked without a container engine: images, the arena command
lines (parsed by the real CLI), ports, addresses, environment, volumes, healthchecks
and the Prometheus targets."""

from __future__ import annotations

import subprocess
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from arena.bots.examples import EXAMPLES
from tests.deploy.support import (
    ALL_INTERFACES,
    COMPOSE,
    DEPLOY,
    OTHER_ARENA_ENV,
    PROMETHEUS,
    ROOT,
    arena_env_names_in_code,
    compose,
    image_is_pinned,
    load_yaml,
)
from tests.support.compose import SERVICES, Service, arena_services, services

NOT_THE_ARENAS_ENV = {"grafana/grafana": "GF_"}


def by_name(name: str) -> Service:
    return Service(name, SERVICES[name])


def container_port(mapping: str | dict[str, Any]) -> int:
    if isinstance(mapping, dict):
        return int(mapping["target"])
    return int(str(mapping).split("/")[0].rsplit(":", 1)[-1])


def test_compose_has_every_part_of_an_arena() -> None:
    commands = {i.command for s in arena_services() for i in s.invocations()}
    assert commands >= {
        "referee serve",
        "api serve",
        "worker",
        "leaderboard serve",
        "bot serve",
        "bot register",
    }
    images = {s.image.split(":")[0] for s in services()}
    assert images >= {"card-arena", "redis", "prom/prometheus", "grafana/grafana"}
    bots = [s for s in arena_services() if s.invocations()[0].command == "bot serve"]
    assert 2 <= len(bots) <= 3
    workers = [s for s in arena_services() if s.invocations()[0].command == "worker"]
    assert sum(w.spec.get("deploy", {}).get("replicas", 1) for w in workers) >= 2


def test_images_are_the_project_image_or_pinned() -> None:
    for service in services():
        if service.is_arena:
            build = service.spec["build"]
            assert (COMPOSE.parent / build["context"]).resolve() == ROOT, service.name
            assert build["dockerfile"] == "deploy/Dockerfile", service.name
        else:
            assert "build" not in service.spec, service.name
            assert image_is_pinned(service.image), f"{service.name}: pin {service.image}"


@pytest.mark.parametrize("name", [s.name for s in arena_services()])
def test_arena_command_lines_parse(name: str) -> None:
    assert by_name(name).invocations(), f"{name} runs no arena command"


def test_servers_listen_on_every_interface() -> None:
    for service in arena_services():
        for invocation in service.invocations():
            assert invocation.bind_hosts() <= {ALL_INTERFACES}, service.name


def test_published_ports_are_ports_the_service_listens_on() -> None:
    for service in services():
        for mapping in service.spec.get("ports", []):
            assert container_port(mapping) in service.listen_ports(), (service.name, mapping)
            host = str(mapping).split(":")[0] if str(mapping).count(":") == 2 else ""
            assert host == "127.0.0.1", f"{service.name}: publish {mapping} on 127.0.0.1"


def test_healthchecks_probe_what_the_service_serves() -> None:
    for service in arena_services():
        health = service.spec.get("healthcheck")
        if health is None:
            continue
        test = health["test"]
        assert test[:2] == ["CMD", "arena-healthcheck"], service.name
        kind, address = test[2], test[3]
        host, port = address.rsplit(":", 1)
        assert host == "127.0.0.1"
        assert int(port) in service.listen_ports(), service.name
        (invocation,) = service.invocations()
        if kind == "grpc":
            assert int(port) == invocation.grpc_health_port, f"{service.name}: no gRPC health"
        else:
            assert kind == "tcp", service.name


def test_long_running_arena_services_have_healthchecks() -> None:
    for service in arena_services():
        if any(i.serves for i in service.invocations()):
            assert "healthcheck" in service.spec, service.name


def test_every_address_dialled_is_a_service_listening_there() -> None:
    for service in arena_services():
        for invocation in service.invocations():
            for dial in invocation.dials():
                assert dial.host in SERVICES, f"{service.name}: {dial} is not a service"
                target = by_name(dial.host)
                assert dial.port in target.listen_ports(), f"{service.name}: {dial}"


def test_services_wait_for_what_they_dial() -> None:
    for service in services():
        depends = service.spec.get("depends_on", {})
        for target, condition in depends.items():
            assert target in SERVICES, service.name
            if condition["condition"] == "service_healthy":
                assert "healthcheck" in SERVICES[target], f"{target} has no healthcheck"
        dialled = {d.host for i in service.invocations() for d in i.dials() if not d.handed_on}
        assert dialled <= set(depends), f"{service.name} should depend on {dialled}"


def test_environment_names_exist_in_the_code() -> None:
    in_code = arena_env_names_in_code()
    assert {"ARENA_REDIS_URL", "ARENA_REFEREES", "ARENA_VISIBILITY_TIMEOUT"} <= in_code
    for service in services():
        prefix = NOT_THE_ARENAS_ENV.get(service.image.split(":")[0])
        for name in service.env:
            if prefix is not None:
                assert name.startswith(prefix), (service.name, name)
            else:
                assert name in in_code | OTHER_ARENA_ENV, f"{service.name}: {name} is not read"


def test_api_and_workers_share_the_celery_settings() -> None:
    """The API queues matches with the same broker settings the workers consume with."""
    celery_env = {
        s.invocations()[0].command: {k: v for k, v in s.env.items() if k.startswith("ARENA_")}
        for s in arena_services()
        if s.invocations()[0].command in ("api serve", "worker")
    }
    assert celery_env["api serve"] == celery_env["worker"]
    assert float(celery_env["worker"]["ARENA_VISIBILITY_TIMEOUT"]) >= 3600


def test_multiprocess_metrics_directory_is_inside_a_tmpfs() -> None:
    """The worker empties and recreates PROMETHEUS_MULTIPROC_DIR at start: it cannot be a
    mount point itself."""
    for service in arena_services():
        directory = service.env.get("PROMETHEUS_MULTIPROC_DIR")
        if directory is None:
            continue
        mounts = [PurePosixPath(t.split(":")[0]) for t in service.spec.get("tmpfs", [])]
        path = PurePosixPath(directory)
        assert any(m in path.parents for m in mounts), service.name


def test_volumes_exist_and_redis_persists() -> None:
    declared = set(compose().get("volumes", {}))
    for service in services():
        for volume in service.spec.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (DEPLOY / source).exists(), f"{service.name}: {source} is missing"
            else:
                assert source in declared, f"{service.name}: declare volume {source}"
    redis = SERVICES["redis"]
    config_path = redis["command"][1]
    mounts = {v.split(":")[1]: v.split(":")[0] for v in redis["volumes"]}
    assert mounts[config_path] == "./redis.conf"
    assert mounts["/data"] in declared
    assert "appendonly yes" in (DEPLOY / "redis.conf").read_text()


def test_referees_keep_no_state_a_result_depends_on() -> None:
    """A match's record comes back with its result and is stored with it: a referee
    keeps no replay directory, so any replica can go and none is asked for a replay."""
    referees = 0
    for service in arena_services():
        for invocation in service.invocations():
            if invocation.command == "referee serve":
                referees += 1
                assert not invocation.args.replay_dir, service.name
                assert not service.spec.get("volumes"), service.name
    assert referees


def test_example_bots_exist_and_are_registered() -> None:
    bots = {}
    registered = set()
    for service in arena_services():
        for invocation in service.invocations():
            if invocation.command == "bot serve":
                assert invocation.args.name in EXAMPLES, service.name
                bots[service.name] = invocation
            if invocation.command == "bot register":
                registered.add(invocation.args.address.rsplit(":", 1)[0])
    assert registered == set(bots)


def prometheus_targets() -> dict[str, list[tuple[str, int]]]:
    targets: dict[str, list[tuple[str, int]]] = {}
    for job in load_yaml(PROMETHEUS / "prometheus.yml")["scrape_configs"]:
        found = targets.setdefault(job["job_name"], [])
        for static in job.get("static_configs", []):
            for target in static["targets"]:
                host, port = target.rsplit(":", 1)
                found.append((host, int(port)))
        for dns in job.get("dns_sd_configs", []):
            assert dns.get("type", "SRV") == "A", "compose DNS answers A records"
            found.extend((name, int(dns["port"])) for name in dns["names"])
    return targets


@pytest.mark.parametrize(
    ("job", "command"), [("arena-referee", "referee serve"), ("arena-worker", "worker")]
)
def test_prometheus_scrapes_the_metrics_ports(job: str, command: str) -> None:
    targets = prometheus_targets()[job]
    serving = {
        s.name: s.invocations()[0]
        for s in arena_services()
        if s.invocations()[0].command == command
    }
    assert {host for host, _ in targets} == set(serving)
    for host, port in targets:
        assert port == serving[host].metrics_port(), (job, host)


def test_prometheus_scrapes_itself() -> None:
    assert prometheus_targets()["prometheus"] == [("localhost", 9090)]


def test_bind_mount_sources_are_relative_to_the_compose_file() -> None:
    for service in services():
        for volume in service.spec.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert Path(DEPLOY / source).resolve().is_relative_to(DEPLOY), source


def test_each_server_and_its_callers_share_a_token_secret() -> None:
    """PlayMatch needs the token the workers send (and CheckBot the one the API sends,
    the same), the API's writes the one the registering service sends, and the API and
    the referee spare the leaderboard's costly reads and watching for the read token it
    sends: each group reads one secret file, kept out of git."""
    secrets = compose()["secrets"]
    assert set(secrets) == {"referee-token", "api-token", "read-token"}
    referee, worker = by_name("referee"), by_name("worker")
    api, register = by_name("api"), by_name("register-bots")
    web = by_name("leaderboard")
    assert referee.invocations()[0].args.token_file == "/run/secrets/referee-token"
    assert referee.invocations()[0].args.read_token_file == "/run/secrets/read-token"
    assert worker.invocations()[0].args.referee_token_file == "/run/secrets/referee-token"
    assert api.invocations()[0].args.token_file == "/run/secrets/api-token"
    assert api.invocations()[0].args.referee_token_file == "/run/secrets/referee-token"
    assert api.invocations()[0].args.read_token_file == "/run/secrets/read-token"
    assert web.invocations()[0].args.read_token_file == "/run/secrets/read-token"
    registrations = register.invocations()
    assert registrations and all(
        r.args.token_file == "/run/secrets/api-token" for r in registrations
    )
    for service, held in ((referee, ["referee-token", "read-token"]), (worker, ["referee-token"]),
                          (api, ["api-token", "read-token", "referee-token"]),
                          (register, ["api-token"]), (web, ["read-token"])):  # fmt: skip
        assert service.spec["secrets"] == held, service.name
    for secret in secrets.values():
        source = DEPLOY / secret["file"]
        ignored = subprocess.run(["git", "check-ignore", "-q", str(source)], cwd=ROOT)
        assert ignored.returncode == 0, f"{source} holds a secret: keep it out of git"
