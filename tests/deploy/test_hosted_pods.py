"""Hosted bots on Kubernetes, checked without a cluster: the pod template (rendered for
every runtime, with every security property the issue asks for), the NetworkPolicy that
leaves the pods nothing but the referee's connection, the referee's RBAC, and the pod
launcher (arena.hosting.kubernetes) against a small fake of the Kubernetes API on
127.0.0.1 that implements pods and their logs and records every request."""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import grpc
import pytest
import trustme

from arena import wire
from arena.bots.examples.house import HouseBot
from arena.bots.sdk import HOSTED_ADDRESS_ENV
from arena.bots.sdk import start as start_bot
from arena.hosting import runtimes
from arena.hosting.example_packages import HOUSE_BOT, PYTHON_COMMAND, python_package
from arena.hosting.kubernetes import (
    BOT_PORT,
    EPHEMERAL_STORAGE,
    POD_RUNTIMES,
    USER,
    HostedPod,
    KubernetesApi,
    KubernetesError,
    Launched,
    PodLauncher,
    load_templates,
    pod_name,
    templates,
)
from arena.hosting.package import digest, pack
from arena.hosting.sandbox import Limits, Sandbox, SandboxError
from arena.referee.hosted import KILLED
from arena.referee.service import start_server
from arena.v1 import referee_pb2, referee_pb2_grpc
from tests.deploy.support import (
    K8S,
    PROJECT_IMAGE,
    ROOT,
    k8s_documents,
    load_yaml,
    load_yaml_documents,
)

HOSTED = K8S / "hosted-bot"
DIGEST = "ab" * 32
COMMANDS = {"python3.11": ["python3", "bot.py"], "node20": ["node", "bot.js"], "binary": ["./bot"]}
DNS_LABEL = re.compile(r"^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$")
COMPONENT = "app.kubernetes.io/component"


def pod_templates() -> dict[str, dict[str, Any]]:
    docs = load_yaml_documents(HOSTED / "pod.yaml")
    found = {doc["metadata"]["labels"]["card-arena/runtime"]: doc for doc in docs}
    assert len(found) == len(docs)
    return found


def kustomized(kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in k8s_documents() if d["kind"] == kind}


def policy() -> dict[str, Any]:
    return kustomized("NetworkPolicy")["hosted-bots"]


def parse_quantity(value: str | int) -> float:
    """A Kubernetes quantity (``250m``, ``1``, ``2048Mi``, ``2Gi``) as a number."""
    text = str(value)
    units = {"m": 1e-3, "k": 1e3, "M": 1e6, "G": 1e9, "Ki": 1 << 10, "Mi": 1 << 20, "Gi": 1 << 30}
    for unit in sorted(units, key=len, reverse=True):
        if text.endswith(unit):
            return float(text[: -len(unit)]) * units[unit]
    return float(text)


def launcher(api: KubernetesApi | None = None, **options: Any) -> PodLauncher:
    return PodLauncher(api or KubernetesApi("http://127.0.0.1:1", token="t"), **options)


def render(runtime: str, limits: Limits | None = None, **options: Any) -> dict[str, Any]:
    return launcher(**options).render(
        Path("/var/lib/arena/packages") / DIGEST,
        runtime,
        COMMANDS[runtime],
        limits or Limits(),
        name=pod_name(2),
        match_id="t1-m7-a",
        seat=2,
    )


# --- the template -------------------------------------------------------------------


def test_there_is_a_template_per_runtime_and_the_launcher_carries_it() -> None:
    found = pod_templates()
    assert set(found) == set(runtimes.NAMES) == set(POD_RUNTIMES)
    assert templates() == found, "arena/hosting/kubernetes.py's copy differs from pod.yaml"
    for doc in found.values():
        assert (doc["apiVersion"], doc["kind"]) == ("v1", "Pod")
        assert doc["metadata"]["namespace"] == "card-arena"


def test_an_edited_template_can_be_given_to_the_referee_as_json_or_yaml(tmp_path: Path) -> None:
    assert load_templates(HOSTED / "pod.yaml") == templates()
    as_kubectl_writes_it = {"apiVersion": "v1", "kind": "List", "items": list(templates().values())}
    (tmp_path / "pod.json").write_text(json.dumps(as_kubectl_writes_it))
    assert load_templates(tmp_path / "pod.json") == templates()
    one_after_another = "\n".join(json.dumps(doc, indent=4) for doc in templates().values())
    (tmp_path / "stream.json").write_text(one_after_another)
    assert load_templates(tmp_path / "stream.json") == templates()
    (tmp_path / "bad.json").write_text(json.dumps({"kind": "Service", "metadata": {}}))
    with pytest.raises(SandboxError, match="must be a Pod labelled card-arena/runtime"):
        load_templates(tmp_path / "bad.json")


def test_the_template_and_the_claim_are_not_resources_but_the_policy_and_rbac_are() -> None:
    listed = load_yaml(K8S / "kustomization.yaml")["resources"]
    assert "hosted-bot/pod.yaml" not in listed
    assert "hosted-bot/packages.yaml" not in listed
    assert "hosted-bot/network-policy.yaml" in listed
    assert "hosted-bots" in kustomized("NetworkPolicy")
    assert {"ServiceAccount", "Role", "RoleBinding"} <= {d["kind"] for d in k8s_documents()}


