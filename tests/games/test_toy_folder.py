"""A game from its own folder alone: the generic suite's toy game (``tests/games/toy``),
registered only inside these tests, gets its wire messages, explanations, viewer and live
tables, environment, OpenSpiel model, an example bot over gRPC and play in the terminal
from the parts of its folder, with no line about it anywhere in ``arena``."""

from __future__ import annotations

import asyncio
import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from arena import wire
from arena.games import game_names, get_game
from arena.games.api import State
from arena.games.registry import part
from arena.play.why import explain, words
from arena.replay import public_table, tables
from arena.v1 import bot_pb2, referee_pb2
from tests.games import generic
from tests.games.toy import bot, game, messages
from tests.games.toy.game import CARDS, INFO, ToyGame, toy_game

NAME = INFO.name


@pytest.fixture
def toy() -> Iterator[ToyGame]:
    """The toy in the registry for the test only."""
    with generic.registered(toy_game()) as registered:
        assert isinstance(registered, ToyGame)
        yield registered
    assert NAME not in game_names()


def request_for(state: State, decision_index: int = 0) -> bot_pb2.ActRequest:
    return wire.act_request(
        state,
        match_id="m",
        decision_index=decision_index,
        deadline_s=1.0,
        legal=state.legal_actions(),
    )


def a_pair_to_follow(toy: ToyGame) -> game.ToyState:
    """A state where the seat to act must follow the led suit and holds another suit."""
    for seed in range(100):
        state = toy.new_state(seed)
        state.apply(state.legal_actions()[0])
        hand = state.hands[state.to_act]
        led = state.trick[0].card[1]
        if any(c[1] == led for c in hand) and any(c[1] != led for c in hand):
            return state
    raise AssertionError("no seed deals a suit to follow")


def test_every_part_is_found_in_the_folder(toy: ToyGame) -> None:
    for kind in ("messages", "why", "table", "layout", "openspiel", "bot"):
        found = part(NAME, kind)
        assert found is not None and found.__name__ == f"tests.games.toy.{kind}"
    assert part(NAME, "docs") is None
    assert wire.observation_message(NAME) is messages.OBSERVATION.DESCRIPTOR
    assert wire.payload_message(NAME) is messages.ACTION.DESCRIPTOR


def test_the_explanation_gives_the_toys_rule(toy: ToyGame) -> None:
    state = a_pair_to_follow(toy)
    request = request_for(state, 1)
    led = state.trick[0].card[1]
    holding = [c for c in state.hands[state.to_act] if c[1] == led]
    off_suit = next(c for c in state.hands[state.to_act] if c[1] != led)
    reason = explain(request, f"play {off_suit}")
    assert reason == f"you must follow {words.SUIT_WORDS[led]}: you hold {words.shown(holding)}"
    assert explain(request, f"play {holding[0]}") is None  # legal
    stranger = next(c for c in CARDS if c not in state.hands[state.to_act])
    assert f"you do not hold {words.show(stranger)}" in str(explain(request, f"play {stranger}"))


def test_the_random_bot_reads_a_packed_observation(toy: ToyGame) -> None:
    """It hashes the observation it is shown (here the packed ``other``) to choose."""
    from arena.bots.examples import RandomBot

    state = a_pair_to_follow(toy)
    request = request_for(state, 1)
    chosen = {RandomBot(seed).act(request) for seed in range(20)}
    assert chosen == set(state.legal_actions())


def test_the_viewer_and_the_live_page_draw_the_table(toy: ToyGame) -> None:
    assert tables.has_table(NAME)
    assert tables.play_direction(NAME) == "facing"
    assert tables.deck_size(NAME) == len(CARDS)
    state = toy.new_state(4, {"hands": 2})
    policy = random.Random(4)
    while True:
        whole = tables.table(state)
        cards = [c for hand in whole["hands"] for c in hand]
        cards += [c for pile in whole["piles"] for c in pile["cards"]]
        assert sorted(cards) == sorted(CARDS), whole
        view = public_table.public_view(state)
        shown = view["table"]
        assert shown["hands"] == [None, None]
        assert shown["held"] == [len(h) for h in state.hands]
        left_out = next(p for p in shown["piles"] if p["kind"] == "stock")
        assert left_out["cards"] == [] and left_out["count"] == len(state.rest)
        assert view["seat"] == (None if state.is_terminal() else state.current_seat())
        assert json.loads(public_table.public_json(state)) == view
        if state.is_terminal():
            break
        state.apply(policy.choice(state.legal_actions()))
    assert whole["phase"] == "over"


