"""The explanations of illegal moves in Baloot, Bid Euchre and Bridgette come from the
engines' own rule functions (each game's ``rules``, and Baloot's ``rounds.bids_allowed``):
the engine's legal moves call the very same function, and when that function is made to
allow everything, the explanation of a known illegal move disappears. A ``why`` that
re-derived a rule by itself would keep explaining, and fail here."""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from types import ModuleType
from typing import Any

import pytest

from arena import wire
from arena.games import get_game
from arena.games.api import State
from arena.games.baloot import rounds as baloot_rounds
from arena.games.baloot import rules as baloot_rules
from arena.games.baloot import state as baloot_state
from arena.games.baloot import why as baloot_why
from arena.games.baloot.actions import DECLINE, DOUBLE, GAHWA, HOKUM, PROJECTS
from arena.games.bid_euchre import rules as bid_euchre_rules
from arena.games.bid_euchre import state as bid_euchre_state
from arena.games.bid_euchre import why as bid_euchre_why
from arena.games.bid_euchre.actions import CALL_BASE, FOUR, PASS
from arena.games.bridgette import rules as bridgette_rules
from arena.games.bridgette import state as bridgette_state
from arena.games.bridgette import why as bridgette_why
from arena.games.cards import SUITS
from arena.play.why.words import SUIT_LETTERS, codes
from arena.v1 import baloot_pb2, bid_euchre_pb2, bot_pb2

Chooser = Callable[[State, list[int], random.Random], int]


def _random(state: State, legal: list[int], rng: random.Random) -> int:
    return rng.choice(legal)


def requests(
    game: str, seeds: range, choose: Chooser = _random, options: dict[str, object] | None = None
) -> Iterator[bot_pb2.ActRequest]:
    """The request of every decision along playouts of ``game``, one per seed."""
    for seed in seeds:
        rng = random.Random(seed)
        state = get_game(game).new_state(seed, options)
        for step in range(400):
            if state.is_terminal():
                break
            legal = state.legal_actions()
            yield wire.act_request(
                state, match_id="m", decision_index=step, deadline_s=60.0, legal=legal
            )
            state.apply(choose(state, legal, rng))


def observation(request: bot_pb2.ActRequest) -> Any:
    return getattr(request, str(request.WhichOneof("observation")))


def allow_all_cards(hand: list[str], *_: object) -> list[str]:
    """A rule that lets every card of the hand be played."""
    return list(hand)


@pytest.mark.parametrize(
    ("engine", "rules", "name"),
    [
        (bridgette_state, bridgette_rules, "follows"),
        (bridgette_state, bridgette_rules, "leads"),
        (bid_euchre_state, bid_euchre_rules, "follows"),
        (bid_euchre_state, bid_euchre_rules, "returnable"),
        (bid_euchre_state, bid_euchre_rules, "dealer_stuck"),
        (baloot_state, baloot_rules, "playable"),
        (baloot_state, baloot_rules, "hokum_trumps"),
        (baloot_state, baloot_rules, "doubling_calls"),
        (baloot_state, baloot_rules, "declarable"),
    ],
)
def test_the_engines_call_the_same_rule_functions(
    engine: ModuleType, rules: ModuleType, name: str
) -> None:
    """The engine's module holds the rules' own function, not a copy of it."""
    assert vars(engine)[name] is vars(rules)[name]


# --- Bridgette -----------------------------------------------------------------------------


def test_bridgette_follow_suit_comes_from_rules_follows(monkeypatch: pytest.MonkeyPatch) -> None:
    for request in requests("bridgette", range(20)):
        seen = observation(request)
        hand = codes(seen.hand)
        if not seen.trick or not hand:
            continue
        led = seen.trick[0].card.code
        allowed = bridgette_rules.follows(hand, led)
        barred = [card for card in hand if card not in allowed]
        if barred:
            break
    else:
        pytest.fail("no position where a card may not follow")
    assert bridgette_why.explain_card(seen, barred[0], "play") is not None
    monkeypatch.setattr(bridgette_rules, "follows", allow_all_cards)
    assert bridgette_why.explain_card(seen, barred[0], "play") is None


