"""A replay as frames for the web viewer: the table before every decision, and what the
seat to act was sent.

The replay is first verified (``arena.replay.verify``), then played again on the game's
engine, as the referee played it. Before each decision a frame records the whole table
(``arena.replay.tables``: every hand, the trick or floor or melds, the scores), whose turn
it is, the decision taken, any fault on it, and the engine events since the last frame. A
last frame shows the table where the match stopped.

The seat's ``ActRequest`` at each frame is built by ``arena.wire_bytes.act_request``, the
very function the referee sends bots, so the viewer cannot show something else than a bot
got. It is most of the size, so it is kept apart (``Built.requests``, as wire bytes) and
the site serves it one frame at a time (``Built.sent``).

Pure: no I/O. A replay of another format or version raises ``FramesRefused``; one that
does not verify raises ``ReplayMismatch``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from google.protobuf import json_format

from arena import wire_bytes
from arena.games import State, get_game
from arena.replay.record import FORMAT, HAND_END_KINDS, VERSION, seat_token
from arena.replay.tables import play_direction, table
from arena.replay.verify import ReplayMismatch, verify_replay
from arena.v1 import bot_pb2

FRAMES_FORMAT = "card-arena-replay-frames"
FRAMES_VERSION = 2
"""2: frames no longer carry ``sent``; it is served apart, per frame."""

Frame = dict[str, Any]


class FramesRefused(ReplayMismatch):
    """The document is not a replay this viewer reads; the message says why."""


def check_version(doc: Mapping[str, Any]) -> None:
    """Refuse anything but a Card Arena replay of the current version, saying which."""
    if doc.get("format") != FORMAT:
        raise FramesRefused(
            f"it is not a Card Arena replay (its format is {doc.get('format')!r}, not {FORMAT!r})"
        )
    if doc.get("version") != VERSION:
        raise FramesRefused(
            f"it is replay format version {doc.get('version')!r}, and this viewer reads "
            f"version {VERSION} only"
        )


class NoRequest(LookupError):
    """A frame index that has no request (out of range, or where the match stopped)."""


@dataclass(frozen=True)
class Built:
    """A replay's frames document, and each frame's ActRequest as the referee's wire
    bytes (None where the match stopped): bytes are a fraction of the JSON's size, so a
    site can keep several matches' requests at hand."""

    frames: dict[str, Any]
    requests: list[bytes | None]

    def sent(self, index: int) -> dict[str, Any]:
        """Frame ``index``'s ActRequest as JSON (proto field names, every field)."""
        wire = self.requests[index] if 0 <= index < len(self.requests) else None
        if wire is None:
            acting = sum(1 for r in self.requests if r is not None)
            raise NoRequest(
                f"frame {index} has no request: the frames with a seat to act are 0 to {acting - 1}"
                if acting
                else f"frame {index} has no request: no seat acts in this match"
            )
        sent: dict[str, Any] = json_format.MessageToDict(
            bot_pb2.ActRequest.FromString(wire),
            preserving_proto_field_name=True,
            always_print_fields_with_no_presence=True,
        )
        return sent


def build_frames(doc: Mapping[str, Any], names: Sequence[str] | None = None) -> dict[str, Any]:
    """The frames document of a replay (``build`` without the requests)."""
    return build(doc, names).frames


