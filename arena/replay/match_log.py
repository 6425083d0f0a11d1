"""A match's record (``arena.v1.MatchLog``): what the referee keeps of a match, and the
replay re-built from it.

The record is the seed, the options and, for each decision, which of the engine's legal
actions was played and how long the seat took, plus the faults; everything else (every
card dealt and drawn, the substitutes the fault policy drew, hand and final scores, the
time banks) follows by re-running the engine, as a chess game is kept as its moves. It
travels in PlayMatch's answer and is stored with the result, so no referee has to keep
anything for a replay to exist. ``replay_document`` re-builds the replay document
(``arena.replay.record``) and raises ``ReplayMismatch`` at the first decision that does
not re-run (a record tampered with or cut short); ``log_from_replay`` turns a replay
document a referee wrote to disk before records existed into a record.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from google.protobuf.message import DecodeError

from arena import wire
from arena.games import GameError, get_game
from arena.games.api import Game
from arena.match_rules.clock import SeatClocks
from arena.match_rules.commitment import deal_commitment
from arena.match_rules.faults import (
    KIND_NAMES,
    KINDS_BY_NAME,
    OUT_OF_TIME,
    Fault,
    FaultLedger,
    FaultPolicy,
    ending_before_play,
    forfeit_winner,
    substitute_action,
)
from arena.replay.record import ReplayRecorder
from arena.replay.verify import ReplayMismatch, end_name, under_rules, verify_replay
from arena.v1 import referee_pb2

THINK_UNIT_S = 1e-4
"""The record keeps think times in tenths of a millisecond."""


def think_units(seconds: float) -> int:
    """A think time as the record keeps it."""
    return min(2**32 - 1, max(0, round(seconds / THINK_UNIT_S)))


def encode(log: referee_pb2.MatchLog) -> bytes:
    return log.SerializeToString(deterministic=True)


def decode(data: bytes, what: str = "the record") -> referee_pb2.MatchLog:
    """A stored record; ``ReplayMismatch`` for bytes that are not one (truncated)."""
    log = referee_pb2.MatchLog()
    try:
        log.ParseFromString(data)
    except DecodeError as error:
        raise ReplayMismatch(
            f"{what} does not decode ({error}): truncated or not a record"
        ) from None
    return log


@dataclass(frozen=True)
class Replayed:
    """A record re-run: the replay document and the outcome it gives."""

    document: dict[str, Any]
    end: str
    scores: tuple[int, ...]
    winner_team: int | None
    forfeit_team: int | None
    decisions: int
    team_fault_kinds: tuple[dict[str, int], ...]
    deal_commitment: str
    former_rule: str = ""
    """The former rule of the game the record re-ran under, if any."""

    def difference(
        self,
        *,
        deal_commitment: str,
        end: str,
        scores: Sequence[int],
        winner_team: int | None,
        forfeit_team: int | None,
        decisions: int,
        team_faults: Sequence[int],
        team_fault_kinds: Sequence[Mapping[str, int]] | None,
    ) -> str | None:
        """How a stored result differs from this re-run (the first difference), if it does;
        ``team_fault_kinds`` None for a result from before kinds were kept."""
        pairs: list[tuple[str, object, object]] = [
            ("deal commitment", self.deal_commitment, deal_commitment),
            ("ending", self.end, end),
            ("scores", list(self.scores), list(scores)),
            ("winner team", self.winner_team, winner_team),
            ("forfeiting team", self.forfeit_team, forfeit_team),
            ("decisions", self.decisions, decisions),
            ("faults by team", [sum(k.values()) for k in self.team_fault_kinds], list(team_faults)),
        ]
        if team_fault_kinds is not None:
            pairs.append(
                ("faults by kind", list(self.team_fault_kinds), [dict(k) for k in team_fault_kinds])
            )
        for what, rerun, stored in pairs:
            if rerun != stored:
                return f"its record re-runs to {what} {rerun}, but the stored result says {stored}"
        return None


def replay_document(log: referee_pb2.MatchLog) -> dict[str, Any]:
    """The replay document a record re-runs to (``ReplayMismatch`` if it does not)."""
    return replay(log).document


def replay(log: referee_pb2.MatchLog) -> Replayed:
    """Re-run a record on its game's engine, checking each decision on the way: under
    today's rules, or the former rule it was played under (``verify.under_rules``)."""
    try:
        game = get_game(log.game)
        options = _options(log.options_json)
    except GameError as error:
        raise ReplayMismatch(str(error)) from None
    replayed, former = under_rules(game.info, lambda rules: _replay(log, game, options, rules))
    return replace(replayed, former_rule=former)


def rerun_as_stored(
    log: referee_pb2.MatchLog, difference: Callable[[Replayed], str | None]
) -> tuple[Replayed, str | None]:
    """The record re-run under the rules that give the stored outcome (``difference``
    None): today's, else a former rule of its game, named in ``former_rule``. A record
    holds choices, not actions, so under a rule changed since it may re-run to another
    match rather than fail: only the stored outcome tells. When no rule gives it: today's
    re-run and its difference."""
    today = replay(log)
    different = difference(today)
    if different is None or today.former_rule:
        return today, different
    game = get_game(log.game)
    for name, said in game.info.former_rules:
        try:
            former = _replay(log, game, _options(log.options_json), frozenset({name}))
        except ReplayMismatch:
            continue
        if difference(former) is None:
            return replace(former, former_rule=said), None
    return today, different


