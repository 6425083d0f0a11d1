"""The learned Bid Euchre example: its training runs and is reproducible, and the
checked-in model plays legally through a real referee and beats random."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

from arena import wire
from arena.bots.examples import RandomBot
from arena.bots.local import play_in_process
from arena.bots.named import bot_factory
from arena.envs import raw_env
from arena.processes import Service, start_service
from arena.v1 import referee_pb2, referee_pb2_grpc
from examples.learned_bid_euchre import features, train
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
    assert MODEL.stat().st_size < 100_000
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