def build(doc: Mapping[str, Any], names: Sequence[str] | None = None) -> Built:
    """The frames of a replay document and their requests; ``names`` (one per seat)
    overrides the names the replay records, e.g. the registered names of a tournament's
    entries."""
    if not isinstance(doc, Mapping):
        raise FramesRefused("it is not a Card Arena replay (not a JSON object)")
    check_version(doc)
    verify_replay(doc)
    game = get_game(doc["game"])
    info = game.info
    seats = [
        {
            "seat": s["seat"],
            "team": s["team"],
            "name": names[s["seat"]] if names is not None else s["bot"],
        }
        for s in doc["seats"]
    ]
    walk = _Walk(doc, game.new_state(doc["seed"], doc["options"]))
    for hand in doc["hands"]:
        walk.hand(hand)
    if doc["hands"]:
        walk.last()
    in_play = sum(len(h["log"]) for h in doc["hands"])
    frames = {
        "format": FRAMES_FORMAT,
        "version": FRAMES_VERSION,
        "replay_version": VERSION,
        "match_id": doc["match_id"],
        "game": info.name,
        "title": info.title,
        "seed": doc["seed"],
        "teams": info.num_teams,
        # Every seat its own team: the viewer counts scores and the winner per seat.
        "per_seat": info.num_teams == info.num_seats,
        "direction": play_direction(info.name),
        "seats": seats,
        "hands": walk.hands,
        # Faults while greeting the bots, before any hand: the match never started.
        "faults_before_play": list(doc["faults"]) if not in_play else [],
        "result": doc["result"],
        "frames": walk.frames,
    }
    return Built(frames, walk.requests)


class _Walk:
    """Plays the replay's decisions again, taking a frame before each."""

    def __init__(self, doc: Mapping[str, Any], state: State) -> None:
        self.doc = doc
        self.state = state
        self.seen = 0  # engine events already shown in a frame
        self.faults: list[dict[str, Any]] = []  # faults since the last decision
        self.frames: list[Frame] = []
        self.requests: list[bytes | None] = []  # each frame's ActRequest, as sent
        self.hands: list[dict[str, Any]] = []
        self.number = 0
        self.decisions = 0
        bank_s = float(doc.get("time_bank_ms", 0)) / 1000
        self.banks = [bank_s] * state.game_info.num_seats

    def hand(self, hand: Mapping[str, Any]) -> None:
        self.number = hand["number"]
        summary: dict[str, Any] = {"number": self.number, "frame": len(self.frames)}
        for entry in hand["log"]:
            if "fault" in entry:
                self.faults.append(dict(entry["fault"]))
            elif "decision" in entry:
                self.decision(entry["decision"])
        summary["decisions"] = len(self.frames) - summary["frame"]
        if "end" in hand:  # shown by the next frame, whose table the engine dealt anew
            summary.update(end=hand["end"], scores=hand["scores"], end_frame=len(self.frames))
        self.hands.append(summary)

    def decision(self, decision: Mapping[str, Any]) -> None:
        frame = self._frame("decision")
        frame["action"] = {
            "id": str(decision["action"]),
            "text": decision["text"],
            "think_ms": decision["think_ms"],
            "substituted": decision["substituted"],
        }
        self.frames.append(frame)
        self.state.apply(decision["action"])
        self.decisions += 1
        if "time_bank_ms" in decision:
            self.banks[decision["seat"]] = decision["time_bank_ms"] / 1000

    def last(self) -> None:
        """Where the match stopped: its end, or the decision a forfeit cut short."""
        self.frames.append(self._frame("end"))

    def _frame(self, kind: str) -> Frame:
        state = self.state
        seat = state.current_seat()
        events = state.events[self.seen :]
        self.seen = len(state.events)
        frame: Frame = {
            "index": len(self.frames),
            "kind": kind,
            "hand": self.number,
            "decision": self.decisions,
            "seat": None if state.is_terminal() else seat,
            "scores": state.scores(),
            "table": table(state),
            "events": [
                {
                    "kind": e.kind,
                    "text": e.text,
                    "seat": e.seat,
                    "private": e.visible_to is not None,
                    "hand_end": e.kind in HAND_END_KINDS,
                }
                for e in events
            ],
            "faults": self.faults,
            "action": None,
        }
        self.requests.append(None if state.is_terminal() else self._request())
        self.faults = []
        return frame

    def _request(self) -> bytes:
        """The ActRequest of the seat to act, as the referee built it (time bank as the
        replay recorded it, to the microsecond)."""
        state = self.state
        return wire_bytes.act_request(
            state,
            match_id=seat_token(self.doc, state.current_seat()),
            decision_index=self.decisions,
            deadline_s=self.doc["move_deadline_ms"] / 1000,
            legal=state.legal_actions(),
            time_bank_s=self.banks[state.current_seat()],
        )
