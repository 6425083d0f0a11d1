"""The referee's Prometheus metrics: one place for their names, labels and help text.

Bots are labelled by address: it is what the referee knows for sure, and what an
operator uses to find the process.

A referee of several processes (``arena referee serve --processes N``) has each write
its values to files, prometheus-client's multiprocess mode, and the parent serves their
sum on the one metrics port (``arena.referee.processes``).
"""

from __future__ import annotations

from prometheus_client import Counter, Gauge, Histogram

DECISION_BUCKETS = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
MATCH_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0)

DECISIONS = Counter(
    "arena_referee_decisions",
    "Decisions asked of bots, by game and outcome (ok, or the fault kind).",
    ["game", "outcome"],
)
DECISION_SECONDS = Histogram(
    "arena_referee_decision_seconds",
    "Time from sending a decision request to a bot until its answer or the fault.",
    ["game", "bot"],
    buckets=DECISION_BUCKETS,
)
FAULTS = Counter(
    "arena_referee_faults",
    "Bot faults by kind (timeout, rpc_error, unreachable, illegal_action, wrong_match, left).",
    ["kind", "bot"],
)
MATCHES_CUT_OFF = Counter(
    "arena_referee_matches_cut_off",
    "Matches abandoned because the referee lost every bot at once (its network, most "
    "likely): played again elsewhere, never charged to a bot.",
)
MATCHES_RUNNING = Gauge(
    "arena_referee_matches_running",
    "Matches being played right now.",
    multiprocess_mode="livesum",  # --processes N: the sum of the live processes
)
WATCHERS = Gauge(
    "arena_referee_watchers",
    "WatchMatch streams open right now (a relayed one counts at the process its client reached).",
    multiprocess_mode="livesum",
)
MATCH_SECONDS = Histogram(
    "arena_referee_match_duration_seconds",
    "Wall-clock duration of finished matches, by game and how they ended.",
    ["game", "end"],
    buckets=MATCH_BUCKETS,
)
REPLAY_CACHE_ERRORS = Counter(
    "arena_referee_replay_cache_errors_total",
    "Replays the referee could not write to its --replay-dir cache (a full disk, say); "
    "the match and its record are not affected.",
)