def test_runtime_images_are_pinned() -> None:
    found = {name: doc["spec"]["containers"][0]["image"] for name, doc in pod_templates().items()}
    assert found["python3.11"] == PROJECT_IMAGE
    assert re.fullmatch(r"node:20\.\d+\.\d+(-[a-z]+)*(@sha256:[0-9a-f]{64})?", found["node20"])
    assert re.fullmatch(
        r"gcr\.io/distroless/static[-\w]*(:[\w.-]+)?@sha256:[0-9a-f]{64}", found["binary"]
    )


HOST_SHARING = ("hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace")
CREDENTIAL_VOLUMES = {"hostPath", "secret", "configMap", "projected", "downwardAPI"}
CONTAINER_SECURITY = {
    "allowPrivilegeEscalation": False,
    "privileged": False,
    "readOnlyRootFilesystem": True,
    "capabilities": {"drop": ["ALL"]},
}


def assert_parity(pod: dict[str, Any], limits: Limits) -> None:
    """Every guarantee of docs/architecture.md's "Which launcher gives which guarantee"
    that a pod spec can hold, field by field: each is written out, not left to a default
    that a cluster or a later Kubernetes may choose otherwise."""
    spec = pod["spec"]
    # A fresh identity: no namespace of the node or of another container, a user
    # namespace of its own (hostUsers), and a fixed user that is not root.
    for shared in HOST_SHARING:
        assert spec[shared] is False, shared
    assert spec["hostUsers"] is False
    security = spec["securityContext"]
    assert security["runAsNonRoot"] is True
    assert security["runAsUser"] == security["runAsGroup"] == USER != 0
    # A seccomp filter, no privileges, no capabilities, a read-only root; and nothing of
    # the container's own loosens the pod's (no user, profile or procMount of its own).
    assert security["seccompProfile"] == {"type": "RuntimeDefault"}
    assert not spec.get("initContainers") and not spec.get("ephemeralContainers")
    (container,) = spec["containers"]
    assert container["securityContext"] == CONTAINER_SECURITY

    # Whole-pod limits from the sandbox's Limits: one container, so its limits are the
    # pod's; its memory /tmp (a tmpfs of tmp_bytes) is charged to the same memory limit.
    resources = container["resources"]
    kinds = {"cpu", "memory", "ephemeral-storage"}
    assert set(resources["limits"]) == set(resources["requests"]) == kinds
    assert parse_quantity(resources["limits"]["memory"]) == limits.box_memory_bytes
    assert parse_quantity(resources["limits"]["cpu"]) == 1
    assert parse_quantity(resources["limits"]["ephemeral-storage"]) == parse_quantity(
        EPHEMERAL_STORAGE
    )
    for kind in kinds:
        request, limit = (parse_quantity(resources[k][kind]) for k in ("requests", "limits"))
        assert 0 < request <= limit, kind
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert volumes["tmp"]["emptyDir"]["medium"] == "Memory"
    assert parse_quantity(volumes["tmp"]["emptyDir"]["sizeLimit"]) == limits.tmp_bytes

    # No service token, nor any other credential: no account of its own, no token
    # mounted, no Secret, ConfigMap, projected or host volume, no Services in its env.
    assert spec["automountServiceAccountToken"] is False
    assert spec["enableServiceLinks"] is False
    assert "serviceAccountName" not in spec and "serviceAccount" not in spec
    for volume in volumes.values():
        assert set(volume) & CREDENTIAL_VOLUMES == set(), volume["name"]
    assert all("valueFrom" not in e for e in container["env"]) and "envFrom" not in container

    # No network but the referee's connection in: the NetworkPolicy selects it.
    selector = policy()["spec"]["podSelector"]["matchLabels"]
    assert selector.items() <= pod["metadata"]["labels"].items()


@pytest.mark.parametrize("runtime", runtimes.NAMES)
def test_the_templates_in_deploy_k8s_give_every_guarantee(runtime: str) -> None:
    assert_parity(pod_templates()[runtime], Limits())


