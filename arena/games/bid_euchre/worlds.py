"""Bid Euchre worlds for determinization (``arena.games.worlds``): the current hand
re-dealt consistently with one seat's observation, then its public record replayed.

What the seat knows: its own hand, every card played (by whom), the voids that plays
show (a seat that did not follow a lead holds none of that effective suit), and, if it
took part in an ASK exchange, the cards given and returned; in the joker variant the
dealer knows its discard. Each seat is a place holding the cards that pass through its
hand in play (played ones and those still held); the partner sitting out holds six.

Hidden decisions drawn at random: the joker variant's face-down discard (a place of one
card), an ASK exchange between two other seats (the card given is one of the partner's,
the card returned one of the declarer's that the return rule allows), and the silent
"keep hand" answers of the ace-no-face option.

The joker variant is read from the observation, so a caller that does not know the
match's options still draws from the right pack. Not in the observation: how many
earlier hands were thrown in. A world takes every
earlier hand as scored (as ``Deal`` does), so when throw-ins took the hand number past
``max_hands`` the world's ``max_hands`` is raised to it, and its match ends with this
hand. An exchange between two other seats is drawn after the hands, among the pairs the
return rule allows; when the hands drawn allow none (rare), the world is drawn again.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.api import Deal, GameError, InconsistentView, State
from arena.games.bid_euchre.actions import (
    CALL_TEXTS,
    CALLS,
    CARDS,
    EFFECTIVE_SUIT,
    GAME_INFO,
    JOKER_CARDS,
    STRENGTH,
)
from arena.games.bid_euchre.rules import follows, returnable
from arena.games.registry import get_game
from arena.games.worlds import Knowledge, replay, trick_seats, voids

SEATS = 4


def world(
    observation: Any, options: dict[str, Any], rng: random.Random, actor: int | None = None
) -> State:
    """A state of the match that gives ``observation``'s seat this observation."""
    if observation.phase == "game_over":
        raise InconsistentView("bid-euchre: the match is over; there is nothing to search")
    knowledge, discard = _knowledge(observation, observation.joker)
    held = knowledge.sample(rng)
    finals = {seat: held[seat] for seat in range(SEATS)}
    given, returned = observation.card_given, observation.card_returned
    if _hidden_exchange(observation):
        given, returned = _draw_exchange(observation, finals, rng)
    dealt = _dealt(observation, finals, given, returned)
    discarded = None
    if discard is not None:
        discarded = held[discard][0]
        dealt[observation.dealer].append(discarded)
    state = get_game(GAME_INFO.name).new_state(
        rng.getrandbits(32),
        _options_for(options, observation),
        deal=Deal(
            tuple(tuple(hand) for hand in dealt),
            dealer=observation.dealer,
            scores=tuple(observation.scores),
            deal_number=observation.hand_number,
        ),
    )
    replay(
        state,
        _script(observation, discarded, given, returned),
        rng,
        lambda text: text == "keep hand",
        lambda now: now.observation(observation.seat).phase != observation.phase,
    )
    return state


def _options_for(options: dict[str, Any], observation: Any) -> dict[str, Any]:
    """The options, with the joker variant as the observation shows it and ``max_hands``
    at least this hand's number (see the module)."""
    resolved = GAME_INFO.resolve_options(options)
    limit = max(int(resolved["max_hands"]), observation.hand_number)
    return {**resolved, "joker": observation.joker, "max_hands": limit}


def _plays(observation: Any) -> list[tuple[int, str]]:
    plays = [(p.seat, p.card) for trick in observation.tricks for p in trick.cards]
    return plays + [(p.seat, p.card) for p in observation.trick]


def _knowledge(observation: Any, joker: bool) -> tuple[Knowledge, int | None]:
    """The seat's knowledge, and the index of the dealer's unseen discard, if any."""
    plays = _plays(observation)
    knowledge = trick_seats("bid-euchre", JOKER_CARDS if joker else CARDS, observation, plays)
    _exchange_known(observation, knowledge)
    discard = None
    if joker and observation.phase != "discard":
        discard = knowledge.place("the dealer's discard", 1)
        if observation.discarded is not None:
            knowledge.know(discard, observation.discarded, "it is the dealer's discard")
    _bar_voids(observation, knowledge)
    return knowledge, discard


