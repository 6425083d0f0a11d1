"""Checks a replay against the rule engines, for ``arena replay verify``.

A replay verifies when its deal commitment is the SHA-256 of its match id and seed
(``arena.match_rules.commitment``), and re-dealing from the seed and options and replaying
its decisions on the game's engine gives back exactly what it records: every engine
event (so every dealt and drawn card), each hand's deal and scores, every decision's
seat, action id and canonical text, the referee's substitute after each fault (drawn
from the seed), and the final scores, winner and decision count. Its faults must end the
match exactly where the fault policy (``arena.match_rules.faults``, the referee's own) says:
a forfeit on the fault that reaches ``max_faults`` (or on a ``left`` fault, whose team
forfeits at once), not one fault sooner or later. A
match that ended by forfeit or without a contest is checked as far as it was played.

Pure: no I/O. The first discrepancy raises ``ReplayMismatch`` with a message that says
where (hand, decision) and what the engine expected against what the replay holds.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, TypeVar

from arena.games import GameError, State, get_game
from arena.games.api import Game, GameInfo
from arena.match_rules.commitment import commitment_text, deal_commitment
from arena.match_rules.faults import (
    KIND_NAMES,
    KINDS_BY_NAME,
    Fault,
    FaultLedger,
    FaultPolicy,
    ending_before_play,
    forfeit_winner,
    substitute_action,
)
from arena.replay.record import FORMAT, HAND_END_KINDS, HAND_START, VERSION, event_json
from arena.v1 import referee_pb2
from arena.wording import count

ENDS = ("completed", "forfeit", "no_contest")


class ReplayMismatch(ValueError):
    """The replay does not verify; the message gives the first discrepancy."""


@dataclass(frozen=True)
class Verified:
    """What a replay that verifies showed."""

    match_id: str
    game: str
    seed: int
    deal_commitment: str
    hands: int
    decisions: int
    end: str
    former_rule: str = ""
    """The former rule of the game the match re-ran under (``under_rules``), if any."""

    def summary(self) -> str:
        former = f"; played under a former rule: {self.former_rule}" if self.former_rule else ""
        return (
            f"verified: {self.match_id} ({self.game}, seed {self.seed}, "
            f"{count(self.decisions, 'decision')}, commitment OK{former})"
        )

    def to_json(self) -> dict[str, Any]:
        found = {
            "verified": True,
            "match_id": self.match_id,
            "game": self.game,
            "seed": self.seed,
            "deal_commitment": self.deal_commitment,
            "hands": self.hands,
            "decisions": self.decisions,
            "end": self.end,
        }
        return found | ({"former_rule": self.former_rule} if self.former_rule else {})


T = TypeVar("T")


def under_rules(info: GameInfo, run: Callable[[frozenset[str]], T]) -> tuple[T, str]:
    """``run`` (a re-run of a stored match) under today's rules, or, if the match does
    not re-run under them, under each former rule of its game in turn
    (``GameInfo.former_rules``): what it gave, and the former rule's words ("" for
    today's). A match that fits none gets today's discrepancy."""
    try:
        return run(frozenset()), ""
    except ReplayMismatch as today:
        for name, said in info.former_rules:
            try:
                return run(frozenset({name})), said
            except ReplayMismatch:
                continue
        raise today from None


def verify_text(text: str) -> Verified:
    """Verify a replay given as JSON text; text that is not JSON is a mismatch too."""
    try:
        document = json.loads(text)
    except ValueError as error:  # JSONDecodeError, and UnicodeDecodeError from bytes
        raise ReplayMismatch(f"not valid JSON ({error})") from None
    return verify_replay(document)


def verify_replay(document: object) -> Verified:
    """Verify a parsed replay document; raises ``ReplayMismatch`` at the first discrepancy."""
    doc = _mapping(document, "the replay")
    if doc.get("format") != FORMAT:
        raise ReplayMismatch(f"not a Card Arena replay (format is {doc.get('format')!r})")
    version = doc.get("version")
    if version != VERSION:
        raise ReplayMismatch(
            f"replay version {version!r} is not one this arena reads (it reads {VERSION})"
        )
    match_id = _field(doc, "match_id", str, "the replay")
    game_name = _field(doc, "game", str, "the replay")
    seed = _int(doc, "seed", "the replay")
    if seed < 0:
        raise ReplayMismatch(f"seed {seed} is negative")
    commitment = _check_commitment(doc, match_id, seed)
    try:
        game = get_game(game_name)
    except GameError as error:
        raise ReplayMismatch(str(error)) from None
    verified, former = under_rules(
        game.info, lambda rules: _verify(doc, game, match_id, seed, commitment, rules)
    )
    return replace(verified, former_rule=former)


def _verify(
    doc: Mapping[str, Any],
    game: Game,
    match_id: str,
    seed: int,
    commitment: str,
    former: frozenset[str],
) -> Verified:
    game_name = game.info.name
    try:
        state = game.new_state(seed, _mapping(doc.get("options"), "options"))
    except GameError as error:
        raise ReplayMismatch(str(error)) from None
    state.former = former
    seats = _list(doc, "seats", "the replay")
    if len(seats) != game.info.num_seats:
        raise ReplayMismatch(
            f"{game_name} has {game.info.num_seats} seats, the replay lists {len(seats)}"
        )
    max_faults = _int(doc, "max_faults", "the replay")
    if max_faults < 1:
        raise ReplayMismatch(f"max_faults is {max_faults}; a match allows at least one fault")
    walk = _Walk(state, seed, FaultLedger(FaultPolicy(max_faults), game.info.seat_teams))
    hands = _list(doc, "hands", "the replay")
    for number, hand in enumerate(hands, 1):
        walk.hand(number, _mapping(hand, f"hand {number}"))
    if hands:  # a match that never got past greeting the bots logs nothing at all
        walk.finish(len(hands))
    result = _mapping(doc.get("result"), "result")
    end = _field(result, "end", str, "result")
    if end not in ENDS:
        raise ReplayMismatch(f"result end {end!r} is none of {', '.join(ENDS)}")
    before_play = _check_faults(doc, walk)
    _check_result(result, walk, end, before_play)
    return Verified(match_id, game_name, seed, commitment, len(hands), walk.decisions, end)


def _check_commitment(doc: Mapping[str, Any], match_id: str, seed: int) -> str:
    if "deal_commitment" not in doc:
        raise ReplayMismatch(
            "it records no deal commitment (a replay from before commitments were published)"
        )
    recorded: str = _field(doc, "deal_commitment", str, "the replay")
    salt: str | None = None  # replays from before salted commitments
    if "deal_salt" in doc:
        salt = _field(doc, "deal_salt", str, "the replay")
    try:
        text = commitment_text(match_id, seed, salt)
    except ValueError as error:
        raise ReplayMismatch(f"bad deal_salt: {error}") from None
    expected = deal_commitment(match_id, seed, salt)
    if recorded != expected:
        raise ReplayMismatch(
            f"deal commitment mismatch: sha256({text!r}) is {expected}, the replay records "
            f"{recorded}"
        )
    return recorded


class _Walk:
    """Replays the log entry by entry on a fresh engine state."""

    def __init__(self, state: State, seed: int, ledger: FaultLedger) -> None:
        self.state = state
        self.seed = seed
        self.ledger = ledger
        self.seen = 0  # engine events matched so far
        self.decisions = 0
        self.faults: list[dict[str, Any]] = []  # faults found in the hands' logs
        self.pending: dict[str, Any] | None = None  # a fault awaiting its substitute
        self.forfeit: int | None = None  # the team the pending fault makes forfeit
        self.where = "before the first decision"

    def hand(self, number: int, hand: Mapping[str, Any]) -> None:
        label = f"hand {number}"
        recorded_number = _field(hand, "number", int, label)
        if recorded_number != number:
            raise ReplayMismatch(f"{label} is numbered {recorded_number}")
        log = _list(hand, "log", label)
        hand_end: Mapping[str, Any] | None = None
        dealt = False
        if number > 1 and not log:
            raise ReplayMismatch(f"{label} has an empty log")
        for position, raw in enumerate(log):
            entry = _mapping(raw, f"{label}, log line {position + 1}")
            if len(entry) != 1:
                raise ReplayMismatch(
                    f"{label}, log line {position + 1}: holds {sorted(entry)}, "
                    "not one of decision, event or fault"
                )
            if "event" in entry:
                event = self._next_event(label, entry["event"])
                if event["kind"] == HAND_START:
                    if position != 0:
                        raise ReplayMismatch(
                            f"{label}: a new deal {self.where} is logged inside the hand"
                        )
                    # The cards first: a wrong seed shows there before anywhere else.
                    self._deal(label, hand, event.get("data", {}))
                    dealt = True
                self._match_event(label, event, entry["event"])
                if event["kind"] in HAND_END_KINDS:
                    hand_end = event
            elif "decision" in entry:
                self._decision(label, _mapping(entry["decision"], f"{label}, a decision"))
            elif "fault" in entry:
                self._fault(label, _mapping(entry["fault"], f"{label}, a fault"))
            else:
                raise ReplayMismatch(
                    f"{label}, log line {position + 1}: {next(iter(entry))!r} is not one "
                    "of decision, event or fault"
                )
            if number > 1 and not dealt:  # the recorder opens a hand at each deal only
                raise ReplayMismatch(f"{label} does not start with a deal")
        if not dealt and ("deal" in hand or "dealer" in hand):
            raise ReplayMismatch(f"{label} records a deal, but the engine dealt nothing there")
        if hand_end is None:
            if "scores" in hand or "end" in hand:
                raise ReplayMismatch(f"{label} records an end, but the hand never ended")
            return
        data = hand_end.get("data", {})
        expected_scores = list(data.get("scores", []))
        if hand.get("scores") != expected_scores:
            raise ReplayMismatch(
                f"{label}: scores after the hand are {_scores(expected_scores)} by the engine, "
                f"the replay says {_scores(hand.get('scores'))}"
            )
        if hand.get("end") != hand_end["kind"]:
            raise ReplayMismatch(
                f"{label} ended with {hand_end['kind']!r}, the replay says {hand.get('end')!r}"
            )

    def _deal(self, label: str, hand: Mapping[str, Any], data: Mapping[str, Any]) -> None:
        expected = _plain(data.get("hands", []))
        recorded = hand.get("deal")
        if not isinstance(recorded, list) or len(recorded) != len(expected):
            raise ReplayMismatch(
                f"{label}: the engine dealt {len(expected)} seats, the replay's deal is "
                f"{_short(recorded)}"
            )
        for seat, (cards, found) in enumerate(zip(expected, recorded, strict=True)):
            if cards != found:
                raise ReplayMismatch(
                    f"{label}: seed {self.seed} deals seat {seat} {_cards(cards)}, "
                    f"the replay says {_cards(found)}"
                )
        if hand.get("dealer") != data.get("dealer"):
            raise ReplayMismatch(
                f"{label}: the dealer is seat {data.get('dealer')}, "
                f"the replay says {hand.get('dealer')!r}"
            )

    def _next_event(self, label: str, recorded: object) -> dict[str, Any]:
        """The engine's event for a logged one, as the replay would record it."""
        events = self.state.events
        if self.seen >= len(events):
            state = self.state
            following = (
                "the match is over"
                if state.is_terminal()
                else f"seat {state.current_seat()} is to act first"
            )
            raise ReplayMismatch(
                f"{label}, {self.where}: the replay logs {_event_line(recorded)}, but the "
                f"engine has no further event there ({following}; a decision missing?)"
            )
        expected: dict[str, Any] = _plain(event_json(events[self.seen]))
        return expected

    def _former(self, expected: dict[str, Any], recorded: object) -> bool:
        """Whether ``recorded`` is ``expected`` with its text as an earlier version of
        the engine wrote it (``GameInfo.former_texts``): everything else must match."""
        for pattern, was in self.state.game_info.former_texts:
            older = {**expected, "text": re.sub(pattern, was, expected["text"])}
            if older != expected and recorded == older:
                return True
        return False

    def _match_event(self, label: str, expected: dict[str, Any], recorded: object) -> None:
        if recorded != expected and not self._former(expected, recorded):
            raise ReplayMismatch(
                f"{label}, {self.where}: event {expected['kind']!r} "
                f"({expected['text']!r}) differs: {_difference(expected, recorded)}"
            )
        self.seen += 1

    def _unlogged_events(self, label: str, before: str) -> None:
        if self.seen < len(self.state.events):
            event = self.state.events[self.seen]
            raise ReplayMismatch(
                f"{label}, {self.where}: the engine's event {event.kind!r} ({event.text!r}) "
                f"is missing from the replay, which {before}"
            )

    def _decision(self, label: str, decision: Mapping[str, Any]) -> None:
        index = self.decisions
        here = f"{label}, decision {index}"
        self._unlogged_events(label, f"goes on with decision {index}")
        recorded_index = _field(decision, "index", int, here)
        if recorded_index != index:
            raise ReplayMismatch(f"{here}: recorded with index {recorded_index}")
        state = self.state
        if state.is_terminal():
            raise ReplayMismatch(f"{here}: the match was already over")
        seat = state.current_seat()
        recorded_seat = _field(decision, "seat", int, here)
        if recorded_seat != seat:
            raise ReplayMismatch(
                f"{here}: seat {seat} is to act, the replay says seat {recorded_seat}"
            )
        action = _field(decision, "action", int, here)
        text = _field(decision, "text", str, here)
        legal = state.legal_actions()
        if action not in legal:
            raise ReplayMismatch(
                f"{here} (seat {seat}): action id {action} ({text!r}) is not legal; "
                f"the legal ids are {_legal(state, legal)}"
            )
        expected_text = state.action_text(action)
        if text != expected_text:
            raise ReplayMismatch(
                f"{here} (seat {seat}): action id {action} is {expected_text!r}, "
                f"the replay's text is {text!r}"
            )
        substituted = _field(decision, "substituted", bool, here)
        fault = self.pending
        if substituted != (fault is not None):
            raise ReplayMismatch(
                f"{here} (seat {seat}): "
                + (
                    "marked as played by the referee, but no fault precedes it"
                    if substituted
                    else "a fault precedes it, but the bot's own move is recorded"
                )
            )
        if fault is not None:
            if self.forfeit is not None:
                raise ReplayMismatch(
                    f"{here} (seat {seat}): the fault before it is {_tally(self.ledger, fault)}: "
                    f"team {self.forfeit} forfeits there, but the replay plays on"
                )
            substitute = substitute_action(self.seed, index, legal)
            if action != substitute:
                raise ReplayMismatch(
                    f"{here} (seat {seat}): the seed's substitute is "
                    f"{state.action_text(substitute)!r} (id {substitute}), the replay plays "
                    f"{expected_text!r} (id {action})"
                )
            self.pending = None
        state.apply(action)
        table = state.public_table()
        if decision.get("table") != table:
            raise ReplayMismatch(
                f"{here} (seat {seat}): the table after it is {table!r}, "
                f"the replay says {decision.get('table')!r}"
            )
        self.decisions += 1
        self.where = f"after decision {index}"

    def _fault(self, label: str, fault: Mapping[str, Any]) -> None:
        index = self.decisions
        here = f"{label}, fault before decision {index}"
        if self.pending is not None:
            raise ReplayMismatch(f"{here}: a second fault for the same decision")
        self._unlogged_events(label, f"goes on with a fault at decision {index}")
        recorded_index = _field(fault, "decision", int, here)
        if recorded_index != index:
            raise ReplayMismatch(f"{here}: recorded for decision {recorded_index}")
        state = self.state
        if state.is_terminal():
            raise ReplayMismatch(f"{here}: the match was already over")
        seat = state.current_seat()
        recorded_seat = _field(fault, "seat", int, here)
        if recorded_seat != seat:
            raise ReplayMismatch(
                f"{here}: seat {seat} is to act, the fault names seat {recorded_seat}"
            )
        expected = state.action_text(substitute_action(self.seed, index, state.legal_actions()))
        recorded = _field(fault, "substituted_action", str, here)
        if recorded != expected:
            raise ReplayMismatch(
                f"{here} (seat {seat}): the seed's substitute is {expected!r}, "
                f"the fault records {recorded!r}"
            )
        self.forfeit = self.ledger.record(_fault_of(fault, here, state.game_info.num_seats))
        self.faults.append(dict(fault))
        self.pending = dict(fault)

    def finish(self, hands: int) -> None:
        self._unlogged_events(f"hand {hands}", "ends there")


