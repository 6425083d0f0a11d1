"""Seep's plays: the phases, the texts of seats and cards in the logs, ``House``, a house on
the floor, and ``SeepPlays``, the part of the state that finds the legal plays (``Turn`` holds the
rules) and makes each kind of play. Part of the engine ``arena.games.seep.game``, which exports
these names.
"""

from __future__ import annotations

import bisect

from arena.games.api import Event, PhaseState
from arena.games.cards import pretty
from arena.games.seep.actions import (
    BUILD,
    CARD_OFFSET,
    CARDS,
    KIND_NAMES,
    NUM_SEATS,
    PLAYS_PER_DEAL,
    POINTS,
    SEAT_TEAMS,
    SWEEP_LAST,
    SWEEP_NORMAL,
    SWEEP_OPENING,
    THROW_BASE,
    VALUE,
    card_codes,
)
from arena.games.seep.legal import VALUE_BIT, Turn
from arena.games.seep.observation import SeepPlay, SeepTeamPile

# Phases, named as the proto's SeepPhase values (lower case, without the prefix).
BIDDING = "bid"
PLAY = "play"


def team_of(seat: int) -> int:
    return SEAT_TEAMS[seat]


def _seats_text(owners: int) -> str:
    return ", ".join(str(s) for s in range(NUM_SEATS) if owners >> s & 1)


PRETTY: tuple[str, ...] = tuple(pretty(card) for card in CARDS)
"""Human form of each card index, for event texts."""


def pretty_indices(cards: list[int] | tuple[int, ...]) -> str:
    return " ".join([PRETTY[c] for c in cards])


THROW_ID: tuple[int, ...] = tuple(THROW_BASE + offset for offset in CARD_OFFSET)
"""The id of throwing each card index."""


# --- State ---------------------------------------------------------------------------------


class House:
    """A house on the floor: its value, its cards, their total and its owners (a seat
    bitmask). Multiplicity k = total // value; k >= 2 means cemented."""

    __slots__ = ("cards", "owners", "total", "value")

    def __init__(self, value: int, cards: list[int], total: int, owners: int) -> None:
        self.value = value
        self.cards = cards
        self.total = total
        self.owners = owners

    @property
    def cemented(self) -> bool:
        return self.total > self.value


