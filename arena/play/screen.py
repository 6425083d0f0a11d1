"""What a human player sees: the turn screen, the result, and reading their answer.

Everything here is pure (text in, text out), so the layout is tested without a
terminal. Observations are shown generically, field by field in proto order, from the
message descriptor: a new observation field appears on screen without a change here.
The few special cases are for readability only: a card is shown as people write it
(``Q\u2665``, the convention of docs/cli.md), in the table and in the actions alike (one may
type either form), a card with its seat is ``s2 Q\u2665``, an enum value loses its type
prefix (``..._PHASE_PLAY`` is ``play``), unset and empty fields are left out, and
the seat's own hand comes last, just above the numbered actions, in columns.

Compact by default: a seat's first screen shows its whole table; each later one only
what changed since that seat's last screen (``TableView``, ``change_lines``): the fields
whose text differs, a field that went away as ``none``, and a list of records that only
grew (tricks, plays, calls: the events since the last move told them) as one line.
``t`` shows the whole table again; ``arena play --full`` shows it every time.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, TypeAlias

from google.protobuf.descriptor import EnumDescriptor, FieldDescriptor
from google.protobuf.message import Message

from arena import wire
from arena.games import game_names
from arena.games.cards import pretty, pretty_text
from arena.games.registry import part
from arena.v1 import bot_pb2, referee_pb2
from arena.wording import count, plural

WIDTH = 80
MAX_LIST_LINES = 12
"""Longest list of records (tricks, plays, calls) shown whole; longer ones show their end."""
MAX_EVENT_LINES = 14
HAND_FIELD = "hand"
SCORES_FIELD = "scores"
Field: TypeAlias = Any
"""A ``FieldDescriptor``: the upb and pure-Python classes differ in the type stubs."""

HELP = """\
Type the number of an action, or its text as listed (any case), then Enter.
  ?  or help   this help
  t  or table  show the whole table; each screen shows only what changed
  q  or quit   leave the match (asks first): your team forfeits at once, and
               the result is recorded (so does Ctrl-C, or the end of input)"""


# --- observations ---------------------------------------------------------------------


def _type_prefix(enum: EnumDescriptor) -> str:
    """``CardSuit`` -> ``CARD_SUIT_``, the prefix of its value names."""
    return re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"


@cache
def enum_words() -> dict[str, tuple[str, ...]]:
    """Enums whose values a game writes otherwise than by their names, by value number:
    the ``ENUM_WORDS`` of every game's ``screen`` part."""
    words: dict[str, tuple[str, ...]] = {}
    for game in game_names():
        words |= getattr(part(game, "screen"), "ENUM_WORDS", {})
    return words


def enum_text(enum: EnumDescriptor, number: int) -> str:
    words = enum_words().get(enum.full_name, ())
    if 0 < number < len(words):
        return words[number]
    value = enum.values_by_number.get(number)
    if value is None:
        return str(number)
    return value.name.removeprefix(_type_prefix(enum)).lower().replace("_", " ")


def _is_card(message: Message) -> bool:
    return message.DESCRIPTOR.full_name == "arena.v1.Card"


def _is_seat_card(message: Message) -> bool:
    """A card tied to a seat: ``PlayedCard``, or a pile entry with a ``seat`` and a ``card``."""
    names = {f.name for f in message.DESCRIPTOR.fields}
    return names == {"seat", "card"}


def _present(message: Message, field: Field) -> bool:
    """Whether a field holds something worth showing: not unset, empty or unspecified."""
    if field.is_repeated:
        return len(getattr(message, field.name)) > 0
    if field.has_presence:
        return message.HasField(field.name)
    value = getattr(message, field.name)
    if field.type == FieldDescriptor.TYPE_ENUM:
        return bool(value)
    if field.type in (FieldDescriptor.TYPE_BOOL, FieldDescriptor.TYPE_STRING):
        return bool(value)
    return True  # numbers: 0 is a seat, a score, a count


