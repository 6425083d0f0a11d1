"""The live table (``arena.replay.public_table``) over random matches of every game, with
every rule variant: it never shows a card face up, in a pile or a fact, before a public
event has named it; it counts every hand and face-down pile right; and it hides the
phases that would tell what a hand holds."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from hypothesis import given, settings

from arena.games import State, get_game
from arena.replay.public_table import public_json, public_view
from arena.replay.tables import table
from tests.games.generic import CARD_CODES, Case, card_codes, cases, games_to_test, playout

GAMES = games_to_test()
WORD = re.compile(r"\w+")


def face_up(view: dict[str, Any]) -> set[str]:
    """Every card code the view shows: pile faces, and codes written in its facts."""
    t = view["table"]
    shown = {c for p in t["piles"] for c in p["cards"]}
    for _, text in t["facts"]:
        shown |= {w for w in WORD.findall(text) if w in CARD_CODES}
    return shown


def check_step(state: State, _: random.Random) -> None:
    view = public_view(state)
    named = card_codes([e.data for e in state.events if e.public])
    assert not face_up(view) - named, (
        f"shown before any public event named them: {sorted(face_up(view) - named)}"
    )
    whole = table(state)
    t = view["table"]
    assert t["hands"] == [None] * len(whole["hands"])
    assert t["held"] == [len(h) for h in whole["hands"]]
    down = [p for p in whole["piles"] if p.get("face_down")]
    assert [p["count"] for p in t["piles"] if p.get("face_down")] == [len(p["cards"]) for p in down]
    if view["seat"] is not None:
        assert view["seat"] == state.current_seat() and not state.is_terminal()
    elif not state.is_terminal():
        assert t["phase"] != whole["phase"], "the seat to act hidden in a public phase"


@pytest.mark.parametrize("game", GAMES)
def test_no_card_shows_before_a_public_event_names_it(game: str) -> None:
    engine = get_game(game)

    @settings(deadline=None)  # examples: the profile's (tests/conftest.py)
    @given(cases(engine))
    def run(case: Case) -> None:
        playout(engine, case, check_step)

    run()


def test_a_private_question_or_declaration_does_not_show() -> None:
    """A Bid Euchre seat asked about an ace and no face card, and a Baloot seat asked to
    declare a project, look to the public like bidding and playing."""
    seen: dict[str, set[str]] = {}
    for game, options, hidden in (
        ("bid-euchre", {"ace_no_face": True}, "ace_no_face"),
        ("baloot", {}, "declaring"),
    ):
        engine = get_game(game)
        for seed in range(40):
            state = engine.new_state(seed, options)
            policy = random.Random(seed)
            while not state.is_terminal() and len(state.events) < 400:
                if table(state)["phase"] == hidden:
                    view = public_view(state)
                    seen.setdefault(game, set()).add(view["table"]["phase"])
                    if game == "bid-euchre":
                        assert view["seat"] is None
                    else:
                        assert view["seat"] == state.current_seat()
                state.apply(policy.choice(state.legal_actions()))
    assert seen == {"bid-euchre": {"bidding"}, "baloot": {"playing"}}


def test_the_last_trick_stays_until_the_next_lead() -> None:
    engine = get_game("bid-euchre")
    state = engine.new_state(3, {})
    policy = random.Random(3)
    while not getattr(state, "tricks", None):
        state.apply(policy.choice(state.legal_actions()))
    piles = {p["kind"]: p for p in public_view(state)["table"]["piles"]}
    last = state.tricks[-1]  # type: ignore[attr-defined]
    assert "trick" not in piles
    assert piles["last_trick"]["cards"] == [p.card for p in last.cards]
    assert piles["last_trick"]["label"] == f"Last trick, taken by seat {last.winner}"
    state.apply(policy.choice(state.legal_actions()))  # the next lead
    kinds = [p["kind"] for p in public_view(state)["table"]["piles"]]
    assert "trick" in kinds and "last_trick" not in kinds
    assert public_json(state).startswith('{"seat":')
