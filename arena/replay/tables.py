"""What lies on each game's table, as JSON for the replay viewer: one function per game.

A replay is written after the match, so the viewer may show everything, hidden cards
included; these functions read a ``State`` whole rather than a seat's observation (which
is what ``arena.wire`` sends each bot). Every game's table has the same shape, so one
viewer draws all five:

- ``phase``: the engine's phase name;
- ``hands``: each seat's cards, as card codes;
- ``piles``: everything else that holds cards, each ``{"kind", "label", "cards"}`` plus
  ``seats`` (who put each card there) where that is known and ``face_down`` for cards
  nobody at the table could see (the stock, Seep's floor before the bid). ``kind`` is
  one of ``trick``, ``won``, ``floor``, ``house``, ``meld``, ``discard``, ``up_card``,
  ``stock``;
- ``facts``: ``[label, text]`` pairs: dealer, auction, contract, trump, running totals;
- ``scores_are``: what ``State.scores()`` counts in this game (bazzis, points).

Every card of the pack is in a hand or a pile at every point of a match, which
``tests/replay/test_frames.py`` checks for every game.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import fields, is_dataclass
from typing import Any

from arena.games import State
from arena.games.baloot import BalootState
from arena.games.bid_euchre import BidEuchreState
from arena.games.bridgette import BridgetteState
from arena.games.persian_rummy import CARDS as RUMMY_CARDS
from arena.games.persian_rummy import PersianRummyState
from arena.games.persian_rummy import _codes as rummy_codes
from arena.games.seep import CARDS as SEEP_CARDS
from arena.games.seep import OWNER_TEXT, SeepState
from arena.games.tricks import PlayedCard, Trick

Table = dict[str, Any]
Pile = dict[str, Any]

DECK_SIZES = {"seep": 52, "bid-euchre": 24, "bridgette": 55, "persian-rummy": 56, "baloot": 32}
"""Cards in each game's pack: what the hands and piles of a table add up to (with its
default options: Bid Euchre's ``joker`` option adds one, see ``deck_size``)."""


def deck_size(game: str, options: dict[str, Any] | None = None) -> int:
    """Cards in the pack of a match of ``game`` played with these options."""
    extra = 1 if game == "bid-euchre" and (options or {}).get("joker") else 0
    return DECK_SIZES[game] + extra


PLAY_DIRECTION = {
    "bid-euchre": "clockwise",  # arena.games.tricks: seats numbered clockwise
    "persian-rummy": "clockwise",  # dealt from the dealer's left, who plays first
    "baloot": "counter-clockwise",  # arena.games.baloot: everything counter-clockwise
    "seep": "counter-clockwise",  # as Seep is played in North India
    "bridgette": "facing",  # two seats, across the table
}
"""Which way play passes from seat s to s+1 (every engine numbers seats in its order of
play), so the viewer can seat each bot where a player of the game would sit."""


def table(state: State) -> Table:
    """The table of any of the five games."""
    name = state.game_info.name
    try:
        lay_out = _TABLES[name]
    except KeyError:
        raise LookupError(f"the replay viewer has no table for {name!r}") from None
    return lay_out(state)


def has_table(game: str) -> bool:
    """Whether the viewer can draw ``game``'s table (a game a test registers cannot)."""
    return game in _TABLES


def _pile(
    kind: str,
    label: str,
    cards: Iterable[str],
    seats: Sequence[int | None] | None = None,
    face_down: bool = False,
) -> Pile:
    out: Pile = {"kind": kind, "label": label, "cards": list(cards)}
    if seats is not None:
        out["seats"] = list(seats)
    if face_down:
        out["face_down"] = True
    return out


def _played(kind: str, label: str, played: Sequence[PlayedCard]) -> Pile:
    return _pile(kind, label, [p.card for p in played], [p.seat for p in played])


