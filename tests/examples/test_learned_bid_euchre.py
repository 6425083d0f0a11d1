"""The learned Bid Euchre example: its training and the whole improvement recipe run
and are reproducible, the playouts are exact, and the checked-in model plays legally
through a real referee and beats random."""

from __future__ import annotations

import copy
import random
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from arena import wire
from arena.bots.examples import RandomBot
from arena.bots.local import play_in_process
from arena.bots.named import bot_factory
from arena.envs import raw_env
from arena.games import State, get_game
from arena.processes import Service, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc
from examples.learned_bid_euchre import evaluate, features, improve, rollouts, train
from examples.learned_bid_euchre.bot import MODEL, LearnedBidEuchreBot
from examples.learned_bid_euchre.model import Policy

ROOT = Path(__file__).resolve().parents[2]
BOT_FILE = ROOT / "examples" / "learned_bid_euchre" / "bot.py"
DEALS = 10


def _weights(path: Path) -> list[np.ndarray]:
    policy = Policy.load(path)
    return [policy.mean, policy.scale, *policy.weights, *policy.biases]


def test_training_runs_on_a_tiny_budget_and_writes_a_model_that_plays(tmp_path: Path) -> None:
    out = tmp_path / "tiny.npz"
    done = subprocess.run(
        [sys.executable, "-m", "examples.learned_bid_euchre.train",
         "--episodes", "2", "--epochs", "1", "--seed", "3", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "agreement with the teacher" in done.stdout
    bot = LearnedBidEuchreBot(out)
    state = play_in_process("bid-euchre", [bot, RandomBot(seed=2)], seed=5)  # raises if illegal
    assert state.is_terminal()


def _served_model_plays(stub: referee_pb2_grpc.RefereeStub, model: Path, other: str) -> None:
    learned = start_service([sys.executable, str(BOT_FILE), "--port", "0", "--model", str(model)])
    try:
        result = stub.PlayMatch(
            referee_pb2.PlayMatchRequest(
                game="bid-euchre",
                bots=[learned.address, other],
                seed=21,
                move_deadline=wire.duration(5.0),
            ),
            timeout=60,
        )
    finally:
        learned.stop()
    assert result.end == referee_pb2.MATCH_END_COMPLETED
    assert list(result.seat_faults) == [0, 0, 0, 0]


TINY = ["--episodes", "1", "--epochs", "1", "--value-matches", "1", "--value-epochs", "1",
        "--tune-epochs", "1"]  # fmt: skip


def test_the_whole_recipe_runs_on_a_tiny_budget_and_its_model_plays_through_a_referee(
    tmp_path: Path, referee_stub: referee_pb2_grpc.RefereeStub, random_bot: Service
) -> None:
    out = tmp_path / "improved.npz"
    done = subprocess.run(
        [sys.executable, "-m", "examples.learned_bid_euchre.improve", *TINY,
         "--seed", "3", "--workers", "2", "--out", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for phase in ("imitation:", "playouts:", "value fit:", "labels changed:", "tuned on"):
        assert phase in done.stdout
    _served_model_plays(referee_stub, out, random_bot.address)


def test_the_recipe_gives_the_same_weights_for_a_seed_whatever_the_workers(
    tmp_path: Path,
) -> None:
    for name, seed, workers in (("a", 4, 1), ("b", 4, 2), ("c", 5, 1)):
        out = tmp_path / f"{name}.npz"
        improve.main([*TINY, "--seed", str(seed), "--workers", str(workers), "--out", str(out)])
    a, b, c = (_weights(tmp_path / f"{n}.npz") for n in "abc")
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def _walk(seeds: range, check: Callable[[State], None], hands: int = 100) -> int:
    """Calls ``check`` on every state of teacher matches with random moves mixed in, in
    each match's first ``hands`` hands; returns how many states it saw."""
    pick = random.Random(0)
    seen = 0
    for seed in seeds:
        state = get_game("bid-euchre").new_state(seed, None)
        while not state.is_terminal() and state.hands_scored < hands:  # type: ignore[attr-defined]
            check(state)
            seen += 1
            teacher = rollouts.teacher_action(state)
            state.apply(pick.choice(state.legal_actions()) if pick.random() < 0.3 else teacher)
    return seen


def test_the_fast_teacher_plays_as_the_teacher() -> None:
    def same(state: State) -> None:
        assert rollouts.fast_teacher(state) == rollouts.teacher_action(state)

    assert _walk(range(4), same) > 500


def _deep_value(state: State, action: int, seat: int) -> int:
    """``rollouts.hand_value`` on a full deep copy: what its cheap copy must match."""
    sim = copy.deepcopy(state)
    before, scored = list(sim.scores()), sim.hands_scored  # type: ignore[attr-defined]
    sim.apply(action)
    while sim.hands_scored == scored and not sim.is_terminal():  # type: ignore[attr-defined]
        sim.apply(rollouts.teacher_action(sim))
    team = seat % 2
    after = sim.scores()
    return (after[team] - before[team]) - (after[1 - team] - before[1 - team])


def test_a_playout_leaves_the_state_alone_and_values_as_on_a_deep_copy() -> None:
    def exact(state: State) -> None:
        snapshot = state.snapshot()
        for action in state.legal_actions():
            seat = state.current_seat()
            assert rollouts.hand_value(state, action, seat) == _deep_value(state, action, seat)
        assert state.snapshot() == snapshot

    assert _walk(range(3), exact, hands=1) > 50


def _constant_values(points: dict[int, float]) -> Policy:
    """A value network that rates action ``a`` at ``points[a]`` whatever it sees."""
    size = features.SIZE
    last = np.zeros(features.NUM_ACTIONS, dtype=np.float32)
    for action, value in points.items():
        last[action] = value / improve.VALUE_SCALE
    weights = [np.zeros((size, 4), np.float32), np.zeros((4, features.NUM_ACTIONS), np.float32)]
    biases = [np.zeros(4, np.float32), last]
    return Policy(np.zeros(size, np.float32), np.ones(size, np.float32), weights, biases)


@pytest.mark.parametrize(
    ("margin", "kinds", "call_label"),
    [(0.25, {0, 1, 2}, 4), (3.0, {0, 1, 2}, 2), (0.25, {1, 2}, 2)],
)
def test_relabelling_takes_the_best_rated_action_only_past_the_margin(
    margin: float, kinds: set[int], call_label: int
) -> None:
    """Row 0 a call (pass, 3, 4 legal), row 1 a card play: only the call may change, to
    the call rated 2 points above the teacher's, if calls are relabelled and 2 > margin."""
    mask = np.zeros((2, features.NUM_ACTIONS), np.int8)
    mask[0, [2, 3, 4]] = 1
    mask[1, [60, 61]] = 1
    net = _constant_values({2: 0.0, 3: -1.0, 4: 2.0, 60: 0.0, 61: 9.0})
    x = np.zeros((2, features.SIZE), np.float32)
    labels = improve.relabel(net, x, mask, np.array([2, 60]), margin, kinds)
    assert labels.tolist() == [call_label, 60]


def test_the_strength_summary_counts_pairs_los_and_elo() -> None:
    even = evaluate.Summary([3, -3, 0, 5, -1])
    assert (even.won, even.drawn, even.lost) == (2, 1, 2)
    assert even.los == 0.5 and even.elo == 0.0
    better = evaluate.Summary([1] * 60 + [-1] * 40)
    assert 0.97 < better.los < 0.98  # Phi(2)
    assert 69 < better.elo < 71  # a 60% score


def test_the_same_seed_trains_the_same_weights(tmp_path: Path) -> None:
    for name, seed in (("a", 4), ("b", 4), ("c", 5)):
        train.main(["--episodes", "1", "--epochs", "1", "--seed", str(seed),
                    "--out", str(tmp_path / f"{name}.npz")])  # fmt: skip
    a, b, c = (_weights(tmp_path / f"{n}.npz") for n in "abc")
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))


def test_training_and_play_see_the_same_features() -> None:
    """The environment's tensor and mask, as training reads them, equal what the bot
    builds from the referee's request."""
    env = raw_env("bid-euchre")
    env.reset(seed=12)
    pick = np.random.default_rng(0)
    for _ in range(60):
        assert env.state is not None
        agent = env.agent_selection
        seen, request = env.observe(agent), env.act_request()
        trained_on = np.concatenate([seen["observation"], features.trick_cards(request.bid_euchre)])
        sent = wire.act_request(
            env.state, match_id="m", decision_index=0, deadline_s=1.0,
            legal=env.legal_action_ids(),
        )  # fmt: skip
        assert np.array_equal(trained_on, features.from_request(sent))
        assert np.array_equal(seen["action_mask"], features.legal_mask(sent))
        env.step(int(pick.choice(env.legal_action_ids())))


def test_the_checked_in_model_is_small_and_loads_from_its_file_path() -> None:
    assert MODEL.stat().st_size < 200_000
    bot = bot_factory(f"{BOT_FILE}:LearnedBidEuchreBot")()
    assert bot.name == "learned-bid-euchre"


def test_the_served_model_plays_a_whole_match_through_a_real_referee(
    referee_stub: referee_pb2_grpc.RefereeStub, random_bot: Service
) -> None:
    learned = start_service([sys.executable, str(BOT_FILE), "--port", "0"])
    try:
        result = referee_stub.PlayMatch(
            referee_pb2.PlayMatchRequest(
                game="bid-euchre",
                bots=[learned.address, random_bot.address],
                seed=21,
                move_deadline=wire.duration(5.0),
            ),
            timeout=60,
        )
    finally:
        learned.stop()
    assert result.end == referee_pb2.MATCH_END_COMPLETED
    assert list(result.seat_faults) == [0, 0, 0, 0]
    assert result.winner_team == 0


def test_the_checked_in_model_beats_random_over_duplicate_deals() -> None:
    """Each deal twice, teams swapped; the total margin over the pairs must be positive,
    and most pairs won."""
    learned, rand = LearnedBidEuchreBot(), RandomBot(seed=1)
    margins = []
    for seed in range(DEALS):
        a = play_in_process("bid-euchre", [learned, rand], seed, match_id=f"a{seed}").scores()
        b = play_in_process("bid-euchre", [rand, learned], seed, match_id=f"b{seed}").scores()
        margins.append((a[0] - a[1]) + (b[1] - b[0]))
    assert sum(margins) > 0
    assert sum(m > 0 for m in margins) >= 0.8 * DEALS
