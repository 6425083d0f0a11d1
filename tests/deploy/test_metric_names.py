"""Every metric and label that the dashboard and the alert rules query is one the code
exports: a renamed metric breaks this test, not the dashboard in production."""

from __future__ import annotations

import json
from typing import Any

import pytest

from tests.deploy.promql import Usage, exported_metrics, grafana_query_usage, problems, usage
from tests.deploy.support import DASHBOARD, PROMETHEUS, load_yaml

KNOWN = exported_metrics()


def alert_expressions() -> list[tuple[str, str]]:
    rules = load_yaml(PROMETHEUS / "alerts.yml")
    return [
        (rule.get("alert") or rule["record"], rule["expr"])
        for group in rules["groups"]
        for rule in group["rules"]
    ]


def _panels(panels: list[dict[str, Any]]) -> list[dict[str, Any]]:
    found = []
    for panel in panels:
        found.append(panel)
        found.extend(_panels(panel.get("panels", [])))
    return found


def dashboard_queries() -> list[tuple[str, str]]:
    dashboard = json.loads(DASHBOARD.read_text())
    return [
        (f"{panel['title']} [{target['refId']}]", target["expr"])
        for panel in _panels(dashboard["panels"])
        for target in panel.get("targets", [])
    ]


def dashboard_variable_queries() -> list[tuple[str, str]]:
    dashboard = json.loads(DASHBOARD.read_text())
    found = []
    for variable in dashboard["templating"]["list"]:
        if variable["type"] == "query":
            query = variable["query"]
            found.append((variable["name"], query["query"] if isinstance(query, dict) else query))
    return found


def test_the_code_exports_what_the_dashboard_is_built_on() -> None:
    """The catalogue itself: counters as _total, histograms as _bucket/_sum/_count, the
    Redis-derived gauges of the workers' collector, and Prometheus' own ``up``."""
    assert {
        "arena_referee_decisions_total",
        "arena_referee_decision_seconds_bucket",
        "arena_referee_decision_seconds_count",
        "arena_referee_faults_total",
        "arena_referee_matches_running",
        "arena_worker_matches_played_total",
        "arena_worker_match_duration_seconds_sum",
        "arena_queue_length",
        "arena_rating_elo",
        "arena_tournament_matches_done",
        "up",
    } <= set(KNOWN)
    assert "arena_referee_decisions" not in KNOWN
    assert KNOWN["arena_referee_faults_total"] == {"kind", "bot", "job", "instance"}
    assert "le" in KNOWN["arena_referee_decision_seconds_bucket"]
    assert "le" not in KNOWN["arena_referee_decision_seconds_count"]


@pytest.mark.parametrize(
    ("expr", "metrics", "matcher_labels", "grouping"),
    [
        ("up", {"up"}, {}, set()),
        ('up{job="arena-worker"} == 0', {"up"}, {"up": {"job"}}, set()),
        (
            'histogram_quantile(0.99, sum by (bot, le) (rate(x_bucket{bot=~"$bot"}[$__rate_interval])))',
            {"x_bucket"},
            {"x_bucket": {"bot"}},
            {"bot", "le"},
        ),
        (
            "sum(rate(a_total[5m])) by (game) / on (game) group_left () sum by (game) (b offset 30m)",
            {"a_total", "b"},
            {},
            {"game"},
        ),
        (
            "max(q) > 0 and on () (sum(rate(p_total[15m])) or vector(0)) == 0 # a comment: c_total",
            {"q", "p_total"},
            {},
            set(),
        ),
        ('{__name__="by_name", kind="a,b}"} * 1e3', {"by_name"}, {"by_name": {"kind"}}, set()),
        (
            'label_replace(max_over_time(m:rule[1h:5m]), "dst", "$1", "src", "(.*)") > bool 2',
            {"m:rule"},
            {},
            set(),
        ),
        ("topk(${n}, count without (instance) (z))", {"z"}, {}, {"instance"}),
    ],
)
def test_extraction(
    expr: str, metrics: set[str], matcher_labels: dict[str, set[str]], grouping: set[str]
) -> None:
    found = usage(expr)
    assert found.metrics == metrics
    assert {m: ls for m, ls in found.matcher_labels.items() if ls} == matcher_labels
    assert found.grouping_labels == grouping


def test_grafana_variable_queries_are_read() -> None:
    found = grafana_query_usage("label_values(arena_rating_elo, game)")
    assert found.metrics == {"arena_rating_elo"}
    assert found.grouping_labels == {"game"}
    assert grafana_query_usage('label_values(up{job="arena-worker"}, instance)').matcher_labels == {
        "up": {"job"}
    }


@pytest.mark.parametrize(
    ("expr", "expected"),
    [
        # The counter without its _total, and a histogram read as a counter.
        ("rate(arena_referee_decisions[5m])", ["unknown metric arena_referee_decisions"]),
        (
            "sum(rate(arena_referee_decision_seconds_total[5m]))",
            ["unknown metric arena_referee_decision_seconds_total"],
        ),
        # A misspelt gauge inside a bigger expression.
        (
            "max(arena_queue_length) > 0 and on () max(arena_queue_lenght) > 1",
            ["unknown metric arena_queue_lenght"],
        ),
        # A label of another metric, in a matcher and in a grouping clause.
        (
            'sum(rate(arena_referee_faults_total{outcome="timeout"}[5m]))',
            ["arena_referee_faults_total has no label outcome"],
        ),
        (
            "sum by (tournament) (arena_queue_length)",
            ["no metric here has label tournament"],
        ),
    ],
)
def test_a_wrong_name_is_caught(expr: str, expected: list[str]) -> None:
    assert problems(expr, KNOWN) == expected


@pytest.mark.parametrize(("alert", "expr"), alert_expressions())
def test_alert_rules_query_real_metrics(alert: str, expr: str) -> None:
    found = usage(expr)
    assert found.metrics, f"{alert}: no metric found in {expr!r}"
    assert problems(expr, KNOWN, found) == []


@pytest.mark.parametrize(("panel", "expr"), dashboard_queries())
def test_dashboard_queries_use_real_metrics(panel: str, expr: str) -> None:
    found = usage(expr)
    assert found.metrics, f"{panel}: no metric found in {expr!r}"
    assert problems(expr, KNOWN, found) == []


@pytest.mark.parametrize(("variable", "query"), dashboard_variable_queries())
def test_dashboard_variables_use_real_metrics(variable: str, query: str) -> None:
    found: Usage = grafana_query_usage(query)
    assert problems(query, KNOWN, found) == []
