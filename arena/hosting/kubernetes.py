"""Hosted bots on Kubernetes: one pod per seat per match, in the shape of ``Sandbox``.

``PodLauncher.start`` renders the pod template of deploy/k8s/hosted-bot/pod.yaml for one
seat (a copy of it lives here, as ``template``: the referee's image has no YAML parser,
and tests/deploy/test_hosted_pods.py keeps the two equal), creates the pod through the
Kubernetes API, waits until it runs, has an IP and accepts connections on the bot's port,
and returns a ``HostedPod``: ``address`` (``podIP:50061``) is what the referee dials,
``close()`` saves the bot's log and deletes the pod, ``describe_exit()`` says how it
ended (``OOMKilled``, ``DeadlineExceeded``, a signal, a status).

The package reaches the pod as a directory of a volume the referee shares with its bots'
pods (the ``hosted-packages`` claim), mounted read-only at ``/bot`` with ``subPath`` =
the package's SHA-256: the directory the referee unpacked it into is named by it.

The template gives a pod what the local sandbox gives its process, as far as a pod spec
can hold it, each field written out rather than left to a cluster's defaults: namespaces
of its own (no host network, PID or IPC, no shared process namespace) and a user
namespace (``hostUsers: false``), a fixed non-root user, the runtime's default seccomp
profile, no privileges or capabilities, a read-only root, no service account token and
no Services in its environment. The NetworkPolicy of deploy/k8s/hosted-bot lets only the
referee in and nothing out. Which launcher gives which guarantee: docs/architecture.md.

Limits (``arena.hosting.sandbox.Limits``) become the container's memory limit
(``box_memory_bytes``: the whole pod's, as the pod has one container, and its memory-backed
``/tmp`` counts in it) and a CPU rate of one core, the size of that tmpfs
(``tmp_bytes``), kernel resource limits set by ``prlimit`` before the bot starts (CPU
seconds, address space, open files, file size) in the images that have it (python3.11,
node20; not distroless static), the wait for the bot to listen (``start_s``) and the log
kept (``log_bytes``). Processes and swap are the node's to bound (the kubelet's
``podPidsLimit`` and ``memorySwap``: deploy/k8s/hosted-bot/kubelet-config.yaml): a pod
spec cannot.

The API is spoken with the standard library (``http.client`` in a thread): in a pod,
``KubernetesApi.in_cluster()`` reads the service account's token (again for every
request, as the kubelet rotates it), CA and namespace; elsewhere give a base URL and a
token.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import hashlib
import http.client
import importlib
import json
import os
import re
import secrets
import ssl
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode, urlsplit

import arena
from arena.bots.sdk import HOSTED_ADDRESS_ENV
from arena.hosting.pool import Launched as Launched  # what both launchers give
from arena.hosting.runtimes import Runtime, RuntimeUnavailable
from arena.hosting.sandbox import Limits, SandboxError, exit_words, log_tail

BOT_PORT = 50061
NAMESPACE = "card-arena"
CONTAINER = "bot"
PACKAGE_VOLUME = "package"
TMP_VOLUME = "tmp"
PACKAGES_CLAIM = "hosted-packages"
PACKAGE_PLACEHOLDER = "PACKAGE_SHA256"
PRLIMIT = "/usr/bin/prlimit"
USER = 10001
"""The arena image's user, who also owns the unpacked packages the bot reads."""
LIFETIME_S = 21600
"""activeDeadlineSeconds: a backstop for a pod whose referee died before deleting it."""
CPU_LIMIT = "1"
EPHEMERAL_STORAGE = "128Mi"
"""The node's disk a pod may fill before the kubelet evicts it: only its log does (the
root is read-only, /tmp is memory, the package another volume), which the kubelet
rotates at containerLogMaxSize x containerLogMaxFiles (50 MiB by default)."""
REQUESTS = {"cpu": "250m", "memory": "256Mi", "ephemeral-storage": "16Mi"}
SERVICE_ACCOUNT = Path("/var/run/secrets/kubernetes.io/serviceaccount")
COMPONENT_LABELS = {
    "app.kubernetes.io/name": "card-arena",
    "app.kubernetes.io/component": "hosted-bot",
    "app.kubernetes.io/part-of": "card-arena",
}
RUNTIME_LABEL = "card-arena/runtime"
MATCH_LABEL = "card-arena/match"
SEAT_LABEL = "card-arena/seat"
MATCH_ANNOTATION = "card-arena/match-id"
MiB = 1 << 20

