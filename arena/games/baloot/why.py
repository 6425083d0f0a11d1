"""Baloot: a locked Hokum's ban on trump leads, the bidding and doubling, and the
declaration of projects in trick 1. Whether a card, call or project is allowed is the
engine's own rule (``rules``, ``rounds.bids_allowed``); this module only puts it in words."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from arena.games.baloot import rounds, rules
from arena.games.baloot.actions import BIDS, DECLINE, DOUBLINGS, PROJECT_SHOWN
from arena.play.screen import enum_text
from arena.play.why.words import (
    SUIT_LETTERS,
    SUIT_WORDS,
    Card,
    Observation,
    _follow,
    card_in,
    codes,
    shown,
)
from arena.v1 import baloot_pb2


def explain_card(observation: Observation, card: Card, verb: str) -> str | None:
    """Follow the led suit; no trump lead while holding another suit in a locked Hokum
    (``rules.playable``)."""
    hand = codes(observation.hand)
    trick = [str(p.card.code) for p in observation.trick]
    trump = SUIT_LETTERS.get(observation.trump)
    led = trick[0] if trick else None
    allowed = rules.playable(hand, led, trump, observation.locked)
    if card in allowed:
        return None
    if led is not None:
        return _follow(led[1], allowed, card, trump=trump)
    assert trump is not None  # only a Hokum is ever locked
    return (
        f"this Hokum is doubled (locked): you may not lead a trump ({SUIT_WORDS[trump]}) "
        f"while you hold another suit"
    )


BALOOT_BIDDING_PHASES = (
    baloot_pb2.BALOOT_PHASE_BIDDING,
    baloot_pb2.BALOOT_PHASE_CLAIM_WINDOW,
    baloot_pb2.BALOOT_PHASE_SECOND_TURN,
)
BALOOT_DOUBLER = {
    "double": "a defender (the first to act after the buyer, or the other if that one declines)",
    "triple": "the buyer, after a double",
    "four": "the doubler, after a triple",
    "gahwa": "the buyer, after a four",
}


def _phase_name(phase: int) -> str:
    """The engine's name of a proto ``BalootPhase`` (``claim_window``)."""
    name = baloot_pb2.BalootPhase.DESCRIPTOR.values_by_number[phase].name
    return name.removeprefix("BALOOT_PHASE_").lower()


def _baloot_bid_name(bid: int) -> str:
    return enum_text(baloot_pb2.BalootBid.DESCRIPTOR, bid)


def _baloot_phase_rule(observation: Observation) -> str:
    """What the seat must do in this phase, for a call that belongs to another phase."""
    phase = observation.phase
    if phase in BALOOT_BIDDING_PHASES:
        return "the bidding is on: you may only pass or make a bid now"
    if phase == baloot_pb2.BALOOT_PHASE_CONTRACT_CHOICE:
        return (
            "the bidding is over and you called hokum: you must choose now "
            "(choose sun, or choose hokum with its trump)"
        )
    if phase == baloot_pb2.BALOOT_PHASE_DOUBLING:
        return "the bidding is over: you may only decline or take the next doubling step"
    if phase == baloot_pb2.BALOOT_PHASE_DECLARING:
        return "bidding and doubling are over: you must declare your projects (or none) now"
    return "bidding and doubling are over: you must play a card now"


def explain_call(observation: Observation, text: str) -> str | None:
    """Baloot's bidding, the Hokum caller's choice and the doubling chain: who may make
    which call, in which round, and in what order."""
    words = text.casefold().split()
    if not words:
        return None
    if words[0] == "choose":
        return _choice_fault(observation, words)
    if len(words) != 1:
        return None
    word = words[0]
    if word in BIDS:
        return _bid_fault(observation, word)
    if word in DOUBLINGS:
        return _doubling_fault(observation, word)
    return None


