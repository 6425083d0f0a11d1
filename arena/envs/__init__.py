"""PettingZoo AEC environments for the five games (the optional extra ``card-arena[envs]``).

``arena.envs.env("seep")`` is a wrapped environment, ``raw_env`` the bare
``CardArenaEnv``; ``arena.envs.aec`` says what observations, actions and rewards are,
``arena.envs.layouts`` how an observation becomes a tensor. Nothing else in ``arena``
imports this package, so PettingZoo loads only when it is used.
"""

from arena.envs.aec import CardArenaEnv, env, raw_env
from arena.envs.layouts import action_space_size, layout, tensor_size

__all__ = ["CardArenaEnv", "action_space_size", "env", "layout", "raw_env", "tensor_size"]