def test_bridgette_barred_lead_comes_from_rules_leads(monkeypatch: pytest.MonkeyPatch) -> None:
    for request in requests("bridgette", range(60)):
        seen = observation(request)
        suit = SUIT_LETTERS.get(seen.barred_suit)
        hand = codes(seen.hand)
        barred = [card for card in hand if card not in bridgette_rules.leads(hand, suit)]
        if not seen.trick and barred:
            break
    else:
        pytest.fail("no position with a barred lead")
    reason = bridgette_why.explain_card(seen, barred[0], "play")
    assert reason is not None and "barred" in reason
    monkeypatch.setattr(bridgette_rules, "leads", allow_all_cards)
    assert bridgette_why.explain_card(seen, barred[0], "play") is None


# --- Bid Euchre ----------------------------------------------------------------------------


def test_bid_euchre_follow_suit_comes_from_rules_follows(monkeypatch: pytest.MonkeyPatch) -> None:
    for request in requests("bid-euchre", range(20)):
        seen = observation(request)
        trump = SUIT_LETTERS.get(seen.trump)
        hand = codes(seen.hand)
        if seen.phase != bid_euchre_pb2.BID_EUCHRE_PHASE_PLAY or not seen.trick or not trump:
            continue
        allowed = bid_euchre_rules.follows(hand, seen.trick[0].card.code, trump)
        barred = [card for card in hand if card not in allowed]
        if barred:
            break
    else:
        pytest.fail("no position where a card may not follow")
    assert bid_euchre_why.explain_card(seen, barred[0], "play") is not None
    monkeypatch.setattr(bid_euchre_rules, "follows", allow_all_cards)
    assert bid_euchre_why.explain_card(seen, barred[0], "play") is None


