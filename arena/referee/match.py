"""Plays one match: the engine, one conversation per seat, deadlines and faults.

The runner is the only code that both holds hidden information and talks to bots, so
it sends each seat exactly its own observation and the legal actions, nothing else.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import re
import secrets
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from arena import wire, wire_bytes
from arena.bot_networks import ANYWHERE, BotNetworks, refusals
from arena.games.api import Game, Options, State
from arena.match_rules.clock import SeatClocks
from arena.match_rules.commitment import deal_commitment, new_salt
from arena.match_rules.faults import (
    KIND_NAMES,
    OUT_OF_TIME,
    CutOff,
    Fault,
    FaultKind,
    FaultLedger,
    FaultPolicy,
    answer_fault,
    cut_off,
    ending_before_play,
    forfeit_winner,
    substitute_action,
)
from arena.referee import metrics
from arena.referee.bot_client import BotChannels, BotConnection, BotFault, SeatConversation
from arena.referee.feed import MatchFeed
from arena.referee.hosted import HostedEntry, HostedSeats
from arena.replay import ReplayStore
from arena.replay.match_log import replay_document, think_units
from arena.replay.public_table import public_json
from arena.replay.verify import end_name
from arena.v1 import bot_pb2, referee_pb2

HELLO_TIMEOUT_S = 2.0
MATCH_ENDED_TIMEOUT_S = 1.0
MAX_DECISIONS = 100_000
"""A match still running after this many decisions ends without a result: bots that,
say, pass every hand with stick-the-dealer off would otherwise play for ever."""
_ENDPOINT = re.compile(
    r"(ipv[46]:)?(?<![\d.])(\d{1,3}(\.\d{1,3}){3}|\[[0-9A-Fa-f:.%]*\]|%5B[0-9A-Fa-f:.%]*?%5D)"
    r"(:\d+)?(?![/\d])"
)
"""An IP address, with or without a port, as gRPC's error messages spell them (not a
network such as 10.0.0.0/8)."""
_UNIX_SOCKET = re.compile(r"unix:[^\s,;'\"()\[\]]*")
"""A Unix socket address: a hosted bot's is a path on the referee's host."""

log = logging.getLogger(__name__)


def new_token() -> str:
    """128 bits from a cryptographic source, as 32 hex digits: an id nobody can guess."""
    return secrets.token_hex(16)


@dataclass(frozen=True)
class MatchSpec:
    """A validated request to play one match."""

    match_id: str
    game: Game
    seat_bots: tuple[str, ...]
    seed: int
    options: Options
    move_deadline_s: float
    policy: FaultPolicy = field(default_factory=FaultPolicy)
    max_decisions: int = MAX_DECISIONS
    time_bank_s: float = 0.0
    disclosure: referee_pb2.DealDisclosure.ValueType = referee_pb2.DEAL_DISCLOSURE_PUBLIC
    seat_tokens: tuple[str, ...] = ()
    """What each seat's bot is told the match is called, by seat: an opaque token of its
    own, never the match id (which names tournament, game, pairing and deal), and never
    another seat's, so that bots at one table cannot recognise each other by it. Empty:
    fresh ones."""
    replay_id: str = ""
    """Empty: the match id. An unguessable token when the deal is not public."""
    seat_names: tuple[str, ...] = ()
    """What watchers and the replay call each seat's bot, never its address (empty:
    "bot N" for seat N - 1)."""
    broadcast_delay_s: float = 0.0
    """How long watchers wait for each event (``arena.referee.feed``)."""
    seat_hosted: tuple[HostedEntry | None, ...] = ()
    """The package of each seat the referee hosts (its address in ``seat_bots`` is
    then empty); empty when it hosts none."""

    def __post_init__(self) -> None:
        if not self.seat_tokens:
            tokens = tuple(new_token() for _ in range(self.game.info.num_seats))
            object.__setattr__(self, "seat_tokens", tokens)

    def seat_name(self, seat: int) -> str:
        return self.seat_names[seat] if self.seat_names else f"bot {seat + 1}"

    def hosted(self, seat: int) -> HostedEntry | None:
        return self.seat_hosted[seat] if self.seat_hosted else None

    def seat_label(self, seat: int) -> str:
        """What metrics and logs call the seat's bot: its address, or its package."""
        entry = self.hosted(seat)
        return entry.label() if entry is not None else self.seat_bots[seat]

    @property
    def public(self) -> bool:
        return self.disclosure == referee_pb2.DEAL_DISCLOSURE_PUBLIC