# A container that waits for one of these will not start by waiting longer.
_HOPELESS = {
    "ErrImagePull",
    "ImagePullBackOff",
    "InvalidImageName",
    "ErrImageNeverPull",
    "CreateContainerConfigError",
    "CreateContainerError",
    "RunContainerError",
    "CrashLoopBackOff",
}
_DIGEST = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class PodRuntime:
    """A runtime of the allow-list as a pod runs it: its image, the words a command may
    start with and the executable each runs there, and whether the image has prlimit."""

    name: str
    image: str
    programs: tuple[tuple[str, str], ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    rlimits: bool = True

    def program(self, word: str) -> str | None:
        return dict(self.programs).get(word)


_PYTHON = "/usr/local/bin/python3.11"
POD_RUNTIMES = {
    "python3.11": PodRuntime(
        "python3.11",
        f"card-arena:{arena.__version__}",
        programs=tuple((word, _PYTHON) for word in ("python3.11", "python3", "python")),
        env=(("PYTHONDONTWRITEBYTECODE", "1"),),
    ),
    "node20": PodRuntime(
        "node20", "node:20.19.5-bookworm-slim", programs=(("node", "/usr/local/bin/node"),)
    ),
    "binary": PodRuntime(
        "binary",
        "gcr.io/distroless/static-debian12:nonroot@sha256:"
        "d093aa3e30dbadd3efe1310db061a14da60299baff8450a17fe0ccc514a16639",
        rlimits=False,
    ),
}
_EXAMPLE_COMMANDS = {"python3.11": ["python3", "bot.py"], "node20": ["node", "bot.js"]}


def template(runtime: str) -> dict[str, Any]:
    """The pod template of ``runtime``: the document of deploy/k8s/hosted-bot/pod.yaml
    labelled with it, as YAML would load it."""
    spec = POD_RUNTIMES[runtime]
    env = [
        {"name": name, "value": value}
        for name, value in (
            (HOSTED_ADDRESS_ENV, f"0.0.0.0:{BOT_PORT}"),
            ("HOME", "/tmp"),
            *spec.env,
        )
    ]
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": "hosted-bot-" + runtime.replace(".", "-"),
            "namespace": NAMESPACE,
            "labels": {**COMPONENT_LABELS, RUNTIME_LABEL: runtime},
        },
        "spec": {
            "restartPolicy": "Never",
            "activeDeadlineSeconds": LIFETIME_S,
            "automountServiceAccountToken": False,
            "enableServiceLinks": False,
            "hostNetwork": False,
            "hostPID": False,
            "hostIPC": False,
            "shareProcessNamespace": False,
            "hostUsers": False,
            "securityContext": {
                "runAsNonRoot": True,
                "runAsUser": USER,
                "runAsGroup": USER,
                "seccompProfile": {"type": "RuntimeDefault"},
            },
            "containers": [
                {
                    "name": CONTAINER,
                    "image": spec.image,
                    "imagePullPolicy": "IfNotPresent",
                    "command": command(spec, _EXAMPLE_COMMANDS.get(runtime, ["bot"]), Limits()),
                    "workingDir": "/bot",
                    "env": env,
                    "ports": [{"name": "grpc", "containerPort": BOT_PORT}],
                    "resources": {"requests": dict(REQUESTS), "limits": resources(Limits())},
                    "securityContext": {
                        "allowPrivilegeEscalation": False,
                        "privileged": False,
                        "readOnlyRootFilesystem": True,
                        "capabilities": {"drop": ["ALL"]},
                    },
                    "volumeMounts": [
                        {
                            "name": PACKAGE_VOLUME,
                            "mountPath": "/bot",
                            "subPath": PACKAGE_PLACEHOLDER,
                            "readOnly": True,
                        },
                        {"name": TMP_VOLUME, "mountPath": "/tmp"},
                    ],
                }
            ],
            "volumes": [
                {
                    "name": PACKAGE_VOLUME,
                    "persistentVolumeClaim": {"claimName": PACKAGES_CLAIM, "readOnly": True},
                },
                {
                    "name": TMP_VOLUME,
                    "emptyDir": {"medium": "Memory", "sizeLimit": quantity(Limits().tmp_bytes)},
                },
            ],
        },
    }