def test_bid_euchre_ask_return_comes_from_rules_returnable(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for request in requests("bid-euchre", range(200)):
        seen = observation(request)
        if seen.phase != bid_euchre_pb2.BID_EUCHRE_PHASE_ASK_RETURN:
            continue
        legal = {action.text for action in request.legal_actions}
        trump = SUIT_LETTERS[seen.trump]
        kept = [
            card
            for card in bid_euchre_rules.trumps_in(codes(seen.hand), trump)
            if f"return {card}" not in legal and card != seen.card_given.code
        ]
        if kept:
            break
    else:
        pytest.fail("no ASK return with a lower trump held")
    reason = bid_euchre_why.explain_card(seen, kept[0], "return")
    assert reason is not None and "highest trump" in reason
    monkeypatch.setattr(bid_euchre_rules, "returnable", allow_all_cards)
    assert bid_euchre_why.explain_card(seen, kept[0], "return") is None


def _bidding(*calls: int) -> Any:
    """The observation of the seat to call after ``calls`` (call indices) from the deal."""
    state = get_game("bid-euchre").new_state(3)
    for call in calls:
        state.apply(CALL_BASE + call)
    legal = state.legal_actions()
    request = wire.act_request(state, match_id="m", decision_index=0, deadline_s=60.0, legal=legal)
    return observation(request)


def test_bid_euchre_calls_come_from_rules_may_call(monkeypatch: pytest.MonkeyPatch) -> None:
    stuck = _bidding(PASS, PASS, PASS)
    outbid = _bidding(FOUR)
    assert stuck.phase == outbid.phase == bid_euchre_pb2.BID_EUCHRE_PHASE_BIDDING
    assert "stick the dealer" in str(bid_euchre_why.explain_call(stuck, "pass"))
    assert "higher than the highest" in str(bid_euchre_why.explain_call(outbid, "call 3"))
    monkeypatch.setattr(bid_euchre_rules, "may_call", lambda call, high, stuck: True)
    assert bid_euchre_why.explain_call(stuck, "pass") is None
    assert bid_euchre_why.explain_call(outbid, "call 3") is None


# --- Baloot --------------------------------------------------------------------------------


def _locking(state: State, legal: list[int], rng: random.Random) -> int:
    """Random play, except that a Hokum is doubled and left at that: a locked round."""
    if DOUBLE in legal and getattr(state, "contract", None) == "hokum":
        return DOUBLE
    if DECLINE in legal and getattr(state, "multiplier", 1) == 2:
        return DECLINE
    return rng.choice(legal)


def _playing(seeds: range, choose: Chooser = _random) -> Iterator[tuple[Any, list[str]]]:
    """Baloot observations in play, each with the cards ``rules.playable`` forbids."""
    for request in requests("baloot", seeds, choose):
        seen = observation(request)
        if seen.phase != baloot_pb2.BALOOT_PHASE_PLAYING:
            continue
        hand = codes(seen.hand)
        led = seen.trick[0].card.code if seen.trick else None
        allowed = baloot_rules.playable(hand, led, SUIT_LETTERS.get(seen.trump), seen.locked)
        yield seen, [card for card in hand if card not in allowed]


def test_baloot_follow_suit_comes_from_rules_playable(monkeypatch: pytest.MonkeyPatch) -> None:
    seen, barred = next((s, b) for s, b in _playing(range(20)) if s.trick and b)
    assert "must follow" in str(baloot_why.explain_card(seen, barred[0], "play"))
    monkeypatch.setattr(baloot_rules, "playable", allow_all_cards)
    assert baloot_why.explain_card(seen, barred[0], "play") is None


def test_baloot_locked_lead_comes_from_rules_playable(monkeypatch: pytest.MonkeyPatch) -> None:
    seen, barred = next((s, b) for s, b in _playing(range(60), _locking) if not s.trick and b)
    assert seen.locked
    assert "locked" in str(baloot_why.explain_card(seen, barred[0], "play"))
    monkeypatch.setattr(baloot_rules, "playable", allow_all_cards)
    assert baloot_why.explain_card(seen, barred[0], "play") is None


def _first(wanted: Callable[[bot_pb2.ActRequest], bool], seeds: range = range(60)) -> Any:
    """The first Baloot observation along random playouts whose request is ``wanted``."""
    request = next(r for r in requests("baloot", seeds) if wanted(r))
    return observation(request)


def _texts(request: bot_pb2.ActRequest) -> set[str]:
    return {action.text for action in request.legal_actions}


def test_baloot_bids_come_from_rounds_bids_allowed(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _first(
        lambda r: (
            r.baloot.phase == baloot_pb2.BALOOT_PHASE_BIDDING
            and "hokum" not in _texts(r)
            and any(b.bid == baloot_pb2.BALOOT_BID_HOKUM for b in r.baloot.bids)
        )
    )
    assert "has called hokum" in str(baloot_why.explain_call(seen, "hokum"))
    monkeypatch.setattr(baloot_rounds, "bids_allowed", lambda *_: [HOKUM])
    assert baloot_why.explain_call(seen, "hokum") is None


def test_baloot_hokum_trump_comes_from_rules_hokum_trumps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _first(lambda r: r.baloot.phase == baloot_pb2.BALOOT_PHASE_CONTRACT_CHOICE)
    up_suit = seen.up_card.code[1]
    other = next(s for s in SUITS if s not in baloot_rules.hokum_trumps(up_suit, 1))
    typed = f"choose hokum {other if seen.bidding_round == 1 else up_suit}"
    assert "trump" in str(baloot_why.explain_call(seen, typed))
    monkeypatch.setattr(baloot_rules, "hokum_trumps", lambda up, rnd: list(SUITS))
    assert baloot_why.explain_call(seen, typed) is None


def test_baloot_doubling_comes_from_rules_doubling_calls(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    seen = _first(lambda r: r.baloot.phase == baloot_pb2.BALOOT_PHASE_DOUBLING)
    assert "one step at a time" in str(baloot_why.explain_call(seen, "gahwa"))
    monkeypatch.setattr(
        baloot_rules, "doubling_calls", lambda steps: list(range(DECLINE, GAHWA + 1))
    )
    assert baloot_why.explain_call(seen, "gahwa") is None


def test_baloot_projects_come_from_rules_project_of(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _first(lambda r: r.baloot.phase == baloot_pb2.BALOOT_PHASE_DECLARING)
    hand = codes(seen.hand)
    cards = next(
        trio
        for trio in zip(hand, hand[1:], hand[2:], strict=False)
        if baloot_rules.project_of(trio) is None
    )
    typed = "declare sira " + " ".join(cards)
    assert "a project must be" in str(baloot_why.explain_action(seen, typed, []))
    sira = next(project for project in PROJECTS if project.kind == "sira")
    monkeypatch.setattr(baloot_rules, "project_of", lambda cards: sira)
    assert baloot_why.explain_action(seen, typed, []) is None
