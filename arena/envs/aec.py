"""A PettingZoo AEC environment over any of the five engines.

Agents are ``seat_0`` .. ``seat_{n-1}``; the agent to act is the engine's seat to act.

Observation of an agent: ``{"observation": float32 tensor, "action_mask": int8 mask}``,
as PettingZoo's classic environments give it. The tensor's layout is in
``arena.envs.layouts`` (one rule for every game); the mask is all zeros for an agent
that is not to act. The same observation as a dict, exactly the observation message the
referee sends that seat's bot (``MessageToDict(..., preserving_proto_field_name=True)``
of the game's field of ``ActRequest.observation``), is ``observe_dict(agent)``; the
whole ``ActRequest`` of the seat to act is ``act_request()``.

With ``information_state=True`` the dict has a third entry, ``"information_state"``:
the seat's information state tensor (``arena.envs.infostate``), the observation tensor
followed by the memory of what the seat has seen this hand, folded over the observations
it was sent when it was to act, as a bot would keep it.

Actions: games with dense ids take the engine's stable action ids; games whose ids are
too large for a mask take an index into the legal list (``action_id(index)`` is the id).
``layouts`` says why. ``infos[agent]`` of the agent to act holds ``legal_action_ids``,
the engine's ids of its legal actions.

Rewards are per team, and every seat of a team gets its team's reward:

* at the end of each hand (the engine's ``hand_end`` event), the change in the team's
  ``State.scores()`` since the previous hand (in the game's ``score_unit``: where the
  scores count games won within the match, it is 1 to the team that wins one);
  ``hand_rewards=False`` leaves these out;
* at the end of the match, in addition, +1 to the winning team, -1 to the others, 0 to
  all for a draw (``match_reward`` scales it).

``reset(seed=S)`` deals the match the referee deals from seed S (the same seed, options
and actions give the same observations, legal actions and scores as a match played
through the referee); ``reset()`` without a seed deals the next seed of a generator
seeded by the last one. ``reset(options={"game_options": {...}})`` sets game options for
that match on top of those the environment was made with (other keys are ignored).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import numpy as np
from google.protobuf import json_format
from gymnasium import spaces
from pettingzoo import AECEnv  # type: ignore[import-untyped]
from pettingzoo.utils import wrappers  # type: ignore[import-untyped]

from arena import wire
from arena.envs import infostate, layouts
from arena.games import GameError, IllegalActionError, State, get_game
from arena.v1 import bot_pb2

HAND_END = "hand_end"
"""The event kind every engine logs when a hand is scored."""

ObsType = dict[str, np.ndarray]


class CardArenaEnv(AECEnv):  # type: ignore[misc]
    """One match of a game at a time; see the module docstring."""

    metadata: dict[str, Any] = {  # noqa: RUF012 - PettingZoo's convention
        "name": "card_arena_v0",
        "render_modes": ["human", "ansi"],
        "is_parallelizable": False,
    }

    def __init__(
        self,
        game: str,
        options: Mapping[str, object] | None = None,
        *,
        render_mode: str | None = None,
        hand_rewards: bool = True,
        match_reward: float = 1.0,
        information_state: bool = False,
    ) -> None:
        super().__init__()
        self.game = get_game(game)
        self.game_name = self.game.info.name
        self.options = dict(self.game.info.resolve_options(options))
        self.hand_rewards = hand_rewards
        self.match_reward = match_reward
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.render_mode = render_mode
        self.metadata = {**self.metadata, "name": f"card_arena_{self.game_name}_v0"}
        info = self.game.info
        self.possible_agents = [f"seat_{s}" for s in range(info.num_seats)]
        self.agents = list(self.possible_agents)
        self._num_actions = layouts.action_space_size(self.game_name)
        self._uses_ids = layouts.uses_ids(self.game_name)
        size = layouts.tensor_size(self.game_name)
        entries: dict[str, spaces.Space[Any]] = {
            "observation": spaces.Box(-np.inf, np.inf, (size,), np.float32),
            "action_mask": spaces.Box(0, 1, (self._num_actions,), np.int8),
        }
        self.information_state = information_state
        if information_state:
            wide = infostate.information_state_tensor_size(self.game_name)
            entries["information_state"] = spaces.Box(-np.inf, np.inf, (wide,), np.float32)
        self.observation_spaces = {
            agent: spaces.Dict(dict(entries)) for agent in self.possible_agents
        }
        self.action_spaces: dict[str, spaces.Space[Any]] = {
            agent: spaces.Discrete(self._num_actions) for agent in self.possible_agents
        }
        self._seeds = random.Random()
        self._memories: list[infostate.Memory] = []
        self.state: State | None = None
        self.decision_index = 0
        self._rendered = 0

    # --- PettingZoo API ------------------------------------------------------------------

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._seeds.seed(seed)
            self.seed = seed
        else:
            self.seed = self._seeds.randrange(2**63)
        match_options = {**self.options, **(options or {}).get("game_options", {})}
        self.state = self.game.new_state(self.seed, match_options)
        self.agents = list(self.possible_agents)
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self._last_scores = self.state.scores()
        self._events_seen = len(self.state.events)
        if self.information_state:
            self._memories = [infostate.start(self.game_name, s) for s in range(len(self.agents))]
        self._rendered = 0
        self.decision_index = 0
        self._select()

    def observe(self, agent: str) -> ObsType:
        state = self._state()
        seat = self._seat(agent)
        message = wire.observation(self.game_name, state.observation(seat))
        mask = np.zeros(self._num_actions, dtype=np.int8)
        if not state.is_terminal() and state.current_seat() == seat:
            legal = state.legal_actions()
            if self._uses_ids:
                mask[legal] = 1
            else:
                mask[: len(legal)] = 1
        observed = {
            "observation": layouts.encode(self.game_name, seat, message),
            "action_mask": mask,
        }
        if self.information_state:
            memory = infostate.update(self._memories[seat], message)
            observed["information_state"] = infostate.tensor(memory)
        return observed

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        assert action is not None
        state = self._state()
        self._cumulative_rewards[agent] = 0.0
        state.apply(self.action_id(int(action)))
        self.decision_index += 1
        self.rewards = {a: 0.0 for a in self.agents}
        new_events = state.events[self._events_seen :]
        self._events_seen = len(state.events)
        if self.hand_rewards and (
            state.is_terminal() or any(e.kind == HAND_END for e in new_events)
        ):
            scores = state.scores()
            for a in self.agents:
                team = self._team(a)
                self.rewards[a] += float(scores[team] - self._last_scores[team])
            self._last_scores = scores
        if state.is_terminal():
            winner = state.winner()
            for a in self.agents:
                if winner is not None:
                    sign = 1.0 if self._team(a) == winner else -1.0
                    self.rewards[a] += sign * self.match_reward
                self.terminations[a] = True
        self._accumulate_rewards()
        self._select()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        """The text of the public events since the last render (and the scores)."""
        if self.render_mode is None:
            return None
        state = self._state()
        lines = [e.text for e in state.events[self._rendered :] if e.public]
        self._rendered = len(state.events)
        text = "\n".join([*lines, f"scores: {state.scores()}"])
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass

    # --- Beyond PettingZoo ---------------------------------------------------------------

    def observe_dict(self, agent: str) -> dict[str, Any]:
        """The observation the referee sends ``agent``'s bot, as a dict (proto field names)."""
        message = wire.observation(self.game_name, self._state().observation(self._seat(agent)))
        return json_format.MessageToDict(message, preserving_proto_field_name=True)

    def act_request(self, match_id: str = "env", deadline_s: float = 1.0) -> bot_pb2.ActRequest:
        """The ``ActRequest`` the referee would send the seat to act now."""
        state = self._state()
        return wire.act_request(
            state,
            match_id=match_id,
            decision_index=self.decision_index,
            deadline_s=deadline_s,
            legal=state.legal_actions(),
        )

    def legal_action_ids(self) -> list[int]:
        """The engine's ids of the legal actions of the seat to act (ascending)."""
        state = self._state()
        return [] if state.is_terminal() else state.legal_actions()

    def action_id(self, action: int) -> int:
        """The engine's id of an environment action (the same number for games that
        take ids; for games that take indices, the id at that index of the legal list)."""
        legal = self._state().legal_actions()
        if self._uses_ids:
            if action not in legal:
                raise IllegalActionError(f"{self.game_name}: action {action} is not legal")
            return action
        if not 0 <= action < len(legal):
            raise IllegalActionError(
                f"{self.game_name}: action index {action} is outside the {len(legal)} legal"
            )
        return legal[action]

    def scores(self) -> list[int]:
        return self._state().scores()

    # --- Inside --------------------------------------------------------------------------

    def _state(self) -> State:
        if self.state is None:
            raise GameError("call reset() first")
        return self.state

    def _seat(self, agent: str) -> int:
        return self.possible_agents.index(agent)

    def _team(self, agent: str) -> int:
        return self.game.info.seat_teams[self._seat(agent)]

    def _select(self) -> None:
        state = self._state()
        for a in self.agents:
            self.infos[a] = {}
        if state.is_terminal():
            self.agent_selection = self.agents[0] if self.agents else self.possible_agents[0]
            return
        legal = state.legal_actions()
        if not self._uses_ids and len(legal) > self._num_actions:
            raise GameError(
                f"{self.game_name}: {len(legal)} legal actions, more than the "
                f"{self._num_actions} the environment's action space indexes"
            )
        seat = state.current_seat()
        self.agent_selection = self.possible_agents[seat]
        self.infos[self.agent_selection] = {"legal_action_ids": legal}
        if self.information_state:  # the seat is sent this observation: it remembers it
            message = wire.observation(self.game_name, state.observation(seat))
            self._memories[seat] = infostate.update(self._memories[seat], message)


def raw_env(game: str, options: Mapping[str, object] | None = None, **kwargs: Any) -> CardArenaEnv:
    """The environment without PettingZoo's wrappers: illegal actions raise."""
    return CardArenaEnv(game, options, **kwargs)


def env(game: str, options: Mapping[str, object] | None = None, **kwargs: Any) -> AECEnv:
    """The environment in PettingZoo's usual wrappers, as its classic games come: an
    illegal action ends the match with -1 to the agent that made it, actions outside the
    space are refused, and the API's order (reset first) is enforced."""
    made = wrappers.TerminateIllegalWrapper(raw_env(game, options, **kwargs), illegal_reward=-1)
    made = wrappers.AssertOutOfBoundsWrapper(made)
    return wrappers.OrderEnforcingWrapper(made)