def templates() -> dict[str, dict[str, Any]]:
    return {name: template(name) for name in POD_RUNTIMES}


def load_templates(path: Path) -> dict[str, dict[str, Any]]:
    """Pod templates from a file, by runtime (their ``card-arena/runtime`` label): JSON,
    as ``kubectl create --dry-run=client -o json -f pod.yaml`` writes it (the arena's
    image has no YAML parser), or YAML where PyYAML is installed."""
    text = path.read_text()
    try:
        docs = _json_documents(text)
    except ValueError:
        try:
            yaml = importlib.import_module("yaml")
        except ImportError:
            raise SandboxError(
                f"{path} is not JSON, and PyYAML is not installed to read YAML: convert it "
                f"with `kubectl create --dry-run=client -o json -f {path.name}`"
            ) from None
        docs = [doc for doc in yaml.safe_load_all(text) if doc]
    found: dict[str, dict[str, Any]] = {}
    for doc in docs:
        runtime = doc.get("metadata", {}).get("labels", {}).get(RUNTIME_LABEL)
        if doc.get("kind") != "Pod" or runtime not in POD_RUNTIMES:
            raise SandboxError(f"{path}: each document must be a Pod labelled {RUNTIME_LABEL}")
        found[runtime] = doc
    return found


def _json_documents(text: str) -> list[Any]:
    """The objects of JSON text: one object, a ``List`` of them, or several in a row."""
    decoder, at = json.JSONDecoder(), 0
    docs: list[Any] = []
    while True:
        at = len(text) - len(text[at:].lstrip())  # the next object's first character
        if at == len(text):
            return docs
        doc, at = decoder.raw_decode(text, at)
        if isinstance(doc, dict) and doc.get("kind") == "List":
            docs.extend(doc.get("items", []))
        else:
            docs.extend(doc if isinstance(doc, list) else [doc])


def quantity(size: int) -> str:
    """Bytes as a Kubernetes quantity: ``2048Mi``, or plain bytes."""
    return f"{size // MiB}Mi" if size % MiB == 0 else str(size)


def resources(
    limits: Limits, cpu: str = CPU_LIMIT, ephemeral_storage: str = EPHEMERAL_STORAGE
) -> dict[str, str]:
    """The container's resource limits for ``limits``: its memory, which is the whole
    pod's (one container, whose memory ``/tmp`` is charged to it too); a CPU rate, as
    ``Limits`` bounds CPU seconds, which prlimit applies; and the node's disk (its log)."""
    return {
        "cpu": cpu,
        "memory": quantity(limits.box_memory_bytes),
        "ephemeral-storage": ephemeral_storage,
    }


