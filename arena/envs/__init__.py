"""PettingZoo AEC environments for the arena's games (the optional extra ``card-arena[envs]``).

``arena.envs.env(name)`` is a wrapped environment, ``raw_env`` the bare
``CardArenaEnv``; ``arena.envs.aec`` says what observations, actions and rewards are,
``arena.envs.layouts`` how an observation becomes a tensor, ``arena.envs.infostate`` the
information state tensor (the observation tensor and a memory of the hand). Nothing else
in ``arena`` imports this package, and PettingZoo loads only when an environment is asked
for: ``arena.envs.layouts`` and ``arena.envs.infostate`` need numpy alone (the OpenSpiel
adapter's observation tensors are these same tensors).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from arena.envs.layouts import action_space_size, layout, tensor_size

if TYPE_CHECKING:
    from arena.envs.aec import CardArenaEnv, env, raw_env

__all__ = ["CardArenaEnv", "action_space_size", "env", "layout", "raw_env", "tensor_size"]


def __getattr__(name: str) -> Any:
    if name in ("CardArenaEnv", "env", "raw_env"):
        return getattr(importlib.import_module("arena.envs.aec"), name)
    raise AttributeError(f"module 'arena.envs' has no attribute {name!r}")