def _trick_piles(
    trick: Sequence[PlayedCard], tricks: Sequence[Trick], side_of: Callable[[int], int], side: str
) -> list[Pile]:
    """The trick on the table, then the cards each side has taken in tricks."""
    piles = [_played("trick", "Trick", trick)]
    for number in (0, 1):
        won = [p for t in tricks if side_of(t.winner) == number for p in t.cards]
        taken = sum(1 for t in tricks if side_of(t.winner) == number)
        label = f"{side} {number} took {taken} trick{'s' * (taken != 1)}"
        piles.append(_played("won", label, won))
    return piles


def _calls(calls: Iterable[Any]) -> str:
    """An auction as text: ``seat 1 pass, seat 2 four``, from the engines' call records."""
    return ", ".join(f"seat {c.seat} {_words(c)}" for c in calls) or "none yet"


def _words(record: Any) -> str:
    """A call record's fields but its seat, as words (nested records flattened)."""
    if not is_dataclass(record):
        return str(record)
    parts = [
        _words(getattr(record, f.name))
        for f in fields(record)
        if f.name not in ("seat", "bidding_round") and getattr(record, f.name) is not None
    ]
    return " ".join(p for p in parts if p)


def _seep(state: SeepState) -> Table:
    piles = []
    if state.face_down:
        down = _seep_codes(state.face_down)
        piles.append(_pile("floor", "Floor, face down until the bid", down, face_down=True))
    piles.append(_pile("floor", "Floor", _seep_codes(state.loose)))
    for value, house in sorted(state.houses.items()):
        cemented = ", cemented" if house.total > value else ""
        label = f"House {value}{cemented}, of seat {OWNER_TEXT[house.owners]}"
        piles.append(_pile("house", label, _seep_codes(house.cards)))
    for team, pile in enumerate(state.piles):
        view = state.pile_views[team]
        label = f"Team {team} captured ({view.points} points, {view.sweeps} sweeps)"
        piles.append(_pile("won", label, _seep_codes(pile)))
    if state.stock:
        piles.append(_pile("stock", "Still to deal", _seep_codes(state.stock), face_down=True))
    return {
        "phase": state.phase,
        "hands": [_seep_codes(hand) for hand in state.hands],
        "piles": piles,
        "facts": [
            ["Dealer", f"seat {state.dealer}"],
            ["Bid", "none yet" if state.bid is None else f"{state.bid} by seat {state.bidder}"],
            ["Deal", f"{state.deal_number} (play {state.play_number} of 48)"],
            ["Difference", f"{state.difference:+d} (team 0 minus team 1, bazzi at 100)"],
        ],
        "scores_are": "bazzis won per team",
    }


def _seep_codes(cards: Iterable[int]) -> list[str]:
    return [SEEP_CARDS[c] for c in cards]


def _bid_euchre(state: BidEuchreState) -> Table:
    contract = "none yet"
    if state.declarer is not None and state.contract is not None:
        contract = f"{_words(state.observation(state.declarer).contract)} by seat {state.declarer}"
    facts = [
        ["Dealer", f"seat {state.dealer}"],
        ["Auction", _calls(state.calls)],
        ["Contract", contract],
        ["Trump", state.trump or "none yet"],
    ]
    if state.sitting_out is not None:
        facts.append(["Sitting out", f"seat {state.sitting_out} (the hand is dead)"])
    if state.card_given is not None:
        facts.append(["Exchange", f"{state.card_given} given, {state.card_returned or '-'} back"])
    piles = _trick_piles(state.trick, state.tricks, lambda seat: seat % 2, "Team")
    if state.discarded is not None:  # the joker variant: seen by the dealer alone
        label = f"Seat {state.dealer} discarded (out of play)"
        piles.append(_pile("discard", label, [state.discarded], face_down=True))
    return {
        "scores_are": "points per team, game to 32",
        "phase": state.phase,
        "hands": [list(hand) for hand in state.hands],
        "piles": piles,
        "facts": facts,
    }