def command(runtime: PodRuntime, argv: Sequence[str], limits: Limits) -> list[str]:
    """The container's command: prlimit with ``limits`` where the image has it, then a
    program of the runtime or a file of the package (at /bot), then its arguments.
    Processes are not limited here: RLIMIT_NPROC counts every process of the user on the
    node, whatever pod it is in."""
    program = runtime.program(argv[0]) or f"/bot/{argv[0].removeprefix('./')}"
    inner = [program, *argv[1:]]
    if not runtime.rlimits:
        return inner
    return [
        PRLIMIT,
        f"--cpu={limits.cpu_s}:{limits.cpu_s + 1}",  # SIGXCPU first, which names the limit
        f"--as={limits.memory_bytes}",
        f"--nofile={limits.open_files}",
        f"--fsize={limits.file_bytes}",
        "--core=0",
        "--",
        *inner,
    ]


def pod_name(seat: int | str) -> str:
    """A fresh pod name for a seat: ``hosted-bot-<random>-s<seat>``. The name is the
    bot's hostname, so it says nothing of the match: bots know a match only by a random
    token (the match and the seat are the pod's labels, which the bot cannot read)."""
    seat_part = re.sub(r"[^a-z0-9]", "", str(seat).lower())[:8] or "x"
    return f"hosted-bot-{secrets.token_hex(6)}-s{seat_part}"


def _label(text: str) -> str:
    """``text`` as a label value: at most 63 of [A-Za-z0-9._-], alphanumeric at both ends."""
    value = re.sub(r"[^A-Za-z0-9._-]+", "-", text)
    if len(value) > 63:
        value = value[:54] + "-" + hashlib.sha256(text.encode()).hexdigest()[:8]
    return re.sub(r"^[^A-Za-z0-9]+|[^A-Za-z0-9]+$", "", value)


# --- the Kubernetes API -------------------------------------------------------------


class KubernetesError(RuntimeError):
    """The API refused a request or could not be reached; ``status`` 0 for the latter."""

    def __init__(self, status: int, reason: str, message: str) -> None:
        super().__init__(f"{status} {reason}: {message}" if status else message)
        self.status, self.reason, self.message = status, reason, message