@pytest.mark.parametrize(
    "limits",
    [Limits(), Limits(box_memory_bytes=512 << 20, tmp_bytes=8 << 20)],
    ids=["default", "small"],
)
@pytest.mark.parametrize("runtime", runtimes.NAMES)
def test_a_rendered_pod_has_every_security_property(runtime: str, limits: Limits) -> None:
    pod = render(runtime, limits)
    assert_parity(pod, limits)
    spec = pod["spec"]
    assert DNS_LABEL.match(pod["metadata"]["name"])
    assert spec["restartPolicy"] == "Never"
    assert isinstance(spec["activeDeadlineSeconds"], int) and spec["activeDeadlineSeconds"] > 0
    assert "nodeName" not in spec
    (container,) = spec["containers"]

    # Volumes: the package, read-only twice over, by its digest; /tmp a small tmpfs.
    volumes = {v["name"]: v for v in spec["volumes"]}
    assert set(volumes) == {"package", "tmp"}
    assert volumes["package"]["persistentVolumeClaim"]["readOnly"] is True
    claim = load_yaml(HOSTED / "packages.yaml")
    assert volumes["package"]["persistentVolumeClaim"]["claimName"] == claim["metadata"]["name"]
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    assert set(mounts) == {"/bot", "/tmp"}
    assert mounts["/bot"] == {
        "name": "package",
        "mountPath": "/bot",
        "subPath": DIGEST,
        "readOnly": True,
    }
    assert mounts["/tmp"]["name"] == "tmp" and not mounts["/tmp"].get("readOnly")
    assert container["workingDir"] == "/bot"

    # Where it listens.
    env = {e["name"]: e for e in container["env"]}
    assert env["ARENA_BOT_ADDRESS"]["value"] == f"0.0.0.0:{BOT_PORT}"
    assert [p["containerPort"] for p in container["ports"]] == [BOT_PORT]


def test_the_kubelet_note_bounds_processes_and_swap_and_the_log_fits_the_disk_limit() -> None:
    """What a pod spec cannot say, the nodes' kubelet does: processes per pod (the
    sandbox's Limits.processes, and the pod's pause process), no swap; and the log it
    keeps of a bot, rotated, stays under the pod's ephemeral-storage limit, so that a
    chatty bot is not evicted for output the kubelet drops anyway."""
    (config,) = load_yaml_documents(HOSTED / "kubelet-config.yaml")
    assert (config["apiVersion"], config["kind"]) == (
        "kubelet.config.k8s.io/v1beta1",
        "KubeletConfiguration",
    )
    assert config["podPidsLimit"] == Limits().processes + 1
    assert config["memorySwap"] == {"swapBehavior": "NoSwap"}
    kept = parse_quantity(config["containerLogMaxSize"]) * config["containerLogMaxFiles"]
    assert kept < parse_quantity(EPHEMERAL_STORAGE)


def test_the_architecture_page_says_which_launcher_gives_which_guarantee() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text()
    heading = "### Which launcher gives which guarantee"
    assert heading in text
    section = text.split(heading, 1)[1].split("\n#", 1)[0]
    rows = [line for line in section.splitlines() if line.startswith("|")]
    header = [cell.strip() for cell in rows[0].strip("|").split("|")]
    assert header[1:] == ["bubblewrap (local)", "Kubernetes pod"]
    guarantees = [row.strip("|").split("|")[0].strip().lower() for row in rows[2:]]
    for wanted in (
        "fresh identity",
        "seccomp",
        "memory",
        "frozen between turns",
        "masked host counters",
        "minimal filesystem",
        "no network",
        "no service token",
    ):
        assert any(wanted in row for row in guarantees), wanted
    kubernetes = " ".join(row.strip("|").split("|")[2] for row in rows[2:])
    for field_ in (
        "hostUsers",
        "seccompProfile",
        "podPidsLimit",
        "readOnlyRootFilesystem",
        "automountServiceAccountToken",
        "hosted-bots",
    ):
        assert field_ in kubernetes, field_


@pytest.mark.parametrize("runtime", runtimes.NAMES)
def test_the_command_carries_the_kernel_limits_where_the_image_can(runtime: str) -> None:
    limits = Limits(cpu_s=30, memory_bytes=512 << 20, open_files=64, file_bytes=1 << 20)
    (container,) = render(runtime, limits)["spec"]["containers"]
    argv = container["command"]
    program = {
        "python3.11": ["/usr/local/bin/python3.11", "bot.py"],
        "node20": ["/usr/local/bin/node", "bot.js"],
        "binary": ["/bot/bot"],
    }[runtime]
    if runtime == "binary":  # distroless static has no prlimit
        assert argv == program
        return
    assert argv == [
        "/usr/bin/prlimit",
        "--cpu=30:31",
        "--as=536870912",
        "--nofile=64",
        "--fsize=1048576",
        "--core=0",
        "--",
        *program,
    ]


def test_rendering_follows_the_limits_the_port_and_the_launcher_options() -> None:
    limits = Limits(box_memory_bytes=512 << 20, tmp_bytes=8 << 20)
    pod = render(
        "python3.11",
        limits,
        port=50099,
        lifetime_s=600,
        images={"python3.11": "registry.example/card-arena:0.1.0"},
        owner=("referee-abc", "uid-1"),
    )
    (container,) = pod["spec"]["containers"]
    assert container["resources"]["limits"] == {
        "cpu": "1",
        "memory": "512Mi",
        "ephemeral-storage": EPHEMERAL_STORAGE,
    }
    assert pod["spec"]["volumes"][1]["emptyDir"]["sizeLimit"] == "8Mi"
    assert pod["spec"]["activeDeadlineSeconds"] == 600
    assert container["image"] == "registry.example/card-arena:0.1.0"
    assert {"name": "ARENA_BOT_ADDRESS", "value": "0.0.0.0:50099"} in container["env"]
    assert container["ports"] == [{"name": "grpc", "containerPort": 50099}]
    assert pod["metadata"]["ownerReferences"][0]["uid"] == "uid-1"
    assert pod["metadata"]["labels"]["card-arena/seat"] == "2"
    assert pod["metadata"]["annotations"]["card-arena/match-id"] == "t1-m7-a"
    # The template itself is left as it was.
    assert templates()["python3.11"] == pod_templates()["python3.11"]


