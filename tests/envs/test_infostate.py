"""The information state tensor (``arena.envs.infostate``): the fold over the observations a
seat is sent at its decisions equals the tensor read from the engine state, it keeps what
the seat saw this hand, it never depends on cards the seat has not seen, and the
environment gives it."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Callable

import numpy as np
import pytest
from google.protobuf.message import Message
from pettingzoo.test import api_test  # type: ignore[import-untyped]

from arena import wire
from arena.envs import infostate, layouts, raw_env
from arena.games import State, game_names, get_game
from arena.games.api import Deal
from arena.games.registry import part
from tests.support.guide import GUIDE

GAMES = infostate.games()

SHORT: dict[str, dict[str, object]] = {
    "baloot": {"max_rounds": 2},
    "bid-euchre": {"max_hands": 2},
    "bridgette": {"deals": 2},
    "persian-rummy": {},
    "seep": {"max_deals": 2},
}
SEEDS = (0, 1)

Memories = list[infostate.Memory]
Visit = Callable[[State, Memories], None]


def observed(state: State, seat: int) -> Message:
    return wire.observation(state.game_info.name, state.observation(seat))


def walk(game: str, seed: int, visit: Visit, every: int = 1, steps: int = 10_000) -> State:
    """A random match; before each decision the seat to act is sent its observation
    (its memory folds it in), then ``visit`` sees the state and every seat's memory (at
    every ``every``-th decision, and at the end)."""
    state = get_game(game).new_state(seed, SHORT[game])
    policy = random.Random(seed)
    memories = [infostate.start(game, s) for s in range(state.game_info.num_seats)]
    for step in range(steps):
        if not state.is_terminal():
            seat = state.current_seat()
            memories[seat] = infostate.update(memories[seat], observed(state, seat))
        if step % every == 0 or state.is_terminal():
            visit(state, memories)
        if state.is_terminal():
            break
        state.apply(policy.choice(state.legal_actions()))
    return state


def now(state: State, memory: infostate.Memory) -> infostate.Memory:
    """The memory with the seat's present observation folded in."""
    return infostate.update(memory, observed(state, memory.seat))


def memory_part(game: str, vector: np.ndarray) -> np.ndarray:
    return vector[layouts.tensor_size(game) :]


def test_every_game_with_an_environment_has_one() -> None:
    assert GAMES == layouts.games() == game_names()
    assert sorted(SHORT) == GAMES


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("seed", SEEDS)
def test_the_fold_over_observations_is_the_state_s_tensor(game: str, seed: int) -> None:
    size = infostate.information_state_tensor_size(game)
    checked = [0]

    def visit(state: State, memories: Memories) -> None:
        for memory in memories:
            folded = infostate.tensor(now(state, memory))
            read = infostate.encode_state(state, memory.seat)
            assert folded.dtype == np.float32 and folded.shape == (size,)
            assert np.array_equal(folded, read), f"seat {memory.seat}: fold != state"
            assert infostate.information_state_tensor(state, memory.seat) == read.tolist()
            present = layouts.encode(game, memory.seat, observed(state, memory.seat))
            assert np.array_equal(folded[: present.size], present)
            assert set(np.unique(memory_part(game, folded))) <= {0.0, 1.0}
            checked[0] += 1

    walk(game, seed, visit, every=3)
    assert checked[0] > 20


@pytest.mark.parametrize("game", GAMES)
def test_the_layout_covers_the_tensor(game: str) -> None:
    rows = infostate.layout(game)
    assert rows[: len(layouts.layout(game))] == layouts.layout(game)
    offset = 0
    for _, at, size in rows:
        assert at == offset and size > 0
        offset += size
    assert offset == infostate.information_state_tensor_size(game)
    assert infostate.information_state_tensor_shape(game) == [offset]
    seats = get_game(game).info.num_seats
    memory = rows[len(layouts.layout(game)) :]
    assert [(n, s) for n, _, s in memory] == [
        (infostate.MEMORY_PREFIX + n, seats * w) for n, w, _ in infostate.blocks(game)
    ]