class KubernetesApi:
    """Pods of one namespace through the Kubernetes REST API."""

    def __init__(
        self,
        base_url: str,
        namespace: str = NAMESPACE,
        *,
        token: str | None = None,
        token_file: Path | None = None,
        ca_file: Path | None = None,
        timeout_s: float = 10.0,
    ) -> None:
        parts = urlsplit(base_url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"not an http(s) URL: {base_url!r}")
        self.base_url = base_url.rstrip("/")
        self.namespace = namespace
        self.token, self.token_file, self.ca_file = token, token_file, ca_file
        self.timeout_s = timeout_s
        self._scheme, self._host, self._port = parts.scheme, parts.hostname, parts.port
        self._prefix = parts.path.rstrip("/")
        self._tls: ssl.SSLContext | None = None
        if parts.scheme == "https":
            self._tls = ssl.create_default_context(cafile=str(ca_file) if ca_file else None)

    @classmethod
    def in_cluster(
        cls, directory: Path = SERVICE_ACCOUNT, environ: Mapping[str, str] | None = None
    ) -> KubernetesApi:
        """The API as a pod sees it: ``KUBERNETES_SERVICE_HOST``/``_PORT``, and the token,
        CA and namespace its service account mounts in ``directory``."""
        env = os.environ if environ is None else environ
        host, port = env.get("KUBERNETES_SERVICE_HOST"), env.get("KUBERNETES_SERVICE_PORT")
        if not host or not port:
            raise KubernetesError(
                0, "", "not in a Kubernetes pod: KUBERNETES_SERVICE_HOST/PORT are not set"
            )
        token_file = directory / "token"
        if not token_file.is_file():
            raise KubernetesError(
                0, "", f"no service account token at {token_file}: the pod needs one"
            )
        namespace_file = directory / "namespace"
        namespace = namespace_file.read_text().strip() if namespace_file.is_file() else NAMESPACE
        where = f"[{host}]" if ":" in host else host
        return cls(
            f"https://{where}:{port}",
            namespace,
            token_file=token_file,
            ca_file=directory / "ca.crt",
        )

    def _bearer(self) -> str | None:
        if self.token_file is not None:
            return self.token_file.read_text().strip()
        return self.token

    def request(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        query: Mapping[str, str] | None = None,
    ) -> bytes:
        """One blocking request; the response's body, or KubernetesError."""
        target = self._prefix + path + (f"?{urlencode(query)}" if query else "")
        headers = {"Accept": "application/json"}
        if (token := self._bearer()) is not None:
            headers["Authorization"] = f"Bearer {token}"
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            headers["Content-Type"] = "application/json"
        connection: http.client.HTTPConnection
        if self._tls is not None:
            connection = http.client.HTTPSConnection(
                self._host, self._port, timeout=self.timeout_s, context=self._tls
            )
        else:
            connection = http.client.HTTPConnection(self._host, self._port, timeout=self.timeout_s)
        try:
            connection.request(method, target, body=payload, headers=headers)
            response = connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as error:
            raise KubernetesError(
                0, "", f"cannot reach the Kubernetes API at {self.base_url}: {error}"
            ) from None
        finally:
            connection.close()
        if response.status >= 300:
            reason, message = response.reason, data.decode("utf-8", "replace").strip()
            with contextlib.suppress(ValueError, AttributeError):
                status = json.loads(data)
                reason, message = status.get("reason") or reason, status.get("message") or message
            raise KubernetesError(response.status, reason, message)
        return data

    def _pods(self, name: str = "") -> str:
        path = f"/api/v1/namespaces/{quote(self.namespace, safe='')}/pods"
        return f"{path}/{quote(name, safe='')}" if name else path

    async def create_pod(self, pod: Mapping[str, Any]) -> dict[str, Any]:
        data = await asyncio.to_thread(self.request, "POST", self._pods(), pod)
        created: dict[str, Any] = json.loads(data)
        return created

    async def get_pod(self, name: str) -> dict[str, Any]:
        data = await asyncio.to_thread(self.request, "GET", self._pods(name))
        pod: dict[str, Any] = json.loads(data)
        return pod

    async def delete_pod(self, name: str) -> None:
        """Delete at once (grace 0); a pod that is already gone is fine."""
        try:
            await asyncio.to_thread(
                self.request, "DELETE", self._pods(name), None, {"gracePeriodSeconds": "0"}
            )
        except KubernetesError as error:
            if error.status != 404:
                raise

    async def pod_log(self, name: str, container: str, limit_bytes: int) -> bytes:
        """The container's output, at most ``limit_bytes`` of it (the API cuts it)."""
        query = {"container": container, "limitBytes": str(limit_bytes)}
        data = await asyncio.to_thread(self.request, "GET", self._pods(name) + "/log", None, query)
        return data[:limit_bytes]


# --- launching ----------------------------------------------------------------------


