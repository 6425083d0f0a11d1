"""The policy: a small multilayer perceptron in plain numpy, with a masked softmax.

numpy is already a dependency of the arena, so the bot needs nothing else to run, and a
network this size decides in well under a millisecond on a CPU. Inputs are standardized
with the training data's mean and spread, kept in the model so a caller passes the raw
feature vector. Illegal actions get no probability at all: the bot can only answer a
legal id. Weights are stored as float16 in a compressed ``.npz``, which keeps the
checked-in file small; inference runs in float32.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

FloatArray = np.ndarray
NEG = np.float32(-1e9)
"""Logit of an illegal action: its softmax weight underflows to exactly 0."""


@dataclass
class Policy:
    """Layers ``weights[i]``, ``biases[i]``; ReLU between them, logits out."""

    mean: FloatArray
    scale: FloatArray
    weights: list[FloatArray] = field(default_factory=list)
    biases: list[FloatArray] = field(default_factory=list)

    @classmethod
    def initial(
        cls, sizes: list[int], rng: np.random.Generator, mean: FloatArray, scale: FloatArray
    ) -> Policy:
        """He-initialized layers of the given sizes (inputs first, actions last)."""
        weights = [
            (rng.standard_normal((a, b)) * np.sqrt(2.0 / a)).astype(np.float32)
            for a, b in itertools.pairwise(sizes)
        ]
        biases = [np.zeros(b, dtype=np.float32) for b in sizes[1:]]
        return cls(mean.astype(np.float32), scale.astype(np.float32), weights, biases)

    def hidden(self, x: FloatArray) -> list[FloatArray]:
        """Every layer's output for a batch ``x`` (standardized input first, logits last)."""
        outputs = [(x - self.mean) * self.scale]
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            z = outputs[-1] @ w + b
            outputs.append(z if i == len(self.weights) - 1 else np.maximum(z, 0.0))
        return outputs

    def logits(self, x: FloatArray, mask: np.ndarray) -> FloatArray:
        """Logits of a batch, illegal actions pushed to ``NEG``."""
        return np.where(mask > 0, self.hidden(x)[-1], NEG)

    def probabilities(self, x: FloatArray, mask: np.ndarray) -> FloatArray:
        z = self.logits(x, mask)
        z = z - z.max(axis=-1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=-1, keepdims=True)  # type: ignore[no-any-return]

    def choose(self, x: FloatArray, mask: np.ndarray) -> int:
        """The most probable legal action for one input vector."""
        return int(np.argmax(self.logits(x[None, :], mask[None, :])[0]))

    def save(self, path: Path) -> None:
        arrays = {"mean": self.mean, "scale": self.scale}
        for i, (w, b) in enumerate(zip(self.weights, self.biases, strict=True)):
            arrays[f"w{i}"] = w.astype(np.float16)
            arrays[f"b{i}"] = b.astype(np.float16)
        with open(path, "wb") as out:  # a file object: savez would append ".npz" to a name
            np.savez_compressed(out, **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path) -> Policy:
        with np.load(path) as data:
            layers = sum(1 for name in data.files if name.startswith("w"))
            return cls(
                data["mean"].astype(np.float32),
                data["scale"].astype(np.float32),
                [data[f"w{i}"].astype(np.float32) for i in range(layers)],
                [data[f"b{i}"].astype(np.float32) for i in range(layers)],
            )
