"""Explanations of illegal card plays, against the engines' own legal actions."""

from __future__ import annotations

import itertools
import random
import re
from collections.abc import Iterable
from typing import Protocol, runtime_checkable

import pytest
from google.protobuf.message import Message

from arena import wire
from arena.games import get_game
from arena.games.baloot.game import ACTION_TEXTS as BALOOT_TEXTS
from arena.games.bid_euchre.game import BidEuchreState
from arena.play.screen import observation_of
from arena.play.why import card_in, explain
from arena.v1 import baloot_pb2, bid_euchre_pb2, bot_pb2, cards_pb2, persian_rummy_pb2, seep_pb2
from tests.support.bid_euchre import act, joker_deal, play

RULE = re.compile(r"must|may not|compulsory|barred|only")
VERBS = {"bid-euchre": "play", "baloot": "play", "bridgette": "play", "seep": "throw"}


@runtime_checkable
class Holding(Protocol):
    """An observation with the seat's hand, as every card game's has."""

    @property
    def hand(self) -> Iterable[cards_pb2.Card]: ...


def positions(game: str, seeds: range, every: int = 3) -> list[bot_pb2.ActRequest]:
    """Requests for seats to act, taken along random playouts."""
    found = []
    for seed in seeds:
        rng = random.Random(seed)
        state = get_game(game).new_state(seed)
        for step in range(400):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            if step % every == 0:
                found.append(
                    wire.act_request(
                        state, match_id="m", decision_index=step, deadline_s=60.0, legal=legal
                    )
                )
            state.apply(rng.choice(legal))
    return found


def visible_cards(message: Message) -> set[str]:
    """Every card code anywhere in an observation: all that a seat may name."""
    cards: set[str] = set()
    for field, value in message.ListFields():
        if field.type != field.TYPE_MESSAGE:
            continue
        for item in value if field.is_repeated else [value]:
            if item.DESCRIPTOR.full_name == "arena.v1.Card":
                cards.add(item.code)
            else:
                cards |= visible_cards(item)
    return cards


SHOWN_CARD = re.compile(r"(?:10|[2-9JQKA])[\u2663\u2666\u2665\u2660]|\b[2-9TJQKA][CDHS]\b")


def named_cards(text: str) -> set[str]:
    """The cards an explanation names, as codes (it shows them as ``J♦``)."""
    return {card for match in SHOWN_CARD.findall(text) if (card := card_in(match))}


def checked_reason(
    request: bot_pb2.ActRequest, typed: str, legal: set[str], may_name: set[str]
) -> str | None:
    """``explain``'s answer to ``typed``, checked: none for a legal action; otherwise a
    reason that names a rule and no card outside ``may_name``."""
    reason = explain(request, typed)
    if typed in legal:
        assert reason is None, (typed, reason)
        return None
    assert reason is not None and RULE.search(reason), (typed, reason, sorted(legal))
    assert named_cards(reason) <= may_name, (reason, may_name)
    return reason


@pytest.mark.parametrize("game", sorted(VERBS))
def test_every_illegal_card_play_names_a_rule_and_only_what_the_seat_sees(game: str) -> None:
    verb = VERBS[game]
    explained = 0
    for request in positions(game, range(1, 9)):
        observation = observation_of(request)
        assert isinstance(observation, Holding), observation
        legal = {action.text for action in request.legal_actions}
        if not any(text.startswith(verb + " ") for text in legal):
            continue  # not a card play
        visible = visible_cards(observation)
        for card in (c.code for c in observation.hand):
            typed = f"{verb} {card}"
            if typed in legal or any(card in text.split() for text in legal):
                assert explain(request, typed) is None or typed not in legal
                continue
            why = explain(request, typed)
            assert why is not None and RULE.search(why), (typed, why, sorted(legal))
            assert named_cards(why) <= visible, (why, visible)
            explained += 1
    assert explained >= 5  # the playouts did reach illegal plays


def test_the_left_bower_is_a_trump_not_a_card_of_its_printed_suit() -> None:
    """Hearts trump, diamonds led: the J♦ is a trump, so a diamond held must be played."""
    seen = 0
    for request in positions("bid-euchre", range(1, 80), every=1):
        observation = request.bid_euchre
        hand = [c.code for c in observation.hand]
        trick = [p.card.code for p in observation.trick]
        if observation.trump != 3 or not trick or trick[0][1] != "D" or trick[0] == "JD":
            continue
        if "JD" in hand and any(c[1] == "D" and c != "JD" for c in hand):
            why = explain(request, "play J\u2666")
            assert why is not None
            assert why.startswith("you must follow diamonds: you hold ")
            assert why.endswith("; the J\u2666 is a trump in a hearts hand")
            assert "J\u2666" not in why.split(";")[0]  # not among the diamonds held
            seen += 1
    assert seen


