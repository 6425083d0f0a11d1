"""Seep positions: ``SeepPosition``, a match at any decision of a deal, and
``check_position``, one check per rule of what real play allows, for
``SeepGame.from_position``. Part of the engine ``arena.games.seep.game``, which exports these
names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, NamedTuple

from arena.games.api import DealError, Options
from arena.games.cards import Card
from arena.games.seep.actions import (
    BAZZI_TARGET,
    CARD_INDEX,
    CARDS,
    HOUSE_VALUES,
    NUM_SEATS,
    PLAYS_PER_DEAL,
    SEAT_TEAMS,
    VALUE,
)

# --- Positions: a match started at any decision of a deal -----------------------------------


class PlacedHouse(NamedTuple):
    """A house of a ``SeepPosition``: its value (9..13), its cards, its owners' seats."""

    value: int
    cards: tuple[Card, ...]
    owners: tuple[int, ...]


@dataclass(frozen=True)
class SeepPosition:
    """A Seep match at one decision, for ``SeepGame.from_position``; ``SeepState.position()``
    reads one back, every group of cards but the stock in canonical order. Cards are codes
    as in observations (``QH``); order within a hand, the loose cards, a house or a pile
    does not matter (only the stock's does).

    * ``dealer``: the dealer's seat; the bidder is ``dealer + 1``.
    * ``bid``: the bid value, 9..13; None before the bid (``play_number`` 0).
    * ``play_number``: plays made so far in this deal, 0..47 (as in observations). Play n
      is made by seat ``(dealer + n) % 4``, so the seat to act is ``to_move``.
    * ``hands``: one tuple per seat. Play 1 is made with the bidder's first four cards
      before the others are dealt; then every seat holds 12 cards less the plays it made.
    * ``loose``: the loose cards on the floor; before the bid, the four face-down ones.
    * ``houses``: ``PlacedHouse(value, cards, owners)`` for each house.
    * ``piles``: what each team (0: seats 0 and 2, 1: seats 1 and 3) captured this deal.
    * ``sweeps``: each team's sweep bonuses this deal, in order (25 for the bidder's
      sweep on play 1, else 50).
    * ``last_capture``: the team that made the latest capture (it takes the cards left
      at the end of the deal); None while nobody has captured.
    * ``stock``: before play 1 only, the 44 cards dealt after it, in the order they are
      dealt: packets of four to the bidder, b+1, b+2, the dealer, again, then to b+1,
      b+2 and the dealer (as ``Deal.rest[4:]``); empty afterwards.
    * ``scores``: bazzis won per team; ``void_bazzis``: bazzis the safeguard ended void.
    * ``difference``: team 0 minus team 1 in the open bazzi, before this deal.
    * ``deal_number``: this deal's number in the match; ``deals_in_bazzi``: in the bazzi.

    Every one of the 52 cards is in exactly one place: a hand, the floor, a pile or the
    stock. The match's play record (``plays``, ``deal_history`` and ``redeal_cards`` of
    observations) starts empty, and so does its event log.
    """

    dealer: int
    bid: int | None
    play_number: int
    hands: tuple[tuple[Card, ...], ...]
    loose: tuple[Card, ...] = ()
    houses: tuple[PlacedHouse, ...] = ()
    piles: tuple[tuple[Card, ...], ...] = ((), ())
    sweeps: tuple[tuple[int, ...], ...] = ((), ())
    last_capture: int | None = None
    stock: tuple[Card, ...] = ()
    scores: tuple[int, ...] = (0, 0)
    void_bazzis: int = 0
    difference: int = 0
    deal_number: int = 1
    deals_in_bazzi: int = 1

    @property
    def bidder(self) -> int:
        return (self.dealer + 1) % NUM_SEATS

    @property
    def to_move(self) -> int:
        """The seat to act: the bidder before the bid and for play 1, then each in turn."""
        return (self.dealer + 1 + self.play_number) % NUM_SEATS