def _check_faults(doc: Mapping[str, Any], walk: _Walk) -> list[Fault]:
    """Check the replay's fault list and count per seat; returns the faults made before
    the first move."""
    faults = [_mapping(f, "a fault") for f in _list(doc, "faults", "the replay")]
    # The list holds the faults of the greeting (before any hand), then those of the logs.
    before_play = len(faults) - len(walk.faults)
    if before_play < 0 or [dict(f) for f in faults[before_play:]] != walk.faults:
        raise ReplayMismatch("the replay's fault list differs from the faults in its hands' logs")
    seats = walk.state.game_info.num_seats
    greeting: list[Fault] = []
    for fault in faults[:before_play]:
        if fault.get("decision") != 0:
            raise ReplayMismatch(f"fault {_short(dict(fault))} is in no hand's log")
        greeting.append(_fault_of(fault, f"fault {_short(dict(fault))}", seats))
        walk.ledger.record(greeting[-1])  # the match ends anyway: ending_before_play says how
    counted = [walk.ledger.seat_faults(seat) for seat in range(seats)]
    recorded = _mapping(doc.get("result"), "result").get("seat_faults")
    if recorded != counted:
        raise ReplayMismatch(
            f"the replay lists faults per seat {counted}, its result says {_short(recorded)}"
        )
    return greeting


