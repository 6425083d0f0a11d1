"""Metric and label names used by PromQL expressions, and the names the code exports.

The extraction works on text, not a full parser, but handles what the dashboard and
the rules use: Grafana variables, string literals, label matchers, range and subquery
brackets, grouping clauses, function calls and keywords. Its tests include
deliberately wrong names.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

import redis
from prometheus_client import REGISTRY
from prometheus_client.metrics import MetricWrapperBase

# https://prometheus.io/docs/prometheus/latest/querying/operators/ and /functions/
AGGREGATIONS = {
    "sum", "min", "max", "avg", "group", "stddev", "stdvar", "count", "count_values",
    "bottomk", "topk", "quantile", "limitk", "limit_ratio",
}  # fmt: skip
KEYWORDS = {
    "by", "without", "on", "ignoring", "group_left", "group_right", "bool", "offset",
    "and", "or", "unless", "atan2", "inf", "nan", "start", "end",
} | AGGREGATIONS  # fmt: skip
GROUPING = ("by", "without", "on", "ignoring", "group_left", "group_right")
TARGET_LABELS = {"job", "instance"}
"""Labels Prometheus attaches to every scraped series."""
BUILTIN_METRICS = {"up": frozenset(TARGET_LABELS)}
"""Series Prometheus itself makes for every target."""

_STRING = r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'|`[^`]*`'
_VARIABLE = re.compile(r"\$\{[^}]*\}|\$\w+|\[\[\w+\]\]")
_SELECTOR = re.compile(
    rf"(?P<name>(?<![\w:.])[a-zA-Z_:][\w:]*)?\s*\{{(?P<body>(?:{_STRING}|[^}}\"'`])*)\}}"
)
_MATCHER = re.compile(rf"\s*(?P<label>[a-zA-Z_]\w*)\s*(?P<op>=~|!~|!=|=)\s*(?P<value>{_STRING})\s*")
_GROUPING = re.compile(rf"\b(?P<keyword>{'|'.join(GROUPING)})\s*\((?P<labels>[^()]*)\)")
_IDENTIFIER = re.compile(r"(?<![\w:.])(?P<name>[a-zA-Z_:][\w:]*)(?![\w:])(?P<after>\s*\(?)")


@dataclass
class Usage:
    """The names one expression uses."""

    metrics: set[str] = field(default_factory=set)
    matcher_labels: dict[str, set[str]] = field(default_factory=dict)
    """Metric name → label names in its {matchers}."""
    grouping_labels: set[str] = field(default_factory=set)
    """Labels of by/without/on/ignoring/group_left/group_right clauses."""


def _unquote(literal: str) -> str:
    return literal[1:-1]


def usage(expr: str) -> Usage:
    """The metric names, matcher labels and grouping labels of a PromQL expression
    (Grafana variables allowed)."""
    found = Usage()
    text = re.sub(r"#[^\n]*", "", expr)  # comments
    text = _VARIABLE.sub("0", text)

    def selector(match: re.Match[str]) -> str:
        name = match.group("name")
        labels: set[str] = set()
        body = match.group("body")
        for matcher in re.finditer(rf"(?:{_MATCHER.pattern})(?:,|$)", body):
            label, op, value = matcher.group("label", "op", "value")
            if label == "__name__" and op == "=":
                name = _unquote(value)
            elif label != "__name__":
                labels.add(label)
        leftover = re.sub(rf"(?:{_MATCHER.pattern})(?:,|$)", "", body).strip()
        assert not leftover, f"cannot read the label matchers {{{body}}} in {expr!r}"
        if name:
            found.metrics.add(name)
            found.matcher_labels.setdefault(name, set()).update(labels)
        return " "

    text = _SELECTOR.sub(selector, text)
    text = re.sub(_STRING, '""', text)
    text = re.sub(r"\[[^\]]*\]", " ", text)  # ranges and subqueries

    def grouping(match: re.Match[str]) -> str:
        found.grouping_labels.update(
            label.strip() for label in match.group("labels").split(",") if label.strip()
        )
        return f" {match.group('keyword')} "

    text = _GROUPING.sub(grouping, text)
    for match in _IDENTIFIER.finditer(text):
        name, after = match.group("name", "after")
        if after.strip() == "(" or name.lower() in KEYWORDS:
            continue  # a function or aggregation, or a keyword
        found.metrics.add(name)
    return found


def grafana_query_usage(query: str) -> Usage:
    """A Grafana Prometheus template variable query: ``label_values(METRIC, LABEL)``,
    ``label_values(LABEL)``, ``query_result(EXPR)`` or ``metrics(REGEX)``."""
    query = query.strip()
    if match := re.fullmatch(
        r"label_values\(\s*(?:(?P<selector>.+),\s*)?(?P<label>\w+)\s*\)", query
    ):
        found = usage(match.group("selector") or "")
        found.grouping_labels.add(match.group("label"))
        return found
    if match := re.fullmatch(r"query_result\((?P<expr>.*)\)", query, re.DOTALL):
        return usage(match.group("expr"))
    if re.fullmatch(r"metrics\(.*\)|label_names\(\)", query):
        return Usage()
    raise AssertionError(f"unknown Grafana variable query {query!r}")


def exported_metrics() -> dict[str, frozenset[str]]:
    """Every series name the referee and the workers export, with its label names.

    Counters and histograms are registered in prometheus-client's default REGISTRY when
    their modules are imported; the Redis-derived gauges are described by the workers'
    ArenaStateCollector, built here on a client that never connects."""
    import arena.referee.metrics
    import workers.metrics

    assert arena.referee.metrics.DECISIONS is not None  # both modules are registered
    assert workers.metrics.MATCHES_PLAYED is not None
    # Label names are not in a collected family that has no samples yet: ask the
    # registered metric objects (prometheus-client keeps them as _name, _labelnames).
    labels: dict[str, tuple[str, ...]] = {}
    for collector in list(REGISTRY._collector_to_names):
        if isinstance(collector, MetricWrapperBase):
            labels[collector._name] = tuple(collector._labelnames)

    families = [f for f in REGISTRY.collect() if f.name.startswith("arena_")]
    collector = workers.metrics.ArenaStateCollector(redis.Redis(host="never.invalid"))
    families.extend(collector.describe())
    for family in collector.describe():
        labels[family.name] = tuple(getattr(family, "_labelnames", ()))

    series: dict[str, frozenset[str]] = dict(BUILTIN_METRICS)
    for family in families:
        names = labels.get(family.name)
        assert names is not None, f"no label names known for {family.name}"
        given = frozenset(names) | TARGET_LABELS
        for suffix in _suffixes(family.type):
            series[family.name + suffix] = given | ({"le"} if suffix == "_bucket" else set())
    return series


def _suffixes(kind: str) -> Iterable[str]:
    return {
        "counter": ("_total",),
        "gauge": ("",),
        "histogram": ("_bucket", "_sum", "_count"),
        "summary": ("", "_sum", "_count"),
        "info": ("_info",),
    }[kind]


def problems(expr: str, known: dict[str, frozenset[str]], found: Usage | None = None) -> list[str]:
    """What in ``expr`` names a metric or a label that does not exist."""
    found = found if found is not None else usage(expr)
    wrong = [f"unknown metric {m}" for m in sorted(found.metrics) if m not in known]
    for metric, labels in sorted(found.matcher_labels.items()):
        if metric in known:
            wrong += [f"{metric} has no label {label}" for label in sorted(labels - known[metric])]
    available = set().union(*(known[m] for m in found.metrics if m in known))
    wrong += [f"no metric here has label {g}" for g in sorted(found.grouping_labels - available)]
    return wrong