def test_words_that_name_no_illegal_card() -> None:
    request = positions("bid-euchre", range(1, 2))[0]
    assert explain(request, "xyzzy") is None
    assert explain(request, request.legal_actions[0].text) is None
    missing = next(
        code
        for code in ("9C", "TC", "JC", "QC", "KC", "AC")
        if code not in {c.code for c in request.bid_euchre.hand}
    )
    why = explain(request, f"play {missing.lower()}")
    assert why is not None and why.startswith("you do not hold ")
    assert card_in("J\u2666") == "JD" and card_in("play 10h") == "TH"


def test_every_illegal_bid_euchre_call_names_its_rule() -> None:
    calls = ("pass", "call 3", "call 4", "call 5", "call ASK", "call MOON")
    explained = 0
    for request in positions("bid-euchre", range(40), every=1):
        if request.bid_euchre.phase != bid_euchre_pb2.BID_EUCHRE_PHASE_BIDDING:
            continue
        legal = {a.text for a in request.legal_actions}
        for call in calls:
            reason = explain(request, call)
            if call in legal:
                assert reason is None
                continue
            assert reason is not None and RULE.search(reason), (call, reason)
            explained += 1
    assert explained > 40


def test_a_call_below_the_highest_says_who_called_what() -> None:
    for request in positions("bid-euchre", range(40), every=1):
        made = [
            c for c in request.bid_euchre.calls if c.call == bid_euchre_pb2.BID_EUCHRE_CALL_FOUR
        ]
        if made and request.bid_euchre.phase == bid_euchre_pb2.BID_EUCHRE_PHASE_BIDDING:
            assert explain(request, "call 3") == (
                f"a call must be higher than the highest so far: seat {made[0].seat} called 4"
            )
            assert explain(request, "three") == explain(request, "call 3")
            return
    pytest.fail("no call of four in these deals")


def test_the_joker_is_a_trump_and_not_a_card_of_the_led_suit() -> None:
    """Option joker, hearts trump: the joker may not follow a spade lead, and it is the
    trump a seat must play to a trump lead."""

    def request(state: BidEuchreState) -> bot_pb2.ActRequest:
        legal = state.legal_actions()
        return wire.act_request(state, match_id="m", decision_index=0, deadline_s=6.0, legal=legal)

    state = joker_deal()
    act(state, "call 3", "pass", "pass", "pass", "trump H")
    play(state, "9S")
    assert explain(request(state), "play X1") == (
        "you must follow spades: you hold 10\u2660 J\u2660 Q\u2660 K\u2660 A\u2660; "
        "the joker is a trump (hearts), not a card of the led suit"
    )
    state = joker_deal()
    act(state, "call 3", "pass", "pass", "pass", "trump H")
    play(state, "JH")
    assert explain(request(state), "play AS") == (
        "you must follow trumps (hearts): you hold X1; your joker counts as a trump"
    )
    state = joker_deal()
    act(state, "pass", "call 3", "pass", "pass", "trump H", "play X1")
    assert explain(request(state), "play AD") == (
        "you must follow trumps (hearts): you hold J\u2666 9\u2665 10\u2665; "
        "the joker led is a trump, so trumps were led; your J\u2666 counts as a trump"
    )
    state = joker_deal()
    act(state, "pass", "pass", "pass", "call ASK", "trump S", "give 9D")
    assert explain(request(state), "return AS") == (
        "in an ASK you must return your highest trump (bowers and the joker included): "
        "of 10\u2660 J\u2660 Q\u2660 K\u2660 A\u2660 X1, that is not A\u2660"
    )


BALOOT_CALLS = (
    "pass",
    "hokum",
    "sun",
    "ashkal",
    "choose sun",
    *(f"choose hokum {suit}" for suit in "CDHS"),
    "decline",
    "double",
    "triple",
    "four",
    "gahwa",
)


def test_every_illegal_baloot_call_names_its_rule() -> None:
    """Bids, the Hokum caller's choice and the doubling chain, in every phase."""
    explained: dict[str, int] = {}
    for request in positions("baloot", range(30), every=1):
        legal = {a.text for a in request.legal_actions}
        for call in BALOOT_CALLS:
            if checked_reason(request, call, legal, may_name=set()) is None:
                continue
            explained[call] = explained.get(call, 0) + 1
    assert set(explained) == set(BALOOT_CALLS)  # even pass and sun: not in the play
    assert sum(explained.values()) > 100