def _check_result(
    result: Mapping[str, Any], walk: _Walk, end: str, before_play: Sequence[Fault]
) -> None:
    state = walk.state
    info = state.game_info
    if _field(result, "decisions", int, "result") != walk.decisions:
        raise ReplayMismatch(
            f"the result counts {result['decisions']} decisions, the log holds {walk.decisions}"
        )
    if end == "completed" and not state.is_terminal():
        raise ReplayMismatch(
            f"the match is recorded as completed, but after decision {walk.decisions - 1} "
            f"seat {state.current_seat()} still has to act"
        )
    if end != "completed" and state.is_terminal():
        raise ReplayMismatch(f"the match was played to the end, but is recorded as {end!r}")
    scores = state.scores()
    if result.get("scores") != scores:
        raise ReplayMismatch(
            f"final scores are {_scores(scores)} by the engine, "
            f"the replay says {_scores(result.get('scores'))}"
        )
    forfeit = result.get("forfeit_team")
    if (end == "forfeit") != (forfeit is not None):
        raise ReplayMismatch(f"the match ended {end!r}, but the forfeiting team is {forfeit!r}")
    if forfeit is not None and forfeit not in range(info.num_teams):
        raise ReplayMismatch(f"forfeiting team {forfeit!r} is not a team of {info.name}")
    _check_ending(walk, end, forfeit, before_play)
    winner = state.winner() if end == "completed" else forfeit_winner(forfeit, info.num_teams)
    if result.get("winner_team") != winner:
        raise ReplayMismatch(
            f"the winning team is {winner} by the engine, the replay says "
            f"{result.get('winner_team')!r}"
        )


