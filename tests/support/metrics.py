"""Prometheus metrics pages: fetched, and read into samples."""

from __future__ import annotations

import urllib.request

from prometheus_client.parser import text_string_to_metric_families


def scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        text: str = response.read().decode()
        return text


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def total(values: Samples, name: str, **labels: str) -> float:
    wanted = set(labels.items())
    return sum(v for (n, ls), v in values.items() if n == name and wanted <= set(ls))


def scrape_port(port: int) -> str:
    """The metrics page a process serves on ``port`` of loopback."""
    return scrape(f"http://127.0.0.1:{port}/metrics")
