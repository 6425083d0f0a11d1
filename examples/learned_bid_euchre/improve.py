"""The whole recipe: imitate ``bid-euchre-basic``, then improve on it in the auction.

1. Imitation (``train.py``): the policy copies the teacher's every decision.
2. Values (``rollouts.py``): in teacher matches, every legal action of every auction
   decision (call, trump, ASK exchange) is played out to the hand's end.
3. A value network is fitted to those playouts by least squares: for an observation and
   an action it predicts the hand's points for the acting team less the others', the
   teacher carrying on. The hidden cards average out in the fit.
4. One step of policy improvement: at every auction decision of the imitation data and of
   the valued data, the label becomes the action the value network rates best, where it
   rates it ``--margin`` points above the teacher's; card play keeps the teacher's labels.
   The imitation policy is trained further on these labels.

The policy shipped is still one forward pass per move; the value network only makes its
labels and is not saved. Everything random comes from ``--seed``; the playouts are split by
deal seed, so ``--workers`` changes the time taken, not the result.

    python -m examples.learned_bid_euchre.improve --seed 1 --workers 2 \
        --out examples/learned_bid_euchre/model.npz
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

from examples.learned_bid_euchre import features, rollouts, train
from examples.learned_bid_euchre.model import Policy

VALUE_HIDDEN = [128, 64]
VALUE_SCALE = 6.0
"""Points per unit of the value network's output: keeps its targets near unit size."""
KINDS = {"call": (2, 8), "trump": (8, 12), "exchange": (12, 60)}
"""Auction decisions by the range of their action ids (``bid_euchre.actions``); the
joker variant's exchange ids (109, 110) are not valued."""


def fit_values(data: rollouts.Valued, epochs: int, seed: int, lr: float = 1e-3) -> Policy:
    """Least squares of the network's output on each legal action's playout value."""
    rng = np.random.default_rng(seed)
    mean, scale = train.standardizer(data.x)
    net = Policy.initial([features.SIZE, *VALUE_HIDDEN, features.NUM_ACTIONS], rng, mean, scale)
    target = data.q / VALUE_SCALE

    def gradients(net: Policy, rows: np.ndarray) -> tuple[float, list[np.ndarray]]:
        outputs = net.hidden(data.x[rows])
        err = (outputs[-1] - target[rows]) * data.mask[rows]
        delta = 2.0 * err / len(rows)
        return float((err * err).sum() / len(rows)), train.backward(net, outputs, delta)

    losses = train.adam(net, len(data.q), gradients, epochs, rng, lr, 256)
    print(f"value fit: squared error {losses[0]:.3f} first epoch, {losses[-1]:.3f} last")
    return net


def values(net: Policy, x: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Predicted points of each action; illegal ones at minus infinity."""
    return np.where(mask > 0, net.hidden(x)[-1] * VALUE_SCALE, -np.inf)


def kind_of(mask: np.ndarray) -> np.ndarray:
    """Each row's decision kind: its index in ``KINDS``, or -1 (card play, or no choice)."""
    kinds = np.full(len(mask), -1)
    choices = mask.sum(axis=1) > 1
    for k, (low, high) in enumerate(KINDS.values()):
        inside = mask[:, low:high].sum(axis=1) == mask.sum(axis=1)
        kinds[inside & choices] = k
    return kinds


def relabel(
    net: Policy,
    x: np.ndarray,
    mask: np.ndarray,
    teacher: np.ndarray,
    margin: float,
    kinds: set[int],
) -> np.ndarray:
    """The teacher's labels, replaced at decisions of the given kinds by the action rated
    best where it is rated ``margin`` points above the teacher's."""
    labels = teacher.copy()
    rows = np.flatnonzero(np.isin(kind_of(mask), list(kinds)))
    if len(rows):
        v = values(net, x[rows], mask[rows])
        best = v.argmax(axis=1)
        gain = v[np.arange(len(rows)), best] - v[np.arange(len(rows)), teacher[rows]]
        labels[rows] = np.where(gain > margin, best, teacher[rows])
    return labels


def changes(mask: np.ndarray, old: np.ndarray, new: np.ndarray) -> str:
    """How many labels changed, by decision kind."""
    kinds = kind_of(mask)
    parts = []
    for k, name in enumerate(KINDS):
        rows = kinds == k
        parts.append(f"{name} {int((old[rows] != new[rows]).sum())} of {int(rows.sum())}")
    return "labels changed: " + ", ".join(parts)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    add = parser.add_argument
    add("--episodes", type=int, default=800, help="imitation matches")
    add("--epochs", type=int, default=10, help="imitation epochs")
    add("--explore", type=float, default=0.15, help="chance of a random move in the data")
    add("--value-matches", type=int, default=800, help="matches whose auctions are played out")
    add("--value-epochs", type=int, default=12)
    add("--tune-epochs", type=int, default=3, help="epochs on the improved labels")
    add("--margin", type=float, default=0.25, help="points above the teacher's action")
    add("--improve", default="call,trump,exchange", help="decision kinds to relabel")
    add("--workers", type=int, default=1, help="processes for the playouts")
    add("--seed", type=int, default=1)
    add("--out", type=Path, required=True, help="where to write the .npz")
    args = parser.parse_args(argv)
    started = time.monotonic()

    def log(text: str) -> None:
        print(f"[{time.monotonic() - started:5.0f} s] {text}", flush=True)

    data = train.collect(args.episodes, args.seed, args.explore)
    policy, losses = train.fit(data, args.epochs, args.seed)
    log(f"imitation: {len(data.y)} decisions, loss {losses[-1]:.4f}")
    valued = rollouts.collect(args.value_matches, args.seed + 1, args.explore, args.workers)
    log(f"playouts: {len(valued.q)} auction decisions valued")
    net = fit_values(valued, args.value_epochs, args.seed + 2)
    kinds = {list(KINDS).index(name) for name in args.improve.split(",") if name}
    labels = relabel(net, data.x, data.mask, data.y, args.margin, kinds)
    extra = relabel(net, valued.x, valued.mask, valued.teacher, args.margin, kinds)
    log(changes(data.mask, data.y, labels))
    tuned = train.Data(
        np.concatenate([data.x, valued.x]),
        np.concatenate([data.mask, valued.mask]),
        np.concatenate([labels, extra]),
    )
    policy, losses = train.fit(tuned, args.tune_epochs, args.seed + 3, start=policy)
    log(f"tuned on improved labels: loss {losses[-1]:.4f}")
    policy.save(args.out)
    saved = Policy.load(args.out)
    log(
        f"agreement with the improved labels {train.accuracy(saved, tuned):.1%}; "
        f"wrote {args.out} ({args.out.stat().st_size:,} bytes)"
    )


if __name__ == "__main__":
    main()
