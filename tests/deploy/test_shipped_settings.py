"""The settings the tests call shipped are the ones deploy ships, in both its forms,
and they make a valid worker; the soak runs with them (``tests/tournament/test_soak.py``)."""

from __future__ import annotations

import ast

import pytest

from tests import shipped
from tests.deploy.support import load_yaml_documents
from tests.support import arena
from tests.support.paths import TESTS
from workers.settings import Settings

K8S = shipped.DEPLOY / "k8s"


def test_compose_and_kubernetes_ship_the_same_worker_settings() -> None:
    (settings,) = [
        doc["data"]
        for doc in load_yaml_documents(K8S / "config.yaml")
        if doc["metadata"]["name"] == "arena-settings"
    ]
    assert settings == shipped.compose_env()


def test_the_shipped_settings_make_a_valid_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    for key, value in shipped.worker_env().items():
        monkeypatch.setenv(key, value)
    settings = Settings()
    assert settings.visibility_timeout_s >= 3600  # the backstop; recovery does not wait for it


def test_the_soak_runs_with_every_shipped_setting_and_the_other_tests_say_why_not() -> None:
    soak = ast.parse((TESTS / "tournament" / "test_soak.py").read_text(encoding="utf-8"))
    (settings,) = [
        node.value
        for node in soak.body
        if isinstance(node, ast.Assign)
        and [ast.unparse(target) for target in node.targets] == ["SETTINGS"]
    ]
    assert ast.unparse(settings) == "shipped.worker_env()"
    assert "shipped" in (arena.__doc__ or "")  # why the others' settings are shorter