def _bridgette(state: BridgetteState) -> Table:
    obs = state.observation(0)
    contract = "none yet" if obs.contract is None else _contract(obs.contract)
    piles = _trick_piles(state.trick, state.tricks, lambda seat: seat, "Seat")
    for seat, discards in enumerate(state.discards):
        piles.append(_pile("discard", f"Seat {seat} discarded", discards, face_down=True))
    piles.append(_pile("stock", f"Stock ({len(state.stock)})", state.stock, face_down=True))
    return {
        "phase": state.phase,
        "hands": [list(hand) for hand in state.hands],
        "piles": piles,
        "facts": [
            ["Dealer", f"seat {state.dealer}"],
            ["Deal", f"{state.deal_number} of {state.deals}"],
            [
                "Up-card",
                f"{state.up_card} (the non-dealer took it; the dealer draws {state.dealer_draws})",
            ],
            ["Auction", _calls(state.calls)],
            ["Contract", contract],
            ["Trump", state.trump or "none yet"],
        ],
        "scores_are": "points per seat",
    }


def _contract(contract: Any) -> str:
    return (
        f"{contract.level} {contract.strain} by seat {contract.declarer}, {contract.doubling}, "
        f"{contract.tricks_needed} tricks needed"
    )


def _baloot(state: BalootState) -> Table:
    piles = []
    if state.face_down:  # until the buyer takes it with the rest of the deal
        piles.append(_pile("up_card", "Up-card", [state.up_card]))
        piles.append(_pile("stock", "Still to deal", state.face_down, face_down=True))
    piles += _trick_piles(state.trick, state.tricks, lambda seat: seat % 2, "Team")
    facts = [
        ["Dealer", f"seat {state.dealer}"],
        ["Round", str(state.round_number)],
        ["Bids", _calls(state.bids)],
        [
            "Contract",
            "none yet"
            if state.contract is None
            else f"{state.contract} bought by seat {state.buyer}, x{state.multiplier}"
            + (" (gahwa)" if state.gahwa else ""),
        ],
        ["Trump", state.trump or "none"],
        ["Abnat", " : ".join(map(str, state.abnat))],
    ]
    if state.doublings:
        facts.append(["Doublings", _calls(state.doublings)])
    if state.declared_projects and state.projects_public:
        facts.append(
            [
                "Projects",
                ", ".join(
                    f"seat {p.seat} {p.kind} ({' '.join(p.cards)}, {p.points})"
                    for p in state.declared_projects
                ),
            ]
        )
    return {
        "scores_are": "game points per team, game to 152",
        "phase": state.phase,
        "hands": [list(hand) for hand in state.hands],
        "piles": piles,
        "facts": facts,
    }


def _persian_rummy(state: PersianRummyState) -> Table:
    pile = state.pile_views
    piles = [_pile("discard", "Discard pile", [d.card for d in pile], [d.seat for d in pile])]
    for meld in state.meld_views:
        doubled = ", doubled" if meld.doubled else ""
        label = f"Meld {meld.id + 1}: {meld.kind} by seat {meld.melded_by}{doubled}"
        piles.append(_played("meld", label, meld.cards))
    stock = [RUMMY_CARDS[c] for c in reversed(state.stock)]  # top card first
    piles.append(_pile("stock", f"Stock ({len(stock)})", stock, face_down=True))
    facts = [
        ["Dealer", f"seat {state.dealer}"],
        ["Deal", f"{state.deal_number} of 2"],
        ["Table points", " : ".join(map(str, state.table_points))],
    ]
    if state.chosen >= 0:
        facts.append(["Must meld", RUMMY_CARDS[state.chosen]])
    if state.passes:
        facts.append(["Passes in a row", str(state.passes)])
    return {
        "scores_are": "points per team",
        "phase": state.phase,
        "hands": [list(rummy_codes(hand)) for hand in state.hands],
        "piles": piles,
        "facts": facts,
    }


_TABLES: dict[str, Callable[[Any], Table]] = {
    "seep": _seep,
    "bid-euchre": _bid_euchre,
    "bridgette": _bridgette,
    "baloot": _baloot,
    "persian-rummy": _persian_rummy,
}