def _check_ending(walk: _Walk, end: str, forfeit: int | None, before_play: Sequence[Fault]) -> None:
    """The match must end where the fault policy ends it, and only there."""
    if before_play:
        if walk.seen:
            raise ReplayMismatch(
                "faults before the first move end a match at once, but this one was played"
            )
        teams = {walk.ledger.seat_teams[f.seat] for f in before_play}
        policy_end, policy_team = ending_before_play(teams, walk.state.game_info.num_teams)
        expected = (end_name(policy_end), policy_team)
        named = ", ".join(map(str, sorted(teams)))
        why = f"with the bots of team{'s' * (len(teams) > 1)} {named} unreachable before play"
    elif walk.pending is not None:
        if walk.forfeit is None:
            raise ReplayMismatch(
                f"the log ends with a fault at decision {walk.decisions} and no substitute, "
                f"but that fault is {_tally(walk.ledger, walk.pending)}, which forfeits nothing: "
                "the match should have gone on"
            )
        expected = ("forfeit", walk.forfeit)
        why = f"after the fault at decision {walk.decisions}"
    elif end == "forfeit":
        raise ReplayMismatch(
            "the match is recorded as a forfeit, but no fault ends the log"
            + (f" after decision {walk.decisions - 1}" if walk.decisions else "")
        )
    else:
        return  # played to the end, or stopped at the referee's decision cap
    if (end, forfeit) != expected:
        raise ReplayMismatch(
            f"{why}, the fault policy ends the match {_ending(*expected)}; "
            f"the replay says {_ending(end, forfeit)}"
        )