class SeepPlays(PhaseState):
    """The plays, for ``SeepState``: the legal plays of the seat to act, then each kind of
    play (throw, capture, build or add to a house, break a house) and the piles it feeds.
    """

    loose: list[int]
    hands: list[list[int]]
    bid: int | None
    houses: dict[int, House]
    piles: list[list[int]]
    pile_points: list[int]
    sweep_bonuses: list[list[int]]
    pile_views: list[SeepTeamPile]
    last_capture_team: int | None
    play_number: int
    plays: list[SeepPlay]

    # -- legal plays ------------------------------------------------------------------------

    def _compute_legal(self) -> None:
        """Every legal play of the seat to act, as ascending ids; ``Turn`` holds the rules.

        Cards of one value have the same plays (only the card in the id differs), so the
        plays are found once per value, with the first card of the value, and moved to
        each other card; a card that can only be thrown (the most common case) is stamped
        at once.
        """
        seat = self.current
        turn = Turn(self)
        throw_only = turn.throwers & ~turn.housing
        if not turn.held & ~throw_only:  # every card is thrown: ascending as the hand
            self._legal = list(map(THROW_ID.__getitem__, self.hands[seat]))
            return
        ids: list[int] = []
        plays: list[int] = []
        previous = first = 0
        for card in self.hands[seat]:
            if throw_only & VALUE_BIT[card]:
                ids.append(THROW_ID[card])
                continue
            v = VALUE[card]
            part = CARD_OFFSET[card]
            if v != previous:  # the first card of its value: its own ids
                previous, first, plays = v, part, turn.plays_of(v, part)
                ids += plays
            else:  # another card of the same value: the same plays with this card
                shift = part - first
                for play in plays:
                    ids.append(play + shift)
        ids.sort()
        self._legal = ids

    # -- plays ------------------------------------------------------------------------------

    def _throw(self, seat: int, card: int) -> None:
        bisect.insort(self.loose, card)
        play = self.play_number + 1
        code = CARDS[card]
        self.plays.append(SeepPlay(play, seat, "throw", code))
        self.events.append(
            Event("throw", f"Seat {seat} throws {PRETTY[card]}", seat, {"card": code, "play": play})
        )

    def _capture(self, seat: int, card: int, taken: list[int]) -> None:
        value = VALUE[card]
        house = self.houses.pop(value, None)
        house_cards = house.cards if house is not None else []
        team = SEAT_TEAMS[seat]
        self.last_capture_team = team
        play = self.play_number + 1
        sweep = not self.loose and not self.houses
        bonus = 0
        if sweep:
            bonus = SWEEP_NORMAL
            if play == 1:
                bonus = SWEEP_OPENING
            elif play == PLAYS_PER_DEAL:
                bonus = SWEEP_LAST
            self.sweep_bonuses[team].append(bonus)
        self._take(team, [card, *taken, *house_cards])
        code = CARDS[card]
        loose = card_codes(taken)
        house_codes = card_codes(house_cards)
        self.plays.append(
            SeepPlay(
                play,
                seat,
                "capture",
                code,
                value if house is not None else None,
                None,
                loose,
                house_codes,
                sweep,
                bonus,
            )
        )
        text = f"Seat {seat} captures {pretty_indices([*taken, *house_cards])} with {PRETTY[card]}"
        if sweep:
            text += f": a sweep, +{bonus}"
        self.events.append(
            Event(
                "capture",
                text,
                seat,
                {
                    "card": code,
                    "play": play,
                    "loose": list(loose),
                    "house": list(house_codes),
                    "sweep": sweep,
                    "bonus": bonus,
                },
            )
        )

    def _take(self, team: int, cards: list[int]) -> None:
        """Cards go to a team's pile; its view for observations is made here, once."""
        pile = self.piles[team]
        pile += cards
        pile.sort()
        self.pile_points[team] += sum(map(POINTS.__getitem__, cards))
        bonuses = self.sweep_bonuses[team]
        points, sweep_points = self.pile_points[team], sum(bonuses)
        self.pile_views[team] = SeepTeamPile(
            card_codes(pile), points, len(bonuses), sweep_points, points + sweep_points
        )

    def _house(self, seat: int, kind: int, card: int, value: int, taken: list[int]) -> None:
        """BUILD a new house, or ADD to the existing one of ``value``."""
        moved = [card, *taken]
        total = VALUE[card]
        for c in taken:
            total += VALUE[c]
        me = 1 << seat
        if kind == BUILD:
            house = self.houses[value] = House(value, sorted(moved), total, me)
            text = f"Seat {seat} builds a {value}-house of {pretty_indices(house.cards)}"
        else:
            house = self.houses[value]
            house.cards = sorted(house.cards + moved)
            house.total += total
            partner = 1 << ((seat + 2) % NUM_SEATS)
            if not house.owners & (me | partner):
                house.owners |= me
            text = (
                f"Seat {seat} adds {pretty_indices(moved)} to the {value}-house, now "
                f"{house.total // value} x {value}, owners {_seats_text(house.owners)}"
            )
        kind_name = KIND_NAMES[kind]
        play = self.play_number + 1
        code = CARDS[card]
        loose = card_codes(taken)
        self.plays.append(SeepPlay(play, seat, kind_name, code, value, None, loose))
        self.events.append(
            Event(
                kind_name,
                text,
                seat,
                {"card": code, "play": play, "value": value, "loose": list(loose)},
            )
        )

    def _break(self, seat: int, card: int, old: int, taken: list[int]) -> None:
        broken = self.houses.pop(old)
        value = old + VALUE[card]
        moved = [*broken.cards, card, *taken]
        total = broken.total + VALUE[card]
        for c in taken:
            total += VALUE[c]
        target = self.houses.get(value)
        if target is None:
            self.houses[value] = House(value, sorted(moved), total, 1 << seat)
            into = "a"
        else:
            target.cards = sorted(target.cards + moved)
            target.total += total
            target.owners |= 1 << seat
            into = "the"
        play = self.play_number + 1
        code = CARDS[card]
        loose = card_codes(taken)
        self.plays.append(SeepPlay(play, seat, "break", code, value, old, loose))
        self.events.append(
            Event(
                "break",
                f"Seat {seat} breaks the {old}-house with {PRETTY[card]} into {into} {value}-house",
                seat,
                {"card": code, "play": play, "house": old, "value": value, "loose": list(loose)},
            )
        )