def test_a_package_not_named_by_its_digest_or_an_unknown_runtime_is_refused() -> None:
    with pytest.raises(SandboxError, match="SHA-256"):
        launcher().render(Path("/tmp/bot"), "python3.11", ["python3", "bot.py"], Limits(), name="x")
    with pytest.raises(SandboxError, match="no pod template"):
        launcher().render(Path(DIGEST), "java21", ["java"], Limits(), name="x")


def test_pod_names_are_fresh_dns_labels_that_say_nothing_of_the_match() -> None:
    """The pod's name is the bot's hostname: bots know a match only by a random token."""
    names = {pod_name(1) for _ in range(50)}
    assert len(names) == 50
    for name in names:
        assert DNS_LABEL.match(name) and name.startswith("hosted-bot-") and name.endswith("-s1")
    for seat in (0, 3, "North/South", "", "---"):
        assert DNS_LABEL.match(pod_name(seat)), seat
    pod = render("python3.11")
    assert "t1" not in pod["metadata"]["name"] and "m7" not in pod["metadata"]["name"]
    assert pod["metadata"]["labels"]["card-arena/match"] == "t1-m7-a"
    assert "hostname" not in pod["spec"] and "subdomain" not in pod["spec"]
    (container,) = pod["spec"]["containers"]
    assert "t1-m7-a" not in json.dumps(container), "nothing the bot can read names the match"


# --- the NetworkPolicy, the claim and the RBAC --------------------------------------


def test_hosted_bots_take_only_the_referees_connection_and_reach_nothing() -> None:
    spec = policy()["spec"]
    assert set(spec["policyTypes"]) == {"Ingress", "Egress"}
    assert not spec.get("egress"), "no egress rule at all: not DNS, not the API"
    (rule,) = spec["ingress"]
    assert rule["ports"] == [{"port": BOT_PORT, "protocol": "TCP"}]
    (peer,) = rule["from"]
    assert set(peer) == {"podSelector"}, "same namespace, by pod labels only: no ipBlock"
    assert set(peer["podSelector"]) == {"matchLabels"}
    from_labels = peer["podSelector"]["matchLabels"]
    selected = {
        (d["kind"], d["metadata"]["name"])
        for d in k8s_documents()
        if d["kind"] in ("Deployment", "StatefulSet", "Job")
        and from_labels.items() <= d["spec"]["template"]["metadata"]["labels"].items()
    }
    assert selected == {("Deployment", "referee")}
    # The hosted-bot selector locks down the templates' pods and no static workload.
    mine = spec["podSelector"]["matchLabels"]
    for doc in k8s_documents():
        if doc["kind"] in ("Deployment", "StatefulSet", "Job"):
            labels = doc["spec"]["template"]["metadata"]["labels"]
            assert not mine.items() <= labels.items(), doc["metadata"]["name"]
    for doc in pod_templates().values():
        assert mine.items() <= doc["metadata"]["labels"].items()


def test_the_package_claim_is_shared_read_write_many() -> None:
    claim = load_yaml(HOSTED / "packages.yaml")
    assert claim["kind"] == "PersistentVolumeClaim"
    assert claim["metadata"]["namespace"] == "card-arena"
    assert claim["spec"]["accessModes"] == ["ReadWriteMany"]
    assert parse_quantity(claim["spec"]["resources"]["requests"]["storage"]) > 0


def test_the_referee_may_make_read_and_delete_pods_and_nothing_more() -> None:
    (role,) = kustomized("Role").values()
    rules = {(tuple(r["apiGroups"]), tuple(r["resources"])): set(r["verbs"]) for r in role["rules"]}
    assert rules == {
        (("",), ("pods",)): {"create", "get", "delete"},
        (("",), ("pods/log",)): {"get"},
    }
    (binding,) = kustomized("RoleBinding").values()
    assert binding["roleRef"] == {
        "apiGroup": "rbac.authorization.k8s.io",
        "kind": "Role",
        "name": role["metadata"]["name"],
    }
    assert binding["subjects"] == [
        {"kind": "ServiceAccount", "name": "referee", "namespace": "card-arena"}
    ]
    assert set(kustomized("ServiceAccount")) == {"referee"}
    assert not kustomized("ClusterRole") and not kustomized("ClusterRoleBinding")
    accounts = {
        d["metadata"]["name"]: d["spec"]["template"]["spec"].get("serviceAccountName")
        for d in k8s_documents()
        if d["kind"] in ("Deployment", "StatefulSet", "Job")
    }
    assert accounts.pop("referee") == "referee"
    assert set(accounts.values()) == {None}, "only the referee uses its account"


