"""Records exactly as earlier builds stored them, before the baseline
(``arena store migrate``): what the migration's tests store and upgrade."""

from __future__ import annotations

import json
from typing import Any

import redis

from arena.store import keys
from arena.store.tournaments import FINISHED

# A result exactly as the worker stored it before records had versions (its 25 keys).
STORED_RESULT: dict[str, Any] = {
    "match_id": "t0123456789ab-seep-0-0-a",
    "tournament_id": "t0123456789ab",
    "game": "seep",
    "pair_key": "t0123456789ab-seep-0-0",
    "deal": 0,
    "seed": 12660311924330457000,
    "entries": ["house", "rand"],
    "scores": [71, 29],
    "winner_team": 0,
    "end": "completed",
    "forfeit_team": None,
    "team_faults": [0, 1],
    "team_fault_kinds": [{}, {"timeout": 1}],
    "decisions": 52,
    "duration_ms": 84.512,
    "replay_id": "t0123456789ab-seep-0-0-a-5f2c9e1a",
    "referee": "127.0.0.1:50051",
    "finished_at": 1796132612.5043,
    "deal_key": "seep-0-0",
    "paired": True,
    "deal_commitment": "9b" * 32,
    "deal_salt": "3c" * 16,
    "referee_match_id": "t0123456789ab-seep-0-0-a-5f2c9e1a",
    "fair_play": "sealed",
    "operator_seed": False,
}
# The oldest results: the first arena's seventeen keys.
FIRST_RESULT = {
    k: STORED_RESULT[k]
    for k in (
        "match_id", "tournament_id", "game", "pair_key", "deal", "seed", "entries",
        "scores", "winner_team", "end", "forfeit_team", "team_faults", "decisions",
        "duration_ms", "replay_id", "referee", "finished_at",
    )
}  # fmt: skip
# A spec as SubmitTournament stored it before records had versions.
STORED_SPEC: dict[str, Any] = {
    "entries": ["house", "rand@v2"],
    "games": ["seep"],
    "deals": 2,
    "move_deadline_ms": 2000.0,
    "time_bank_ms": 750.0,
    "max_faults": 3,
    "master_seed": 5,
    "seed_salt": "ab" * 16,
    "operator_seed": False,
    "seed_commitment": "cd" * 32,
    "fair_play": "open",
    "name": "nightly",
    "addresses": {"house": "127.0.0.1:7001"},
    "hosted": {"rand@v2": {"sha256": "e" * 64, "runtime": "python3.11", "command": "bot.py"}},
    "games_of": {"house": ["seep", "baloot"], "rand@v2": ["seep"]},
    "format": "round-robin",
    "format_params": {},
}
# The first arena's spec: no time bank, no salt, no fair play, no formats.
FIRST_SPEC = {
    "entries": ["house", "rand"],
    "games": ["seep", "baloot"],
    "deals": 1,
    "move_deadline_ms": 1000.0,
    "max_faults": 3,
    "master_seed": 7,
    "name": "",
    "addresses": {"house": "127.0.0.1:7001", "rand": "127.0.0.1:7002"},
}

# A spec of version 2: stored with its version, before broadcast delays and partners.
SEALED_SPEC_V2: dict[str, Any] = {**STORED_SPEC, "fair_play": "sealed", "record_version": 2}
# A bot registered before hosted bots and authors.
FIRST_BOT: dict[str, Any] = {
    "name": "house",
    "address": "127.0.0.1:7001",
    "games": ["seep"],
    "hello_name": "House",
    "version": "1.0",
    "registered_at": 1.5,
}
# A hosted bot's version before records had versions.
FIRST_HOSTED: dict[str, Any] = {
    "name": "rand",
    "version": "v2",
    "runtime": "python3.11",
    "command": "bot.py",
    "sha256": "e" * 64,
    "size": 900,
    "author": "ana",
    "submitted_at": 2.5,
    "games": ["seep"],
    "hello_name": "Rand",
    "hello_version": "2",
}
# A game's tally before shared partners were counted.
FIRST_TALLY: dict[str, Any] = {
    "counts": [["house", "rand", 1, 0, 0]],
    "played": {"house": 2, "rand": 2},
    "forfeited": {},
    "matches": 2,
    "trusted": 2,
    "operator": 2,
}
# A row and a board before covariances, bounds, shared partners, the pairs that
# establish a rating and the ranking rule were kept.
FIRST_ROW: dict[str, Any] = {
    "rank": 1,
    "bot": "house",
    "elo": 35.0,
    "elo_ci95": 400.0,
    "pairs": 1,
    "wins": 1,
    "draws": 0,
    "losses": 0,
    "matches": 2,
    "game_elo": {"seep": 35.0},
    "status": "provisional",
    "note": "provisional: 1 of the 20 pairs",
    "group": 1,
}
FIRST_BOARD: dict[str, Any] = {
    "game": "",
    "rows": [FIRST_ROW, {**FIRST_ROW, "rank": 0, "bot": "rand", "elo": -35.0, "wins": 0,
                         "losses": 1, "game_elo": {"seep": -35.0}}],
    "draw_elo": 0.0,
    "matches": 2,
}  # fmt: skip


def store_old_tournament(
    client: redis.Redis, tournament_id: str, spec: dict[str, Any], results: list[dict[str, Any]]
) -> list[str]:
    """A finished Seep tournament of ``spec`` and ``results`` as an earlier build stored
    it: its hash, its place in the list of tournaments, and each result under its match
    id (``<tournament>-seep-<n>-0-a``). Returns the match ids."""
    client.hset(
        keys.tournament(tournament_id),
        mapping={"spec": json.dumps(spec), "games": '["seep"]', "state": FINISHED,
                 "created_at": "1796132600.0", "total": 2},
    )  # fmt: skip
    client.zadd(keys.tournaments(), {tournament_id: 1796132600000})
    match_ids = []
    for n, stored in enumerate(results):
        match_id = f"{tournament_id}-seep-{n}-0-a"
        raw = {**stored, "match_id": match_id, "tournament_id": tournament_id}
        client.hset(keys.results(tournament_id), match_id, json.dumps(raw))
        match_ids.append(match_id)
    return match_ids