def _exchange_known(observation: Any, knowledge: Knowledge) -> None:
    """An ASK exchange the seat took part in: the given card now sits with the partner
    (out of play), the returned one with the declarer (maybe played already)."""
    if observation.card_given is None or observation.declarer is None:
        return
    partner = (observation.declarer + 2) % SEATS
    if partner != observation.seat:
        knowledge.know(partner, observation.card_given, "it was given to partner")
    returned = observation.card_returned
    declarer = observation.declarer
    if returned is not None and declarer != observation.seat and not knowledge.knows(returned):
        knowledge.know(declarer, returned, "it was returned to the declarer")
    if returned is not None and partner != observation.seat:
        # Partner returns its highest trump (any card only when it has none).
        suit, strength = EFFECTIVE_SUIT[observation.trump], STRENGTH[observation.trump]
        higher = [
            card
            for card in knowledge.pack
            if suit[card] == observation.trump
            and (suit[returned] != observation.trump or strength[card] > strength[returned])
        ]
        knowledge.bar(partner, higher, f"it returned {returned}")


def _bar_voids(observation: Any, knowledge: Knowledge) -> None:
    """What each trick shows: a follower that did not follow the lead holds none of it."""
    if observation.trump is None:
        return
    tricks = [t.cards for t in observation.tricks] + [observation.trick]
    for cards in tricks:
        if not cards:
            continue
        led = cards[0].card
        for follower in cards[1:]:

            def legal(hand: list[str], led: str = led) -> list[str]:
                return follows(hand, led, observation.trump)

            barred = voids(follower.card, knowledge.pack, legal)
            knowledge.bar(follower.seat, barred, f"it did not follow {led}")


def _hidden_exchange(observation: Any) -> bool:
    """An ASK exchange between two other seats, begun (the card given) or over."""
    return (
        observation.contract == "ask"
        and observation.card_given is None
        and observation.phase in ("ask_return", "play")
    )


def _draw_exchange(
    observation: Any, finals: dict[int, list[str]], rng: random.Random
) -> tuple[str, str | None]:
    """The card given (one the partner holds now) and, once play began, the card
    returned (one the declarer ends with, that the return rule allows); ``GameError``
    when none fits."""
    declarer = observation.declarer
    partner = (declarer + 2) % SEATS
    if observation.phase == "ask_return":
        return rng.choice(finals[partner]), None
    fits = [
        (given, returned)
        for given in finals[partner]
        for returned in finals[declarer]
        if returned
        in returnable([c for c in finals[partner] if c != given] + [returned], observation.trump)
    ]
    if not fits:
        raise GameError("no exchange fits the hands drawn")
    return rng.choice(fits)


def _dealt(
    observation: Any, finals: dict[int, list[str]], given: str | None, returned: str | None
) -> list[list[str]]:
    """Each seat's cards as dealt: an ASK exchange undone."""
    dealt = [list(finals[seat]) for seat in range(SEATS)]
    if given is not None and observation.declarer is not None:
        declarer, partner = observation.declarer, (observation.declarer + 2) % SEATS
        dealt[partner].remove(given)
        dealt[declarer].append(given)
        if returned is not None:
            dealt[declarer].remove(returned)
            dealt[partner].append(returned)
    return dealt


def _script(
    observation: Any, discarded: str | None, given: str | None, returned: str | None
) -> list[str]:
    """The hand's record as action texts, in the order they were taken."""
    texts = dict(zip(CALLS, CALL_TEXTS, strict=True))
    script = [] if discarded is None else [f"discard {discarded}"]
    script += [texts[c.call] for c in observation.calls]
    if observation.trump is not None:
        script.append(f"trump {observation.trump}")
    if given is not None:
        script.append(f"give {given}")
    if returned is not None:
        script.append(f"return {returned}")
    return script + [f"play {card}" for _, card in _plays(observation)]