def _fault_of(fault: Mapping[str, Any], what: str, seats: int) -> Fault:
    """A recorded fault, as the fault policy counts it."""
    seat = _int(fault, "seat", what)
    if seat not in range(seats):
        raise ReplayMismatch(f"{what}: seat {seat} is not a seat of the game")
    _int(fault, "decision", what)
    kind = _field(fault, "kind", str, what)
    if kind not in KINDS_BY_NAME:
        raise ReplayMismatch(f"{what}: {kind!r} is none of {', '.join(KINDS_BY_NAME)}")
    _field(fault, "detail", str, what)
    _field(fault, "substituted_action", str, what)
    return Fault.from_json(fault)


def _tally(ledger: FaultLedger, fault: Mapping[str, Any]) -> str:
    """Where a team stands after a recorded fault, as the policy counts."""
    team = ledger.seat_teams[fault["seat"]]
    if fault["kind"] == KIND_NAMES[referee_pb2.FAULT_KIND_LEFT]:
        return f"team {team}'s player leaving, which forfeits at once"
    return (
        f"team {team}'s fault {ledger.team_faults(team)} of the {ledger.policy.max_faults} allowed"
    )


def end_name(end: referee_pb2.MatchEnd.ValueType) -> str:
    """``completed``, ``forfeit`` or ``no_contest``: a ``MatchEnd`` as results and replays
    spell it."""
    return referee_pb2.MatchEnd.Name(end).removeprefix("MATCH_END_").lower()