# --- the launcher against a fake Kubernetes API -------------------------------------


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, list[str]]
    authorization: str | None
    body: Any


def running(ip: str = "127.0.0.1") -> dict[str, Any]:
    return {
        "phase": "Running",
        "podIP": ip,
        "containerStatuses": [{"name": "bot", "state": {"running": {"startedAt": "now"}}}],
    }


PENDING = {
    "phase": "Pending",
    "containerStatuses": [{"name": "bot", "state": {"waiting": {"reason": "ContainerCreating"}}}],
}
UNSCHEDULABLE = {
    "phase": "Pending",
    "conditions": [
        {
            "type": "PodScheduled",
            "status": "False",
            "reason": "Unschedulable",
            "message": "0/3 nodes are available: 3 Insufficient memory.",
        }
    ],
}
OOM_KILLED = {
    "phase": "Failed",
    "containerStatuses": [
        {"name": "bot", "state": {"terminated": {"reason": "OOMKilled", "exitCode": 137}}}
    ],
}
IMAGE_PULL = {
    "phase": "Pending",
    "containerStatuses": [
        {
            "name": "bot",
            "state": {"waiting": {"reason": "ImagePullBackOff", "message": "Back-off pulling"}},
        }
    ],
}


@dataclass
class FakeKubernetes:
    """Pods of one namespace: POST makes one, whose status then follows ``script`` (one
    entry per GET, the last one kept); GET, DELETE, and GET of its log (which honours
    ``limitBytes``, as the API does)."""

    token: str = "fake-token"
    namespace: str = "card-arena"
    script: list[dict[str, Any]] = field(default_factory=lambda: [PENDING, running()])
    log: bytes = b""
    refuse: tuple[int, str, str] | None = None
    pods: dict[str, dict[str, Any]] = field(default_factory=dict)
    statuses: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    requests: list[Request] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def handle(
        self, method: str, target: str, authorization: str | None, body: bytes
    ) -> tuple[int, bytes]:
        parts = urlsplit(target)
        parsed: Any = json.loads(body) if body else None
        with self.lock:
            self.requests.append(
                Request(method, parts.path, parse_qs(parts.query), authorization, parsed)
            )
            if authorization != f"Bearer {self.token}":
                return self.status(401, "Unauthorized", "Unauthorized")
            prefix = f"/api/v1/namespaces/{self.namespace}/pods"
            rest = parts.path.removeprefix(prefix).strip("/").split("/")
            name = rest[0]
            if method == "POST" and not name:
                if self.refuse:
                    return self.status(*self.refuse)
                name = parsed["metadata"]["name"]
                if name in self.pods:
                    return self.status(409, "AlreadyExists", f'pods "{name}" already exists')
                self.pods[name] = parsed
                self.statuses[name] = list(self.script)
                return 201, json.dumps({**parsed, "status": {"phase": "Pending"}}).encode()
            if name not in self.pods:
                return self.status(404, "NotFound", f'pods "{name}" not found')
            if method == "GET" and rest[1:] == ["log"]:
                limit = int(parse_qs(parts.query).get("limitBytes", ["0"])[0]) or None
                return 200, self.log[:limit]
            if method == "GET" and len(rest) == 1:
                script = self.statuses[name]
                status = script.pop(0) if len(script) > 1 else script[0]
                return 200, json.dumps({**self.pods[name], "status": status}).encode()
            if method == "DELETE" and len(rest) == 1:
                return 200, json.dumps(self.pods.pop(name)).encode()
        return self.status(405, "MethodNotAllowed", f"{method} {parts.path}")

    @staticmethod
    def status(code: int, reason: str, message: str) -> tuple[int, bytes]:
        body = {
            "kind": "Status",
            "status": "Failure",
            "reason": reason,
            "message": message,
            "code": code,
        }
        return code, json.dumps(body).encode()

    def set_status(self, name: str, status: dict[str, Any]) -> None:
        with self.lock:
            self.statuses[name] = [status]

    def made(self) -> list[Request]:
        return [r for r in self.requests if r.method == "POST"]


@pytest.fixture
def fake() -> Iterator[tuple[FakeKubernetes, KubernetesApi]]:
    with serving(FakeKubernetes()) as served:
        yield served


