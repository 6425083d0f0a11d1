"""A person plays a match in the terminal, through a real referee, like any bot.

``play`` starts a referee in this process, serves the human's seats as an in-process bot
whose ``async def act`` prompts on the terminal, and plays against a bot at ``--vs`` or
the house bot served in-process too. The person plays one seat and the house bot
partners them (so they see only their own seat's observation, as any bot does), unless
they ask for a whole team. A decision with one legal action is played for them. Input is
read without blocking the event loop (``LineReader``), so the referee, the opponent and
the watch stream keep running while the person thinks. The public events of the match
come from the referee's ``WatchMatch`` stream: each turn screen shows what happened
since the person's last move.

Leaving (``q``, confirmed, end of input, or Ctrl-C) makes the human's seats answer the
next request at once with ``LEAVE`` (``arena.match_rules.faults``), the id that leaves a
match: the referee records a ``left`` fault and the team forfeits on it, so the replay
says the person left rather than that they played illegal moves. (Stopping the server
instead would make the seats unreachable, and the referee waits for an unreachable bot
until its deadline and bank are up.) The result and the replay are recorded as for any
match. A second Ctrl-C abandons the match unrecorded.

Each turn screen shows only what changed at the table since that seat's last screen
(``arena.play.screen``), unless ``PlayConfig.full`` asks for the whole table every time.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import grpc

from arena import __version__, wire
from arena.bots.examples.house import HouseBot
from arena.bots.sdk import Bot, start
from arena.games import get_game
from arena.match_rules.faults import LEAVE
from arena.play.screen import (
    HELP,
    MAX_EVENT_LINES,
    Labels,
    Seating,
    TableView,
    forced_note,
    observation_of,
    parse_choice,
    prompt,
    result_screen,
    table_view,
    turn_screen,
    wrap,
)
from arena.play.why import explain
from arena.v1 import bot_pb2, bot_pb2_grpc, referee_pb2

if TYPE_CHECKING:
    from arena.v1.referee_pb2_grpc import RefereeAsyncStub

HELLO_TIMEOUT_S = 5.0
SETTLE_STEP_S = 0.02
SETTLE_MAX_S = 0.3
DEFAULT_DEADLINE_S = 60.0
DEFAULT_TIME_BANK_S = 3600.0

Output = Callable[[str], None]


class PlayError(Exception):
    """Something that stops a game before it starts, said in one line."""


def write(text: str) -> None:
    """Print to the terminal now (the prompt has no newline, so flush)."""
    sys.stdout.write(text)
    sys.stdout.flush()


def say(text: str) -> None:
    write(text + "\n")


# --- input ----------------------------------------------------------------------------


class LineReader:
    """Lines typed on a file descriptor (stdin), as an asyncio queue.

    A tty or a pipe is watched by the event loop; anything the loop cannot watch (a
    regular file, /dev/null) is read by a daemon thread. Either way ``readline`` is a
    plain await, so cancelling it (the referee's deadline passed) leaves no reader
    behind that would swallow the next line.
    """

    def __init__(self, fd: int = 0) -> None:
        self.fd = fd
        self.lines: asyncio.Queue[str | None] = asyncio.Queue()
        self._pending = b""
        self._loop: asyncio.AbstractEventLoop | None = None
        self._watching = False
        self._eof = False

    def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        try:
            self._loop.add_reader(self.fd, self._readable)
            self._watching = True
        except (OSError, ValueError, NotImplementedError):
            threading.Thread(target=self._read_in_thread, daemon=True).start()

    def close(self) -> None:
        if self._watching and self._loop is not None:
            self._loop.remove_reader(self.fd)
            self._watching = False

    def _readable(self) -> None:
        try:
            data = os.read(self.fd, 4096)
        except BlockingIOError:
            return
        except OSError:  # EIO: the terminal went away
            data = b""
        self._feed(data)

    def _read_in_thread(self) -> None:
        loop = self._loop
        assert loop is not None
        while True:
            try:
                data = os.read(self.fd, 4096)
            except OSError:
                data = b""
            try:
                loop.call_soon_threadsafe(self._feed, data)
            except RuntimeError:  # the loop is closed: the game is over
                return
            if not data:
                return

    def _feed(self, data: bytes) -> None:
        if self._eof:
            return
        if not data:
            self._eof = True
            self.close()
            if self._pending:
                self.lines.put_nowait(self._pending.decode(errors="replace"))
            self.lines.put_nowait(None)
            return
        *complete, self._pending = (self._pending + data).split(b"\n")
        for raw in complete:
            self.lines.put_nowait(raw.decode(errors="replace").rstrip("\r"))

    async def readline(self, text: str) -> str | None:
        """Show ``text`` and wait for a line; ``None`` once input has ended."""
        write(text)
        line = await self.lines.get()
        if line is None:
            self.lines.put_nowait(None)  # every later read sees the end too
        return line

    def end(self) -> None:
        """End the input now, as if the terminal had closed: a read waiting gets ``None``."""
        self._feed(b"")

    def discard_typed_ahead(self) -> None:
        """Forget lines typed before the question they would answer was asked."""
        while not self.lines.empty():
            if self.lines.get_nowait() is None:
                self.lines.put_nowait(None)
                return


# --- public events --------------------------------------------------------------------


class EventLog:
    """The match's public events from ``WatchMatch``, as lines not shown yet."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.shown = 0
        self.changed = 0.0

    def add(self, event: referee_pb2.MatchEvent) -> None:
        if event.kind == referee_pb2.MATCH_EVENT_KIND_GAME:
            self.lines.append(event.text)
        elif event.kind == referee_pb2.MATCH_EVENT_KIND_FAULT:
            self.lines.append(f"! fault, {event.text}")
        else:  # the start lists addresses; the end is the result screen's
            return
        self.changed = asyncio.get_running_loop().time()

    async def follow(self, stub: RefereeAsyncStub, match_id: str) -> None:
        """Collect events until the match ends; the feed opens when PlayMatch starts."""
        request = referee_pb2.WatchMatchRequest(match_id=match_id)
        for _ in range(250):
            try:
                async for event in stub.WatchMatch(request):
                    self.add(event)
                return
            except grpc.aio.AioRpcError as error:
                if error.code() != grpc.StatusCode.NOT_FOUND:
                    return
                await asyncio.sleep(SETTLE_STEP_S)

    async def settle(self) -> None:
        """Give events still on their way a moment: the referee posts them before it
        asks the next question, but on another stream."""
        loop = asyncio.get_running_loop()
        begun = loop.time()
        while loop.time() - begun < SETTLE_MAX_S:
            await asyncio.sleep(SETTLE_STEP_S)
            if loop.time() - self.changed > SETTLE_STEP_S:
                return

    def unseen(self, limit: int = MAX_EVENT_LINES) -> tuple[list[str], int]:
        """The lines not shown yet (at most ``limit``, the latest) and how many were cut."""
        new = self.lines[self.shown :]
        self.shown = len(self.lines)
        cut = max(0, len(new) - limit)
        return new[cut:], cut


# --- the human's seats ----------------------------------------------------------------


class HumanBot(Bot):
    """The human's seats: each request is a screen and a prompt, a forced move a note."""

    name = "human"
    version = __version__

    def __init__(
        self,
        game: str,
        seating: Seating,
        reader: LineReader,
        events: EventLog,
        out: Output,
        full: bool = False,
    ) -> None:
        self.games = (game,)
        self.seating = seating
        self.reader = reader
        self.events = events
        self.out = out
        self.full = full
        self.views: dict[int, TableView] = {}
        """Per seat, its table as its last screen showed it."""
        self.left = asyncio.Event()
        self.closing = False  # the game is being torn down: cancellation is no timeout

    def interrupt(self) -> None:
        """Ctrl-C: leave the match (the next request of these seats leaves it)."""
        if self.left.is_set():
            return
        self.out("\nInterrupted: you leave the match (Ctrl-C again abandons it unrecorded).")
        self.left.set()
        self.reader.end()

    async def act(self, request: bot_pb2.ActRequest) -> int:  # type: ignore[override]
        if self.left.is_set():
            return LEAVE
        if len(request.legal_actions) == 1:  # no choice: say so rather than ask
            self.out(forced_note(request))
            return request.legal_actions[0].id
        await self.events.settle()
        lines, cut = self.events.unseen()
        before = None if self.full else self.views.get(request.seat)
        screen = turn_screen(request, self.seating, lines, cut, before)
        observation = observation_of(request)
        if observation is not None:
            self.views[request.seat] = table_view(observation, Labels(self.seating, request.seat))
        self.out("\n" + screen)
        try:
            while True:
                line = await self.reader.readline(prompt(request))
                if line is None:
                    if not self.left.is_set():  # else Ctrl-C said so
                        self.out("\nInput ended: you leave the match.")
                    return await self._leave()
                choice = parse_choice(line, request.legal_actions)
                if choice.action_id is not None:
                    return choice.action_id
                if choice.command == "help":
                    self.out(HELP)
                elif choice.command == "table":  # the whole table, as the first screen
                    self.out(turn_screen(request, self.seating, lines, cut))
                elif choice.command == "quit":
                    answer = await self.reader.readline(
                        "Leave the match? Your team will forfeit. Type y to leave: "
                    )
                    if answer is None or answer.strip().lower() in ("y", "yes"):
                        return await self._leave()
                    self.out("You stay.")
                else:  # a card that may not be played gets the rule that forbids it
                    self.out(explain(request, line) or str(choice.error))
        except asyncio.CancelledError:
            if not (self.left.is_set() or self.closing):
                self.out("\nTime is up: the referee plays a move for this seat and counts a fault.")
                self.reader.discard_typed_ahead()
            raise

    async def _leave(self) -> int:
        """These seats leave the match: they answer ``LEAVE``, this request first."""
        self.left.set()
        return LEAVE


# --- the match ------------------------------------------------------------------------


@dataclass(frozen=True)
class PlayConfig:
    game: str
    seats: tuple[int, ...]
    """The seats the person plays: one (the partner is the house bot) or a whole team."""
    seed: int = 1
    options: Mapping[str, str] = field(default_factory=dict)
    vs: str | None = None
    deadline_s: float = DEFAULT_DEADLINE_S
    time_bank_s: float = DEFAULT_TIME_BANK_S
    replay_dir: str = "replays"
    replay_command: str = "arena replay show {id}"
    match_id: str = ""
    full: bool = False
    """Show the whole table before every move, not only what changed."""


async def hello(address: str, game: str) -> str:
    """The name of the bot at ``address``, which must answer and play ``game``."""
    async with grpc.aio.insecure_channel(address) as channel:
        try:
            answer: bot_pb2.HelloResponse = await bot_pb2_grpc.BotStub(channel).Hello(
                bot_pb2.HelloRequest(arena_version=__version__),
                timeout=HELLO_TIMEOUT_S,
            )
        except grpc.aio.AioRpcError as error:
            if error.code() in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE):
                raise PlayError(f"cannot reach a bot at {address}") from None
            raise PlayError(
                f"the bot at {address} failed Hello: {error.code().name}: {error.details()}"
            ) from None
    if game not in answer.games:
        plays = ", ".join(answer.games) or "nothing"
        raise PlayError(
            f"bot {answer.name!r} at {address} does not play {game} (it plays: {plays})"
        )
    return answer.name or address