def _ending(end: str, forfeit: int | None) -> str:
    return repr(end) + (f", team {forfeit} forfeiting" if forfeit is not None else "")


def _plain(value: Any) -> Any:
    """The value as it reads back from JSON: tuples become lists, keys strings."""
    return json.loads(json.dumps(value))


def _mapping(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise ReplayMismatch(f"{what} is not a JSON object")
    return value


def _list(doc: Mapping[str, Any], key: str, what: str) -> list[Any]:
    value: list[Any] = _field(doc, key, list, what)
    return value


def _field(doc: Mapping[str, Any], key: str, kind: type, what: str) -> Any:
    if key not in doc:
        raise ReplayMismatch(f"{what} has no {key!r}")
    value = doc[key]
    # JSON true is not a number, and a number is not a flag.
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ReplayMismatch(f"{what}: {key!r} is {_short(value)}, not {_KINDS[kind]}")
    return value


def _int(doc: Mapping[str, Any], key: str, what: str) -> int:
    value: int = _field(doc, key, int, what)
    return value


_KINDS = {int: "a whole number", str: "a string", list: "a list", bool: "true or false"}


def _difference(expected: Any, found: Any, path: str = "") -> str:
    """The first place where two JSON values differ, as ``path: expected X, found Y``."""
    if isinstance(expected, dict) and isinstance(found, dict):
        for key in [*expected, *(k for k in found if k not in expected)]:
            if expected.get(key, _MISSING) != found.get(key, _MISSING):
                return _difference(
                    expected.get(key, _MISSING), found.get(key, _MISSING), f"{path}.{key}"
                )
    if isinstance(expected, list) and isinstance(found, list) and len(expected) == len(found):
        for i, (a, b) in enumerate(zip(expected, found, strict=True)):
            if a != b:
                return _difference(a, b, f"{path}[{i}]")
    return f"{path.lstrip('.') or 'the event'}: expected {_short(expected)}, found {_short(found)}"


class _Missing:
    def __repr__(self) -> str:
        return "nothing"


_MISSING = _Missing()


def _event_line(event: object) -> str:
    if isinstance(event, Mapping) and "kind" in event and "text" in event:
        return f"event {event['kind']!r} ({event['text']!r})"
    return f"the event {_short(event)}"


def _short(value: object, limit: int = 120) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _cards(cards: object) -> str:
    if isinstance(cards, list) and all(isinstance(c, str) for c in cards):
        return " ".join(cards) or "nothing"
    return _short(cards)


def _scores(scores: object) -> str:
    if isinstance(scores, list):
        return " : ".join(map(str, scores))
    return _short(scores)


def _legal(state: State, legal: Sequence[int], limit: int = 12) -> str:
    shown = ", ".join(f"{a} ({state.action_text(a)})" for a in legal[:limit])
    return shown + (f" and {len(legal) - limit} more" if len(legal) > limit else "")
