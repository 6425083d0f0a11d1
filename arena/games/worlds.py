"""Determinization: a random world that one seat cannot tell from the real one.

A seat sees its own cards and the public record, not the others' hands. Search bots
(ISMCTS) need whole states, so they draw the hidden cards at random, consistently with
what the seat knows, and search those. This module is the game-agnostic half:

* ``Knowledge``: what a seat knows about where the cards of the current hand went. Each
  *place* (the cards that pass through a seat's hand, the stock, a face-down floor, a
  discard) has a size, the cards known to be there, the unseen cards it cannot hold (a
  seat that did not follow suit holds none of that suit), and how many of some cards
  it must hold (a bid's holding rule). Every card of the pack is in one place.
* ``Knowledge.sample``: the unseen cards dealt to the places at random, each card in
  turn to a place that can take it, in proportion to the room left, never to a choice
  that leaves the rest impossible (Hall's condition over the places, checked exactly),
  so it never loops and, without bars, it is exactly a uniform shuffle. Holding rules
  are met first by drawing the missing cards at random among those that may go there.
* ``InconsistentView`` (``arena.games.api``) when no world fits, naming what is wrong.
* ``voids``, ``replay``: helpers the games' parts share (cards a play shows absent; a
  hand's public record played again from action texts).
* ``determinize``: the game's ``worlds`` part turned into a state.

Each game's ``worlds`` part reads its observation into a ``Knowledge`` and builds the
engine state of the sampled world (``world(observation, options, rng, actor)``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.games.api import GameError, InconsistentView, State
from arena.games.registry import part

WORLDS_PART = "worlds"
TRIES = 30
"""Worlds drawn before giving up. The card constraints are met at the first draw, but a
few rules that tie a hidden hand to a public act are only checked by replaying it (each
game's part says which), and a world that breaks one is drawn again."""


@dataclass
class _Place:
    name: str
    size: int
    known: list[str] = field(default_factory=list)
    barred: set[str] = field(default_factory=set)
    why: list[str] = field(default_factory=list)


class Knowledge:
    """What one seat knows of the current hand's cards (see the module). ``game`` and
    the place names appear in error messages: "<game>: seat 1 must hold ...".

    Known cards record where they were seen (``source``), so that a card seen in two
    places is reported with both: "QH: seat 2 is shown playing it, and it is in seat 0's
    own hand"."""

    def __init__(self, game: str, pack: Sequence[str]) -> None:
        self.game = game
        self.pack = tuple(pack)
        self._in_pack = set(self.pack)
        self.places: list[_Place] = []
        self._where: dict[str, tuple[int, str]] = {}
        self._needs: list[tuple[int, frozenset[str], int, str]] = []

    def place(self, name: str, size: int) -> int:
        """A new place that holds ``size`` cards of the hand in all; its index."""
        if size < 0:
            raise InconsistentView(f"{self.game}: {name} cannot hold {size} cards")
        self.places.append(_Place(name, size))
        return len(self.places) - 1

    def know(self, place: int, card: str, source: str) -> None:
        """``card`` is in ``place``; ``source`` says how the seat knows ("seat 2 is shown
        playing it")."""
        if card not in self._in_pack:
            raise InconsistentView(
                f"{self.game}: {card!r} ({source}) is not a card of this pack "
                f"({len(self.pack)} cards)"
            )
        if card in self._where:
            _, before = self._where[card]
            raise InconsistentView(f"{self.game}: {card}: {before}, and {source}")
        self._where[card] = (place, source)
        self.places[place].known.append(card)

    def know_all(self, place: int, cards: Iterable[str], source: str) -> None:
        for card in cards:
            self.know(place, card, source)

    def bar(self, place: int, cards: Iterable[str], why: str) -> None:
        """``place`` holds none of ``cards`` that are unseen; ``why`` is for messages
        ("it showed void in hearts")."""
        before = len(self.places[place].barred)
        self.places[place].barred.update(cards)
        if len(self.places[place].barred) > before and why not in self.places[place].why:
            self.places[place].why.append(why)

    def require(self, place: int, cards: Iterable[str], at_least: int, why: str) -> None:
        """``place`` holds at least ``at_least`` of ``cards`` (a bid's holding rule);
        ``why`` is for messages ("seat 1 bid 4S")."""
        self._needs.append((place, frozenset(cards), at_least, why))

    def knows(self, card: str) -> bool:
        return card in self._where

    def room(self, place: int) -> int:
        """How many unseen cards ``place`` takes."""
        return self.places[place].size - len(self.places[place].known)

    def may_hold(self, place: int, card: str) -> bool:
        """Whether ``card`` can be in ``place``: known there, or unseen and not barred."""
        where = self._where.get(card)
        if where is not None:
            return where[0] == place
        return card not in self.places[place].barred

    def unseen(self) -> list[str]:
        """The cards of the pack in no known place, in pack order."""
        return [card for card in self.pack if card not in self._where]

    # -- checking and sampling

    def check(self) -> None:
        """Raise ``InconsistentView`` unless some world fits: no place over-full, as many
        unseen cards as room for them, and every group of places able to take its share."""
        for place in self.places:
            if len(place.known) > place.size:
                raise InconsistentView(
                    f"{self.game}: {place.name} holds {place.size} cards, but "
                    f"{len(place.known)} are known to be there ({' '.join(place.known)})"
                )
        unseen = self.unseen()
        room = sum(p.size - len(p.known) for p in self.places)
        if room != len(unseen):
            raise InconsistentView(
                f"{self.game}: {len(unseen)} cards are unseen, but the places have room "
                f"for {room} ({self._rooms()})"
            )
        problem = _hall(self._signatures(unseen), self._rooms_list())
        if problem is not None:
            raise InconsistentView(self._hall_message(problem, unseen))
        for index, cards, at_least, why in self._needs:
            place = self.places[index]
            have = sum(1 for card in place.known if card in cards)
            can = [c for c in unseen if c in cards and c not in place.barred]
            room = place.size - len(place.known)
            if have + min(len(can), room) < at_least:
                raise InconsistentView(
                    f"{self.game}: {place.name} must hold at least {at_least} of "
                    f"{' '.join(sorted(cards))} ({why}), but at most "
                    f"{have + min(len(can), room)} can be its ({have} known there, "
                    f"{len(can)} unseen it may hold, room for {room} unseen cards)"
                )

    def sample(self, rng: random.Random) -> list[list[str]]:
        """Each place's cards (the known ones first) in a world drawn at random."""
        self.check()
        hands = [list(place.known) for place in self.places]
        pinned = self._pin(hands, rng)
        unseen = [card for card in self.unseen() if card not in pinned]
        rng.shuffle(unseen)
        rooms = [p.size - len(hand) for p, hand in zip(self.places, hands, strict=True)]
        allowed = {card: self._allowed(card) for card in unseen}
        counts = self._signatures(unseen)
        if pinned and _hall(counts, rooms) is not None:
            raise GameError(f"{self.game}: the cards drawn for a holding rule leave no world")
        constrained = len(counts) > 1 or any(
            signature != (1 << len(rooms)) - 1 for signature in counts
        )
        for card in unseen:
            signature = allowed[card]
            counts[signature] -= 1
            choices = [i for i in range(len(rooms)) if signature >> i & 1 and rooms[i]]
            if constrained and len(choices) > 1:
                choices = [i for i in choices if _fits(counts, rooms, i)]
            chosen = _weighted(choices, rooms, rng)
            rooms[chosen] -= 1
            hands[chosen].append(card)
        return hands

    def _pin(self, hands: list[list[str]], rng: random.Random) -> set[str]:
        """Unseen cards drawn at random into the places that must hold more of some
        cards than they are known to (``require``); the cards pinned."""
        pinned: set[str] = set()
        for index, cards, at_least, _ in self._needs:
            place, hand = self.places[index], hands[index]
            missing = at_least - sum(1 for card in hand if card in cards)
            if missing <= 0:
                continue
            can = [
                c for c in self.unseen() if c in cards and c not in place.barred and c not in pinned
            ]
            if len(can) < missing or len(hand) + missing > place.size:
                raise GameError(f"{self.game}: no room left for {place.name}'s holding rules")
            chosen = rng.sample(can, missing)
            hand += chosen
            pinned.update(chosen)
        return pinned

    def _allowed(self, card: str) -> int:
        return sum(1 << i for i, p in enumerate(self.places) if card not in p.barred)

    def _signatures(self, unseen: list[str]) -> dict[int, int]:
        counts: dict[int, int] = {}
        for card in unseen:
            signature = self._allowed(card)
            counts[signature] = counts.get(signature, 0) + 1
        return counts

    def _rooms_list(self) -> list[int]:
        return [p.size - len(p.known) for p in self.places]

    def _rooms(self) -> str:
        return ", ".join(f"{p.name} {p.size - len(p.known)}" for p in self.places)

    def _hall_message(self, group: int, unseen: list[str]) -> str:
        places = [p for i, p in enumerate(self.places) if group >> i & 1]
        need = sum(p.size - len(p.known) for p in places)
        able = [c for c in unseen if any(c not in p.barred for p in places)]
        if len(places) == 1:
            why = ", ".join(places[0].why)
        else:
            why = "; ".join(f"{p.name}: {', '.join(p.why)}" for p in places if p.why)
        names = " and ".join(p.name for p in places)
        holds = "must hold" if len(places) == 1 else "must hold between them"
        can = "its" if len(places) == 1 else "theirs"
        return (
            f"{self.game}: {names} {holds} {need} more cards but only {len(able)} unseen "
            f"cards can be {can}" + (f" ({why})" if why else "")
        )


def _hall(counts: dict[int, int], rooms: list[int]) -> int | None:
    """A group of places (a bit mask) that cannot be filled, or None when every group
    can: the cards that can go to none of the group's places must fit in the room of
    the others (Hall's condition; with as many cards as room, that is enough)."""
    total = sum(rooms)
    room_in = [0] * (1 << len(rooms))
    items = list(counts.items())
    for mask in range(1, 1 << len(rooms)):
        low = mask & -mask
        room_in[mask] = room_in[mask ^ low] + rooms[low.bit_length() - 1]
        only_outside = 0
        for signature, number in items:
            if not signature & mask:
                only_outside += number
        if only_outside > total - room_in[mask]:
            return mask
    return None


def _fits(counts: dict[int, int], rooms: list[int], chosen: int) -> bool:
    """Whether the cards left can still be dealt after one card goes to ``chosen``."""
    rooms[chosen] -= 1
    try:
        return _hall(counts, rooms) is None
    finally:
        rooms[chosen] += 1


def _weighted(choices: list[int], rooms: list[int], rng: random.Random) -> int:
    pick = rng.randrange(sum(rooms[i] for i in choices))
    for choice in choices:
        pick -= rooms[choice]
        if pick < 0:
            return choice
    raise AssertionError("no room")  # pragma: no cover: callers check feasibility


# -- helpers the games' parts share


def trick_seats(
    game: str, pack: Sequence[str], observation: Any, plays: Sequence[tuple[int, str]]
) -> Knowledge:
    """The knowledge trick games start from: place ``s`` is seat ``s``'s cards of the
    hand (``observation.hand_sizes`` still held, and its ``plays``), the observing seat's
    own hand and every play known."""
    knowledge = Knowledge(game, pack)
    for seat, held in enumerate(observation.hand_sizes):
        knowledge.place(f"seat {seat}", held + sum(1 for s, _ in plays if s == seat))
    me = observation.seat
    knowledge.know_all(me, observation.hand, f"it is in seat {me}'s own hand")
    for seat, card in plays:
        knowledge.know(seat, card, f"seat {seat} is shown playing it")
    return knowledge


def voids(played: str, unseen: Iterable[str], legal: Callable[[list[str]], list[str]]) -> set[str]:
    """The unseen cards a seat cannot have held when it played ``played``: those with
    which ``played`` would not have been legal. ``legal(hand)`` gives the cards of a
    two-card hand that may be played at that moment (follow suit, a lead bar...)."""
    return {card for card in unseen if played not in legal([played, card])}


def replay(
    state: State,
    script: Sequence[str],
    rng: random.Random,
    hidden: Callable[[str], bool] = lambda _: False,
    unfinished: Callable[[State], bool] = lambda _: False,
) -> None:
    """Play ``script``'s actions by their texts (one marked ``?`` only if it is legal
    then, else skipped: a step the record implies only sometimes). A decision the script
    does not name but ``hidden`` says the seat could not see is drawn at random among
    the legal ones it accepts, and so are those after the script while ``unfinished``
    says the state is not yet where the seat sees it. Raises ``GameError`` saying which
    action does not fit."""
    position = 0
    while position < len(script) or (not state.is_terminal() and unfinished(state)):
        if position == len(script):
            secret = [a for a in state.legal_actions() if hidden(_text(state, a))]
            if not secret:
                raise GameError("the world drawn does not reach the seat's view")
            state.apply(rng.choice(secret))
            continue
        legal = {_text(state, a): a for a in state.legal_actions()}
        text = script[position]
        optional = text.startswith("?")
        text = text.removeprefix("?")
        if text in legal:
            state.apply(legal[text])
            position += 1
            continue
        if optional:
            position += 1
            continue
        secret = [a for t, a in legal.items() if hidden(t)]
        if not secret:
            raise GameError(
                f"{text!r} (seat {state.current_seat()}) is not legal in the world drawn"
            )
        state.apply(rng.choice(secret))


_TEXTS: dict[tuple[str, int], str] = {}
_TEXTS_KEPT = 1 << 18


def _text(state: State, action: int) -> str:
    """``state.action_text(action)``, remembered: an action's text depends on the action
    alone (its meaning is stable for the whole game), and a replay asks for the texts
    of every legal action at every step."""
    key = (state.game_info.name, action)
    text = _TEXTS.get(key)
    if text is None:
        if len(_TEXTS) >= _TEXTS_KEPT:
            _TEXTS.clear()
        text = _TEXTS[key] = state.action_text(action)
    return text


def worlds_part(game: str) -> Any:
    """The game's ``worlds`` part, or ``NotImplementedError`` when it has none."""
    found = part(game, WORLDS_PART)
    if found is None:
        raise NotImplementedError(f"{game} has no determinization (no worlds part)")
    return found


def determinize(
    game: str,
    observation: Any,
    options: dict[str, Any],
    rng: random.Random,
    actor: int | None = None,
) -> State:
    """An engine state that gives ``observation``'s seat this very observation, the
    cards it cannot see dealt at random consistently with what it knows. ``actor`` is
    the seat to act when the caller knows it (who acts is public; a bot asked to act is
    the actor). A corrupted observation raises ``InconsistentView`` naming the problem."""
    worlds = worlds_part(game)
    problem = ""
    for _ in range(TRIES):
        try:
            state: State = worlds.world(observation, options, rng, actor)
        except InconsistentView:
            raise
        except GameError as error:
            problem = str(error)
            continue
        return state
    raise InconsistentView(
        f"{game}: no world drawn fits seat {observation.seat}'s view in {TRIES} tries: {problem}"
    )