def _scalar(field: Field, value: Any) -> str:
    if field.type == FieldDescriptor.TYPE_ENUM:
        return enum_text(field.enum_type, value)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return "yes" if value else "no"
    if field.type == FieldDescriptor.TYPE_MESSAGE:
        return compact(value)
    return str(value)


SEAT_FIELDS = frozenset(
    ("dealer", "declarer", "buyer", "bidder", "sitting_out", "melded_by", "leader", "winner")
)
"""Number fields that hold a seat: shown as ``you``, ``partner (seat 2)``, ..."""
TEAM_FIELDS = frozenset(("last_capture_team", "project_team", "bazzi_winner"))
"""Number fields that hold a team: shown as ``you and partner`` or ``opponents``."""


def _named(field: Field, value: Any, labels: Labels | None) -> str | None:
    """A seat or team number in words, when ``labels`` knows whose it is."""
    if labels is None or field.is_repeated or isinstance(value, Message):
        return None
    if field.name in SEAT_FIELDS:
        return labels.seat(int(value))
    if field.name in TEAM_FIELDS:
        return labels.seating.team_label(int(value))
    return None


def compact(message: Message, labels: Labels | None = None) -> str:
    """One message on one line: ``QH``, ``s2 QH``, ``seat 2: pass`` or ``name value, ...``."""
    if _is_card(message):
        code = str(getattr(message, "code", ""))
        return pretty(code) if code else "?"
    if _is_seat_card(message):
        card = compact(message.card)  # type: ignore[attr-defined]
        if not _present(message, message.DESCRIPTOR.fields_by_name["seat"]):
            return card
        return f"s{message.seat} {card}"  # type: ignore[attr-defined]
    seat = ""
    parts = []
    for field in message.DESCRIPTOR.fields:
        if not _present(message, field):
            continue
        if field.name == "seat" and not field.is_repeated:
            number = message.seat  # type: ignore[attr-defined]
            seat = f"{labels.seat(number) if labels else f'seat {number}'}: "
            continue
        parts.append((field.name.replace("_", " "), value_text(message, field, labels=labels)))
    if len(parts) == 1 and (seat or len(message.DESCRIPTOR.fields) == 1):
        return seat + parts[0][1]
    return seat + (", ".join(f"{name} {value}" for name, value in parts) or "-")


def _only_seat(message: Message) -> bool:
    """A per-seat record with nothing in it but its seat (no cards known, say)."""
    fields = [f for f in message.DESCRIPTOR.fields if _present(message, f)]
    return [f.name for f in fields] == ["seat"]


def value_text(
    message: Message, field: Field, separator: str = "  ", labels: Labels | None = None
) -> str:
    """A field's value on one line; list items are joined by ``separator``."""
    value = getattr(message, field.name)
    if not field.is_repeated:
        named = _named(field, value, labels)
        if named is not None:
            return named
        return compact(value, labels) if _is_message(field) else _scalar(field, value)
    if _is_message(field) and all(_is_card(v) for v in value):
        return " ".join(compact(v) for v in value)
    if _is_message(field) and not all(_is_seat_card(v) for v in value):
        return separator.join(f"({compact(v, labels)})" for v in value)
    return separator.join(_scalar(field, v) for v in value)


def _is_message(field: Field) -> bool:
    return bool(field.type == FieldDescriptor.TYPE_MESSAGE)


UNNUMBERED_LISTS = ("calls", "bids", "doublings")
"""Lists of records no action refers to by index: shown in order without ``[i]``."""

NUMBERED_PILES = ("discard_pile",)
"""Lists of cards shown one numbered line each although they are cards: actions name an
index into them (``take 3``)."""


def _is_record_list(message: Message, field: Field) -> bool:
    """A list of records (tricks, calls, plays): shown one numbered line per record."""
    if not (field.is_repeated and field.type == FieldDescriptor.TYPE_MESSAGE):
        return False
    if field.name in NUMBERED_PILES:
        return True
    return not all(_is_card(v) or _is_seat_card(v) for v in getattr(message, field.name))


