"""Builds the replay document of a match as it is played.

The document (schema: ``arena/replay/replay.schema.json``) keeps everything needed to
check or re-run a match: seed, the deal commitment published before play, options, each
hand's deal per seat, every decision with its seat, canonical text and think time, every
fault, and per-hand and final scores. It is written only after the match, so it may hold
all hidden cards; ``arena.replay.verify`` checks one against the engines.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from arena.games.api import Event

FORMAT = "card-arena-replay"
VERSION = 1

HAND_START = "deal"
HAND_END_KINDS = ("hand_end", "throw_in")


def event_json(event: Event) -> dict[str, Any]:
    """An engine event as a replay log line records it."""
    out: dict[str, Any] = {"kind": event.kind, "text": event.text}
    if event.seat is not None:
        out["seat"] = event.seat
    if event.data:
        out["data"] = dict(event.data)
    if event.visible_to is not None:
        out["visible_to"] = list(event.visible_to)
    return out


class ReplayRecorder:
    """Accumulates one match's replay; ``document()`` gives the JSON-ready dict."""

    def __init__(
        self,
        *,
        match_id: str,
        game: str,
        seed: int,
        deal_commitment: str,
        options: dict[str, Any],
        seats: Sequence[dict[str, Any]],
        move_deadline_s: float,
        max_faults: int,
        time_bank_s: float = 0.0,
    ) -> None:
        self._doc: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "match_id": match_id,
            "game": game,
            "seed": seed,
            "deal_commitment": deal_commitment,
            "options": dict(options),
            "move_deadline_ms": round(move_deadline_s * 1000, 3),
            "max_faults": max_faults,
            "started_at": dt.datetime.now(dt.UTC).isoformat(timespec="milliseconds"),
            "seats": list(seats),
            "hands": [],
            "faults": [],
            "result": None,
        }
        if time_bank_s:
            self._doc["time_bank_ms"] = round(time_bank_s * 1000, 3)
        self._hand: dict[str, Any] | None = None
        self._last_decision: dict[str, Any] = {}

    def _new_hand(self) -> dict[str, Any]:
        self._hand = {"number": len(self._doc["hands"]) + 1, "log": []}
        self._doc["hands"].append(self._hand)
        return self._hand

    def _current_hand(self) -> dict[str, Any]:
        """The hand being logged; what follows a hand's end (a game end) stays with it."""
        return self._hand if self._hand is not None else self._new_hand()

    def events(self, events: Sequence[Event]) -> None:
        """Record engine events; a deal opens a hand and a hand end gives its scores."""
        for event in events:
            if event.kind == HAND_START:
                hand = self._new_hand()
                hand["dealer"] = event.data.get("dealer")
                hand["deal"] = [list(h) for h in event.data.get("hands", [])]
            hand = self._current_hand()
            hand["log"].append({"event": event_json(event)})
            if event.kind in HAND_END_KINDS:
                hand["scores"] = list(event.data.get("scores", []))
                hand["end"] = event.kind

    def decision(
        self,
        *,
        index: int,
        seat: int,
        action: int,
        text: str,
        think_ms: float,
        substituted: bool,
        time_bank_s: float | None = None,
    ) -> None:
        self._last_decision = {
            "index": index,
            "seat": seat,
            "action": action,
            "text": text,
            "think_ms": round(think_ms, 3),
            "substituted": substituted,
        }
        if time_bank_s is not None:
            self._last_decision["time_bank_ms"] = round(time_bank_s * 1000, 3)
        self._current_hand()["log"].append({"decision": self._last_decision})

    def table(self, picture: str | None) -> None:
        """What lies face up after the last decision, for games that describe it."""
        if picture is not None:
            self._last_decision["table"] = picture

    def fault(self, fault: dict[str, Any]) -> None:
        self._doc["faults"].append(fault)
        if self._hand is not None:
            self._hand["log"].append({"fault": fault})

    def finish(self, result: dict[str, Any]) -> dict[str, Any]:
        self._doc["result"] = result
        return self._doc
