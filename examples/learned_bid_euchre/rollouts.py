"""Action values for the auction's decisions, measured by playing each action out.

Matches are played by the teacher (``bid-euchre-basic``), a seat moving at random with
probability ``explore`` so that the decisions after unusual calls are seen too. At every
decision before the first card is played that has a choice (call, trump, the card given
for an ASK, a free return), each legal action is tried on a copy of the true state and the
hand is played out by the teacher in every seat; the action's value is the acting team's
points in that hand less the other team's. A single playout sees the real hidden cards,
so one value is noisy, but its mean over the deals that fit an observation is the value of
the action in that observation when the teacher carries on: a regression on these values
(``improve.py``) learns exactly that, and no determinization is needed.

Matches are split into chunks by seed, each chunk fully determined by its seed, so the
data is the same whatever the number of worker processes.
"""

from __future__ import annotations

import copy
import random
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass

import numpy as np

from arena import wire
from arena.games import State, get_game
from arena.games.bid_euchre.actions import ACTION_CARD
from arena.games.bid_euchre.bot import BidEuchreBasicBot, play_card
from arena.v1 import bot_pb2
from examples.learned_bid_euchre import features
from examples.learned_bid_euchre.train import EVAL_SEEDS

FIRST_PLAY = 60
"""Action ids below this one are the auction's (calls, trump, ASK exchange): the
decisions whose actions are valued. Card plays start here (``bid_euchre.actions``)."""
TEAMS = (0, 1, 0, 1)
"""Each seat's team: partners sit opposite."""
PLAY = "play"


@dataclass
class Valued:
    x: np.ndarray
    """Feature vectors, one row per decision."""
    mask: np.ndarray
    """Legal-action masks."""
    q: np.ndarray
    """Each legal action's value (points for the acting team less the others' in the
    hand, after one playout); 0 where illegal."""
    teacher: np.ndarray
    """The teacher's action at each decision."""

    @staticmethod
    def join(parts: list[Valued]) -> Valued:
        return Valued(
            np.concatenate([p.x for p in parts]),
            np.concatenate([p.mask for p in parts]),
            np.concatenate([p.q for p in parts]),
            np.concatenate([p.teacher for p in parts]),
        )


_TEACHER = BidEuchreBasicBot()


def request(state: State) -> bot_pb2.ActRequest:
    """What the referee would send the seat to act."""
    return wire.act_request(
        state, match_id="r", decision_index=0, deadline_s=1.0, legal=state.legal_actions()
    )


def teacher_action(state: State) -> int:
    return _TEACHER.act(request(state))


def clone(state: State) -> State:
    """A copy to play on, much cheaper than ``copy.deepcopy``: the state's lists are
    copied two levels deep (hands are lists of cards; everything else in them, cards,
    calls, tricks, is immutable), its random generator is copied, and its event log is
    left out (nothing here reads it)."""
    sim = copy.copy(state)
    for name, value in vars(state).items():
        if isinstance(value, list):
            setattr(sim, name, [list(v) if isinstance(v, list) else v for v in value])
        elif isinstance(value, random.Random):
            twin = random.Random()
            twin.setstate(value.getstate())
            setattr(sim, name, twin)
    sim.events = []
    return sim


def fast_teacher(state: State) -> int:
    """The teacher's card play read straight from the state, without building the
    request; the same choice as ``BidEuchreBasicBot`` (a test checks it), which it asks
    for every other decision."""
    if state.phase != PLAY:  # type: ignore[attr-defined]
        return teacher_action(state)
    cards = {ACTION_CARD[a]: a for a in state.legal_actions()}
    trick = [(p.seat, p.card) for p in state.trick]  # type: ignore[attr-defined]
    return play_card(state.trump, trick, state.current_seat(), cards)  # type: ignore[attr-defined]


def hand_value(state: State, action: int, seat: int) -> int:
    """Points of ``seat``'s team less the others' in this hand, after ``action`` on a
    copy of ``state`` and the teacher everywhere to the hand's end."""
    sim = clone(state)
    before = list(sim.scores())
    scored = sim.hands_scored  # type: ignore[attr-defined]
    sim.apply(action)
    while sim.hands_scored == scored and not sim.is_terminal():  # type: ignore[attr-defined]
        sim.apply(fast_teacher(sim))
    after = sim.scores()
    team = TEAMS[seat]
    return (after[team] - before[team]) - (after[1 - team] - before[1 - team])


def play_chunk(seeds: list[int], explore: float, seed: int) -> Valued:
    """Play a match per deal seed and value every auction decision with a choice."""
    pick = random.Random(seed)
    game = get_game(features.GAME)
    xs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    qs: list[np.ndarray] = []
    labels: list[int] = []
    for deal_seed in seeds:
        state = game.new_state(deal_seed, None)
        while not state.is_terminal():
            legal = state.legal_actions()
            req = request(state)
            label = _TEACHER.act(req)
            if len(legal) > 1 and max(legal) < FIRST_PLAY:
                q = np.zeros(features.NUM_ACTIONS, dtype=np.float32)
                for action in legal:
                    q[action] = hand_value(state, action, state.current_seat())
                xs.append(features.from_request(req))
                masks.append(features.legal_mask(req))
                qs.append(q)
                labels.append(label)
            state.apply(pick.choice(legal) if pick.random() < explore else label)
    if not xs:
        empty = np.zeros((0, features.NUM_ACTIONS), dtype=np.float32)
        return Valued(np.zeros((0, features.SIZE), np.float32), empty.astype(np.int8), empty,
                      np.zeros(0, np.int64))  # fmt: skip
    return Valued(np.stack(xs), np.stack(masks), np.stack(qs), np.array(labels, dtype=np.int64))


def collect(matches: int, seed: int, explore: float, workers: int, chunk: int = 10) -> Valued:
    """Value the auction decisions of ``matches`` matches, ``workers`` processes at once."""
    pick = random.Random(seed)
    seeds = [pick.randrange(EVAL_SEEDS, 2**31) for _ in range(matches)]
    chunks = [seeds[i : i + chunk] for i in range(0, len(seeds), chunk)]
    chunk_seeds = [pick.randrange(2**31) for _ in chunks]
    if workers <= 1:
        parts = [play_chunk(c, explore, s) for c, s in zip(chunks, chunk_seeds, strict=True)]
    else:
        with ProcessPoolExecutor(workers) as pool:
            parts = list(pool.map(play_chunk, chunks, [explore] * len(chunks), chunk_seeds))
    return Valued.join(parts)