def _choice_fault(observation: Observation, words: Sequence[str]) -> str | None:
    """Only the Hokum caller chooses, after the bidding, and a first-round Hokum keeps
    the up-card's suit as trump while a second-round one may not."""
    phase = observation.phase
    if phase in BALOOT_BIDDING_PHASES:
        return (
            "only the hokum caller may choose, once the others have passed: "
            + _baloot_phase_rule(observation)
        )
    if phase != baloot_pb2.BALOOT_PHASE_CONTRACT_CHOICE:
        return "the contract is settled: " + _baloot_phase_rule(observation)
    if words[1:2] != ["hokum"] or len(words) != 3:
        return None
    up_suit = str(observation.up_card.code)[1:] if observation.HasField("up_card") else ""
    suit = words[2].upper()
    if suit not in SUIT_WORDS or not up_suit:
        return None
    if suit in rules.hokum_trumps(up_suit, observation.bidding_round):
        return None
    if observation.bidding_round == 1:
        return (
            f"a first-round hokum's trump must be the up-card's suit, "
            f"{SUIT_WORDS[up_suit]}: choose hokum {up_suit} or choose sun"
        )
    return (
        f"in the second round the trump may not be the up-card's suit "
        f"({SUIT_WORDS[up_suit]}): name another suit, or choose sun"
    )


def _bid_fault(observation: Observation, word: str) -> str | None:
    """Bids belong to the bidding; after a Sun or Ashkal claim an earlier bidder may only
    pass or take it as Sun; Ashkal and a second Hokum have their own limits."""
    phase = observation.phase
    if phase not in BALOOT_BIDDING_PHASES:
        return "you may not bid now: " + _baloot_phase_rule(observation)
    this_round = [b for b in observation.bids if b.bidding_round == observation.bidding_round]
    hokum_called = any(b.bid == baloot_pb2.BALOOT_BID_HOKUM for b in this_round)
    allowed = rounds.bids_allowed(
        _phase_name(phase),
        observation.bidding_round,
        observation.seat,
        observation.dealer,
        hokum_called,
    )
    if BIDS.index(word) in allowed:
        return None
    if phase == baloot_pb2.BALOOT_PHASE_CLAIM_WINDOW:
        claim = next(
            b
            for b in reversed(this_round)
            if b.bid in (baloot_pb2.BALOOT_BID_SUN, baloot_pb2.BALOOT_BID_ASHKAL)
        )
        return (
            f"seat {claim.seat} called {_baloot_bid_name(claim.bid)}: an earlier bidder "
            f"may only pass or take the contract as sun"
        )
    if word == "ashkal":
        return _ashkal_fault(observation)
    if word == "hokum":
        return _hokum_fault(observation, this_round)
    return None


def _ashkal_fault(observation: Observation) -> str:
    """Ashkal is the first round's call of the third and fourth bidders only."""
    if observation.bidding_round != 1:
        return "ashkal is a first-round call only: in the second round you may not call it"
    b3, b4 = rounds.ashkal_bidders(observation.dealer)
    return (
        f"only the third and fourth bidders (seats {b3} and {b4}, the dealer) may call "
        f"ashkal; you are seat {observation.seat}"
    )


def _hokum_fault(observation: Observation, this_round: Sequence[Any]) -> str | None:
    """Once a round has a Hokum, the others may only go over it."""
    caller = next((b for b in this_round if b.bid == baloot_pb2.BALOOT_BID_HOKUM), None)
    if caller is None:
        return None
    return f"seat {caller.seat} has called hokum: you may only pass or call sun over it" + (
        " (or ashkal)" if observation.bidding_round == 1 else ""
    )


def _doubling_fault(observation: Observation, word: str) -> str | None:
    """Doubling has its own window, and its chain goes one step at a time, each step
    by its own seat."""
    if observation.phase != baloot_pb2.BALOOT_PHASE_DOUBLING:
        return _doubling_window_fault(observation)
    made = [d.doubling for d in observation.doublings]
    steps = [d for d in made if d != baloot_pb2.BALOOT_DOUBLING_DECLINE]
    allowed = rules.doubling_calls(len(steps))
    if DECLINE + DOUBLINGS.index(word) in allowed:
        return None
    next_step = DOUBLINGS[allowed[-1] - DECLINE]
    if DOUBLINGS.index(word) > DOUBLINGS.index(next_step):
        return (
            f"the doubling goes one step at a time (double, triple, four, gahwa): "
            f"you may only call {next_step} or decline"
        )
    return (
        f"{word} has been called already, and only {BALOOT_DOUBLER[next_step]} may "
        f"call {next_step}: you may only call {next_step} or decline"
    )