@dataclass
class _Outcome:
    end: referee_pb2.MatchEnd.ValueType = referee_pb2.MATCH_END_COMPLETED
    forfeit_team: int | None = None
    decisions: int = 0
    played: bool = False
    """Whether play began: a match whose bots never all answered has no hands."""


class MatchRunner:
    def __init__(
        self,
        spec: MatchSpec,
        feed: MatchFeed,
        replays: ReplayStore | None,
        channels: BotChannels | None = None,
        bot_networks: BotNetworks = ANYWHERE,
        hosted: HostedSeats | None = None,
    ) -> None:
        self.spec = spec
        self.bot_networks = bot_networks
        self.hosted = hosted
        self.addresses = list(spec.seat_bots)
        """Where each seat's bot is dialled: a hosted seat's sandbox once started."""
        self._hosted_addresses: set[str] = set()
        self._connections: dict[str, BotConnection] = {}
        self._caller_details: dict[int, str] = {}
        """Fuller fault details (by index in the ledger) for the PlayMatch caller only."""
        self.feed = feed
        self.replays = replays
        self.channels = channels
        self.info = spec.game.info
        self.ledger = FaultLedger(spec.policy, self.info.seat_teams)
        self.salt = new_salt()
        self.commitment = deal_commitment(spec.match_id, spec.seed, self.salt)
        self.replay_id = spec.replay_id or spec.match_id
        self.record = referee_pb2.MatchLog(
            match_id=spec.match_id,
            game=self.info.name,
            seed=spec.seed,
            deal_salt=self.salt,
            seat_tokens=spec.seat_tokens,
            options_json=json.dumps(spec.options, sort_keys=True) if spec.options else "",
            seat_names=[spec.seat_name(s) for s in range(self.info.num_seats)],
            move_deadline=wire.duration(spec.move_deadline_s),
            time_bank=wire.duration(spec.time_bank_s) if spec.time_bank_s else None,
            max_faults=spec.policy.max_faults,
        )
        """The match's record (``arena.replay.match_log``), filled in as it is played."""
        # To the millisecond, and the duration to the microsecond, as replays show them.
        self.record.started_at.FromMilliseconds(round(time.time() * 1000))
        self.clocks = SeatClocks(self.info.num_seats, spec.move_deadline_s, spec.time_bank_s)
        # Labelled metric children, looked up once: the lookup costs more than the update.
        self._seat_latency = [
            metrics.DECISION_SECONDS.labels(self.info.name, spec.seat_label(s))
            for s in range(self.info.num_seats)
        ]
        self._decisions_ok = metrics.DECISIONS.labels(self.info.name, "ok")

    async def run(self) -> referee_pb2.MatchResult:
        hosted = self.hosted
        try:
            result = await self._run()
            if hosted is not None:
                await hosted.stop()  # a log is whole once its processes are gone
                result.seat_logs.extend(hosted.logs())
        except CutOff as cut:
            metrics.MATCHES_CUT_OFF.inc()
            self.feed.post(
                referee_pb2.MatchEvent(
                    kind=referee_pb2.MATCH_EVENT_KIND_ENDED,
                    text=f"match abandoned, to be played again: {cut}",
                ),
                last=True,
            )
            raise
        finally:
            if hosted is not None:  # however the match ended, even cancelled
                hosted.release()
        snapshot = self.feed.snapshot
        self.feed.post(
            referee_pb2.MatchEvent(
                kind=referee_pb2.MATCH_EVENT_KIND_ENDED,
                text=_result_line(result),
                scores=[t.score for t in result.teams],
                result=self._watched(result),
                table_json=snapshot() if snapshot is not None else "",
            ),
            last=True,
        )
        return result

    async def _run(self) -> referee_pb2.MatchResult:
        started = time.monotonic()
        spec = self.spec
        channels = self.channels or BotChannels(keep_idle=0)
        remote = [a for s, a in enumerate(spec.seat_bots) if spec.hosted(s) is None]
        # A refused address is never dialled; its team forfeits as if it could not be
        # reached, so a tournament goes on when the policy changes under it.
        refused = await refusals(self.bot_networks, remote)
        state = spec.game.new_state(spec.seed, spec.options)
        outcome = _Outcome()
        # The seed stays secret until the end; its commitment is public from the start.
        self.feed.post(
            referee_pb2.MatchEvent(
                kind=referee_pb2.MATCH_EVENT_KIND_STARTED,
                text=f"{self.info.title}, deal commitment {self.commitment[:16]}...: "
                + ", ".join(f"seat {s} {spec.seat_name(s)}" for s in range(self.info.num_seats)),
                deal_commitment=self.commitment,
            )
        )
        self.feed.snapshot = functools.partial(public_json, state)
        unplayable = {
            seat: BotFault(referee_pb2.FAULT_KIND_UNREACHABLE, refused[address])
            for seat, address in enumerate(spec.seat_bots)
            if address in refused
        }
        unplayable |= await self._start_hosted()
        connections = self._connect(channels, unplayable)
        self._connections = connections
        try:
            failed, streams = await self._greet(connections, unplayable)
            if failed:
                outcome.end, outcome.forfeit_team = ending_before_play(failed, self.info.num_teams)
            else:
                seats = [
                    self._conversation(s, connections, streams) for s in range(self.info.num_seats)
                ]
                if self.hosted is not None:
                    self.hosted.freeze_all()  # each seat runs again when asked to act
                try:
                    await self._play(state, seats, outcome)
                finally:
                    if self.hosted is not None:
                        self.hosted.thaw_all()  # to hear MatchEnded and to be ended
                    for conversation in seats:
                        await conversation.close()
            result = self._result(state, outcome, time.monotonic() - started)
            end = end_name(result.end)
            metrics.MATCH_SECONDS.labels(self.info.name, end).observe(time.monotonic() - started)
            self._finish_log(outcome, result)
            await self._notify_end(connections, state, result)
        finally:
            troubled = {self.addresses[f.seat] for f in self.ledger.faults}
            for address, connection in connections.items():
                if self._is_hosted(address):  # a sandbox serves one match: never kept
                    await connection.close()
                else:
                    await channels.release(connection, healthy=address not in troubled)
        return result

    async def _start_hosted(self) -> dict[int, BotFault]:
        """Start the hosted seats' sandboxes, whose sockets become those seats'
        addresses; returns the fault of each seat whose sandbox did not start."""
        if self.hosted is None:
            return {}
        failures = await self.hosted.start()
        for seat in self.hosted.launches:
            self.addresses[seat] = self.hosted.address(seat)
        self._hosted_addresses = {self.addresses[s] for s in self.hosted.launches} - {""}
        return failures

    def _is_hosted(self, address: str) -> bool:
        return address in self._hosted_addresses

    def _connect(
        self, channels: BotChannels, unplayable: Mapping[int, BotFault]
    ) -> dict[str, BotConnection]:
        """A connection to every bot that may be dialled; a hosted seat's is its own,
        without TLS (a Unix socket on this host), whatever remote bots use."""
        connections = {}
        for seat, address in enumerate(self.addresses):
            if seat in unplayable or address in connections:
                continue
            hosted = self._is_hosted(address)
            connections[address] = (
                BotConnection.open(address) if hosted else channels.acquire(address)
            )
        return connections

    def _conversation(
        self, seat: int, connections: Mapping[str, BotConnection], streams: Mapping[str, bool]
    ) -> SeatConversation:
        address = self.addresses[seat]
        hosted = self.hosted
        ended = functools.partial(hosted.ended, seat) if hosted and seat in hosted else None
        return SeatConversation(connections[address], streams[address], ended)

    async def _greet(
        self, connections: dict[str, BotConnection], unplayable: Mapping[int, BotFault]
    ) -> tuple[set[int], dict[str, bool]]:
        """Hello every bot that may be dialled; returns the teams whose bot cannot play
        this match (those of ``unplayable`` seats too), and whether each bot offers a
        stream."""
        timeout = max(HELLO_TIMEOUT_S, self.spec.move_deadline_s)
        answers = await asyncio.gather(
            *(c.say_hello(timeout) for c in connections.values()), return_exceptions=True
        )
        problems: dict[str, BotFault] = {}
        streams: dict[str, bool] = {}
        for (address, _), answer in zip(connections.items(), answers, strict=True):
            if isinstance(answer, BotFault):
                problems[address] = answer
            elif isinstance(answer, BaseException):
                raise answer
            elif self.info.name not in answer.games:
                problems[address] = BotFault(
                    referee_pb2.FAULT_KIND_UNREACHABLE,
                    f"bot {answer.name!r} does not play {self.info.name} "
                    f"(it plays: {', '.join(answer.games) or 'nothing'})",
                )
            else:
                streams[address] = answer.supports_stream
        failed_teams: set[int] = set()
        for seat, address in enumerate(self.addresses):
            problem = unplayable.get(seat) or problems.get(address)
            if problem is None:
                continue
            ended = self.hosted.ended(seat) if self.hosted and seat in self.hosted else None
            if ended is not None:
                problem = BotFault(problem.kind, ended)
            failed_teams.add(self.info.seat_teams[seat])
            self._record_fault(Fault(seat, 0, problem.kind, problem.detail), problem)
        return failed_teams, streams

    async def _play(
        self, state: State, seats: Sequence[SeatConversation], outcome: _Outcome
    ) -> None:
        spec = self.spec
        outcome.played = True
        self._publish_events(state, 0)
        while not state.is_terminal():
            if outcome.decisions >= spec.max_decisions:
                outcome.end = referee_pb2.MATCH_END_NO_CONTEST
                return
            seat = state.current_seat()
            legal = state.legal_actions()
            index = outcome.decisions
            request = wire_bytes.act_request(
                state,
                match_id=spec.seat_tokens[seat],
                decision_index=index,
                deadline_s=spec.move_deadline_s,
                legal=legal,
                time_bank_s=self.clocks.bank(seat),
            )
            sent = time.perf_counter()
            problem: tuple[FaultKind, str] | None
            if self.hosted is not None:
                self.hosted.take_turn(seat)
            try:
                response = await seats[seat].act(request, self.clocks.allowance(seat), index)
                action = response.action_id
                problem = answer_fault(
                    response, match_id=spec.seat_tokens[seat], decision_index=index, legal=legal
                )
            except BotFault as fault:
                problem = fault.kind, fault.detail
            think_s = time.perf_counter() - sent
            if problem is not None and problem[0] in OUT_OF_TIME:
                await self._unless_cut_off(seat, problem[1])
            self.clocks.spend(seat, think_s, problem is not None and problem[0] in OUT_OF_TIME)
            self._seat_latency[seat].observe(think_s)
            before = len(state.events)
            if problem is None:
                self._decisions_ok.inc()
                text = state.action_text(action)
            else:
                kind, detail = problem
                metrics.DECISIONS.labels(self.info.name, KIND_NAMES[kind]).inc()
                action = substitute_action(spec.seed, index, legal)
                text = state.action_text(action)
                noted = Fault(seat, index, kind, detail, text)
                forfeit = self._record_fault(noted)
                if forfeit is not None:
                    outcome.end = referee_pb2.MATCH_END_FORFEIT
                    outcome.forfeit_team = forfeit
                    return
            state.apply(action)
            self.record.choices.append(0 if problem is not None else legal.index(action))
            self.record.think_100us.append(think_units(think_s))
            outcome.decisions += 1
            self._publish_events(state, before)

    async def _unless_cut_off(self, seat: int, detail: str) -> None:
        """Raise ``CutOff`` if ``seat``'s bot is remote and no other remote bot of the
        match answers a Hello either (``arena.match_rules.faults``); asks none where the
        policy charges such faults to the bots anyway."""
        address = self.addresses[seat]
        if self.spec.policy.charge_cut_off or self._is_hosted(address):
            return
        others = [
            connection
            for other, connection in self._connections.items()
            if other != address and not self._is_hosted(other)
        ]
        answers = await asyncio.gather(
            *(c.say_hello(HELLO_TIMEOUT_S) for c in others), return_exceptions=True
        )
        answered = [not isinstance(answer, BaseException) for answer in answers]
        if cut_off(answered):
            raise CutOff(
                f"the referee lost every bot of the match at once: seat {seat}'s did not "
                f"answer ({detail}), nor did any other in {HELLO_TIMEOUT_S:g} s"
            )

    def _publish_events(self, state: State, start: int) -> None:
        new = [event for event in state.events[start:] if event.public]
        if not new:
            return
        scores = tuple(state.scores())  # one per batch, kept by the feed
        table = public_json(state) if self.feed.watched else ""
        for event in new:
            self.feed.post_game(event.seat, event.kind, event.text, scores, table)

    def _record_fault(self, fault: Fault, cause: BotFault | None = None) -> int | None:
        """Record a fault; returns the team that forfeits, if any. The caller's copy of the
        result gets ``cause.caller_detail`` instead, when it has one."""
        label = self.spec.seat_label(fault.seat)
        said = cause.caller_detail if cause is not None and cause.caller_detail else None
        metrics.FAULTS.labels(fault.kind_name, label).inc()
        log.info(
            "match %s seat %d (%s): %s", self.spec.match_id, fault.seat, label, said or fault.detail
        )
        if said is not None:
            self._caller_details[len(self.ledger.faults)] = self._public(said)
        fault = replace(fault, detail=self._public(fault.detail))
        logged = self.record.faults.add()
        logged.CopyFrom(fault.to_proto())
        logged.ClearField("substituted_action")  # the engine gives it back
        self.feed.post(
            referee_pb2.MatchEvent(
                kind=referee_pb2.MATCH_EVENT_KIND_FAULT,
                seat=fault.seat,
                text=f"seat {fault.seat}: {fault.kind_name} ({fault.detail})",
                fault=fault.to_proto(),
            )
        )
        return self.ledger.record(fault)

    def _result(self, state: State, outcome: _Outcome, seconds: float) -> referee_pb2.MatchResult:
        info = self.info
        scores = state.scores()
        if outcome.end == referee_pb2.MATCH_END_COMPLETED:
            winner = state.winner()
        else:
            winner = forfeit_winner(outcome.forfeit_team, info.num_teams)
        teams = [
            referee_pb2.TeamResult(
                team=t,
                seats=list(info.seats_of_team(t)),
                bots=[self.spec.seat_bots[s] for s in info.seats_of_team(t)],
                score=scores[t],
                faults=self.ledger.team_faults(t),
            )
            for t in range(info.num_teams)
        ]
        result = referee_pb2.MatchResult(
            match_id=self.spec.match_id,
            game=info.name,
            seed=self.spec.seed,
            teams=teams,
            winner_team=winner,
            end=outcome.end,
            forfeit_team=outcome.forfeit_team,
            seat_faults=[self.ledger.seat_faults(s) for s in range(info.num_seats)],
            faults=[f.to_proto() for f in self.ledger.faults],
            replay_id=self.replay_id,
            decisions=outcome.decisions,
            duration=wire.duration(seconds),
            deal_commitment=self.commitment,
            deal_salt=self.salt,
            time_bank_left=[wire.duration(s) for s in self.clocks.left()],
        )
        for index, detail in self._caller_details.items():
            result.faults[index].detail = detail
        return result

    def _finish_log(self, outcome: _Outcome, result: referee_pb2.MatchResult) -> None:
        """Close the record, hand it back with the result, and write the replay it gives
        to the referee's cache, if it keeps one: a cache that cannot take it (a full
        disk) costs the cache its copy, never the match."""
        self.record.end = result.end
        self.record.played = outcome.played
        self.record.duration.FromMicroseconds(result.duration.ToMicroseconds())
        result.log.CopyFrom(self.record)
        if self.replays is None:
            return
        try:
            self.replays.save(self.replay_id, replay_document(self.record))
        except OSError as error:
            metrics.REPLAY_CACHE_ERRORS.inc()
            log.warning("replay %s not cached in %s: %s", self.replay_id, self.replays, error)

    async def _notify_end(
        self,
        connections: dict[str, BotConnection],
        state: State,
        result: referee_pb2.MatchResult,
    ) -> None:
        spec = self.spec
        # A deal another match still has to play (a duplicate pair's other half) is not
        # the bots' to learn; nor, in a tournament, is the replay, until it ends.
        shared = spec.disclosure == referee_pb2.DEAL_DISCLOSURE_CALLER
        deals = [
            bot_pb2.DealtHand(
                seats=[bot_pb2.Cards(cards=[wire.card(c) for c in h]) for h in e.data["hands"]]
            )
            for e in ([] if shared else state.events)
            if e.kind == "deal"
        ]
        calls: list[Any] = []
        for seat, address in enumerate(self.addresses):
            if address not in connections:
                continue  # refused by the policy, or a sandbox that did not start
            calls.append(
                connections[address].stub.MatchEnded(
                    bot_pb2.MatchEndedRequest(
                        match_id=spec.seat_tokens[seat],
                        game=self.info.name,
                        seat=seat,
                        scores=[t.score for t in result.teams],
                        winner_team=result.winner_team if result.HasField("winner_team") else None,
                        deals=deals,
                        replay_id=result.replay_id if spec.public else "",
                    ),
                    timeout=MATCH_ENDED_TIMEOUT_S,
                )
            )
        await asyncio.gather(*calls, return_exceptions=True)  # best effort: errors ignored

    def _public(self, text: str) -> str:
        names = {a: self.spec.seat_name(s) for s, a in enumerate(self.addresses) if a}
        for address, name in list(names.items()):
            if self._is_hosted(address) and address.startswith("unix:"):
                names[address.removeprefix("unix:")] = name  # as gRPC may name the socket
        return redact(text, names)

    def _watched(self, result: referee_pb2.MatchResult) -> referee_pb2.MatchResult:
        """The result as watchers see it: bots by name, faults in public words, no
        hosted bot's output, and no deal before it is public."""
        public = referee_pb2.MatchResult()
        public.CopyFrom(result)
        for team in public.teams:
            team.bots[:] = [self.spec.seat_name(s) for s in team.seats]
        for index in self._caller_details:
            public.faults[index].detail = self.ledger.faults[index].detail
        public.ClearField("seat_logs")
        public.ClearField("log")  # the seed and every hand
        if not self.spec.public:
            public.ClearField("seed")
            public.ClearField("deal_salt")
            public.ClearField("replay_id")
            public.deal_withheld = True
        return public


def redact(text: str, names: Mapping[str, str]) -> str:
    """``text`` with each bot address in it replaced by the bot's name, and any other IP
    address or Unix socket by ``<address>``: watchers never learn where a bot listens."""
    for address, name in names.items():
        if address:
            text = text.replace(address, name)
    return _UNIX_SOCKET.sub("<address>", _ENDPOINT.sub("<address>", text))


def _result_line(result: referee_pb2.MatchResult) -> str:
    scores = " : ".join(str(t.score) for t in result.teams)
    if result.end == referee_pb2.MATCH_END_NO_CONTEST:
        return f"no contest ({scores})"
    if result.end == referee_pb2.MATCH_END_FORFEIT:
        return f"team {result.forfeit_team} forfeits; scores {scores}"
    if result.HasField("winner_team"):
        return f"team {result.winner_team} wins {scores}"
    return f"draw {scores}"
