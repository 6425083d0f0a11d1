"""The settings ``deploy/`` ships to the API and the workers (compose's ``x-celery-env``,
which the Kubernetes ConfigMap repeats: ``tests/deploy/test_shipped_settings.py``), for
the tests that stand for production: the soak runs with all of them, the fault tests
with the visibility timeout."""

from __future__ import annotations

from pathlib import Path

import yaml

DEPLOY = Path(__file__).parents[1] / "deploy"
WHERE = ("ARENA_REDIS_URL", "ARENA_REFEREES")
"""Where the services are: the tests' own."""


def compose_env() -> dict[str, str]:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return {key: str(value) for key, value in compose["x-celery-env"].items()}


def worker_env() -> dict[str, str]:
    """What a worker is told, beyond where Redis and the referees are; the rest of
    ``workers.settings`` takes its defaults, as in deploy."""
    return {key: value for key, value in compose_env().items() if key not in WHERE}


def visibility_timeout() -> dict[str, str]:
    return {"ARENA_VISIBILITY_TIMEOUT": worker_env()["ARENA_VISIBILITY_TIMEOUT"]}
