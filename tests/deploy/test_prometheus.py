"""The Prometheus configuration and alert rules: promtool accepts them, the alerts fire
on the series they are meant for (``promtool test rules``), and the jobs they name are
the jobs the scrape configurations define."""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

import yaml

from tests.deploy.promql import usage
from tests.deploy.support import COMPOSE, K8S, PROMETHEUS, load_yaml, run_promtool

HERE = Path(__file__).resolve().parent
ALERTS = PROMETHEUS / "alerts.yml"
CONFIGS = (PROMETHEUS / "prometheus.yml", PROMETHEUS / "prometheus-kubernetes.yml")
REQUIRED_ALERTS = {
    "BotTimeoutRateHigh",
    "WorkersAbsent",
    "QueueBacklog",
    "RefereesAbsent",
    "TournamentWaiting",
}
ARENA_JOBS = {"arena-referee", "arena-worker"}


def rules() -> list[dict[str, Any]]:
    return [rule for group in load_yaml(ALERTS)["groups"] for rule in group["rules"]]


def test_promtool_checks_the_rules() -> None:
    result = run_promtool("check", "rules", str(ALERTS))
    assert result.returncode == 0, result.stdout + result.stderr
    assert f"SUCCESS: {len(rules())} rules found" in result.stdout


def test_promtool_checks_the_compose_config_and_its_rule_files() -> None:
    result = run_promtool("check", "config", str(PROMETHEUS / "prometheus.yml"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 1 rule files found" in result.stdout


def test_promtool_checks_the_kubernetes_config(tmp_path: Path) -> None:
    """Debian's promtool is built without Kubernetes discovery: if it rejects
    kubernetes_sd_configs, the rest of the file (relabelling, rule files) is checked
    with that block replaced by an empty static one, and the block itself here."""
    path = PROMETHEUS / "prometheus-kubernetes.yml"
    result = run_promtool("check", "config", str(path))
    if "field kubernetes_sd_configs not found" in result.stdout + result.stderr:
        config = load_yaml(path)
        for job in config["scrape_configs"]:
            for sd in job.pop("kubernetes_sd_configs"):
                assert sd["role"] == "pod"
                assert sd["namespaces"]["names"] == [k8s_namespace()]
            job["static_configs"] = [{"targets": []}]
        copy = tmp_path / path.name
        copy.write_text(yaml.safe_dump(config))
        shutil.copy(ALERTS, tmp_path / ALERTS.name)
        result = run_promtool("check", "config", str(copy))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS: 1 rule files found" in result.stdout


def test_alerts_fire_when_they_should(tmp_path: Path) -> None:
    """tests/deploy/alerts_test.yml against the real expressions, ``for`` durations and
    labels. promtool compares annotations verbatim, so the copy of the rules it runs
    drops them (``promtool check rules`` has checked their templates)."""
    stripped = load_yaml(ALERTS)
    for group in stripped["groups"]:
        for rule in group["rules"]:
            rule.pop("annotations", None)
    (tmp_path / "alerts.yml").write_text(yaml.safe_dump(stripped, sort_keys=False))
    shutil.copy(HERE / "alerts_test.yml", tmp_path / "alerts_test.yml")
    result = run_promtool("test", "rules", "alerts_test.yml", cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SUCCESS" in result.stdout


def test_every_alert_is_unit_tested() -> None:
    tests = load_yaml(HERE / "alerts_test.yml")["tests"]
    tested = {case["alertname"] for test in tests for case in test["alert_rule_test"]}
    firing = {
        case["alertname"]
        for test in tests
        for case in test["alert_rule_test"]
        if case.get("exp_alerts")
    }
    names = {rule["alert"] for rule in rules()}
    assert tested == names
    assert firing == names, "each alert has a case where it fires"


def test_the_alerts_an_operator_needs_are_there() -> None:
    by_name = {rule["alert"]: rule for rule in rules()}
    assert set(by_name) >= REQUIRED_ALERTS
    for name, rule in by_name.items():
        assert rule["labels"]["severity"] in ("critical", "warning"), name
        assert {"summary", "description"} <= set(rule["annotations"]), name
    assert by_name["BotTimeoutRateHigh"]["for"] == "10m"
    timeout = usage(by_name["BotTimeoutRateHigh"]["expr"])
    assert timeout.grouping_labels == {"bot"}
    assert timeout.metrics == {"arena_referee_faults_total", "arena_referee_decision_seconds_count"}


def scrape_jobs(path: Path) -> dict[str, dict[str, Any]]:
    return {job["job_name"]: job for job in load_yaml(path)["scrape_configs"]}


def test_both_configs_scrape_the_same_arena_jobs_and_load_the_rules() -> None:
    for path in CONFIGS:
        config = load_yaml(path)
        assert config["rule_files"] == [ALERTS.name], path.name
        assert set(scrape_jobs(path)) >= ARENA_JOBS, path.name


def test_jobs_named_in_rules_and_dashboard_are_scraped() -> None:
    dashboard = (PROMETHEUS.parent / "grafana" / "dashboards" / "arena.json").read_text()
    exprs = [rule["expr"] for rule in rules()] + [dashboard]
    named = {job for expr in exprs for job in re.findall(r'job\s*=\s*\\?"([^"\\]+)', expr)}
    assert named == ARENA_JOBS
    for path in CONFIGS:
        assert named <= set(scrape_jobs(path)), path.name


def k8s_namespace() -> str:
    namespace: str = load_yaml(K8S / "kustomization.yaml")["namespace"]
    return namespace


def test_kubernetes_jobs_keep_the_pods_of_their_component() -> None:
    """Each job keeps pods whose component label is its component, on their port named
    "metrics" (the k8s tests check those pods have one)."""
    jobs = scrape_jobs(PROMETHEUS / "prometheus-kubernetes.yml")
    for name in ARENA_JOBS:
        keeps = {
            tuple(rule["source_labels"]): rule["regex"]
            for rule in jobs[name]["relabel_configs"]
            if rule.get("action") == "keep"
        }
        component = name.removeprefix("arena-")
        assert keeps == {
            ("__meta_kubernetes_pod_label_app_kubernetes_io_component",): component,
            ("__meta_kubernetes_pod_container_port_name",): "metrics",
        }


def test_compose_mounts_what_prometheus_loads() -> None:
    service = load_yaml(COMPOSE)["services"]["prometheus"]
    config_flag = next(a for a in service["command"] if a.startswith("--config.file="))
    config_path = config_flag.split("=", 1)[1]
    mounts = {
        target: source
        for source, target, *_ in (volume.split(":") for volume in service["volumes"])
        if source.startswith("./")
    }
    assert mounts[config_path] == "./prometheus/prometheus.yml"
    for rule_file in load_yaml(PROMETHEUS / "prometheus.yml")["rule_files"]:
        container_path = str(Path(config_path).parent / rule_file)
        assert mounts[container_path] == f"./prometheus/{rule_file}"