def wrap(text: str, indent: int, width: int = WIDTH) -> list[str]:
    """``text`` wrapped to ``width``, continuation lines indented by ``indent``."""
    return textwrap.wrap(
        text,
        width=width,
        subsequent_indent=" " * indent,
        break_on_hyphens=False,
        break_long_words=True,
    ) or [text]


def field_lines(
    message: Message,
    field: Field,
    indent: str = "  ",
    labels: Labels | None = None,
) -> list[str]:
    """``name: value`` for one field, wrapped; a list of records gets one line per record;
    a list of numbers that is one per team or one per seat names whose each number is."""
    label = f"{indent}{field.name.replace('_', ' ')}:"
    if _is_record_list(message, field):
        items = list(getattr(message, field.name))
        if all(_only_seat(item) for item in items):
            return []
        lines = [label]
        start = max(0, len(items) - MAX_LIST_LINES)
        if start:
            lines.append(f"{indent}    ({start} earlier not shown)")
        for index in range(start, len(items)):
            if _only_seat(items[index]):
                continue
            number = "" if field.name in UNNUMBERED_LISTS else f"[{index}] "
            text = compact(items[index], labels)
            lines += wrap(f"{indent}  {number}{text}", len(indent) + 4 + len(number))
        return lines
    if labels is not None and field.is_repeated and not _is_message(field):
        named = labels.numbers(list(getattr(message, field.name)))
        if named is not None:
            return wrap(f"{label} {named}", len(label) + 1)
    return wrap(f"{label} {value_text(message, field, labels=labels)}", len(label) + 1)


TABLE_SKIP = (SCORES_FIELD, "seat")
"""Observation fields a turn screen shows elsewhere (the scores in their own line) or not
at all (the seat, in the line that says whose turn it is)."""


@dataclass(frozen=True)
class TableView:
    """One seat's table as a screen showed it: each present field's lines (the hand left
    out: it is shown every time), and of each list of records its records, as
    ``(number, text)`` (``"[3]"``, or ``""`` in a list shown unnumbered), to tell a list
    that grew from one that changed."""

    fields: dict[str, list[str]]
    records: dict[str, list[tuple[str, str]]]
    order: tuple[str, ...] = ()
    """Every field of the observation message, in proto order."""


def table_view(observation: Message, labels: Labels | None = None) -> TableView:
    fields: dict[str, list[str]] = {}
    records: dict[str, list[tuple[str, str]]] = {}
    for field in observation.DESCRIPTOR.fields:
        if field.name in (*TABLE_SKIP, HAND_FIELD) or not _present(observation, field):
            continue
        lines = field_lines(observation, field, labels=labels)
        if not lines:
            continue
        fields[field.name] = lines
        if _is_record_list(observation, field) and field.name not in NUMBERED_PILES:
            numbered = field.name not in UNNUMBERED_LISTS
            records[field.name] = [
                (f"[{index}]" if numbered else "", compact(record, labels))
                for index, record in enumerate(getattr(observation, field.name))
                if not _only_seat(record)
            ]
    order = tuple(f.name for f in observation.DESCRIPTOR.fields)
    return TableView(fields, records, order)


def change_lines(now: TableView, before: TableView, indent: str = "  ") -> list[str]:
    """What differs in ``now`` from ``before``, in proto order: each changed field whole,
    a field that went away as ``none``, and a list of records (tricks, plays, calls)
    that only gained records as one line saying how many (the events since the last move
    told them; ``t`` shows them)."""
    lines: list[str] = []
    for name in now.order:
        shown = now.fields.get(name)
        if shown == before.fields.get(name):
            continue
        label = f"{indent}{name.replace('_', ' ')}:"
        if shown is None:
            lines.append(f"{label} none")
            continue
        old, new = before.records.get(name), now.records.get(name)
        if old is not None and new is not None and len(new) > len(old) and new[: len(old)] == old:
            added = new[len(old) :]
            numbers = " to ".join(dict.fromkeys((added[0][0], added[-1][0])))
            which = f" ({numbers})" if numbers else ""
            lines.append(f"{label} {len(added)} more{which}, as above")
            continue
        lines += shown
    return lines