class PodLauncher:
    """Starts hosted bots as pods, one per seat per match (``start``)."""

    def __init__(
        self,
        api: KubernetesApi,
        *,
        templates: Mapping[str, Mapping[str, Any]] | None = None,
        images: Mapping[str, str] | None = None,
        port: int = BOT_PORT,
        lifetime_s: int | None = None,
        start_grace_s: float = 0.0,
        poll_s: float = 0.2,
        owner: tuple[str, str] | None = None,
    ) -> None:
        """``templates`` by runtime name (default: ``templates()``, pod.yaml's copy);
        ``images`` replace a runtime's image (the arena image from your registry);
        ``lifetime_s`` replaces activeDeadlineSeconds; ``start_grace_s`` is added to
        ``Limits.start_s`` for scheduling and image pulls; ``owner`` (the referee pod's
        name and uid) makes each bot's pod go with the referee's."""
        self.api = api
        self.templates = {k: copy.deepcopy(dict(v)) for k, v in (templates or _TEMPLATES).items()}
        self.images = dict(images or {})
        self.port, self.lifetime_s, self.owner = port, lifetime_s, owner
        self.start_grace_s, self.poll_s = start_grace_s, poll_s

    def runtime(self, name: str, /) -> Runtime:
        """The runtime called ``name`` as its pod runs it: checked by name only (the
        referee's own image need not have it); RuntimeUnavailable without a template."""
        spec = POD_RUNTIMES.get(name)
        if spec is None or name not in self.templates:
            raise RuntimeUnavailable(f"{name}: no pod template for it on this referee")
        image = self.images.get(name, spec.image)
        return Runtime(name, f"{name} in a pod of the image {image}", programs=spec.programs)

    def render(
        self,
        package: Path | str,
        runtime: Runtime | PodRuntime | str,
        argv: Sequence[str],
        limits: Limits,
        *,
        name: str,
        match_id: str = "",
        seat: int | str = "",
    ) -> dict[str, Any]:
        """The pod of one seat: the runtime's template with this seat's name, labels,
        package, command, port and limits."""
        runtime_name = runtime if isinstance(runtime, str) else runtime.name
        if runtime_name not in self.templates or runtime_name not in POD_RUNTIMES:
            raise SandboxError(f"no pod template for the runtime {runtime_name!r}")
        digest = Path(package).name
        if not _DIGEST.fullmatch(digest):
            raise SandboxError(
                f"the package directory {str(package)!r} is not named by its SHA-256: "
                "the pod mounts it by that name"
            )
        if not argv:
            raise SandboxError("the bot's command is empty")
        pod = copy.deepcopy(self.templates[runtime_name])
        meta = pod.setdefault("metadata", {})
        meta["name"] = name
        meta["namespace"] = self.api.namespace
        labels = meta.setdefault("labels", {})
        labels[SEAT_LABEL] = _label(str(seat)) if str(seat) else "none"
        labels[MATCH_LABEL] = _label(match_id) or "none"
        meta.setdefault("annotations", {})[MATCH_ANNOTATION] = match_id
        if self.owner is not None:
            owner_name, uid = self.owner
            meta["ownerReferences"] = [
                {"apiVersion": "v1", "kind": "Pod", "name": owner_name, "uid": uid}
            ]
        spec = pod["spec"]
        if self.lifetime_s is not None:
            spec["activeDeadlineSeconds"] = self.lifetime_s
        container = _named(spec.get("containers", []), CONTAINER, "container")
        if runtime_name in self.images:
            container["image"] = self.images[runtime_name]
        container["command"] = command(POD_RUNTIMES[runtime_name], argv, limits)
        container.pop("args", None)
        env = [e for e in container.get("env", []) if e.get("name") != HOSTED_ADDRESS_ENV]
        container["env"] = [{"name": HOSTED_ADDRESS_ENV, "value": f"0.0.0.0:{self.port}"}, *env]
        container["ports"] = [{"name": "grpc", "containerPort": self.port}]
        resources_ = container.setdefault("resources", {})
        given = resources_.get("limits", {})  # the template's rate and disk stand
        resources_["limits"] = resources(
            limits,
            given.get("cpu", CPU_LIMIT),
            given.get("ephemeral-storage", EPHEMERAL_STORAGE),
        )
        mount = _named(container.get("volumeMounts", []), PACKAGE_VOLUME, "volume mount")
        mount["subPath"] = digest
        mount["readOnly"] = True
        tmp = _named(spec.get("volumes", []), TMP_VOLUME, "volume")
        tmp.setdefault("emptyDir", {})["sizeLimit"] = quantity(limits.tmp_bytes)
        return pod

    async def start(
        self,
        package: Path | str,
        runtime: Runtime | PodRuntime | str,
        command: Sequence[str],
        log_path: Path,
        limits: Limits | None = None,
        *,
        match_id: str = "",
        seat: int | str = "",
    ) -> HostedPod:
        """Start ``command`` for one seat in a pod of its own and wait until it listens
        (``limits.start_s``, plus ``start_grace_s``); SandboxError, with the pod's status
        and the end of its log, if it does not. ``package`` is the package's directory in
        the shared cache, named by its SHA-256."""
        limits = limits or Limits()
        name = pod_name(seat)
        pod = self.render(
            package, runtime, command, limits, name=name, match_id=match_id, seat=seat
        )
        loop = asyncio.get_running_loop()
        deadline = loop.time() + limits.start_s + self.start_grace_s
        try:
            created = await self.api.create_pod(pod)
        except KubernetesError as error:
            with contextlib.suppress(KubernetesError):
                await self.api.delete_pod(name)  # in case it was made and the answer lost
            raise SandboxError(f"cannot create the bot's pod {name}: {error}") from None
        hosted = HostedPod(
            self.api, name, "", log_path, limits, created, self.lifetime_s or _lifetime(pod)
        )
        try:
            failure = await hosted._started(deadline, self.port, self.poll_s)
        except KubernetesError as error:
            failure = f"could not be followed: {error}"
        except BaseException:
            await hosted.close()
            raise
        if failure is not None:
            await hosted.close()
            raise SandboxError(f"the bot's pod {name} {failure}", hosted.tail())
        return hosted