def plays_made(dealer: int, play_number: int) -> list[int]:
    """How many plays each seat has made once ``play_number`` plays are over."""
    bidder = (dealer + 1) % NUM_SEATS
    return [
        max(0, (play_number - (seat - bidder) % NUM_SEATS + 3) // 4) for seat in range(NUM_SEATS)
    ]


def _is_int(value: object) -> bool:
    return type(value) is int


def _fail(message: str) -> DealError:
    return DealError(f"seep: {message}")


def _card_list(what: str, cards: object) -> list[str]:
    if isinstance(cards, str) or not isinstance(cards, tuple | list):
        raise _fail(f"{what} must be a tuple of card codes such as ('QH', 'TD'), not {cards!r}")
    return list(cards)


def _pair(what: str, value: object, meaning: str) -> tuple[Any, Any]:
    if not isinstance(value, tuple | list) or len(value) != 2:
        raise _fail(f"{what} must be a pair, {meaning}, not {value!r}")
    return value[0], value[1]


def check_position(p: SeepPosition, options: Options) -> None:
    """Raise ``DealError`` unless real play could reach ``p`` as far as the rules' counts
    and floor invariants tell: the checks of ``SeepGame.from_position``, the rules of
    ``POSITION_RULES`` in order (the first one broken is the one reported)."""
    for rule in POSITION_RULES:
        rule(p, options)


# -- the numbers that say where in the deal we are


def _dealer_is_a_seat(p: SeepPosition, options: Options) -> None:
    if not _is_int(p.dealer) or not 0 <= p.dealer < NUM_SEATS:
        raise _fail(f"the dealer must be a seat 0..3, not {p.dealer!r}")


def _bid_is_a_house_value(p: SeepPosition, options: Options) -> None:
    if p.bid is not None and (not _is_int(p.bid) or p.bid not in HOUSE_VALUES):
        raise _fail(f"the bid must be a house value 9..13 (or None before the bid), not {p.bid!r}")


def _play_number_counts_the_plays_made(p: SeepPosition, options: Options) -> None:
    if not _is_int(p.play_number) or not 0 <= p.play_number < PLAYS_PER_DEAL:
        raise _fail(
            f"play_number counts the plays made, 0..47 (play 48 ends the deal), "
            f"not {p.play_number!r}"
        )


def _no_play_before_the_bid(p: SeepPosition, options: Options) -> None:
    if p.bid is None and p.play_number:
        raise _fail(
            f"no play comes before the bid: with bid None play_number must be 0, "
            f"not {p.play_number}"
        )


# -- every card in one place


def _piles(p: SeepPosition) -> tuple[Any, Any]:
    return _pair("piles", p.piles, "the cards team 0 and team 1 captured")


def _places(p: SeepPosition) -> list[tuple[str, list[str]]]:
    """Every place of a position and its cards: hands, floor, houses, piles, stock."""
    if not isinstance(p.hands, tuple | list) or len(p.hands) != NUM_SEATS:
        raise _fail(f"hands must hold one tuple of cards per seat, four, not {p.hands!r}")
    pile_0, pile_1 = _piles(p)
    floor = "the face-down floor" if p.bid is None else "the loose cards"
    places: list[tuple[str, list[str]]] = [
        (f"seat {seat}'s hand", _card_list(f"seat {seat}'s hand", hand))
        for seat, hand in enumerate(p.hands)
    ]
    places.append((floor, _card_list(floor.removeprefix("the "), p.loose)))
    if not isinstance(p.houses, tuple | list):
        raise _fail(
            f"houses must be a tuple of PlacedHouse(value, cards, owners), not {p.houses!r}"
        )
    for house in p.houses:
        if not isinstance(house, tuple | list) or len(house) != 3:
            raise _fail(f"a house is PlacedHouse(value, cards, owners), not {house!r}")
        places.append((f"the {house[0]!r}-house", _card_list("a house's cards", house[1])))
    places.append(("team 0's pile", _card_list("team 0's pile", pile_0)))
    places.append(("team 1's pile", _card_list("team 1's pile", pile_1)))
    places.append(("the stock", _card_list("the stock", p.stock)))
    return places


def _every_card_in_one_place(p: SeepPosition, options: Options) -> None:
    where: dict[str, str] = {}
    for place, cards in _places(p):
        for card in cards:
            if card not in CARD_INDEX:
                raise _fail(
                    f"{card!r} in {place} is not a Seep card: a rank of A 2 3 4 5 6 7 8 9 T "
                    f"J Q K and a suit of C D H S, such as 'TD'"
                )
            if card in where:
                raise _fail(f"{card} is placed twice, in {where[card]} and in {place}")
            where[card] = place
    missing = [card for card in CARDS if card not in where]
    if missing:
        raise _fail(
            f"every card of the pack must be placed once (a hand, the floor, a pile or the "
            f"stock); missing: {' '.join(missing)}"
        )


# -- hands and stock for the play number


def _stock_is_dealt_after_play_1(p: SeepPosition, options: Options) -> None:
    if p.play_number == 0:
        if len(p.stock) != 44:
            raise _fail(
                f"before play 1 the stock holds the 44 cards dealt after it, not {len(p.stock)}"
            )
    elif p.stock:
        raise _fail(
            f"the stock is dealt after play 1: with {p.play_number} plays made it must be "
            f"empty, not {len(p.stock)} cards"
        )


def _hands_hold_what_the_plays_left(p: SeepPosition, options: Options) -> None:
    m = p.play_number
    if m == 0:
        sizes = [4 * (seat == p.bidder) for seat in range(NUM_SEATS)]
        rule = "before play 1 only the bidder holds cards, four"
    else:
        made = plays_made(p.dealer, m)
        sizes = [12 - n for n in made]
        rule = f"after {m} plays seat s holds 12 cards less the plays it made ({made} by seat)"
    for seat, (hand, size) in enumerate(zip(p.hands, sizes, strict=True)):
        if len(hand) != size:
            raise _fail(f"seat {seat} must hold {size} cards here, not {len(hand)} ({rule})")


def _values(cards: tuple[Card, ...]) -> list[int]:
    return [VALUE[CARD_INDEX[c]] for c in cards]


# -- the start of the deal: before the bid and the opening play


def _floor_is_the_four_dealt_before_play_1(p: SeepPosition, options: Options) -> None:
    if p.play_number == 0 and len(p.loose) != 4:
        raise _fail(f"before play 1 the floor is the four cards dealt to it, not {len(p.loose)}")


def _nothing_is_taken_before_play_1(p: SeepPosition, options: Options) -> None:
    if p.play_number:
        return
    pile_0, pile_1 = _piles(p)
    if p.houses or pile_0 or pile_1 or any(p.sweeps) or p.last_capture is not None:
        raise _fail("before play 1 there are no houses, captured cards, sweeps or last capture")


def _bidder_holds_a_card_above_8(p: SeepPosition, options: Options) -> None:
    if p.play_number == 0 and p.bid is None and max(_values(p.hands[p.bidder])) <= 8:
        raise _fail(
            f"the bidder (seat {p.bidder}) must hold a card above 8 to bid; with "
            "none the deal is thrown in"
        )


def _bidder_holds_the_bid_value_for_play_1(p: SeepPosition, options: Options) -> None:
    if p.play_number == 0 and p.bid is not None and p.bid not in _values(p.hands[p.bidder]):
        raise _fail(
            f"for play 1 the bidder (seat {p.bidder}) must hold a card of the bid "
            f"value {p.bid}, as bidding requires"
        )


# -- the floor: loose cards only come from the four dealt and from throws


def _few_loose_cards_share_a_value(p: SeepPosition, options: Options) -> None:
    shared = len(p.loose) - len(set(_values(p.loose)))
    if shared > 3:
        raise _fail(
            "loose cards come from the four dealt to the floor and from throws, and no card "
            "is thrown beside a loose card of its value: at most 3 loose cards may share a "
            f"value with another, here {shared}"
        )


def _houses_stand_as_play_builds_them(p: SeepPosition, options: Options) -> None:
    """Each house in turn, by the rules of ``HOUSE_RULES`` in order."""
    for index in range(len(p.houses)):
        for rule in HOUSE_RULES:
            rule(p, index)


def _house_value_is_9_to_13(p: SeepPosition, index: int) -> None:
    value = p.houses[index][0]
    if not _is_int(value) or value not in HOUSE_VALUES:
        raise _fail(f"a house's value must be 9..13, not {value!r}")


def _one_house_per_value(p: SeepPosition, index: int) -> None:
    value = p.houses[index][0]
    if any(house[0] == value for house in p.houses[:index]):
        raise _fail(
            f"two houses of value {value}: there is one house per value at most "
            "(cards that would make a second join the first)"
        )


def _house_cards_add_up_to_a_multiple(p: SeepPosition, index: int) -> None:
    value, members, _ = p.houses[index]
    total = sum(_values(members))
    if len(members) < 2 or total % value:
        raise _fail(
            f"the {value}-house must be two or more cards whose values add up to a "
            f"multiple of {value}, not {' '.join(members) or 'no card'} (total {total})"
        )


def _house_owners_are_seats(p: SeepPosition, index: int) -> None:
    value, _, owners = p.houses[index]
    if (
        not isinstance(owners, tuple | list)
        or not owners
        or any(not _is_int(s) or not 0 <= s < NUM_SEATS for s in owners)
        or len(set(owners)) != len(owners)
    ):
        raise _fail(
            f"the {value}-house's owners must be one or more different seats 0..3, not {owners!r}"
        )


def _ordinary_house_has_one_owner(p: SeepPosition, index: int) -> None:
    value, members, owners = p.houses[index]
    if sum(_values(members)) == value and len(owners) != 1:
        raise _fail(
            f"the {value}-house is ordinary (its cards add up to {value} once), "
            f"and an ordinary house has one owner, not {len(owners)}"
        )


def _owners_keep_a_card_of_the_value(p: SeepPosition, index: int) -> None:
    value, _, owners = p.houses[index]
    for seat in owners:
        if value not in _values(p.hands[seat]):
            raise _fail(
                f"seat {seat} owns the {value}-house but holds no card of value "
                f"{value}: an owner keeps one until the house goes"
            )


def _no_loose_card_beside_its_house(p: SeepPosition, index: int) -> None:
    value = p.houses[index][0]
    if value in _values(p.loose):
        raise _fail(
            f"a loose card of value {value} cannot lie beside the {value}-house "
            "(it would have been taken into it)"
        )


# -- piles, sweeps and the last capture


def _sweeps(p: SeepPosition) -> tuple[Any, Any]:
    return _pair("sweeps", p.sweeps, "the sweep bonuses of team 0 and team 1")


def _team_plays(p: SeepPosition, team: int) -> int:
    made = plays_made(p.dealer, p.play_number)
    return sum(n for seat, n in enumerate(made) if SEAT_TEAMS[seat] == team)


def _piles_and_sweeps_fit_the_plays(p: SeepPosition, options: Options) -> None:
    """Each team in turn, by the rules of ``TEAM_RULES`` in order."""
    _sweeps(p)
    for team in (0, 1):
        for rule in TEAM_RULES:
            rule(p, team)


def _sweeps_are_bonuses_25_or_50(p: SeepPosition, team: int) -> None:
    bonuses = _sweeps(p)[team]
    if not isinstance(bonuses, tuple | list) or any(b not in (25, 50) for b in bonuses):
        raise _fail(
            f"team {team}'s sweeps must be bonuses 25 (play 1) or 50 (plays 2 to "
            f"47), not {bonuses!r}"
        )


def _sweep_of_25_is_the_bidders_on_play_1(p: SeepPosition, team: int) -> None:
    bonuses = _sweeps(p)[team]
    bidders = SEAT_TEAMS[p.bidder]
    if 25 in bonuses and (team != bidders or list(bonuses).index(25) or bonuses.count(25) > 1):
        raise _fail(
            f"a sweep of 25 is the bidder's on play 1: only the first of the bidder's "
            f"team's (team {bidders}) sweeps, not team {team}'s {bonuses!r}"
        )


def _sweeps_are_among_the_team_plays(p: SeepPosition, team: int) -> None:
    bonuses, team_plays = _sweeps(p)[team], _team_plays(p, team)
    if len(bonuses) > team_plays:
        raise _fail(f"team {team} made {team_plays} plays, too few for {len(bonuses)} sweeps")


def _no_pile_before_the_team_plays(p: SeepPosition, team: int) -> None:
    if _piles(p)[team] and not _team_plays(p, team):
        raise _fail(f"team {team} has made no play yet, so its pile must be empty")


def _a_sweep_takes_two_cards(p: SeepPosition, team: int) -> None:
    pile, bonuses = _piles(p)[team], _sweeps(p)[team]
    if len(pile) < 2 * len(bonuses):
        raise _fail(
            f"a sweep takes two cards or more, so team {team}'s pile cannot hold "
            f"{len(pile)} card(s) with {len(bonuses)} sweep(s)"
        )


def _last_capture_names_a_team_with_a_pile(p: SeepPosition, options: Options) -> None:
    piles = _piles(p)
    if p.last_capture is None:
        if piles[0] or piles[1]:
            raise _fail(
                "some cards were captured, so last_capture must name the team that "
                "captured last, 0 or 1, not None"
            )
    elif p.last_capture not in (0, 1) or type(p.last_capture) is not int:
        raise _fail(f"last_capture is a team, 0 or 1, or None, not {p.last_capture!r}")
    elif not piles[p.last_capture]:
        raise _fail(f"team {p.last_capture} made the last capture but its pile is empty")


# -- the match so far


def _scores(p: SeepPosition) -> tuple[Any, Any]:
    return _pair("scores", p.scores, "the bazzis won by team 0 and team 1")


def _bazzis_over(p: SeepPosition) -> int:
    won = _scores(p)
    over: int = won[0] + won[1] + p.void_bazzis
    return over


def _bazzis_are_counts(p: SeepPosition, options: Options) -> None:
    won = _scores(p)
    if not all(_is_int(n) and n >= 0 for n in (*won, p.void_bazzis)):
        raise _fail(
            f"scores and void_bazzis count bazzis, whole numbers 0 or more, not "
            f"{p.scores!r} and {p.void_bazzis!r}"
        )


def _a_bazzi_is_still_open(p: SeepPosition, options: Options) -> None:
    over = _bazzis_over(p)
    bazzis = int(options["bazzis"])
    if over >= bazzis:
        raise _fail(
            f"the match lasts {bazzis} bazzi(s) and {over} are over: a position needs "
            "one still open (more with the option bazzis)"
        )


def _difference_is_below_100(p: SeepPosition, options: Options) -> None:
    if not _is_int(p.difference) or not -BAZZI_TARGET < p.difference < BAZZI_TARGET:
        raise _fail(f"the difference must be -99..99 (100 decides the bazzi), not {p.difference!r}")


def _deals_in_bazzi_within_max_deals(p: SeepPosition, options: Options) -> None:
    max_deals = int(options["max_deals"])
    if not _is_int(p.deals_in_bazzi) or not 1 <= p.deals_in_bazzi <= max_deals:
        raise _fail(
            f"deals_in_bazzi counts this deal too: 1..{max_deals} (the option "
            f"max_deals), not {p.deals_in_bazzi!r}"
        )


def _a_bazzi_starts_at_difference_0(p: SeepPosition, options: Options) -> None:
    if p.deals_in_bazzi == 1 and p.difference:
        raise _fail(
            f"the difference is 0 at the start of a bazzi, so in its first deal, not {p.difference}"
        )


def _deal_number_counts_every_deal(p: SeepPosition, options: Options) -> None:
    over = _bazzis_over(p)
    least = p.deals_in_bazzi + over
    if not _is_int(p.deal_number) or p.deal_number < least:
        raise _fail(
            f"deal_number must be at least {least}: {p.deals_in_bazzi} deal(s) of "
            f"this bazzi and one or more for each of the {over} over, not "
            f"{p.deal_number!r}"
        )


POSITION_RULES: tuple[Callable[[SeepPosition, Options], None], ...] = (
    _dealer_is_a_seat,
    _bid_is_a_house_value,
    _play_number_counts_the_plays_made,
    _no_play_before_the_bid,
    _every_card_in_one_place,
    _stock_is_dealt_after_play_1,
    _hands_hold_what_the_plays_left,
    _floor_is_the_four_dealt_before_play_1,
    _nothing_is_taken_before_play_1,
    _bidder_holds_a_card_above_8,
    _bidder_holds_the_bid_value_for_play_1,
    _few_loose_cards_share_a_value,
    _houses_stand_as_play_builds_them,
    _piles_and_sweeps_fit_the_plays,
    _last_capture_names_a_team_with_a_pile,
    _bazzis_are_counts,
    _a_bazzi_is_still_open,
    _difference_is_below_100,
    _deals_in_bazzi_within_max_deals,
    _a_bazzi_starts_at_difference_0,
    _deal_number_counts_every_deal,
)
"""The checks of ``check_position``, one per rule, in the order they run."""

HOUSE_RULES: tuple[Callable[[SeepPosition, int], None], ...] = (
    _house_value_is_9_to_13,
    _one_house_per_value,
    _house_cards_add_up_to_a_multiple,
    _house_owners_are_seats,
    _ordinary_house_has_one_owner,
    _owners_keep_a_card_of_the_value,
    _no_loose_card_beside_its_house,
)
"""The checks of one house (by its index in ``SeepPosition.houses``), in order."""

TEAM_RULES: tuple[Callable[[SeepPosition, int], None], ...] = (
    _sweeps_are_bonuses_25_or_50,
    _sweep_of_25_is_the_bidders_on_play_1,
    _sweeps_are_among_the_team_plays,
    _no_pile_before_the_team_plays,
    _a_sweep_takes_two_cards,
)
"""The checks of one team's pile and sweeps, in order."""