def observation_lines(
    observation: Message, skip: Sequence[str] = (), labels: Labels | None = None
) -> list[str]:
    """Every present field of the observation, in proto order, the hand last."""
    lines: list[str] = []
    hand: Field | None = None
    for field in observation.DESCRIPTOR.fields:
        if field.name in skip or not _present(observation, field):
            continue
        if field.name == HAND_FIELD:
            hand = field
            continue
        lines += field_lines(observation, field, labels=labels)
    if hand is not None:
        lines += wrap(f"Your hand: {value_text(observation, hand)}", 11)
    return lines


def observation_of(request: bot_pb2.ActRequest) -> Message | None:
    """The request's typed observation (``arena.wire.observation_of``: unpacked for a game
    whose folder declares its messages)."""
    return wire.observation_of(request)


# --- the turn screen ------------------------------------------------------------------


@dataclass(frozen=True)
class Seating:
    """Who plays where: the human's team and seats, the opponent's name, every seat's team."""

    title: str
    team: int
    seats: tuple[int, ...]
    opponent: str
    seat_teams: tuple[int, ...] = ()
    unit: str = "point"
    """What the game's scores count (a game's ``score_unit``)."""

    @property
    def partners(self) -> tuple[int, ...]:
        """The seats of the human's team that a bot plays."""
        return tuple(
            s for s, t in enumerate(self.seat_teams) if t == self.team and s not in self.seats
        )

    def team_label(self, team: int) -> str:
        """``you``, ``you and partner``, ``opponent`` or ``opponents``."""
        several = self.seat_teams.count(team) > 1
        if team == self.team:
            return "you and partner" if several else "you"
        return "opponents" if several else "opponent"

    def seat_label(self, seat: int, me: int) -> str:
        """A seat as ``me`` calls it: ``you``, ``partner (seat 2)``, ``seat 1 (opponent)``."""
        if seat == me:
            return "you"
        if seat in self.seats:
            return f"seat {seat} (yours too)"
        if 0 <= seat < len(self.seat_teams) and self.seat_teams[seat] == self.team:
            return f"partner (seat {seat})"
        return f"seat {seat} (opponent)"

    def describe(self) -> str:
        if len(self.seats) > 1:
            seats = " and ".join(map(str, self.seats))
            return f"you play team {self.team}: seats {seats}"
        text = f"you are seat {self.seats[0]} (team {self.team})"
        if self.partners:
            text += f", partnered by the house bot at seat {' and '.join(map(str, self.partners))}"
        return text


@dataclass(frozen=True)
class Labels:
    """Names for the seats and teams behind bare numbers, as one seat sees the table."""

    seating: Seating
    me: int

    def seat(self, seat: int) -> str:
        return self.seating.seat_label(seat, self.me)

    def numbers(self, values: Sequence[int]) -> str | None:
        """``you and partner 0, opponents 2`` for a number per team, ``you 6, seat 1
        (opponent) 6, ...`` for one per seat; None for any other list."""
        teams = max(self.seating.seat_teams, default=-1) + 1
        if teams and len(values) == teams:
            named = [(self.seating.team_label(t), v) for t, v in enumerate(values)]
            mine = named.pop(self.seating.team)
            named.insert(0, mine)
        elif len(values) == len(self.seating.seat_teams) > 0:
            named = sorted(
                ((self._short_seat(s), v) for s, v in enumerate(values)),
                key=lambda item: SHORT_ORDER.get(item[0], len(SHORT_ORDER)),
            )
        else:
            return None
        return ", ".join(f"{name} {value}" for name, value in named)

    def _short_seat(self, seat: int) -> str:
        """A seat in a list of numbers: ``you``, ``partner``, ``seat 1 (opp)``."""
        label = self.seat(seat)
        return (
            label.split(" (")[0]
            if label.startswith("partner")
            else label.replace("(opponent)", "(opp)")
        )


