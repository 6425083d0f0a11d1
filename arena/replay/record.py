"""Builds the replay document of a match as it is played.

The document (schema: ``arena/replay/replay.schema.json``) keeps everything needed to
check or re-run a match: seed, the deal commitment published before play, options, each
hand's deal per seat, every decision with its seat, canonical text and think time, every
fault, and per-hand and final scores. It is written only after the match, so it may hold
all hidden cards; ``arena.replay.verify`` checks one against the engines.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

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
    """Accumulates one match's replay; ``finish()`` gives the JSON-ready dict.

    During play it only notes decisions and faults with how many engine events came
    before each (a tuple apiece: this runs for every decision); ``finish`` weaves them
    into the engine's event log, hand by hand."""

    def __init__(
        self,
        *,
        match_id: str,
        game: str,
        seed: int,
        deal_commitment: str,
        deal_salt: str | None,
        options: dict[str, Any],
        seats: Sequence[dict[str, Any]],
        move_deadline_s: float,
        max_faults: int,
        time_bank_s: float = 0.0,
        started_at: dt.datetime | None = None,
        bot_match_id: str = "",
    ) -> None:
        """``deal_salt`` None: a commitment from before salts (an imported replay).
        ``bot_match_id``: the one token every seat was told, in a match from before each
        seat had its own (in ``seats``, as ``token``)."""
        started = started_at or dt.datetime.now(dt.UTC)
        self._doc: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "match_id": match_id,
            "game": game,
            "seed": seed,
            "deal_commitment": deal_commitment,
            "deal_salt": deal_salt,
            "bot_match_id": bot_match_id,
            "options": dict(options),
            "move_deadline_ms": round(move_deadline_s * 1000, 3),
            "max_faults": max_faults,
            "started_at": started.isoformat(timespec="milliseconds"),
            "seats": list(seats),
            "hands": [],
            "faults": [],
            "result": None,
        }
        if deal_salt is None:
            del self._doc["deal_salt"]
        if not bot_match_id:
            del self._doc["bot_match_id"]
        if time_bank_s:
            self._doc["time_bank_ms"] = round(time_bank_s * 1000, 3)
        self._notes: list[tuple[int, dict[str, Any] | _Decision]] = []
        self._hand: dict[str, Any] | None = None

    def decision(
        self,
        events_before: int,
        *,
        index: int,
        seat: int,
        action: int,
        text: str,
        think_s: float,
        substituted: bool,
        time_bank_s: float | None,
        table: str | None,
    ) -> None:
        """A decision taken after the first ``events_before`` engine events; ``table`` is
        what lies face up after it, for games that describe it."""
        self._notes.append(
            (
                events_before,
                _Decision(index, seat, action, text, think_s, substituted, time_bank_s, table),
            )
        )

    def fault(self, events_before: int, fault: dict[str, Any]) -> None:
        """A fault; one before the first event (a bot that never started) belongs to no hand."""
        self._doc["faults"].append(fault)
        self._notes.append((events_before, fault))

    def finish(self, events: Sequence[Event], result: dict[str, Any]) -> dict[str, Any]:
        """The document, from the match's whole event log and its result."""
        notes = iter(self._notes)
        note = next(notes, None)
        for position, event in enumerate(events):
            while note is not None and note[0] <= position:
                self._log_note(note[1])
                note = next(notes, None)
            self._log_event(event)
        while note is not None:
            self._log_note(note[1])
            note = next(notes, None)
        self._doc["result"] = result
        return self._doc

    def _log_event(self, event: Event) -> None:
        """A deal opens a hand and a hand end gives its scores; what follows a hand's
        end (a game end) stays with it."""
        if event.kind == HAND_START:
            hand = self._open_hand()
            hand["dealer"] = event.data.get("dealer")
            hand["deal"] = [list(h) for h in event.data.get("hands", [])]
        else:
            hand = self._hand or self._open_hand()
        hand["log"].append({"event": event_json(event)})
        if event.kind in HAND_END_KINDS:
            hand["scores"] = list(event.data.get("scores", []))
            hand["end"] = event.kind

    def _log_note(self, note: dict[str, Any] | _Decision) -> None:
        if isinstance(note, _Decision):
            hand = self._hand or self._open_hand()
            hand["log"].append({"decision": note.to_json()})
        elif self._hand is not None:
            self._hand["log"].append({"fault": note})

    def _open_hand(self) -> dict[str, Any]:
        self._hand = {"number": len(self._doc["hands"]) + 1, "log": []}
        self._doc["hands"].append(self._hand)
        return self._hand


class _Decision(NamedTuple):
    decision_index: int
    seat: int
    action: int
    text: str
    think_s: float
    substituted: bool
    time_bank_s: float | None
    table: str | None

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "index": self.decision_index,
            "seat": self.seat,
            "action": self.action,
            "text": self.text,
            "think_ms": round(self.think_s * 1000, 3),
            "substituted": self.substituted,
        }
        if self.time_bank_s is not None:
            out["time_bank_ms"] = round(self.time_bank_s * 1000, 3)
        if self.table is not None:
            out["table"] = self.table
        return out


def seat_token(doc: Mapping[str, Any], seat: int) -> str:
    """The token a seat's bot was told (``ActRequest.match_id``): its own, or in a match
    from before each seat had one, the match's single token."""
    token: str = doc["seats"][seat].get("token") or doc.get("bot_match_id", "")
    return token