@pytest.mark.parametrize("game", GAMES)
def test_the_memory_keeps_the_hand_and_grows_with_what_is_seen(game: str) -> None:
    """From one observation a seat is sent to the next within a hand, the memory never
    forgets, and whenever the observation shows something the memory lacked, the tensor's
    memory changes; the first observation of a new hand starts it afresh."""
    last: dict[int, infostate.Memory] = {}
    grew = [0]

    def visit(state: State, memories: Memories) -> None:
        for memory in memories:
            before = last.get(memory.seat)
            if before is None or before is memory or memory.present is None:
                continue
            shown = infostate.sightings(game, observed(state, memory.seat))
            if before.hand == memory.hand:
                assert before.seen <= memory.seen, "the memory forgot something"
                if not shown <= before.seen:
                    grew[0] += 1
                    old = memory_part(game, infostate.tensor(before))
                    assert not np.array_equal(old, memory_part(game, infostate.tensor(memory)))
            else:
                assert memory.seen == shown, "a new hand did not start afresh"
        for memory in memories:
            last[memory.seat] = memory

    walk(game, SEEDS[0], visit)
    assert grew[0] > 10


@pytest.mark.parametrize("game", GAMES)
def test_what_the_present_observation_drops_is_kept_only_where_the_part_says(game: str) -> None:
    """A game without ``turn_sightings`` says its observations keep the hand's record:
    the memory is what the present observation shows. One with it keeps, some of the
    time, more than the present observation shows."""
    rebuilds = hasattr(part(game, "infostate"), "turn_sightings")
    beyond = [0]

    def visit(state: State, memories: Memories) -> None:
        for memory in memories:
            present = now(state, memory)
            shown = infostate.sightings(game, observed(state, memory.seat))
            if present.seen != shown:
                beyond[0] += 1

    for seed in SEEDS:
        walk(game, seed, visit)
    assert (beyond[0] > 0) == rebuilds


def _trick_games() -> list[str]:
    """Games whose observation has a trick in progress and whose memory has ``played``."""
    return [
        g
        for g in GAMES
        if "trick" in {n for n, _, _ in layouts.layout(g)}
        and "played" in {n for n, _, _ in infostate.blocks(g)}
    ]


@pytest.mark.parametrize("game", _trick_games())
def test_a_gathered_trick_stays_in_the_memory(game: str) -> None:
    """A card seen in the trick in progress is still marked, by its player, once the
    trick is gathered and gone from the present observation's ``trick`` block."""
    blocks = {n: (o, s) for n, o, s in infostate.layout(game)}
    trick_at, trick_size = blocks["trick"]
    played_at, played_size = blocks[infostate.MEMORY_PREFIX + "played"]
    seats = get_game(game).info.num_seats
    width = played_size // seats
    seen: dict[int, tuple[object, set[int]]] = {}
    gathered = [0]

    def visit(state: State, memories: Memories) -> None:
        for memory in memories:
            present = now(state, memory)
            vector = infostate.tensor(present)
            in_trick = {int(i) for i in np.flatnonzero(vector[trick_at : trick_at + trick_size])}
            hand, earlier = seen.get(memory.seat, (None, set()))
            if hand != present.hand:
                earlier = set()
            played = vector[played_at : played_at + played_size].reshape(seats, width)
            for card in earlier - in_trick:
                assert played[:, card].sum() == 1, "a gathered card left the memory"
                gathered[0] += 1
            seen[memory.seat] = (present.hand, earlier | in_trick)

    walk(game, SEEDS[0], visit)
    assert gathered[0] > 10


# --- hidden cards ---------------------------------------------------------------------------


def _swapped(deal: Deal, seat: int, rng: random.Random) -> Deal:
    """``deal`` with two cards swapped, each in another seat's hand or among the last
    cards of the rest: a deal ``seat`` cannot tell apart before it sees one of them."""
    places = [(s, i) for s, hand in enumerate(deal.hands) if s != seat for i in range(len(hand))]
    places += [(-1, i) for i in range(max(0, len(deal.rest) - 4), len(deal.rest))]
    hands = [list(hand) for hand in deal.hands]
    rest = list(deal.rest)
    (s1, i1), (s2, i2) = rng.sample(places, 2)

    def holder(s: int) -> list[str]:
        return rest if s == -1 else hands[s]

    holder(s1)[i1], holder(s2)[i2] = holder(s2)[i2], holder(s1)[i1]
    return dataclasses.replace(deal, hands=tuple(tuple(h) for h in hands), rest=tuple(rest))


def _history(state: State, seat: int, sent: list[object]) -> tuple[object, ...]:
    return (*sent, observed(state, seat))


