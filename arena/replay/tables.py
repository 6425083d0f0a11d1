"""What lies on a game's table, as JSON for the replay viewer.

A replay is written after the match, so the viewer may show everything, hidden cards
included; a table reads a ``State`` whole rather than a seat's observation (which is what
``arena.wire`` sends each bot). Every game's table has the same shape, so one viewer
draws them all:

- ``phase``: the engine's phase name;
- ``hands``: each seat's cards, as card codes;
- ``piles``: everything else that holds cards, each ``{"kind", "label", "cards"}`` plus
  ``seats`` (who put each card there) where that is known and ``face_down`` for cards
  nobody at the table could see (the stock, a floor before the bid). ``kind`` is one of
  ``trick``, ``won``, ``floor``, ``house``, ``meld``, ``discard``, ``up_card``,
  ``stock``;
- ``facts``: ``[label, text]`` pairs: dealer, auction, contract, trump, running totals;
- ``scores_are``: what ``State.scores()`` counts in this game (bazzis, points).

Each game lays out its own table, in its folder's ``table`` part
(``arena.games.registry.part(game, "table")``), which has:

- ``table(state) -> Table``;
- ``deck_size(options) -> int``: the cards in the pack with these options, ``DECK_SIZE``
  with the default ones;
- ``PLAY_DIRECTION``: which way play passes from seat s to s+1 (every engine numbers
  seats in its order of play): ``clockwise``, ``counter-clockwise`` or ``facing`` (two
  seats, across the table), so the viewer can seat each bot where a player of the game
  would sit;
- optionally ``HIDDEN_PHASES`` and ``HIDDEN_FACTS``, what the live table hides
  (``arena.replay.public_table``).

It builds its piles and facts with the helpers here (``pile``, ``played``,
``trick_piles``, ``calls``, ``words``). A game with no ``table`` part (one a test
registers) has no table.

Every card of the pack is in a hand or a pile at every point of a match, which
``tests/replay/test_frames.py`` checks for every game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields, is_dataclass
from types import ModuleType
from typing import Any

from arena.games import State, UnknownGameError
from arena.games.registry import part
from arena.games.tricks import PlayedCard, Trick

Table = dict[str, Any]
Pile = dict[str, Any]


def table_part(game: str) -> ModuleType | None:
    """The ``table`` part of ``game``'s folder, or None for a game with none (or no game
    of that name)."""
    try:
        return part(game, "table")
    except UnknownGameError:
        return None


def deck_size(game: str, options: dict[str, Any] | None = None) -> int:
    """Cards in the pack of a match of ``game`` played with these options."""
    found = table_part(game)
    if found is None:
        raise KeyError(game)
    return int(found.deck_size(options or {}))


def play_direction(game: str) -> str | None:
    """Which way play passes from seat s to s+1 in ``game`` (every engine numbers seats
    in its order of play), so the viewer can seat each bot where a player of the game
    would sit; None for a game with no table."""
    found = table_part(game)
    return None if found is None else str(found.PLAY_DIRECTION)


def table(state: State) -> Table:
    """The table of any game that has a ``table`` part."""
    name = state.game_info.name
    found = table_part(name)
    if found is None:
        raise LookupError(f"the replay viewer has no table for {name!r}")
    lay_out: Callable[[State], Table] = found.table
    return lay_out(state)


def has_table(game: str) -> bool:
    """Whether the viewer can draw ``game``'s table (a game a test registers cannot)."""
    return table_part(game) is not None


def pile(
    kind: str,
    label: str,
    cards: Iterable[str],
    seats: Sequence[int | None] | None = None,
    face_down: bool = False,
) -> Pile:
    """A pile of the table: see the module's docstring."""
    out: Pile = {"kind": kind, "label": label, "cards": list(cards)}
    if seats is not None:
        out["seats"] = list(seats)
    if face_down:
        out["face_down"] = True
    return out


def played(kind: str, label: str, cards: Sequence[PlayedCard]) -> Pile:
    """A pile of played cards, each with the seat that played it."""
    return pile(kind, label, [p.card for p in cards], [p.seat for p in cards])


def trick_piles(
    trick: Sequence[PlayedCard], tricks: Sequence[Trick], side_of: Callable[[int], int], side: str
) -> list[Pile]:
    """The trick on the table, then the cards each side has taken in tricks."""
    piles = [played("trick", "Trick", trick)]
    for number in (0, 1):
        won = [p for t in tricks if side_of(t.winner) == number for p in t.cards]
        taken = sum(1 for t in tricks if side_of(t.winner) == number)
        label = f"{side} {number} took {taken} trick{'s' * (taken != 1)}"
        piles.append(played("won", label, won))
    return piles


def calls(records: Iterable[Any]) -> str:
    """An auction as text: ``seat 1 pass, seat 2 four``, from the engines' call records."""
    return ", ".join(f"seat {c.seat} {words(c)}" for c in records) or "none yet"


def words(record: Any) -> str:
    """A call record's fields but its seat, as words (nested records flattened)."""
    if not is_dataclass(record):
        return str(record)
    parts = [
        words(getattr(record, f.name))
        for f in fields(record)
        if f.name not in ("seat", "bidding_round") and getattr(record, f.name) is not None
    ]
    return " ".join(p for p in parts if p)
