"""The Grafana dashboard and its provisioning: the panels the issue asks for, one data
source everywhere, and provisioning files that point where compose mounts them."""

from __future__ import annotations

import json
import re
from pathlib import PurePosixPath
from typing import Any

from tests.deploy.promql import usage
from tests.deploy.support import COMPOSE, DASHBOARD, GRAFANA, load_yaml

DATASOURCE = {"type": "prometheus", "uid": "${datasource}"}


def dashboard() -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(DASHBOARD.read_text())
    return loaded


def panels() -> list[dict[str, Any]]:
    return [p for p in dashboard()["panels"] if p["type"] != "row"]


def panel(title: str) -> dict[str, Any]:
    return next(p for p in panels() if p["title"].startswith(title))


def metrics_of(p: dict[str, Any]) -> set[str]:
    return set().union(*(usage(t["expr"]).metrics for t in p["targets"]))


def test_the_dashboard_has_the_panels_asked_for() -> None:
    board = panel("Leaderboard")
    assert board["type"] == "table"
    assert metrics_of(board) == {
        "arena_rating_elo",
        "arena_rating_elo_lower",
        "arena_rating_elo_upper",
        "arena_rating_matches",
    }
    assert all(t["instant"] and t["format"] == "table" for t in board["targets"])

    latency = panel("Decision latency by bot")
    assert any(
        "histogram_quantile" in t["expr"] and "arena_referee_decision_seconds_bucket" in t["expr"]
        for t in latency["targets"]
    )
    assert all("bot" in usage(t["expr"]).grouping_labels for t in latency["targets"])
    assert latency["fieldConfig"]["defaults"]["unit"] == "s"

    faults = panel("Fault rate by kind")
    assert metrics_of(faults) == {"arena_referee_faults_total"}
    assert usage(faults["targets"][0]["expr"]).grouping_labels == {"kind"}

    assert "arena_worker_matches_played_total" in metrics_of(panel("Matches per second"))
    assert "arena_queue_length" in metrics_of(panel("Queue length"))
    assert metrics_of(panel("Running tournaments")) == {
        "arena_tournament_matches_done",
        "arena_tournament_matches_scheduled",
    }


def test_every_panel_and_query_uses_the_datasource_variable() -> None:
    for p in panels():
        assert p["datasource"] == DATASOURCE, p["title"]
        for target in p["targets"]:
            assert target["datasource"] == DATASOURCE, p["title"]
    for variable in dashboard()["templating"]["list"]:
        if variable["type"] == "query":
            assert variable["datasource"] == DATASOURCE, variable["name"]


def test_the_datasource_variable_defaults_to_the_provisioned_one() -> None:
    variables = {v["name"]: v for v in dashboard()["templating"]["list"]}
    datasource = variables["datasource"]
    assert datasource["type"] == "datasource"
    assert datasource["query"] == "prometheus"
    provisioned = load_yaml(GRAFANA / "provisioning" / "datasources" / "prometheus.yml")
    (source,) = provisioned["datasources"]
    assert source["type"] == "prometheus"
    assert datasource["current"]["value"] == source["uid"]


def test_variables_used_in_queries_are_defined() -> None:
    defined = {v["name"] for v in dashboard()["templating"]["list"]}
    builtin = {"__rate_interval", "__interval", "__range"}
    for p in panels():
        for target in p["targets"]:
            found = re.findall(r"\$\{(\w+)(?::\w+)?\}|\$(\w+)", target["expr"])
            names = {braced or bare for braced, bare in found}
            assert names <= defined | builtin, (p["title"], names)


def test_panels_do_not_overlap_and_ids_are_unique() -> None:
    every = dashboard()["panels"]
    assert len({p["id"] for p in every}) == len(every)
    cells: set[tuple[int, int]] = set()
    for p in every:
        grid = p["gridPos"]
        assert grid["x"] + grid["w"] <= 24, p["title"]
        mine = {
            (x, y)
            for x in range(grid["x"], grid["x"] + grid["w"])
            for y in range(grid["y"], grid["y"] + grid["h"])
        }
        assert not cells & mine, f"{p['title']} overlaps another panel"
        cells |= mine


def test_provisioning_points_where_compose_mounts_it() -> None:
    grafana = load_yaml(COMPOSE)["services"]["grafana"]
    mounts = {}
    for volume in grafana["volumes"]:
        source, target, *_ = volume.split(":")
        mounts[source] = PurePosixPath(target)
    assert mounts["./grafana/provisioning"] == PurePosixPath("/etc/grafana/provisioning")
    dashboards_dir = mounts["./grafana/dashboards"]

    providers = load_yaml(GRAFANA / "provisioning" / "dashboards" / "card-arena.yml")["providers"]
    assert [PurePosixPath(p["options"]["path"]) for p in providers] == [dashboards_dir]
    home = PurePosixPath(grafana["environment"]["GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH"])
    assert home.parent == dashboards_dir
    assert (GRAFANA / "dashboards" / home.name).is_file()

    (source,) = load_yaml(GRAFANA / "provisioning" / "datasources" / "prometheus.yml")[
        "datasources"
    ]
    prometheus = load_yaml(COMPOSE)["services"]["prometheus"]
    assert source["url"] == "http://prometheus:9090"
    assert any(p.endswith(":9090") for p in prometheus["ports"])
