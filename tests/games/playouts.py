"""Random playouts for the engines' property tests: one loop, checks passed in."""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from typing import TypeVar

from arena.games.api import State

S = TypeVar("S", bound=State)


def playout(
    new_state: Callable[[int, Mapping[str, object]], S],
    seed: int,
    policy_seed: int,
    options: Mapping[str, object],
    each_step: Callable[[S, random.Random], None] | None = None,
    step_limit: int = 20_000,
) -> tuple[S, list[int]]:
    """Play a match to the end at random; ``each_step`` checks the state before each
    move and once at the end, and every action's first event must be its actor's."""
    state = new_state(seed, options)
    policy = random.Random(policy_seed)
    actions: list[int] = []
    while not state.is_terminal():
        assert len(actions) < step_limit, "the match does not end"
        if each_step is not None:
            each_step(state, policy)
        legal = state.legal_actions()
        assert legal, "only a finished match has no legal action"
        action = policy.choice(legal)
        actor, before = state.current_seat(), len(state.events)
        state.apply(action)
        assert state.events[before].seat == actor, "an action's own event comes first"
        actions.append(action)
    if each_step is not None:
        each_step(state, policy)
    return state, actions


def legal_list_is_canonical(state: State, _: random.Random) -> None:
    """Ids ascend without repeats, texts are unique, and only the end has none."""
    legal = state.legal_actions()
    assert legal == sorted(set(legal))
    assert (legal == []) == state.is_terminal() == (state.current_seat() == -1)
    texts = [state.action_text(a) for a in legal]
    assert len(set(texts)) == len(texts)