@contextlib.contextmanager
def serving(state: FakeKubernetes) -> Iterator[tuple[FakeKubernetes, KubernetesApi]]:
    """``state`` served over HTTP on 127.0.0.1, and a client of it."""

    class Handler(BaseHTTPRequestHandler):
        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            code, data = state.handle(
                self.command, self.path, self.headers.get("Authorization"), body
            )
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        do_GET = do_POST = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    api = KubernetesApi(f"http://127.0.0.1:{server.server_address[1]}", token=state.token)
    try:
        yield state, api
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def bot_port() -> Iterator[int]:
    """A port on 127.0.0.1 where "the bot" listens: the fake pod's IP is 127.0.0.1."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        yield listener.getsockname()[1]


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


def package(tmp_path: Path) -> Path:
    directory = tmp_path / "packages" / DIGEST
    directory.mkdir(parents=True)
    return directory


def test_start_creates_the_rendered_pod_and_close_saves_its_log_and_deletes_it(
    fake: tuple[FakeKubernetes, KubernetesApi], bot_port: int, tmp_path: Path
) -> None:
    state, api = fake
    state.log = b"".join(b"line %d of a chatty bot\n" % i for i in range(1000))
    limits = Limits(start_s=5, log_bytes=1000)
    pods = launcher(api, port=bot_port, poll_s=0.01)
    log_path = tmp_path / "logs" / "seat-2.log"

    async def run() -> HostedPod:
        hosted = await pods.start(
            package(tmp_path),
            "python3.11",
            ["python3", "bot.py"],
            log_path,
            limits,
            match_id="t1-m7-a",
            seat=2,
        )
        assert hosted.address == f"127.0.0.1:{bot_port}"
        assert hosted.describe_exit() == "nothing yet: it runs"
        assert [r.method for r in state.requests] == ["POST", "GET", "GET"]  # Pending, Running
        await hosted.close()
        await hosted.close()  # a second close asks nothing
        return hosted

    hosted = asyncio.run(run())
    (post,) = state.made()
    assert post.path == "/api/v1/namespaces/card-arena/pods"
    name = post.body["metadata"]["name"]
    assert post.body == pods.render(
        package_dir := tmp_path / "packages" / DIGEST,
        "python3.11",
        ["python3", "bot.py"],
        limits,
        name=name,
        match_id="t1-m7-a",
        seat=2,
    )
    assert package_dir.name == post.body["spec"]["containers"][0]["volumeMounts"][0]["subPath"]
    assert {r.authorization for r in state.requests} == {"Bearer fake-token"}

    # close: how it ended, then its log, then the deletion, at once.
    assert [(r.method, r.path.rsplit("/", 1)[-1]) for r in state.requests[3:]] == [
        ("GET", name),
        ("GET", "log"),
        ("DELETE", name),
    ]
    log_request, delete = state.requests[4], state.requests[5]
    assert log_request.query == {"container": ["bot"], "limitBytes": ["1000"]}
    assert delete.query == {"gracePeriodSeconds": ["0"]}
    assert name not in state.pods
    saved = log_path.read_bytes()
    assert saved.startswith(state.log[:1000])
    assert saved.endswith(b"\n[arena: output cut at 1000 bytes]\n")
    assert len(saved) < 1100
    assert hosted.describe_exit() == "SIGKILL: deleted by the arena"
    assert "line 40 of a chatty bot" in hosted.tail()


def test_a_pod_that_never_runs_is_an_error_naming_why_and_is_deleted(
    fake: tuple[FakeKubernetes, KubernetesApi], tmp_path: Path
) -> None:
    state, api = fake
    state.script = [UNSCHEDULABLE]
    pods = launcher(api, poll_s=0.02)
    with pytest.raises(SandboxError) as raised:
        asyncio.run(
            pods.start(
                package(tmp_path), "node20", ["node", "bot.js"], tmp_path / "l", Limits(start_s=0.3)
            )
        )
    message = str(raised.value)
    assert "did not start within 0.3 s" in message
    assert "Unschedulable: 0/3 nodes are available: 3 Insufficient memory." in message
    assert message.endswith("; it wrote nothing")
    assert state.requests[-1].method == "DELETE" and not state.pods


def test_an_oom_killed_pod_is_an_error_naming_the_limit_with_its_output(
    fake: tuple[FakeKubernetes, KubernetesApi], tmp_path: Path
) -> None:
    state, api = fake
    state.script = [PENDING, OOM_KILLED]
    state.log = b"loading the opening book\nallocating 3 GiB\n"
    with pytest.raises(SandboxError) as raised:
        asyncio.run(
            launcher(api, poll_s=0.01).start(
                package(tmp_path), "binary", ["./bot"], tmp_path / "l", Limits(start_s=5)
            )
        )
    message = str(raised.value)
    assert "ended before it listened: OOMKilled: its memory limit (1024 MiB)" in message
    assert message.endswith("; its output ends:\nloading the opening book\nallocating 3 GiB")
    assert "allocating" not in raised.value.reason, "the bot's words go to its author only"
    assert not state.pods


def test_an_image_that_cannot_be_pulled_fails_at_once(
    fake: tuple[FakeKubernetes, KubernetesApi], tmp_path: Path
) -> None:
    state, api = fake
    state.script = [IMAGE_PULL]
    with pytest.raises(SandboxError, match="cannot start: ImagePullBackOff: Back-off pulling"):
        asyncio.run(
            launcher(api, poll_s=0.01).start(
                package(tmp_path), "node20", ["node", "bot.js"], tmp_path / "l", Limits(start_s=30)
            )
        )
    # At once: the first status that says so ends the wait, which 30 s of polling every
    # 10 ms would otherwise fill with thousands of reads.
    reads = [r for r in state.requests if r.method == "GET" and not r.path.endswith("/log")]
    assert 1 <= len(reads) <= 3
    assert not state.pods


def test_a_running_pod_that_does_not_listen_is_an_error(
    fake: tuple[FakeKubernetes, KubernetesApi], tmp_path: Path
) -> None:
    state, api = fake
    port = closed_port()
    with pytest.raises(SandboxError, match=f"did not listen on port {port} within 0.3 s"):
        asyncio.run(
            launcher(api, port=port, poll_s=0.02).start(
                package(tmp_path),
                "python3.11",
                ["python3", "bot.py"],
                tmp_path / "l",
                Limits(start_s=0.3),
            )
        )
    assert not state.pods


def test_an_api_that_refuses_is_an_error_saying_so(
    fake: tuple[FakeKubernetes, KubernetesApi], tmp_path: Path
) -> None:
    state, api = fake
    state.refuse = (
        403,
        "Forbidden",
        'pods is forbidden: User "system:serviceaccount:card-arena:default" cannot create',
    )
    with pytest.raises(
        SandboxError, match=r"cannot create the bot's pod .*: 403 Forbidden: pods is forbidden"
    ):
        asyncio.run(
            launcher(api).start(package(tmp_path), "binary", ["./bot"], tmp_path / "l", Limits())
        )


def test_describe_exit_names_the_deadline_and_the_cpu_limit(
    fake: tuple[FakeKubernetes, KubernetesApi], bot_port: int, tmp_path: Path
) -> None:
    state, api = fake
    pods = launcher(api, port=bot_port, poll_s=0.01, lifetime_s=600)

    async def run() -> list[str]:
        said: list[str] = []
        for status in (
            {
                "phase": "Failed",
                "reason": "DeadlineExceeded",
                "message": "Pod was active on the node longer than the specified deadline",
            },
            {
                "phase": "Failed",
                "containerStatuses": [
                    {"name": "bot", "state": {"terminated": {"reason": "Error", "exitCode": 152}}}
                ],
            },
            {
                "phase": "Failed",
                "containerStatuses": [
                    {"name": "bot", "state": {"terminated": {"reason": "Error", "exitCode": 3}}}
                ],
            },
            {
                "phase": "Failed",
                "reason": "Evicted",
                "message": "The node was low on resource: memory.",
            },
        ):
            hosted = await pods.start(
                package(tmp_path / str(len(said))),
                "python3.11",
                ["python3", "bot.py"],
                tmp_path / "l",
                Limits(start_s=5),
            )
            state.set_status(hosted.name, status)
            await hosted.refresh()
            said.append(hosted.describe_exit())
            await hosted.close()
            assert hosted.describe_exit() == said[-1], "a pod that ended was not killed"
        return said

    assert asyncio.run(run()) == [
        "DeadlineExceeded: it ran for its whole lifetime (600 s)",
        "SIGXCPU: its CPU time limit",
        "status 3",
        "Evicted: The node was low on resource: memory.",
    ]


def test_the_token_file_is_read_again_for_every_request(
    fake: tuple[FakeKubernetes, KubernetesApi], bot_port: int, tmp_path: Path
) -> None:
    state, api = fake
    token = tmp_path / "token"
    token.write_text("first\n")
    rotating = KubernetesApi(api.base_url, token_file=token)
    state.token = "first"

    async def run() -> None:
        hosted = await launcher(rotating, port=bot_port, poll_s=0.01).start(
            package(tmp_path),
            "python3.11",
            ["python3", "bot.py"],
            tmp_path / "l",
            Limits(start_s=5),
        )
        token.write_text("second\n")  # the kubelet rotated it
        state.token = "second"
        await hosted.close()

    asyncio.run(run())
    assert [r.authorization for r in state.requests] == ["Bearer first"] * 3 + ["Bearer second"] * 3


def test_in_cluster_reads_the_service_account(tmp_path: Path) -> None:
    account = tmp_path / "serviceaccount"
    account.mkdir()
    (account / "token").write_text("in-cluster-token\n")
    (account / "namespace").write_text("arena-test")
    trustme.CA().cert_pem.write_to_path(str(account / "ca.crt"))
    environ = {"KUBERNETES_SERVICE_HOST": "10.96.0.1", "KUBERNETES_SERVICE_PORT": "443"}
    api = KubernetesApi.in_cluster(account, environ)
    assert api.base_url == "https://10.96.0.1:443"
    assert api.namespace == "arena-test"
    assert api.token_file == account / "token" and api.ca_file == account / "ca.crt"
    six = KubernetesApi.in_cluster(account, {**environ, "KUBERNETES_SERVICE_HOST": "fd00::1"})
    assert six.base_url == "https://[fd00::1]:443"
    with pytest.raises(KubernetesError, match="not in a Kubernetes pod"):
        KubernetesApi.in_cluster(account, {})
    with pytest.raises(KubernetesError, match="no service account token"):
        KubernetesApi.in_cluster(tmp_path / "nowhere", environ)


def test_an_unreachable_api_is_an_error_naming_it(tmp_path: Path) -> None:
    api = KubernetesApi(f"http://127.0.0.1:{closed_port()}", token="t", timeout_s=2)
    with pytest.raises(
        SandboxError, match=r"cannot reach the Kubernetes API at http://127\.0\.0\.1"
    ):
        asyncio.run(launcher(api).start(package(tmp_path), "binary", ["./bot"], tmp_path / "l"))


def test_both_launchers_give_the_referee_the_same_shape() -> None:
    for cls in (Sandbox, HostedPod):
        assert {"address", "log_path"} <= set(cls.__dataclass_fields__), cls
        assert asyncio.iscoroutinefunction(cls.close), cls
        assert callable(cls.describe_exit) and callable(cls.tail), cls
    launched: list[type[Launched]] = [Sandbox, HostedPod]  # and mypy checks the Protocol
    assert launched


# --- a real referee, whose hosted bots are (fake) pods --------------------------------


@dataclass
class PodsOfBots(FakeKubernetes):
    """The fake API, whose pods are real bots: a POST starts a house bot on ``loop``
    where the pod's ARENA_BOT_ADDRESS says, on a loopback IP of its own (the pod's IP),
    and reports the pod Running there; a DELETE stops that bot."""

    loop: asyncio.AbstractEventLoop | None = None
    bots: dict[str, grpc.aio.Server] = field(default_factory=dict)
    started: int = 0

    def handle(
        self, method: str, target: str, authorization: str | None, body: bytes
    ) -> tuple[int, bytes]:
        code, data = super().handle(method, target, authorization, body)
        assert self.loop is not None
        if method == "POST" and code == 201:
            pod = json.loads(data)
            name = pod["metadata"]["name"]
            (container,) = pod["spec"]["containers"]
            env = {e["name"]: e.get("value", "") for e in container["env"]}
            port = int(env[HOSTED_ADDRESS_ENV].rpartition(":")[2])
            with self.lock:
                self.started += 1
                ip = f"127.0.0.{1 + self.started}"
            bot = start_bot(HouseBot(), port=port, host=ip)
            server, _ = asyncio.run_coroutine_threadsafe(bot, self.loop).result(10)
            self.bots[name] = server
            self.set_status(name, running(ip))
        elif method == "DELETE" and code == 200:
            server = self.bots.pop(urlsplit(target).path.rsplit("/", 1)[-1])
            asyncio.run_coroutine_threadsafe(server.stop(None), self.loop).result(10)
        return code, data


def test_a_referee_with_the_pod_launcher_plays_a_match_with_a_hosted_bot(tmp_path: Path) -> None:
    blob = pack(python_package(tmp_path / "house", HOUSE_BOT))
    sha = digest(blob)
    state = PodsOfBots(log=b"bot house listening on 0.0.0.0\n")

    async def scenario(api: KubernetesApi) -> referee_pb2.MatchResult:
        state.loop = asyncio.get_running_loop()
        pods = PodLauncher(api, port=closed_port(), poll_s=0.01)
        remote, remote_port = await start_bot(HouseBot(), port=0)
        server, port = await start_server(
            port=0,
            replay_dir=tmp_path / "replays",
            hosting_dir=tmp_path / "hosting",
            launcher=pods,
        )
        try:
            async with grpc.aio.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = referee_pb2_grpc.RefereeStub(channel)
                hosted = referee_pb2.HostedBot(
                    package=blob, package_sha256=sha, runtime="python3.11", command=PYTHON_COMMAND
                )
                result: referee_pb2.MatchResult = await stub.PlayMatch(
                    referee_pb2.PlayMatchRequest(
                        game="bid-euchre",
                        bots=["", f"127.0.0.1:{remote_port}"],
                        hosted={0: hosted},
                        seed=3,
                        options={"max_hands": "1"},
                        move_deadline=wire.duration(2.0),
                        match_id="on-pods",
                    ),
                    timeout=120,
                )
                return result
        finally:
            await server.stop(grace=None)
            await remote.stop(None)

    with serving(state) as (_, api):
        result = asyncio.run(scenario(api))

    assert result.end == referee_pb2.MATCH_END_COMPLETED and not result.faults
    posts = state.made()
    deletes = [r for r in state.requests if r.method == "DELETE"]
    assert len(posts) == len(deletes) == 2  # one pod per hosted seat
    names = {post.body["metadata"]["name"] for post in posts}
    assert {d.path.rsplit("/", 1)[-1] for d in deletes} == names
    assert {post.body["metadata"]["labels"]["card-arena/seat"] for post in posts} == {"0", "2"}
    for post in posts:
        assert_parity(post.body, Limits())  # what the API is asked to make, as it is asked
        assert post.body["metadata"]["annotations"]["card-arena/match-id"] == "on-pods"
        (container,) = post.body["spec"]["containers"]
        assert container["volumeMounts"][0]["subPath"] == sha
        assert container["command"][-2:] == ["/usr/local/bin/python3.11", "bot.py"]
    assert not state.pods and not state.bots
    logs = {log.seat: log for log in result.seat_logs}
    assert sorted(logs) == [0, 2]
    for log in logs.values():
        assert log.output == state.log and log.exit == KILLED
