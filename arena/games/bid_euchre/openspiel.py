"""Bid Euchre as an OpenSpiel game (``arena.openspiel``): its dense action ids (as the
environments', ``layout.NUM_ACTIONS``), and the resampler ISMCTS needs
(``resample_from_infostate``): the current hand re-dealt with the seat's own cards fixed
and every unseen card shuffled among the others, the hand's public record replayed from
the observation (without the joker variant)."""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from arena.games.api import Deal, GameError, State
from arena.games.bid_euchre.game import CARDS, GAME_INFO
from arena.games.registry import get_game


def resample(observation: Any, options: dict[str, Any], rng: random.Random) -> State:
    """A deal of the current hand that fits ``observation`` (maybe not its information
    state: ``arena.openspiel.determinize`` checks), with the hand's public record
    replayed; ``GameError`` when the cards seen do not fit."""
    if options.get("joker"):
        raise NotImplementedError("no resampling in the joker variant")
    plays = _plays(observation)
    held, given, returned = _held(observation, plays)
    known = {card for seat in held for card in held[seat]}
    unseen = [card for card in CARDS if card not in known]
    rng.shuffle(unseen)
    swapped = observation.declarer is not None and observation.phase in ("play", "game_over")
    if given is None and swapped and observation.contract == "ask":
        given, returned = _guess_exchange(observation.declarer, held, unseen, rng)
    state = get_game(GAME_INFO.name).new_state(
        rng.getrandbits(32), options, deal=_deal(observation, held, unseen)
    )
    script = _script(observation, plays, given, returned)
    _replay(state, script, rng, lambda text: text.startswith(("give", "return")))
    return state


def _plays(observation: Any) -> list[tuple[int, str]]:
    """Every card played this hand, finished tricks first, with its seat."""
    plays: list[tuple[int, str]] = []
    for trick in observation.tricks:
        plays += [(p.seat, p.card) for p in trick.cards]
    return plays + [(p.seat, p.card) for p in observation.trick]


Held = dict[int, list[str]]


def _held(observation: Any, plays: list[tuple[int, str]]) -> tuple[Held, str | None, str | None]:
    """The cards known to have been dealt to each seat (played ones, and the seat's own
    hand), after an ASK exchange the seat took part in; the cards given and returned."""
    held: Held = {seat: [] for seat in range(4)}
    for seat, card in plays:
        held[seat].append(card)
    held[observation.seat] += observation.hand
    given, returned = observation.card_given, observation.card_returned
    if given is not None:  # an ASK exchange this seat is part of, maybe half done
        declarer, partner = observation.declarer, (observation.declarer + 2) % 4
        for seat, lost, taken in ((declarer, given, returned), (partner, returned, given)):
            held[seat] = [c for c in held[seat] if c not in (lost, taken)]
            held[seat] += [lost] if lost is not None else []
    return held, given, returned


def _guess_exchange(
    declarer: int, held: Held, unseen: list[str], rng: random.Random
) -> tuple[str, str]:
    """An exchange between two other seats: a guess at the card given (unseen) and the
    one returned (perhaps already played by the declarer)."""
    partner = (declarer + 2) % 4
    given = unseen.pop()
    choices = [*held[declarer], None]
    returned = rng.choice(choices)
    if returned is None:
        returned = unseen.pop()
    else:
        held[declarer].remove(returned)
    held[declarer].append(given)
    held[partner].append(returned)
    return given, returned


def _deal(observation: Any, held: Held, unseen: list[str]) -> Deal:
    """Each seat's six cards: those it is known to hold, then unseen ones."""
    hands = []
    for seat in range(4):
        if len(held[seat]) > 6 or len(unseen) < 6 - len(held[seat]):
            raise GameError("the cards seen do not fit a deal")
        hands.append(held[seat] + [unseen.pop() for _ in range(6 - len(held[seat]))])
    return Deal(
        tuple(tuple(h) for h in hands),
        dealer=observation.dealer,
        scores=tuple(observation.scores),
        deal_number=observation.hand_number,
    )


def _script(
    observation: Any, plays: list[tuple[int, str]], given: str | None, returned: str | None
) -> list[str]:
    """The hand's public record as action texts, in the order they were taken."""
    calls = {"pass": "pass", "three": "call 3", "four": "call 4", "five": "call 5"}
    calls |= {"ask": "call ASK", "moon": "call MOON"}
    script = [calls[c.call] for c in observation.calls]
    if observation.trump is not None:
        script.append(f"trump {observation.trump}")
    if given is not None:
        script.append(f"give {given}")
    if returned is not None:
        script.append(f"return {returned}")
    return script + [f"play {card}" for _, card in plays]


def _replay(
    state: State, script: list[str], rng: random.Random, hidden: Callable[[str], bool]
) -> None:
    """Play ``script``'s actions by their texts; a decision the script does not name but
    ``hidden`` says the seat could not see (an ASK swap between others) is drawn at
    random. Raises ``GameError`` when the script does not fit."""
    position = 0
    while position < len(script):
        legal = {state.action_text(a): a for a in state.legal_actions()}
        text = script[position]
        if text in legal:
            state.apply(legal[text])
            position += 1
            continue
        secret = [a for t, a in legal.items() if hidden(t)]
        if not secret:
            raise GameError(f"{text!r} does not fit this deal")
        state.apply(rng.choice(secret))
