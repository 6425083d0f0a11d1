"""Prometheus metrics of the tournament workers, and the arena's state read from Redis.

Celery's prefork pool plays matches in child processes, so the task counters use
prometheus-client's multiprocess mode: every child writes its values to files under
``PROMETHEUS_MULTIPROC_DIR`` and the worker's main process serves their sum (``arena
worker --metrics-port``; ``workers.multiproc`` sets the directory up first).

The state gauges (queue length, tournament progress, ratings) are read from Redis when
scraped, so every worker reports the same values: aggregate them with ``max`` across
instances. Ratings are those of the last finished tournament's snapshot (all results
of all tournaments, refitted when a tournament finishes).
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Iterator

import redis
from prometheus_client import CollectorRegistry, Counter, Histogram, multiprocess, start_http_server
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.registry import Collector

from arena.ratings.board import PROVISIONAL, RATED, Leaderboard
from arena.store import TournamentStore
from workers import broker
from workers.multiproc import MULTIPROC_ENV

MATCH_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)
TOURNAMENTS_SHOWN = 20
"""Progress is reported for this many of the most recent tournaments."""

MATCHES_PLAYED = Counter(
    "arena_worker_matches_played",
    "Matches played to an end through a referee, by game and how they ended.",
    ["game", "end"],
)
MATCHES_RETRIED = Counter(
    "arena_worker_matches_retried",
    "Match attempts that failed at a referee and will be tried on the next one, by game.",
    ["game"],
)
DELIVERIES_HANDED_BACK = Counter(
    "arena_worker_deliveries_handed_back",
    "Broker deliveries taken by a worker that is gone (or that lost them with its "
    "connection), handed back to the queue by the watchdog.",
)
MATCHES_REQUEUED = Counter(
    "arena_worker_matches_requeued",
    "Matches the watchdog found nowhere (no result, no lease, no message) and queued again.",
)
MATCH_SECONDS = Histogram(
    "arena_worker_match_duration_seconds",
    "Wall-clock time of a match as the worker saw it, referee call included, by game.",
    ["game"],
    buckets=MATCH_BUCKETS,
)


class ArenaStateCollector(Collector):
    """Gauges computed from Redis at each scrape."""

    def __init__(self, client: redis.Redis, queues: Iterable[str] = ("celery",)) -> None:
        self.redis = client
        self.store = TournamentStore(client)
        self.queues = tuple(queues)

    def describe(self) -> Iterator[Metric]:
        yield _redis_up()
        yield from _families()

    def collect(self) -> Iterator[Metric]:
        up = _redis_up()
        try:
            families = list(self._read())
        except redis.RedisError:
            # A Redis outage must not look like dead workers: the scrape still answers.
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        yield from families

    def _read(self) -> Iterator[Metric]:
        (
            queue,
            unacked,
            scheduled,
            done,
            waiting,
            elo,
            lower,
            upper,
            matches,
            provisional,
            shared,
        ) = _families()
        for name in self.queues:
            queue.add_metric([name], broker.queue_length(self.redis, name))
        unacked.add_metric([], int(self.redis.hlen(broker.UNACKED)))
        for tournament_id in self.store.ids()[:TOURNAMENTS_SHOWN]:
            record = self.store.get(tournament_id)
            if record is not None:
                scheduled.add_metric([record.id, record.state], record.total)
                done.add_metric([record.id, record.state], record.done)
                if record.waiting is not None:
                    waiting.add_metric([record.id], time.time() - record.waiting.since)
        for game, board in self.store.ratings().items():
            for row in Leaderboard.from_json(board).rows:
                if row.status not in (RATED, PROVISIONAL):
                    continue  # no rating on this board (incomplete, excluded)
                labels = [row.bot, game or "all"]
                provisional.add_metric(labels, row.status == PROVISIONAL)
                elo.add_metric(labels, row.elo)
                lower.add_metric(labels, row.elo - row.elo_ci95)
                upper.add_metric(labels, row.elo + row.elo_ci95)
                matches.add_metric(labels, row.matches)
                shared.add_metric(labels, row.shared_partners)
        yield from (
            queue,
            unacked,
            scheduled,
            done,
            waiting,
            elo,
            lower,
            upper,
            matches,
            provisional,
            shared,
        )


def _redis_up() -> GaugeMetricFamily:
    return GaugeMetricFamily(
        "arena_redis_up", "1 if this scrape could read the arena's Redis, else 0."
    )


def _families() -> tuple[GaugeMetricFamily, ...]:
    rated = ["bot", "game"]
    return (
        GaugeMetricFamily(
            "arena_queue_length", "Match tasks waiting in a Celery queue.", labels=["queue"]
        ),
        GaugeMetricFamily(
            "arena_queue_unacked", "Match tasks taken by a worker and not yet finished.", labels=[]
        ),
        GaugeMetricFamily(
            "arena_tournament_matches_scheduled",
            "Matches in a tournament's schedule (the most recent tournaments).",
            labels=["tournament", "state"],
        ),
        GaugeMetricFamily(
            "arena_tournament_matches_done",
            "Matches of a tournament with a stored result.",
            labels=["tournament", "state"],
        ),
        GaugeMetricFamily(
            "arena_tournament_waiting_seconds",
            "How long a tournament has waited with matches failing at the referees and none "
            "played since (absent when it does not wait).",
            labels=["tournament"],
        ),
        GaugeMetricFamily(
            "arena_rating_elo",
            "Elo from all stored results, by bot and game ('all' for every game together).",
            labels=rated,
        ),
        GaugeMetricFamily(
            "arena_rating_elo_lower", "Lower bound of the Elo's 95% interval.", labels=rated
        ),
        GaugeMetricFamily(
            "arena_rating_elo_upper", "Upper bound of the Elo's 95% interval.", labels=rated
        ),
        GaugeMetricFamily(
            "arena_rating_matches", "Matches a bot played that the rating counts.", labels=rated
        ),
        GaugeMetricFamily(
            "arena_rating_provisional",
            "1 while the rating rests on too few pairs to be shown (the leaderboard's "
            "min_pairs), else 0.",
            labels=rated,
        ),
        GaugeMetricFamily(
            "arena_rating_shared_partners",
            "Matches a rating counts in which the bot's one process held both seats of its "
            "team (a remote entry in a partnership game): each may have seen the other's hand.",
            labels=rated,
        ),
    )


def serve(port: int, redis_url: str, host: str = "127.0.0.1") -> None:
    """Serve the children's summed metrics and the Redis state gauges on ``port``."""
    registry = CollectorRegistry()
    multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    registry.register(ArenaStateCollector(redis.Redis.from_url(redis_url)))
    start_http_server(port, addr=host, registry=registry)


def forget_process(pid: int) -> None:
    """A pool child exited: drop its live gauge files (counters stay summed)."""
    if os.environ.get(MULTIPROC_ENV):
        multiprocess.mark_process_dead(pid)  # type: ignore[no-untyped-call]