SHORT_ORDER = {"you": 0, "partner": 1}
"""Per-seat numbers start with the person's own, then their partner's."""


def forced_note(request: bot_pb2.ActRequest) -> str:
    """The line shown instead of a prompt when a seat has a single legal action."""
    action = pretty_text(request.legal_actions[0].text)
    return f"Seat {request.seat}: only one legal move: {action} \u2014 played for you."


def rule(text: str = "", width: int = WIDTH) -> str:
    return f"== {text} ".ljust(width, "=") if text else "=" * width


def _seconds(duration: Any) -> float:
    return float(duration.seconds + duration.nanos / 1e9)


COLUMN_GAP = 3


def action_lines(request: bot_pb2.ActRequest, width: int = WIDTH) -> list[str]:
    """The numbered legal actions, their cards as the hand shows them (``play 10\u2663``),
    in as many columns as fit, numbered down each column as ``ls`` lists files; one a
    line, wrapped, when even two columns do not fit."""
    count = len(request.legal_actions)
    digits = len(str(count))
    items = [
        f"{number:>{digits}}) {pretty_text(action.text)}"
        for number, action in enumerate(request.legal_actions, start=1)
    ]
    column = max(len(item) for item in items) + COLUMN_GAP
    columns = max(1, (width - 2 + COLUMN_GAP) // column)
    if columns == 1:
        lines: list[str] = []
        for item in items:
            lines += wrap(f"  {item}", digits + 4, width)
        return lines
    rows = -(-count // columns)
    return [
        ("  " + "".join(item.ljust(column) for item in items[row::rows])).rstrip()
        for row in range(rows)
    ]


def turn_screen(
    request: bot_pb2.ActRequest,
    seating: Seating,
    events: Sequence[str],
    skipped: int = 0,
    before: TableView | None = None,
) -> str:
    """The screen for one decision of the human: header, what happened since their last
    move, the table as their seat sees it (only what changed since ``before``, the view
    of the seat's last screen, when given), their hand, and the numbered actions."""
    observation = observation_of(request)
    lines = [rule(f"{seating.title}, decision {request.decision_index}")]
    scores = None
    if observation is not None and SCORES_FIELD in observation.DESCRIPTOR.fields_by_name:
        scores = list(getattr(observation, SCORES_FIELD))
    labels = Labels(seating, request.seat)
    if scores:
        lines.append("Scores: " + (labels.numbers(scores) or "  ".join(map(str, scores))))
    if events or skipped:
        lines.append("Since your last move:")
        if skipped:
            lines.append(f"  ({skipped} earlier events not shown)")
        for text in events:
            lines += wrap(f"  {text}", 4)
    if observation is not None and before is not None:
        changed = change_lines(table_view(observation, labels), before)
        if changed:
            lines.append(f"Changed, as seat {request.seat} sees it (t: the whole table):")
            lines += changed
        hand = observation.DESCRIPTOR.fields_by_name.get(HAND_FIELD)
        if hand is not None and _present(observation, hand):
            lines += wrap(f"Your hand: {value_text(observation, hand)}", 11)
    else:
        lines.append(f"Table, as seat {request.seat} sees it:")
        if observation is not None:
            lines += observation_lines(observation, skip=TABLE_SKIP, labels=labels)
    clock = f"{_seconds(request.deadline):g} s"
    if request.HasField("time_bank"):
        clock += f" (+ {_seconds(request.time_bank):.0f} s bank)"
    whose = f"Seat {request.seat} to play: you"
    if len(seating.seats) > 1:
        whose += f" ({seating.describe().removeprefix('you play ')})"
    lines.append(f"{whose}. Time: {clock}.")
    lines += action_lines(request)
    return "\n".join(lines)


def prompt(request: bot_pb2.ActRequest) -> str:
    count = len(request.legal_actions)
    numbers = "1" if count == 1 else f"1-{count}"
    return f"Seat {request.seat}, your move ({numbers}, ? help, q quit): "


# --- reading the answer ---------------------------------------------------------------


@dataclass(frozen=True)
class Choice:
    """What a line of input meant: an action id, a command, or a one-line complaint."""

    action_id: int | None = None
    command: str | None = None  # "help", "table", "quit"
    error: str | None = None


COMMANDS = {
    "?": "help",
    "h": "help",
    "help": "help",
    "t": "table",
    "table": "table",
    "q": "quit",
    "quit": "quit",
    "exit": "quit",
}


def parse_choice(line: str, legal: Sequence[bot_pb2.LegalAction]) -> Choice:
    """A number 1..N, an action's text (any case, spaces squeezed, its cards as codes or
    as shown: ``play QH`` or ``play Q\u2665``), or a command."""
    text = " ".join(line.split())
    if not text:
        return Choice(error=f"type a number from 1 to {len(legal)}, ? for help or q to quit")
    folded = text.casefold()
    for action in legal:
        written = " ".join(action.text.split())
        if folded in (written.casefold(), pretty_text(written).casefold()):
            return Choice(action_id=action.id)
    if text.isdigit():
        number = int(text)
        if 1 <= number <= len(legal):
            return Choice(action_id=legal[number - 1].id)
        return Choice(error=f"there is no action {number}: choose 1 to {len(legal)}")
    if folded in COMMANDS:
        return Choice(command=COMMANDS[folded])
    shown = text if len(text) <= 16 else text[:13] + "..."
    return Choice(
        error=f"{shown!r} is not an action: type 1 to {len(legal)}, an action's text, ? or q"
    )


# --- the result -----------------------------------------------------------------------


def result_screen(
    result: referee_pb2.MatchResult, seating: Seating, left: bool, replay_command: str
) -> str:
    """The final scores, who won from the human's point of view, faults, and the replay."""
    lines = [
        rule("Match over"),
        f"{seating.title}, seed {result.seed}, {result.decisions} decisions",
    ]
    for team in result.teams:
        lines.append(
            f"  team {team.team} ({seating.team_label(team.team)}, "
            f"{plural('seat', len(team.seats))} {', '.join(map(str, team.seats))}): "
            f"{count(team.score, seating.unit)}, {count(team.faults, 'fault')}"
        )
    if result.end == referee_pb2.MATCH_END_NO_CONTEST:
        lines.append("No contest: the decision cap was reached or nobody could play.")
    else:
        if not result.HasField("winner_team"):
            verdict = "Draw"
        elif result.winner_team == seating.team:
            verdict = f"Team {result.winner_team} wins: you win!"
        else:
            verdict = f"Team {result.winner_team} wins: you lose."
        if result.end == referee_pb2.MATCH_END_FORFEIT:
            why = " (you left)" if left and result.forfeit_team == seating.team else ""
            verdict = f"Team {result.forfeit_team} forfeits{why}. {verdict}"
        lines.append(verdict)
    for fault in result.faults:
        kind = referee_pb2.FaultKind.Name(fault.kind).removeprefix("FAULT_KIND_").lower()
        played = f"; the referee played {pretty_text(fault.substituted_action)}"
        played = played if fault.substituted_action else ""
        if fault.kind == referee_pb2.FAULT_KIND_LEFT:  # the match ended there
            played = " (the seat's player left the match)"
        lines += wrap(
            f"  fault: seat {fault.seat}, decision {fault.decision_index}, {kind}{played}", 4
        )
    lines += [f"Replay {result.replay_id}, to read it:", f"  {replay_command}"]
    return "\n".join(lines)
