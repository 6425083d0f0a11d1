"""Train the policy by imitation of ``bid-euchre-basic``, in minutes on one CPU core.

Why imitation: the rule-based bot already beats random in every match, and copying it
needs only labelled positions and cross-entropy, no value estimates or long self-play.
Matches are played in ``arena.envs.raw_env("bid-euchre")``, the teacher in every seat.
With probability ``--explore`` a seat moves at random instead, so the data also holds
positions the teacher alone never reaches (a random opponent makes them all the time);
every position is labelled with what the teacher would do there. The network is then
fitted by minibatch Adam on the masked cross-entropy.

Everything random comes from ``--seed`` (deal seeds, exploration, initial weights and
batch order), so a seed gives the same weights on the same machine.

    python -m examples.learned_bid_euchre.train --episodes 800 --epochs 10 --seed 1 \
        --out examples/learned_bid_euchre/model.npz
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from arena.envs import raw_env
from arena.games.bid_euchre.bot import BidEuchreBasicBot
from examples.learned_bid_euchre import features
from examples.learned_bid_euchre.model import Policy

HIDDEN = [96, 64]
"""Two hidden layers: enough to copy the teacher closely, small enough to check in."""
EVAL_SEEDS = 1_000_000
"""Training deals use seeds from here up; seeds below are kept for evaluation."""
Gradients = Callable[[Policy, np.ndarray], tuple[float, list[np.ndarray]]]
"""A batch's loss and gradient (weights then biases) given the batch's row indices."""


@dataclass
class Data:
    x: np.ndarray
    """Feature vectors, one row per decision."""
    mask: np.ndarray
    """Legal-action masks (the environment's ``action_mask``)."""
    y: np.ndarray
    """The teacher's action id at each decision."""


def collect(episodes: int, seed: int, explore: float) -> Data:
    """Play ``episodes`` matches in the environment and label every decision."""
    env = raw_env(features.GAME)
    teacher = BidEuchreBasicBot()
    pick = random.Random(seed)
    xs: list[np.ndarray] = []
    masks: list[np.ndarray] = []
    ys: list[int] = []
    for _ in range(episodes):
        env.reset(seed=pick.randrange(EVAL_SEEDS, 2**31))
        while not all(env.terminations.values()):
            agent = env.agent_selection
            request = env.act_request()
            seen = env.observe(agent)
            x = np.concatenate([seen["observation"], features.trick_cards(request.bid_euchre)])
            label = teacher.act(request)
            xs.append(x)
            masks.append(seen["action_mask"])
            ys.append(label)
            legal = env.legal_action_ids()
            env.step(pick.choice(legal) if pick.random() < explore else label)
    return Data(np.stack(xs), np.stack(masks), np.array(ys, dtype=np.int64))


def standardizer(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and 1/spread per feature; a feature constant in the data keeps scale 1."""
    spread = x.std(axis=0)
    return x.mean(axis=0), np.where(spread > 1e-6, 1.0 / np.maximum(spread, 1e-6), 1.0)


def fit(
    data: Data,
    epochs: int,
    seed: int,
    lr: float = 2e-3,
    batch: int = 256,
    start: Policy | None = None,
) -> tuple[Policy, list[float]]:
    """Adam on the masked cross-entropy, from ``start`` or from fresh weights; returns the
    policy and each epoch's mean loss."""
    rng = np.random.default_rng(seed)
    if start is None:
        mean, scale = standardizer(data.x)
        sizes = [features.SIZE, *HIDDEN, features.NUM_ACTIONS]
        start = Policy.initial(sizes, rng, mean, scale)

    def gradients(policy: Policy, rows: np.ndarray) -> tuple[float, list[np.ndarray]]:
        return _gradients(policy, data.x[rows], data.mask[rows], data.y[rows])

    return start, adam(start, len(data.y), gradients, epochs, rng, lr, batch)


def adam(
    policy: Policy,
    size: int,
    gradients: Gradients,
    epochs: int,
    rng: np.random.Generator,
    lr: float,
    batch: int,
) -> list[float]:
    """Minibatch Adam on ``policy`` in place over ``size`` rows; each epoch's mean loss."""
    params = [*policy.weights, *policy.biases]
    moments = [np.zeros_like(p) for p in params]
    squares = [np.zeros_like(p) for p in params]
    beta1, beta2, step = 0.9, 0.999, 0
    losses: list[float] = []
    for _ in range(epochs):
        order = rng.permutation(size)
        total = 0.0
        for begin in range(0, size, batch):
            rows = order[begin : begin + batch]
            loss, grads = gradients(policy, rows)
            total += loss * len(rows)
            step += 1
            for p, g, m, v in zip(params, grads, moments, squares, strict=True):
                m *= beta1
                m += (1 - beta1) * g
                v *= beta2
                v += (1 - beta2) * g * g
                m_hat = m / (1 - beta1**step)
                v_hat = v / (1 - beta2**step)
                p -= (lr * m_hat / (np.sqrt(v_hat) + 1e-8)).astype(np.float32)
        losses.append(total / max(size, 1))
    return losses


def _gradients(
    policy: Policy, x: np.ndarray, mask: np.ndarray, y: np.ndarray
) -> tuple[float, list[np.ndarray]]:
    """Mean cross-entropy of a batch and its gradient, weights then biases."""
    outputs = policy.hidden(x)
    p = policy.probabilities(x, mask)
    rows = np.arange(len(y))
    loss = float(-np.log(p[rows, y] + 1e-12).mean())
    delta = p
    delta[rows, y] -= 1.0
    delta /= len(y)
    return loss, backward(policy, outputs, delta)


def backward(policy: Policy, outputs: list[np.ndarray], delta: np.ndarray) -> list[np.ndarray]:
    """The gradient, weights then biases, given each layer's output (``Policy.hidden``)
    and the loss's gradient with respect to the last one."""
    w_grads: list[np.ndarray] = []
    b_grads: list[np.ndarray] = []
    for i in reversed(range(len(policy.weights))):
        w_grads.insert(0, outputs[i].T @ delta)
        b_grads.insert(0, delta.sum(axis=0))
        if i:
            delta = (delta @ policy.weights[i].T) * (outputs[i] > 0)
    return [*w_grads, *b_grads]


def accuracy(policy: Policy, data: Data) -> float:
    """How often the policy picks the teacher's action."""
    chosen = policy.logits(data.x, data.mask).argmax(axis=1)
    return float((chosen == data.y).mean())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--episodes", type=int, default=800, help="matches to label")
    parser.add_argument("--epochs", type=int, default=10, help="passes over the data")
    parser.add_argument("--explore", type=float, default=0.15, help="chance of a random move")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--out", type=Path, required=True, help="where to write the .npz")
    args = parser.parse_args(argv)
    started = time.monotonic()
    data = collect(args.episodes, args.seed, args.explore)
    collected = time.monotonic()
    print(
        f"{len(data.y)} decisions from {args.episodes} matches in {collected - started:.0f} s",
        flush=True,
    )
    policy, losses = fit(data, args.epochs, args.seed)
    for epoch, loss in enumerate(losses, 1):
        print(f"epoch {epoch}: loss {loss:.4f}", flush=True)
    policy.save(args.out)
    saved = Policy.load(args.out)
    print(
        f"agreement with the teacher {accuracy(saved, data):.1%} (training data); "
        f"wrote {args.out} ({args.out.stat().st_size:,} bytes) "
        f"in {time.monotonic() - started:.0f} s"
    )


if __name__ == "__main__":
    main()