def test_baloot_bidding_rules_in_words() -> None:
    seen: set[str] = set()
    for request in positions("baloot", range(30), every=1):
        observation = request.baloot
        legal = {a.text for a in request.legal_actions}
        phase = observation.phase
        if phase == baloot_pb2.BALOOT_PHASE_CLAIM_WINDOW:
            why = explain(request, "hokum")
            assert why is not None and "may only pass or take the contract as sun" in why
            seen.add("claim")
        elif phase == baloot_pb2.BALOOT_PHASE_BIDDING and "ashkal" not in legal:
            why = explain(request, "ashkal")
            assert why is not None
            if observation.bidding_round == 2:
                assert why.startswith("ashkal is a first-round call only")
                seen.add("round 2")
            else:
                assert why.startswith("only the third and fourth bidders")
                seen.add("bidder")
        elif phase == baloot_pb2.BALOOT_PHASE_CONTRACT_CHOICE:
            up = observation.up_card.code[1]
            if observation.bidding_round == 2:
                why = explain(request, f"choose hokum {up}")
                assert why is not None and "may not be the up-card's suit" in why
                seen.add("choice 2")
        elif phase == baloot_pb2.BALOOT_PHASE_DOUBLING and "triple" in legal:
            why = explain(request, "double")
            assert why is not None and why.endswith("you may only call triple or decline")
            assert explain(request, "gahwa") == (
                "the doubling goes one step at a time (double, triple, four, gahwa): "
                "you may only call triple or decline"
            )
            seen.add("doubling")
    assert seen >= {"claim", "bidder", "round 2", "doubling"}, seen


def rummy_attempts(observation: persian_rummy_pb2.PersianRummyObservation) -> list[str]:
    """Actions a person might type: every kind, with held cards only."""
    hand = [c.code for c in observation.hand]
    typed = ["draw", "pass"]
    typed += [f"take {i}" for i in range(len(observation.discard_pile))]
    typed += [f"discard {card}" for card in hand]
    for size in (2, 3, 4):
        typed += ["meld " + " ".join(group) for group in itertools.combinations(hand, size)]
    for meld in observation.melds:
        typed += [f"layoff {meld.id} {card}" for card in hand]
        typed += [f"layoff {meld.id} {a} {b}" for a, b in itertools.combinations(hand, 2)]
    return typed


def test_every_illegal_persian_rummy_action_names_its_rule() -> None:
    kinds: dict[tuple[int, str], int] = {}
    for request in positions("persian-rummy", range(6), every=2):
        observation = request.persian_rummy
        legal = {a.text for a in request.legal_actions}
        visible = visible_cards(observation)
        for typed in rummy_attempts(observation):
            if checked_reason(request, typed, legal, visible) is None:
                continue
            key = (observation.phase, typed.split()[0])
            kinds[key] = kinds.get(key, 0) + 1
    draw, chosen, meld = (
        persian_rummy_pb2.PERSIAN_RUMMY_PHASE_DRAW,
        persian_rummy_pb2.PERSIAN_RUMMY_PHASE_USE_CHOSEN,
        persian_rummy_pb2.PERSIAN_RUMMY_PHASE_MELD,
    )
    expected = {(draw, v) for v in ("take", "discard", "meld", "pass")}
    expected |= {(chosen, v) for v in ("draw", "discard", "meld")}
    expected |= {(meld, v) for v in ("draw", "take", "meld", "layoff")}
    assert expected <= set(kinds), sorted(kinds)


def test_persian_rummy_rules_in_words() -> None:
    seen: set[str] = set()
    for request in positions("persian-rummy", range(6), every=1):
        observation = request.persian_rummy
        hand = [c.code for c in observation.hand]
        legal = {a.text for a in request.legal_actions}
        if observation.phase == persian_rummy_pb2.PERSIAN_RUMMY_PHASE_DRAW and hand:
            assert explain(request, f"discard {hand[0]}") == (
                "you must draw first: draw from the stock or take from the discard pile"
                if observation.stock_size
                else "you must draw first: take from the discard pile, or pass"
            )
            seen.add("draw first")
        if observation.phase == persian_rummy_pb2.PERSIAN_RUMMY_PHASE_USE_CHOSEN:
            why = explain(request, f"discard {hand[0]}")
            assert why is not None and why.startswith("you took ")
            seen.add("chosen")
        if observation.phase != persian_rummy_pb2.PERSIAN_RUMMY_PHASE_MELD:
            continue
        for meld in legal:
            words = meld.split()
            if words[0] == "meld" and len(words) == 4:
                shuffled = " ".join(["meld", *reversed(words[1:])])
                assert explain(request, shuffled) == f"the cards must be listed in order: {meld}"
                seen.add("order")
        if len(hand) >= 3 and not any(t.startswith("meld") for t in legal):
            why = explain(request, "meld " + " ".join(hand[:3]))
            assert why is not None and why.startswith(("a meld must", "a run must", "jokers"))
            seen.add("no meld")
    assert seen == {"draw first", "chosen", "order", "no meld"}, seen


