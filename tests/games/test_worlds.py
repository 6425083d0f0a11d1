"""Determinization (``arena.games.worlds`` and each game's ``worlds`` part): over random
playouts of every game, a world drawn from one seat's observation shows that seat the
very same observation (and, on its turn, the same legal actions), keeps the voids play
showed, and differs with the seed; a corrupted observation raises ``InconsistentView``
naming what does not fit."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable, Iterator
from types import SimpleNamespace
from typing import Any

import pytest

from arena.games import game_names, get_game, worlds
from arena.games.api import InconsistentView, State
from arena.games.baloot.rules import playable
from arena.games.bid_euchre.actions import CARDS, EFFECTIVE_SUIT
from arena.games.bid_euchre.rules import follows as euchre_follows
from arena.games.bridgette.actions import CARD_ORDER as BRIDGETTE_ORDER
from arena.games.bridgette.rules import follows as bridgette_follows
from arena.games.worlds import Knowledge, determinize

SHORT: dict[str, dict[str, object]] = {
    "baloot": {"max_rounds": 2},
    "bid-euchre": {"max_hands": 2},
    "bridgette": {"deals": 1},
    "persian-rummy": {},
    "seep": {"max_deals": 2},
}
"""Options that keep a match short (Persian Rummy's two deals are short already)."""
SHARE = 0.2
"""Share of a playout's decisions at which a world is drawn."""


def points(game: str, matches: int = 2) -> Iterator[tuple[State, int]]:
    """States along random playouts of ``game``, each with a random seat to view it."""
    for match in range(matches):
        state = get_game(game).new_state(match, SHORT[game])
        rng = random.Random(match)
        while not state.is_terminal():
            if rng.random() < SHARE:
                yield state, rng.randrange(len(state.game_info.seat_teams))
            state.apply(rng.choice(state.legal_actions()))


def world_of(game: str, state: State, seat: int, seed: int = 0) -> State:
    options = get_game(game).info.resolve_options(SHORT[game])
    return determinize(
        game, state.observation(seat), options, random.Random(seed), state.current_seat()
    )


def test_every_game_has_a_worlds_part() -> None:
    assert sorted(SHORT) == game_names()
    for game in game_names():
        assert callable(worlds.worlds_part(game).world)


@pytest.mark.parametrize("game", game_names())
def test_a_world_shows_the_seat_what_it_saw(game: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The world gives the seat its very observation (its legal actions too, on its
    turn), at the first draw but for a rare redraw (a Bid Euchre exchange between two
    other seats that the hands drawn cannot have made)."""
    part = worlds.worlds_part(game)
    drawn = 0

    def counted(*args: Any) -> State:
        nonlocal drawn
        drawn += 1
        world: State = part.world(*args)
        return world

    monkeypatch.setattr(worlds, "worlds_part", lambda _: SimpleNamespace(world=counted))
    checked = 0
    for state, seat in points(game, matches=4):
        world = world_of(game, state, seat, checked)
        assert world.observation(seat) == state.observation(seat)
        assert world.current_seat() == state.current_seat()
        if seat == state.current_seat():
            assert world.legal_actions() == state.legal_actions()
        checked += 1
    assert checked >= 20
    assert drawn <= checked * 1.05


@pytest.mark.parametrize("game", game_names())
def test_worlds_differ_with_the_seed(game: str) -> None:
    """Mid-match, ten seeds give more than one arrangement of the hidden cards."""
    state = get_game(game).new_state(3, SHORT[game])
    rng = random.Random(3)
    for _ in range(12):
        state.apply(rng.choice(state.legal_actions()))
    seat = state.current_seat()
    others = [s for s in range(len(state.game_info.seat_teams)) if s != seat]
    seen = {
        tuple(tuple(world_of(game, state, seat, seed).observation(s).hand) for s in others)
        for seed in range(10)
    }
    assert len(seen) > 1


Follows = Callable[[list[str], str, Any], list[str]]
FOLLOWS: dict[str, Follows] = {
    "bid-euchre": lambda hand, led, obs: euchre_follows(hand, led, obs.trump),
    "baloot": lambda hand, led, obs: playable(hand, led, obs.trump, obs.locked),
    "bridgette": lambda hand, led, obs: bridgette_follows(
        sorted(hand, key=BRIDGETTE_ORDER.__getitem__), led
    ),
}


@pytest.mark.parametrize("game", sorted(FOLLOWS))
def test_worlds_keep_the_voids_play_showed(game: str) -> None:
    """Every card a seat followed with would still be legal with the hand the world
    gives it now: no world hands a seat a card of a suit it showed void in."""
    follows = FOLLOWS[game]
    voids = 0
    for state, seat in points(game, matches=3):
        observation = state.observation(seat)
        if observation.trump is None and game != "baloot":
            continue
        world = world_of(game, state, seat)
        tricks = [t.cards for t in observation.tricks] + [observation.trick]
        for cards in (c for c in tricks if c):
            led = cards[0].card
            for follower in cards[1:]:
                if follower.seat == seat:
                    continue
                hand = list(world.observation(follower.seat).hand)
                assert follower.card in follows([*hand, follower.card], led, observation)
                voids += follower.card not in follows([*hand, led], led, observation)
    assert voids  # some seat did show a void


PUBLIC: dict[str, Callable[[Any], list[str]]] = {
    "bid-euchre": lambda o: [p.card for t in o.tricks for p in t.cards],
    "baloot": lambda o: [p.card for t in o.tricks for p in t.cards],
    "bridgette": lambda o: [p.card for t in o.tricks for p in t.cards],
    "seep": lambda o: [p.card for p in o.plays],
    "persian-rummy": lambda o: [d.card for d in o.discard_pile],
}
"""Cards each game's observation shows outside every hand."""


def corrupted_points(game: str) -> Iterator[tuple[Any, str]]:
    """Observations of other seats' play, each with a card it shows on the table."""
    for state, seat in points(game):
        observation = state.observation(seat)
        shown = [c for c in PUBLIC[game](observation) if c not in observation.hand]
        if shown:
            yield observation, shown[-1]


@pytest.mark.parametrize("game", game_names())
def test_a_card_on_the_table_and_in_the_own_hand_is_inconsistent(game: str) -> None:
    observation, card = next(corrupted_points(game))
    corrupted = dataclasses.replace(observation, hand=(*observation.hand, card))
    options = get_game(game).info.resolve_options(SHORT[game])
    with pytest.raises(InconsistentView, match=f"{card}: it is in seat {observation.seat}'s own"):
        determinize(game, corrupted, options, random.Random(0))


def test_a_card_played_twice_is_inconsistent() -> None:
    observation, _ = next(corrupted_points("bid-euchre"))
    trick = observation.tricks[0]
    doubled = dataclasses.replace(trick, cards=(*trick.cards[:-1], trick.cards[0]))
    corrupted = dataclasses.replace(observation, tricks=(doubled, *observation.tricks[1:]))
    with pytest.raises(InconsistentView, match=f"{trick.cards[0].card}: seat .* is shown playing"):
        determinize("bid-euchre", corrupted, {"max_hands": 2}, random.Random(0))


def test_a_seat_with_too_many_cards_for_its_voids_is_inconsistent() -> None:
    """Every hidden card moved (by the hand sizes) to a seat that showed a void, while
    a card of that suit is unseen: the seat cannot hold them all."""
    for state, seat in points("bid-euchre", matches=4):
        observation = state.observation(seat)
        if not observation.tricks or observation.phase != "play":
            continue
        trick = observation.tricks[0].cards
        led = trick[0].card
        suit = EFFECTIVE_SUIT[observation.trump]
        void = next((p for p in trick[1:] if suit[p.card] != suit[led]), None)
        seen = {*observation.hand, *(p.card for t in observation.tricks for p in t.cards)}
        seen.update(p.card for p in observation.trick)
        if (
            void is None
            or void.seat == seat
            or all(suit[c] != suit[led] or c in seen for c in CARDS)
        ):
            continue
        sizes = [0 if s != seat else n for s, n in enumerate(observation.hand_sizes)]
        sizes[void.seat] = sum(observation.hand_sizes) - observation.hand_sizes[seat]
        corrupted = dataclasses.replace(observation, hand_sizes=tuple(sizes))
        with pytest.raises(InconsistentView) as raised:
            determinize("bid-euchre", corrupted, {"max_hands": 2}, random.Random(0))
        assert f"seat {void.seat} must hold" in str(raised.value)
        assert f"it did not follow {led}" in str(raised.value)
        return
    pytest.fail("no playout had a void to overload")


# -- the generic core


def test_knowledge_names_the_overloaded_place() -> None:
    knowledge = Knowledge("toy", ["AH", "KH", "QH", "JH", "AS", "KS", "QS"])
    north = knowledge.place("seat 1", 3)
    south = knowledge.place("seat 2", 4)
    knowledge.bar(north, ["AH", "KH", "QH", "JH"], "it showed void in hearts")
    knowledge.know(north, "AS", "seat 1 is shown playing it")
    knowledge.check()  # KS and QS are enough for seat 1
    knowledge.know(south, "KS", "it is in seat 2's own hand")
    with pytest.raises(InconsistentView) as raised:
        knowledge.sample(random.Random(0))
    assert str(raised.value) == (
        "toy: seat 1 must hold 2 more cards but only 1 unseen cards can be its "
        "(it showed void in hearts)"
    )


def test_knowledge_reports_a_card_in_two_places() -> None:
    knowledge = Knowledge("toy", ["AH", "KH"])
    knowledge.place("seat 0", 1)
    knowledge.place("seat 1", 1)
    knowledge.know(0, "AH", "it is in seat 0's own hand")
    with pytest.raises(InconsistentView, match="AH: it is in seat 0's own hand, and seat 1 is"):
        knowledge.know(1, "AH", "seat 1 is shown playing it")


def test_sampling_respects_bars_and_requirements_and_is_uniform_without_them() -> None:
    pack = [f"{rank}{suit}" for suit in "CDHS" for rank in "9TJQKA"]
    counts: dict[str, int] = {}
    for seed in range(300):
        knowledge = Knowledge("toy", pack)
        for seat in range(4):
            knowledge.place(f"seat {seat}", 6)
        knowledge.bar(1, [c for c in pack if c[1] == "H"], "void in hearts")
        knowledge.require(2, [c for c in pack if c[1] == "S"], 4, "bid spades")
        hands = knowledge.sample(random.Random(seed))
        assert not any(c[1] == "H" for c in hands[1])
        assert sum(c[1] == "S" for c in hands[2]) >= 4
        assert sorted(c for hand in hands for c in hand) == sorted(pack)
        counts[hands[0][0]] = counts.get(hands[0][0], 0) + 1
    assert len(counts) > 12  # seat 0, unconstrained, gets a spread of cards