def _replay(
    log: referee_pb2.MatchLog, game: Game, options: dict[str, Any], former: frozenset[str]
) -> Replayed:
    try:
        state = game.new_state(log.seed, options)
    except GameError as error:
        raise ReplayMismatch(str(error)) from None
    state.former = former
    info = game.info
    if len(log.seat_names) != info.num_seats:
        raise ReplayMismatch(
            f"{info.name} has {info.num_seats} seats, the record names {len(log.seat_names)}"
        )
    if len(log.choices) != len(log.think_100us):
        raise ReplayMismatch(
            f"the record has {len(log.choices)} choices but {len(log.think_100us)} think times"
        )
    if log.max_faults < 1:
        raise ReplayMismatch(f"max_faults is {log.max_faults}; a match allows at least one")
    deadline_s = log.move_deadline.ToTimedelta().total_seconds()
    bank_s = log.time_bank.ToTimedelta().total_seconds() if log.HasField("time_bank") else 0.0
    try:
        commitment = deal_commitment(log.match_id, log.seed, log.deal_salt or None)
    except ValueError as error:
        raise ReplayMismatch(f"bad deal salt: {error}") from None
    if log.seat_tokens and len(log.seat_tokens) != info.num_seats:
        raise ReplayMismatch(
            f"{info.name} has {info.num_seats} seats, the record has {len(log.seat_tokens)} "
            "seat tokens"
        )
    tokens = list(log.seat_tokens)
    recorder = ReplayRecorder(
        match_id=log.match_id,
        game=info.name,
        seed=log.seed,
        deal_commitment=commitment,
        deal_salt=log.deal_salt or None,
        options=options,
        seats=[
            {"seat": s, "team": info.seat_teams[s], "bot": name}
            | ({"token": tokens[s]} if tokens else {})
            for s, name in enumerate(log.seat_names)
        ],
        bot_match_id=log.bot_match_id,
        move_deadline_s=deadline_s,
        max_faults=log.max_faults,
        time_bank_s=bank_s,
        started_at=log.started_at.ToDatetime(dt.UTC),
    )
    ledger = FaultLedger(FaultPolicy(log.max_faults), info.seat_teams)
    faults = [_fault(f, info.num_seats) for f in log.faults]
    decisions = 0
    forfeit_team: int | None = None
    if not log.played:
        if log.choices:
            raise ReplayMismatch("the record says play never began, yet lists decisions")
        if not faults:
            raise ReplayMismatch("the record says play never began, yet names no fault")
        for noted in faults:
            recorder.fault(0, noted.to_json())
            ledger.record(noted)
        end, forfeit_team = ending_before_play(
            {info.seat_teams[f.seat] for f in faults}, info.num_teams
        )
    else:
        clocks = SeatClocks(info.num_seats, deadline_s, bank_s)
        at: dict[int, Fault] = {}
        for noted in faults:
            if noted.decision_index in at:
                raise ReplayMismatch(f"decision {noted.decision_index}: two faults recorded")
            if noted.decision_index > len(log.choices):
                raise ReplayMismatch(
                    f"a fault at decision {noted.decision_index}, but the record ends after "
                    f"{len(log.choices)} decisions"
                )
            at[noted.decision_index] = noted
        for index in range(len(log.choices) + 1):
            fault: Fault | None = at.get(index)
            if index == len(log.choices) and fault is None:
                break
            here = f"decision {index}"
            if state.is_terminal():
                raise ReplayMismatch(f"{here}: the match was already over")
            seat = state.current_seat()
            legal = state.legal_actions()
            before = len(state.events)
            if fault is not None:
                if fault.seat != seat:
                    raise ReplayMismatch(
                        f"{here}: seat {seat} is to act, the record's fault names seat {fault.seat}"
                    )
                action = substitute_action(log.seed, index, legal)
                fault = Fault(seat, index, fault.kind, fault.detail, state.action_text(action))
                recorder.fault(before, fault.to_json())
                forfeit = ledger.record(fault)
                last = index == len(log.choices)
                if (forfeit is not None) != last:
                    raise ReplayMismatch(
                        f"{here} (seat {seat}): fault {ledger.seat_faults(seat)} of its team "
                        + (
                            f"ends the match by forfeit, yet the record goes on for "
                            f"{len(log.choices) - index} more decisions"
                            if forfeit is not None
                            else "is the record's last, yet does not end the match"
                        )
                    )
                if forfeit is not None:
                    forfeit_team = forfeit
                    break
            else:
                choice = log.choices[index]
                if choice >= len(legal):
                    raise ReplayMismatch(
                        f"{here} (seat {seat}): choice {choice}, but the engine has only "
                        f"{len(legal)} legal actions there"
                    )
                action = legal[choice]
            think_s = log.think_100us[index] * THINK_UNIT_S
            clocks.spend(seat, think_s, fault is not None and fault.kind in OUT_OF_TIME)
            text = state.action_text(action)
            state.apply(action)
            recorder.decision(
                before,
                index=index,
                seat=seat,
                action=action,
                text=text,
                think_s=think_s,
                substituted=fault is not None,
                time_bank_s=clocks.bank(seat) if clocks.has_bank else None,
                table=state.public_table(),
            )
            decisions += 1
        if forfeit_team is not None:
            end = referee_pb2.MATCH_END_FORFEIT
        elif state.is_terminal():
            end = referee_pb2.MATCH_END_COMPLETED
        else:  # stopped at the referee's cap on decisions
            end = referee_pb2.MATCH_END_NO_CONTEST
    if end != log.end:
        raise ReplayMismatch(
            f"the record says the match ended {end_name(log.end)!r}, but re-run after "
            f"{decisions} decisions it ends {end_name(end)!r}"
        )
    scores = tuple(state.scores())
    if end == referee_pb2.MATCH_END_COMPLETED:
        winner = state.winner()
    else:
        winner = forfeit_winner(forfeit_team, info.num_teams)
    kinds: list[dict[str, int]] = [{} for _ in range(info.num_teams)]
    for fault in ledger.faults:
        team = kinds[info.seat_teams[fault.seat]]
        team[fault.kind_name] = team.get(fault.kind_name, 0) + 1
    document = recorder.finish(
        state.events if log.played else (),
        {
            "end": end_name(end),
            "scores": list(scores),
            "winner_team": winner,
            "forfeit_team": forfeit_team,
            "decisions": decisions,
            "seat_faults": [ledger.seat_faults(s) for s in range(info.num_seats)],
            "duration_ms": round(log.duration.ToTimedelta() / dt.timedelta(milliseconds=1), 3),
        },
    )
    return Replayed(
        document=document,
        end=end_name(end),
        scores=scores,
        winner_team=winner,
        forfeit_team=forfeit_team,
        decisions=decisions,
        team_fault_kinds=tuple(kinds),
        deal_commitment=commitment,
    )