def seep_attempts(observation: seep_pb2.SeepObservation) -> list[str]:
    """Captures, builds, adds and breaks a person might type, with held and loose cards."""
    loose = [c.code for c in observation.loose]
    groups = [" ".join(g) for size in (0, 1, 2) for g in itertools.combinations(loose, size)]
    houses = [house.value for house in observation.houses]
    typed = []
    for card in (c.code for c in observation.hand):
        typed += [f"capture {card} {g}".strip() for g in groups]
        typed += [f"build {card} {v} {g}".strip() for v in (8, 9, 11, 13) for g in groups]
        typed += [f"add {card} {v} {g}".strip() for v in houses for g in groups]
        typed += [f"break {card} {v} {g}".strip() for v in houses for g in groups]
    return typed


SEEP_RULES = (
    "the cards captured must make groups that each add up to",
    "a capture must be maximal",
    "and the loose cards must make groups that each add up to",
    "only if you keep a card of value",
    "a house must have a value from 9 to 13",
    "is on the floor already: you may only add to it",
)


def test_every_illegal_seep_capture_and_build_names_its_rule() -> None:
    kinds: dict[str, int] = {}
    rules: set[str] = set()
    for request in positions("seep", range(4), every=3):
        observation = request.seep
        legal = {a.text for a in request.legal_actions}
        if not any(text.startswith("throw ") or text.startswith("capture ") for text in legal):
            continue
        visible = visible_cards(observation)
        for typed in seep_attempts(observation):
            reason = checked_reason(request, typed, legal, visible)
            if reason is None:
                continue
            kinds[typed.split()[0]] = kinds.get(typed.split()[0], 0) + 1
            rules.update(rule for rule in SEEP_RULES if rule in reason)
    assert set(kinds) == {"capture", "build", "add", "break"}, kinds
    assert rules == set(SEEP_RULES), rules


BALOOT_DECLARATIONS = [t for t in BALOOT_TEXTS if t.startswith("declare ")]


def test_every_illegal_baloot_declaration_names_its_rule() -> None:
    """Engine declaration texts typed in every phase: the window, the cards not held, a
    declaration already made; a reason names only cards the seat sees or typed."""
    kinds: dict[str, int] = {}
    for request in positions("baloot", range(10), every=1):
        observation = request.baloot
        legal = {a.text for a in request.legal_actions}
        visible = visible_cards(observation)
        tried = BALOOT_DECLARATIONS
        if observation.phase != baloot_pb2.BALOOT_PHASE_DECLARING:
            sample = random.Random(request.decision_index).sample(BALOOT_DECLARATIONS, 20)
            tried = [BALOOT_DECLARATIONS[0], *sample]
        for typed in tried:
            reason = checked_reason(request, typed, legal, visible | set(typed.split()))
            if reason is None:
                continue
            key = reason.split(":")[0].split(" (")[0]
            kinds[key] = kinds.get(key, 0) + 1
    assert set(kinds) == {
        "projects may only be declared in trick 1, at your turn before your first card",
        "you may only declare projects from your own hand",
        "you have declared already",
        "your hand holds no project, so you have nothing to declare",
    }, kinds


def test_baloot_declarations_in_words() -> None:
    seen = 0
    for request in positions("baloot", range(40), every=1):
        hand = {c.code for c in request.baloot.hand}
        if request.baloot.phase != baloot_pb2.BALOOT_PHASE_DECLARING or hand & {"AS", "QS"}:
            continue
        assert explain(request, "declare sira AS KS QS") == (
            "you may only declare projects from your own hand: you do not hold "
            + ("A\u2660 Q\u2660" if "KS" in hand else "A\u2660 K\u2660 Q\u2660")
        )
        seen += 1
    assert seen
    request = next(
        r
        for r in positions("baloot", range(40), every=1)
        if r.baloot.phase == baloot_pb2.BALOOT_PHASE_DECLARING
    )
    first = [c.code for c in request.baloot.hand][:4]
    reason = explain(request, f"declare 100 {' '.join(first)}")  # no project, or a 50
    assert reason is not None and RULE.search(reason), reason
    assert explain(request, "declare sira 9H 8H") is not None  # too short: no project