def _named(items: list[dict[str, Any]], name: str, what: str) -> dict[str, Any]:
    for item in items:
        if item.get("name") == name:
            return item
    raise SandboxError(f"the pod template has no {what} named {name!r}")


def _lifetime(pod: Mapping[str, Any]) -> int:
    return int(pod.get("spec", {}).get("activeDeadlineSeconds", LIFETIME_S))


_TEMPLATES = templates()


@dataclass
class HostedPod:
    """A hosted bot's pod. ``address`` is what the referee dials; ``close`` ends it."""

    api: KubernetesApi
    name: str
    address: str
    log_path: Path
    limits: Limits
    pod: dict[str, Any]
    """The pod as last read from the API (``refresh``)."""
    lifetime_s: int
    _closed: bool = field(default=False, repr=False)
    _killed: bool = field(default=False, repr=False)

    async def refresh(self) -> dict[str, Any]:
        """Read the pod again, for ``describe_exit``; a pod that is gone stays as last seen."""
        try:
            self.pod = await self.api.get_pod(self.name)
        except KubernetesError as error:
            if error.status != 404:
                raise
            self.pod = {**self.pod, "gone": True}
        return self.pod

    async def _started(self, deadline: float, port: int, poll_s: float) -> str | None:
        """Wait until the pod runs with an IP and takes connections on ``port``: None, or
        why it will not (in words that follow "the bot's pod NAME")."""
        loop = asyncio.get_running_loop()
        timeout_s = self.limits.start_s
        ip = ""
        while True:
            status = self.pod.get("status", {})
            phase = status.get("phase", "Pending")
            if phase in ("Failed", "Succeeded"):
                return f"ended before it listened: {self.describe_exit()}"
            waiting = _state(self.pod).get("waiting", {})
            if waiting.get("reason") in _HOPELESS:
                return f"cannot start: {self.describe_exit()}"
            if phase == "Running" and status.get("podIP"):
                ip = status["podIP"]
                self.address = f"[{ip}]:{port}" if ":" in ip else f"{ip}:{port}"
                if await _accepts(ip, port, min(1.0, max(0.05, deadline - loop.time()))):
                    return None
            if loop.time() > deadline:
                if ip:
                    return f"did not listen on port {port} within {timeout_s:g} s"
                return f"did not start within {timeout_s:g} s: {self.describe_exit()}"
            await asyncio.sleep(poll_s)
            await self.refresh()
            if self.pod.get("gone"):
                return "was deleted before it listened"

    def running(self) -> bool:
        """Whether the pod may still run, as last read from the API (no request)."""
        phase = self.pod.get("status", {}).get("phase")
        return not (self._closed or self.pod.get("gone") or phase in ("Failed", "Succeeded"))

    def freeze(self) -> None:
        """Nothing: Kubernetes cannot pause a pod (docs/architecture.md says so)."""

    def thaw(self) -> None:
        """Nothing, as ``freeze``."""

    def kill(self) -> None:
        """Nothing at once: ``close`` (which a pool's ``dispose`` calls) deletes the pod."""

    async def stop(self) -> None:
        """Save the bot's log and delete the pod (``close``)."""
        await self.close()

    def describe_exit(self) -> str:
        """How the pod ended, in words (a limit names itself), as last read."""
        status = self.pod.get("status", {})
        state = _state(self.pod)
        terminated = state.get("terminated")
        if status.get("reason") == "DeadlineExceeded":
            return f"DeadlineExceeded: it ran for its whole lifetime ({self.lifetime_s} s)"
        if terminated:
            reason, code = terminated.get("reason", ""), int(terminated.get("exitCode", 0))
            if reason == "OOMKilled":
                return f"OOMKilled: its memory limit ({self.limits.box_memory_bytes // MiB} MiB)"
            words = exit_words(code)
            known = words != f"status {code}" or reason in ("", "Error")
            return words if known else f"{words} ({reason})"
        if status.get("reason"):  # Evicted, and whatever the kubelet says of a whole pod
            return f"{status['reason']}: {status.get('message', '')}".rstrip(": ")
        if self._killed:
            return "SIGKILL: deleted by the arena"
        if self.pod.get("gone"):
            return "nothing known: the pod is gone"
        waiting = state.get("waiting")
        if waiting and waiting.get("reason") not in (None, "ContainerCreating"):
            return f"{waiting['reason']}: {waiting.get('message', '')}".rstrip(": ")
        phase = status.get("phase", "Pending")
        if phase == "Running":
            return "nothing yet: it runs"
        for condition in status.get("conditions", []):
            if condition.get("type") == "PodScheduled" and condition.get("status") == "False":
                reason = condition.get("reason", "not scheduled")
                return f"{reason}: {condition.get('message', '')}".rstrip(": ")
        return f"{phase}: {waiting.get('reason') if waiting else 'not started'}"

    def tail(self, lines: int = 20) -> str:
        """The last lines the bot wrote, as a suffix for a message (empty if none); the
        log is saved by ``close`` (and when the pod fails to start)."""
        return log_tail(self.log_path, lines)

    async def close(self) -> None:
        """Note how the pod ended, save its log (at most ``limits.log_bytes``) to
        ``log_path`` and delete the pod at once. A second call does nothing."""
        if self._closed:
            return
        self._closed = True
        try:
            with contextlib.suppress(KubernetesError):
                await self.refresh()
            await self._save_log()
        finally:
            running = self.pod.get("status", {}).get("phase") == "Running"
            with contextlib.suppress(KubernetesError):
                await self.api.delete_pod(self.name)
                self._killed = running and not self.pod.get("gone")

    async def _save_log(self) -> None:
        limit = self.limits.log_bytes
        try:
            data = await self.api.pod_log(self.name, CONTAINER, limit)
        except KubernetesError:
            data = b""  # never started, or already gone
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("wb") as log:
            log.write(data)
            if len(data) >= limit:
                log.write(f"\n[arena: output cut at {limit} bytes]\n".encode())


def _state(pod: Mapping[str, Any]) -> dict[str, Any]:
    """The bot container's state (``waiting``, ``running`` or ``terminated``)."""
    for status in pod.get("status", {}).get("containerStatuses", []) or []:
        if status.get("name") == CONTAINER:
            state: dict[str, Any] = status.get("state", {})
            return state
    return {}


async def _accepts(host: str, port: int, timeout_s: float) -> bool:
    """Whether ``host:port`` takes a TCP connection within ``timeout_s``."""
    try:
        _, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout_s)
    except (OSError, TimeoutError):
        return False
    writer.close()
    with contextlib.suppress(OSError):
        await writer.wait_closed()
    return True