def _options(text: str) -> dict[str, Any]:
    if not text:
        return {}
    try:
        options = json.loads(text)
    except ValueError as error:
        raise ReplayMismatch(f"the record's options are not JSON ({error})") from None
    if not isinstance(options, dict):
        raise ReplayMismatch("the record's options are not a JSON object")
    return options


def _fault(fault: referee_pb2.Fault, seats: int) -> Fault:
    if fault.kind not in KIND_NAMES:
        raise ReplayMismatch(f"a fault of unknown kind {fault.kind}")
    if not 0 <= fault.seat < seats:
        raise ReplayMismatch(f"a fault at seat {fault.seat}, but the game has {seats} seats")
    return Fault(fault.seat, fault.decision_index, fault.kind, fault.detail)


def log_from_replay(document: Mapping[str, Any]) -> referee_pb2.MatchLog:
    """The record of a replay document a referee wrote before records existed; the
    document must verify (``ReplayMismatch`` otherwise), and the record re-runs to it."""
    verify_replay(document)
    tokens = [seat["token"] for seat in document["seats"] if "token" in seat]
    game = get_game(document["game"])
    options = document.get("options") or {}
    state = game.new_state(document["seed"], options)
    log = referee_pb2.MatchLog(
        match_id=document["match_id"],
        game=document["game"],
        seed=document["seed"],
        deal_salt=document.get("deal_salt", ""),
        seat_tokens=tokens,
        # Before each seat had a token, every seat was told one (before tokens, the id).
        bot_match_id="" if tokens else document.get("bot_match_id", document["match_id"]),
        options_json=json.dumps(options, sort_keys=True) if options else "",
        seat_names=[seat["bot"] for seat in document["seats"]],
        move_deadline=wire.duration(document["move_deadline_ms"] / 1000),
        max_faults=document["max_faults"],
        end=referee_pb2.MatchEnd.Value("MATCH_END_" + document["result"]["end"].upper()),
        played=bool(document["hands"]),
        faults=[
            referee_pb2.Fault(
                seat=f["seat"],
                decision_index=f["decision"],
                kind=KINDS_BY_NAME[f["kind"]],
                detail=f["detail"],
            )
            for f in document["faults"]
        ],
    )
    if document.get("time_bank_ms"):
        log.time_bank.CopyFrom(wire.duration(document["time_bank_ms"] / 1000))
    log.started_at.FromDatetime(dt.datetime.fromisoformat(document["started_at"]))
    log.duration.FromMicroseconds(round(document["result"].get("duration_ms", 0) * 1000))
    for decision in _decisions(document["hands"]):
        legal = state.legal_actions()
        action = decision["action"]
        log.choices.append(0 if decision["substituted"] else legal.index(action))
        log.think_100us.append(think_units(decision["think_ms"] / 1000))
        state.apply(action)
    return log


def _decisions(hands: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [line["decision"] for hand in hands for line in hand["log"] if "decision" in line]