def test_the_environment_plays_a_whole_match_with_legal_masks(toy: ToyGame) -> None:
    pytest.importorskip("pettingzoo")
    from arena.envs import env, layout, raw_env, tensor_size
    from arena.envs.layouts import games, pack

    assert NAME in games() and pack(NAME) == CARDS
    names = [name for name, _, _ in layout(NAME)]
    assert names == ["seat_one_hot", "seat", "hand", "trick", "hand_sizes", "scores", "hand_number"]
    e = raw_env(NAME, {"hands": 3})
    e.reset(seed=2)
    choose = random.Random(2)
    decisions = 0
    for agent in e.agent_iter():
        observation, _, terminated, truncated, infos = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        assert observation["observation"].shape == (tensor_size(NAME),)
        legal = np.flatnonzero(observation["action_mask"]).tolist()
        assert legal == infos["legal_action_ids"] == e.legal_action_ids()
        assert e.observe_dict(agent)["hand_number"] >= 1
        e.step(choose.choice(legal))
        decisions += 1
    assert decisions == 3 * 6
    assert e.state is not None and e.state.is_terminal()

    from pettingzoo.test import api_test  # type: ignore[import-untyped]

    with pytest.warns(UserWarning):  # PettingZoo would have Box observations
        api_test(env(NAME, {"hands": 2}), num_cycles=40)


def test_openspiel_registers_the_toy_and_plays_it_to_the_end(toy: ToyGame) -> None:
    pyspiel = pytest.importorskip("pyspiel")
    from arena import openspiel

    short = openspiel.short_name(NAME)
    assert short == "card_arena_toy_high_card"
    assert short in openspiel.register()
    loaded = pyspiel.load_game(short, {"seeds": 10, "hands": 2})
    assert loaded.num_distinct_actions() == len(CARDS)
    rng = random.Random(1)
    state = loaded.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, _ = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(rng.choice(outcomes))
            continue
        assert len(state.observation_tensor()) == loaded.observation_tensor_size()
        state.apply_action(rng.choice(state.legal_actions()))
    assert sum(state.returns()) == 0.0
    assert state.engine is not None and state.engine.scores() == state.engine.points


def test_the_example_bot_plays_a_match_through_a_referee(toy: ToyGame, tmp_path: Path) -> None:
    from arena.bots.sdk import start
    from arena.referee.service import local_referee

    async def match() -> referee_pb2.MatchResult:
        servers = [await start(bot.BOT()) for _ in range(2)]
        try:
            async with local_referee(tmp_path) as referee:
                result: referee_pb2.MatchResult = await referee.PlayMatch(
                    referee_pb2.PlayMatchRequest(
                        game=NAME,
                        bots=[f"127.0.0.1:{port}" for _, port in servers],
                        seed=3,
                        options={"hands": "2"},
                        move_deadline=wire.duration(5.0),
                    )
                )
                return result
        finally:
            for server, _ in servers:
                await server.stop(grace=None)

    result = asyncio.run(match())
    assert result.end == referee_pb2.MATCH_END_COMPLETED, result
    assert not result.faults
    assert result.decisions == 2 * 6


def test_a_person_plays_the_toy_in_the_terminal(
    toy: ToyGame, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``arena play``'s session, in this process (a subprocess could not see the toy,
    which only this test registers): a real referee, the house bot (the toy's example
    bot) as the opponent, and a person who first types a card the toy's rule forbids,
    then the first action every time."""
    from arena.play import session

    shown: list[str] = []

    class Typist(session.LineReader):
        """Answers each prompt from the screen just shown, as a person would."""

        def __init__(self) -> None:
            super().__init__(fd=-1)
            self.tried_illegal = False

        def start(self) -> None:
            pass

        async def readline(self, text: str) -> str | None:
            screen = next(text for text in reversed(shown) if "Your hand:" in text)
            hand_line = re.search(r"^Your hand: (.*)$", screen, re.M)
            assert hand_line, screen
            hand = {words.card_in(w) for w in hand_line.group(1).split()}
            playable = {words.card_in(m) for m in re.findall(r"\d+\) play (\S+)", screen)}
            forbidden = sorted(c for c in hand - playable if c is not None)
            if forbidden and not self.tried_illegal:
                self.tried_illegal = True
                return f"play {forbidden[0]}"
            return "1"

    monkeypatch.setattr(session, "LineReader", Typist)
    config = session.PlayConfig(
        game=NAME,
        seats=(0,),
        seed=1,
        options={"hands": "8"},
        replay_dir=str(tmp_path / "replays"),
    )
    result = asyncio.run(session.play(config, shown.append))
    output = "\n".join(shown)
    assert result.end == referee_pb2.MATCH_END_COMPLETED, output[-2000:]
    assert not result.faults
    assert result.decisions == 8 * 6
    assert "== Toy High Card, decision " in output
    assert re.search(r"^you must follow (hearts|spades): you hold ", output, re.M), output
    assert "you win!" in output or "you lose." in output or "Draw" in output
    assert get_game(NAME) is toy