async def play(config: PlayConfig, out: Output = say) -> referee_pb2.MatchResult:
    """Play one match with the person at the terminal; returns the result."""
    from arena.referee.service import local_referee

    info = get_game(config.game).info
    opponent = await hello(config.vs, config.game) if config.vs else "house"
    team = info.seat_teams[config.seats[0]]
    seating = Seating(
        title=info.title,
        team=team,
        seats=config.seats,
        opponent=opponent,
        seat_teams=info.seat_teams,
        unit=info.score_unit,
    )
    match_id = config.match_id or f"play-{uuid.uuid4().hex[:12]}"
    reader = LineReader()
    events = EventLog()
    human = HumanBot(config.game, seating, reader, events, out, config.full)
    async with local_referee(config.replay_dir) as stub:
        servers: list[grpc.aio.Server] = []
        tasks: list[asyncio.Future[Any]] = []
        interrupts = False
        try:
            human_server, human_port = await start(human)
            servers.append(human_server)
            house_server, house_port = await start(HouseBot())  # opponents or partner
            servers.append(house_server)
            house_address = f"127.0.0.1:{house_port}"
            seat_bots = [
                f"127.0.0.1:{human_port}"
                if seat in config.seats
                else (house_address if seat_team == team else config.vs or house_address)
                for seat, seat_team in enumerate(info.seat_teams)
            ]
            request = referee_pb2.PlayMatchRequest(
                game=config.game,
                bots=seat_bots,
                seed=config.seed,
                options=dict(config.options),
                move_deadline=wire.duration(config.deadline_s),
                time_bank=wire.duration(config.time_bank_s) if config.time_bank_s else None,
                match_id=match_id,
            )
            out(_intro(config, seating))
            reader.start()
            interrupts = _leave_on_interrupt(human)
            match = asyncio.ensure_future(stub.PlayMatch(request))
            watch = asyncio.ensure_future(events.follow(stub, match_id))
            left = asyncio.ensure_future(human.left.wait())
            tasks += [match, watch, left]
            await asyncio.wait({match, left}, return_when=asyncio.FIRST_COMPLETED)
            if not match.done():
                out("You left the match: your team forfeits.")
            try:
                result: referee_pb2.MatchResult = await match
            except grpc.aio.AioRpcError as error:
                raise PlayError(f"{error.code().name}: {error.details()}") from None
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(watch), 2.0)
            lines, cut = events.unseen()
            if (lines or cut) and not human.left.is_set():
                out("\nSince your last move:")
                if cut:
                    out(f"  ({cut} earlier events not shown)")
                for text in lines:
                    out("\n".join(wrap(f"  {text}", 4)))
            command = config.replay_command.format(id=result.replay_id)
            out("\n" + result_screen(result, seating, human.left.is_set(), command))
            return result
        finally:
            human.closing = True
            if interrupts:
                asyncio.get_running_loop().remove_signal_handler(signal.SIGINT)
            reader.close()
            for task in tasks:
                task.cancel()
            for server in reversed(servers):
                await server.stop(grace=None)


def _leave_on_interrupt(human: HumanBot) -> bool:
    """Make the first Ctrl-C leave the match (recorded) and the next one abandon it, as
    Python's own handler does (KeyboardInterrupt); False where signals cannot be caught
    (not the main thread)."""
    loop = asyncio.get_running_loop()

    def interrupted() -> None:
        loop.remove_signal_handler(signal.SIGINT)  # the next one: KeyboardInterrupt
        human.interrupt()

    try:
        loop.add_signal_handler(signal.SIGINT, interrupted)
    except (RuntimeError, ValueError, NotImplementedError):
        return False
    return True


def _intro(config: PlayConfig, seating: Seating) -> str:
    bank = f", plus a {config.time_bank_s:g} s time bank" if config.time_bank_s else ""
    text = (
        f"Card Arena: {seating.title}, seed {config.seed}, against {seating.opponent}. "
        f"{seating.describe().capitalize()}. Each move has {config.deadline_s:g} s"
        f"{bank}. Type ? at a prompt for help, q to leave."
    )
    return "\n".join(wrap(text, 0))
