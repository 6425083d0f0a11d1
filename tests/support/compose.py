"""The Compose file's services, read into what each runs and listens on."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from tests.deploy.support import (
    PROJECT_IMAGE,
    Invocation,
    compose,
    invocations,
    redis_port,
)

SERVICES: dict[str, dict[str, Any]] = compose()["services"]


PORTS_OF_IMAGES = {"redis": {redis_port()}, "prom/prometheus": {9090}, "grafana/grafana": {3000}}


def environment(service: Mapping[str, Any]) -> dict[str, str]:
    env = service.get("environment") or {}
    if isinstance(env, list):
        env = dict(item.split("=", 1) for item in env)
    return {str(k): str(v) for k, v in env.items()}


@dataclass
class Service:
    name: str
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
        return environment(self.spec)

    def invocations(self) -> list[Invocation]:
        if not self.is_arena:
            return []
        command = self.spec.get("command", [])
        assert isinstance(command, list), f"{self.name}: write the command as a list"
        return invocations(self.spec.get("entrypoint"), command, self.env)

    def listen_ports(self) -> set[int]:
        if self.is_arena:
            return set().union(*(i.listen_ports() for i in self.invocations()))
        return PORTS_OF_IMAGES[self.image.split(":")[0]]


def services() -> list[Service]:
    return [Service(name, spec) for name, spec in SERVICES.items()]


def arena_services() -> list[Service]:
    return [s for s in services() if s.is_arena]
