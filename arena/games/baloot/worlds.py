"""Baloot worlds for determinization (``arena.games.worlds``): the round re-dealt
consistently with one seat's observation, then its public record replayed.

What the seat knows: its own hand, the up-card (the buyer's once the rest is dealt),
every card played, the projects declared (their cards, once trick 1 is over) and the
voids plays show (a follower who did not follow the led suit; a leader who led a trump
in a locked Hokum holds only trumps). Before the rest is dealt the 11 face-down cards
are a place of their own.

Hidden decisions drawn at random: the others' declarations during trick 1 (any the
drawn hand allows). A seat being asked to declare holds a project (only such a hand is
asked): one it could hold is drawn and required of its hand. Not in the observation,
so chosen freely without changing it: which five of a seat's cards came first and which
were drawn after the bidding (the seat's own included), and the order of the face-down
cards.
"""

from __future__ import annotations

import random
from typing import Any

from arena.games.api import Deal, InconsistentView, State
from arena.games.baloot.actions import CARDS, GAME_INFO, PROJECT_SHOWN, PROJECTS
from arena.games.baloot.rules import playable
from arena.games.registry import get_game
from arena.games.worlds import Knowledge, replay, trick_seats, voids

SEATS = 4
BEFORE_THE_REST = ("bidding", "claim_window", "second_turn", "contract_choice")


def world(
    observation: Any, options: dict[str, Any], rng: random.Random, actor: int | None = None
) -> State:
    """A state of the match that gives ``observation``'s seat this observation."""
    if observation.phase == "game_over":
        raise InconsistentView("baloot: the match is over; there is nothing to search")
    knowledge, face_down = _knowledge(observation)
    if observation.phase == "declaring" and actor not in (None, observation.seat):
        _a_project(knowledge, actor, rng)
    held = knowledge.sample(rng)
    hands, rest = _deal(observation, held, face_down, rng)
    state = get_game(GAME_INFO.name).new_state(
        rng.getrandbits(32),
        options,
        deal=Deal(
            hands,
            dealer=observation.dealer,
            rest=rest,
            scores=tuple(observation.scores),
            deal_number=observation.round_number,
        ),
    )
    replay(
        state,
        _script(observation, actor),
        rng,
        lambda text: text.startswith("declare"),
        lambda now: now.observation(observation.seat).phase != observation.phase,
    )
    return state


def _plays(observation: Any) -> list[tuple[int, str]]:
    plays = [(p.seat, p.card) for trick in observation.tricks for p in trick.cards]
    return plays + [(p.seat, p.card) for p in observation.trick]


def _knowledge(observation: Any) -> tuple[Knowledge, int | None]:
    plays = _plays(observation)
    knowledge = trick_seats("baloot", CARDS, observation, plays)
    me = observation.seat
    for project in observation.projects:
        if project.seat != me:
            for card in project.cards:
                if not knowledge.knows(card):
                    knowledge.know(project.seat, card, f"seat {project.seat} declared it")
    face_down = None
    if observation.phase in BEFORE_THE_REST:
        knowledge.know(knowledge.place("the up-card", 1), observation.up_card, "it is the up-card")
        face_down = knowledge.place("the face-down cards", 11)
    elif observation.buyer not in (None, me) and not knowledge.knows(observation.up_card):
        knowledge.know(observation.buyer, observation.up_card, "the buyer took the up-card")
    _bar_voids(observation, knowledge)
    return knowledge, face_down


def _a_project(knowledge: Knowledge, seat: int, rng: random.Random) -> None:
    """The seat asked to declare holds a project (a seat without one is not asked): one
    it could hold, drawn at random, is required of its hand."""
    fits = [p for p in PROJECTS if all(knowledge.may_hold(seat, c) for c in p.cards)]
    if fits:
        for card in rng.choice(fits).cards:
            knowledge.require(seat, [card], 1, f"seat {seat} is asked to declare a project")


def _bar_voids(observation: Any, knowledge: Knowledge) -> None:
    tricks = [t.cards for t in observation.tricks] + [observation.trick]
    for cards in tricks:
        if not cards:
            continue
        led = cards[0].card
        if observation.locked:

            def leading(hand: list[str]) -> list[str]:
                return playable(hand, None, observation.trump, True)

            barred = voids(led, knowledge.pack, leading)
            knowledge.bar(cards[0].seat, barred, "it led a trump in a locked Hokum")
        for follower in cards[1:]:

            def following(hand: list[str], led: str = led) -> list[str]:
                return playable(hand, led, observation.trump, observation.locked)

            barred = voids(follower.card, knowledge.pack, following)
            knowledge.bar(follower.seat, barred, f"it did not follow {led}")


def _deal(
    observation: Any, held: list[list[str]], face_down: int | None, rng: random.Random
) -> tuple[tuple[tuple[str, ...], ...], tuple[str, ...]]:
    """The first five cards of each seat, and the up-card then the face-down cards in
    the order they are dealt."""
    up = observation.up_card
    if face_down is not None:
        rest = held[face_down][:]
        rng.shuffle(rest)
        return tuple(tuple(held[seat]) for seat in range(SEATS)), (up, *rest)
    first: list[tuple[str, ...]] = []
    drawn: dict[int, list[str]] = {}
    for seat in range(SEATS):
        cards = [card for card in held[seat] if card != up]
        rng.shuffle(cards)
        first.append(tuple(cards[:5]))
        drawn[seat] = cards[5:]
    order = [(observation.dealer + 1 + k) % SEATS for k in range(SEATS)]
    return tuple(first), (up, *(card for seat in order for card in drawn[seat]))


def _declaration(projects: Any) -> str:
    if not projects:
        return "?declare none"  # asked only of a hand that has a project
    shown = (f"{PROJECT_SHOWN[p.kind]} {' '.join(p.cards)}" for p in projects)
    return "declare " + " + ".join(shown)


def _script(observation: Any, actor: int | None) -> list[str]:
    """The round's record as action texts; the others' declarations during trick 1 are
    left to be drawn."""
    me = observation.seat
    script = [bid.bid for bid in observation.bids]
    if observation.contract is not None and any(b.bid == "hokum" for b in observation.bids):
        script.append(
            "?choose sun" if observation.contract == "sun" else f"?choose hokum {observation.trump}"
        )
    script += [d.doubling for d in observation.doublings]
    first_trick = observation.tricks[0].cards if observation.tricks else observation.trick
    public = bool(observation.tricks)
    for seat, card in _plays(observation):
        if any(p.card == card for p in first_trick):
            if seat == me:
                script.append(_declaration(observation.own_projects))
            elif public:
                script.append(_declaration([p for p in observation.projects if p.seat == seat]))
        script.append(f"play {card}")
    declared_unplayed = (
        actor == me
        and observation.phase == "playing"
        and not public
        and all(p.seat != me for p in observation.trick)
    )
    if declared_unplayed:
        script.append(_declaration(observation.own_projects))
    return script