@pytest.mark.parametrize("game", GAMES)
def test_other_seats_hidden_cards_change_nothing(game: str) -> None:
    """Two matches whose deals differ only in cards ``seat`` has not seen, played alike:
    while the seat's observation histories are equal, so are its tensors."""
    engine = get_game(game)
    compared = 0
    for seed in [s for s in SEEDS for _ in range(3)]:
        rng = random.Random(seed * 7 + compared)
        seat = rng.randrange(engine.info.num_seats)
        deal = engine.new_state(seed, SHORT[game]).initial_deal()
        states = [
            engine.new_state(seed, SHORT[game], deal=d) for d in (deal, _swapped(deal, seat, rng))
        ]
        sent: list[list[object]] = [[], []]
        while not states[0].is_terminal():
            for i, state in enumerate(states):
                if state.current_seat() == seat:
                    sent[i].append(observed(state, seat))
            if _history(states[0], seat, sent[0]) != _history(states[1], seat, sent[1]):
                break
            tensors = [infostate.encode_state(state, seat) for state in states]
            assert np.array_equal(tensors[0], tensors[1]), "another seat's hidden cards show"
            compared += 1
            action = rng.choice(states[0].legal_actions())
            if action not in states[1].legal_actions():
                break
            for state in states:
                state.apply(action)
    assert compared > 30


def test_a_sighting_outside_its_block_is_refused() -> None:
    game = GAMES[0]
    name, width, _ = infostate.blocks(game)[0]
    present = np.zeros(layouts.tensor_size(game), np.float32)
    memory = infostate.Memory(game, 0, (1,), frozenset({(name, 0, width)}), present)
    with pytest.raises(ValueError, match="outside"):
        infostate.tensor(memory)
    with pytest.raises(ValueError, match="no observation"):
        infostate.tensor(infostate.start(game, 0))


# --- the environment ------------------------------------------------------------------------


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("game", GAMES)
def test_the_environment_gives_it_and_passes_the_api_test(game: str) -> None:
    api_test(raw_env(game, SHORT[game], information_state=True), num_cycles=30)
    table = raw_env(game, SHORT[game], information_state=True)
    table.reset(seed=3)
    policy = random.Random(3)
    for step, agent in enumerate(table.agent_iter(max_iter=400)):
        observation, _, termination, truncation, _ = table.last()
        seat = table.possible_agents.index(agent)
        assert table.state is not None
        assert np.array_equal(
            observation["information_state"], infostate.encode_state(table.state, seat)
        )
        assert table.observation_space(agent).contains(observation)
        if step % 5 == 0:  # another seat's view between its turns
            other = table.possible_agents[(seat + 1) % len(table.possible_agents)]
            assert np.array_equal(
                table.observe(other)["information_state"],
                infostate.encode_state(table.state, (seat + 1) % len(table.possible_agents)),
            )
        legal = np.flatnonzero(observation["action_mask"])
        table.step(None if termination or truncation else int(policy.choice(list(legal))))


def test_without_the_option_the_observation_is_unchanged() -> None:
    table = raw_env(GAMES[0], SHORT[GAMES[0]])
    table.reset(seed=1)
    assert set(table.observe(table.agent_selection)) == {"observation", "action_mask"}


# --- the guide ------------------------------------------------------------------------------


def test_the_guide_s_tables_are_the_code_s() -> None:
    text = GUIDE.read_text(encoding="utf-8").split("## Training with the environments\n")[1]
    text = text.split("\n## ", 1)[0]
    rows, marks = {}, {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 5 and cells[0] in GAMES:
            rows[cells[0]] = cells[1:]
        if len(cells) == 3 and cells[0].startswith("`"):
            marks[cells[0].strip("`")] = cells[1]
    assert sorted(rows) == GAMES
    for game, (size, present, memory, hand) in rows.items():
        seats = get_game(game).info.num_seats
        assert int(size) == infostate.information_state_tensor_size(game)
        assert int(present) == layouts.tensor_size(game)
        assert memory == ", ".join(f"{n} {seats}x{w}" for n, w, _ in infostate.blocks(game))
        assert hand == " ".join(f"`{f}`" for f in infostate.hand_fields(game)) + " changes"
    named = {n for g in GAMES for n, _, _ in infostate.blocks(g)}
    assert set(marks) == named
    for name, games in marks.items():
        having = [g for g in GAMES if name in {n for n, _, _ in infostate.blocks(g)}]
        if games.startswith("all but "):
            assert sorted(set(GAMES) - set(having)) == [games.removeprefix("all but ")]
        elif games != "all":
            assert sorted(games.split(", ")) == having