def _doubling_window_fault(observation: Observation) -> str:
    """Doubling comes between the bidding and the first lead, for contracts that allow it."""
    phase = observation.phase
    if phase in BALOOT_BIDDING_PHASES or phase == baloot_pb2.BALOOT_PHASE_CONTRACT_CHOICE:
        return "doubling comes only after the bidding: " + _baloot_phase_rule(observation)
    if not observation.doubling_allowed:
        return (
            "this round may not be doubled: only a hokum, or a sun bought by a team "
            "over 100 against a team under 100, may be doubled"
        )
    return "doubling is only allowed before the first lead: " + _baloot_phase_rule(observation)


KIND_LABELS = {
    value.number: PROJECT_SHOWN[kind]
    for value in baloot_pb2.BalootProjectKind.DESCRIPTOR.values
    if (kind := value.name.removeprefix("BALOOT_PROJECT_KIND_").lower()) in PROJECT_SHOWN
}
"""A proto ``BalootProjectKind`` to the label a declaration shows (``sira``, ``50``)."""
DECLARE_WINDOW = "projects may only be declared in trick 1, at your turn before your first card"
NOT_A_PROJECT = (
    "a project must be 3 or more consecutive cards of one suit (A K Q J 10 9 8 7), or four "
    "10s, Js, Qs, Ks or aces (four 9s, 8s or 7s are no project)"
)


def _typed_projects(text: str) -> list[tuple[str, list[Card]]] | None:
    """The (label, cards) of each project in ``declare <label> <cards> + ...``; [] for
    ``declare none``; None when the text is no declaration."""
    words = text.split()
    if not words or words[0].casefold() != "declare":
        return None
    rest = " ".join(words[1:])
    if rest.casefold() == "none":
        return []
    found = []
    for part in rest.split("+"):
        label, *cards = part.split() or [""]
        typed = [card_in(word) for word in cards]
        if card_in(label) is not None or not typed or None in typed:
            return None
        found.append((label.casefold(), [c for c in typed if c is not None]))
    return found


def _label_of(cards: list[Card]) -> str | None:
    """The engine's label of a project with these cards, or None if they make none."""
    project = rules.project_of(cards)
    return None if project is None else PROJECT_SHOWN[project.kind]


def explain_action(observation: Observation, text: str, legal: Sequence[str]) -> str | None:
    """A typed ``declare ...``: the declaration window (trick 1, before the seat's first
    card, once), the cards the seat's own hand lacks, and what makes a project. None for
    any other text, so that card plays and calls are explained as such."""
    projects = _typed_projects(text)
    if projects is None:
        return None
    phase = observation.phase
    if phase != baloot_pb2.BALOOT_PHASE_DECLARING and (
        phase != baloot_pb2.BALOOT_PHASE_PLAYING or len(observation.tricks)
    ):
        if phase == baloot_pb2.BALOOT_PHASE_PLAYING:
            return DECLARE_WINDOW + ": trick 1 is over"
        return DECLARE_WINDOW + ": " + _baloot_phase_rule(observation)
    if len(projects) > rules.MAX_PROJECTS:
        return "you may declare at most two projects"
    hand = codes(observation.hand)
    typed = [card for _, cards in projects for card in cards]
    missing = [card for card in dict.fromkeys(typed) if card not in hand]
    if missing:
        return f"you may only declare projects from your own hand: you do not hold {shown(missing)}"
    for label, cards in projects:
        kind = _label_of(cards)
        if kind is None:
            return NOT_A_PROJECT
        if label != kind:
            return f"{shown(cards)} must be declared as {kind}, not {label}"
    if len(typed) != len(set(typed)):
        return "two projects may not share a card"
    if phase == baloot_pb2.BALOOT_PHASE_PLAYING:
        if not observation.own_projects and not rules.declarable(hand):
            return (
                "your hand holds no project, so you have nothing to declare: you must play a card"
            )
        own = " + ".join(
            f"{KIND_LABELS.get(p.kind, '?')} {shown(codes(p.cards))}"
            for p in observation.own_projects
        )
        return (
            f"you have declared already ({own or 'none'}): {DECLARE_WINDOW}, once; "
            f"now you must play a card"
        )
    return None
