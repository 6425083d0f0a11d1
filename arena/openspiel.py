"""The arena's games as OpenSpiel Python games, so OpenSpiel's algorithms run on them.

Needs the optional extra ``card-arena[openspiel]`` (``open_spiel`` from PyPI); nothing
else in the arena imports this module. ``register()`` registers every game whose folder
has an ``openspiel`` part with ``pyspiel`` as ``card_arena_<name>`` (hyphens become
underscores) and returns the names; ``pyspiel.load_game(name)`` then loads one.

The model, game by game the same:

* **Chance.** A match starts with one chance node whose outcomes are the engine seeds
  ``0..seeds-1`` (game parameter ``seeds``, 1000 by default), uniform; the engine then
  deals every hand of the match from that seed, so the chance node stands for all the
  match's shuffles. Players never see the outcome. Outcome ``s`` followed by the same
  actions is exactly ``get_game(name).new_state(s)`` given those actions.
* **Actions.** The environments' action space, one mapping for both adapters
  (``arena.envs.layouts``, from the game's ``layout`` part): the engine's own ids where
  they are dense (``NUM_ACTIONS``), else (``MAX_LEGAL``: ids that encode card sets) action
  ``i`` is the ``i``-th of the legal actions in canonical (ascending) order. Legal
  actions depend only on what the seat to act knows, so an index means the same move in
  every state of one information state.
* **Parameters.** ``seeds``, ``resample_seed`` (seeds the resampler), and the engine's
  options by name (a game's option limiting the hands makes quick rollouts).
* **Returns.** Terminal only: +1 to every seat of the winning team, -1 to the others, 0
  each for a draw (zero-sum: two teams of equal size in every game).
* **Information state**, a string: the seat's observation (its repr)
  and the texts of the events of the current hand it may see, from the last ``deal``
  event on. Earlier hands reach the seat only through the scores and hand number the
  observation shows, and do not change what is legal or what can be won later, so the
  string stops at the hand; strictly it is therefore not perfect recall across hands.
  The information state tensor is the environments' (``arena.envs.infostate``): the
  observation tensor and a memory of what the seat saw this hand, folded over the
  observations it was sent, which stops at the hand too.
  The observation string is the observation's repr alone; the observation tensor is
  the environments' tensor of the observation a bot is sent (``arena.envs.layouts``),
  so a network trained on ``arena.envs`` reads OpenSpiel's tensors unchanged.
* **Resampling** (``resample_from_infostate``, what ISMCTS needs): every game with a
  ``worlds`` part (``arena.games.worlds``). The seat's observation becomes a random world
  it cannot tell from the real one: the cards it cannot see dealt consistently with all
  it knows (its cards, the cards played, the voids play revealed, what was passed or
  discarded), the current hand's public record replayed, hidden decisions of others
  drawn at random. The clone keeps the seat's own view of the event log (the events it
  saw, and the hands' boundaries without their cards), so its information state is the
  original's whenever the observation is; ``determinize`` checks that, as a safety net.
"""

from __future__ import annotations

import random
from functools import cache
from types import ModuleType
from typing import Any

import numpy as np
import pyspiel

from arena import wire
from arena.envs import infostate, layouts
from arena.games import State, game_names, get_game, worlds
from arena.games.api import Event, InconsistentView
from arena.games.registry import part

DEFAULT_SEEDS = 1000
RESAMPLE_TRIES = 20
PREFIX = "card_arena_"


def short_name(game: str) -> str:
    """The pyspiel name of an arena game: hyphens become underscores after ``card_arena_``."""
    return PREFIX + game.replace("-", "_")


@cache
def _facts(game: str) -> ModuleType:
    """The game's ``openspiel`` part: that it has an OpenSpiel model, and its ``resample``
    if it has one."""
    facts = part(game, "openspiel")
    if facts is None:
        raise NotImplementedError(f"{game} has no OpenSpiel model (no openspiel part)")
    return facts


def _ordinal_actions(game: str) -> bool:
    return not layouts.uses_ids(game)


def _num_distinct_actions(game: str) -> int:
    return layouts.action_space_size(game)


def _hand_events(state: State, seat: int) -> list[str]:
    start = 0
    for index, event in enumerate(state.events):
        if event.kind == "deal":
            start = index
    return [
        event.text
        for event in state.events[start:]
        if event.visible_to is None or seat in event.visible_to
    ]


def information_state(state: State, seat: int) -> str:
    """The information state string of ``seat`` in an engine state (see the module)."""
    return "\n".join([repr(state.observation(seat)), *_hand_events(state, seat)])


class ArenaState(pyspiel.State):  # type: ignore[misc]
    """One match: a chance node picking the seed, then the engine's state."""

    def __init__(self, game: ArenaGame) -> None:
        super().__init__(game)
        self.engine: State | None = None

    @property
    def _arena_game(self) -> ArenaGame:
        """The game, asked of pyspiel rather than kept: OpenSpiel clones a Python state
        with ``copy.deepcopy`` (history and move number included), which must copy the
        engine, never the game."""
        game: ArenaGame = self.get_game()
        return game

    # -- the engine under it
    def _legal(self) -> list[int]:
        assert self.engine is not None
        return self.engine.legal_actions()

    def engine_action(self, action: int) -> int:
        """The engine's id of a pyspiel action of this state."""
        if _ordinal_actions(self._arena_game.name):
            return self._legal()[action]
        return action

    def pyspiel_action(self, engine_action: int) -> int:
        """The pyspiel id of an engine action legal here."""
        if _ordinal_actions(self._arena_game.name):
            return self._legal().index(engine_action)
        return engine_action

    # -- pyspiel.State
    def current_player(self) -> int:
        if self.engine is None:
            return int(pyspiel.PlayerId.CHANCE)
        if self.engine.is_terminal():
            return int(pyspiel.PlayerId.TERMINAL)
        return self.engine.current_seat()

    def _legal_actions(self, player: int) -> list[int]:
        legal = self._legal()
        if _ordinal_actions(self._arena_game.name):
            limit = _num_distinct_actions(self._arena_game.name)
            if len(legal) > limit:
                raise pyspiel.SpielError(f"more than {limit} legal actions")
            return list(range(len(legal)))
        return legal

    def chance_outcomes(self) -> list[tuple[int, float]]:
        seeds = self._arena_game.seeds
        return [(seed, 1.0 / seeds) for seed in range(seeds)]

    def _apply_action(self, action: int) -> None:
        if self.engine is None:
            self.engine = self._arena_game.engine.new_state(action, self._arena_game.options)
        else:
            self.engine.apply(self.engine_action(action))

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"seed {action}"
        if self.engine is None or self.engine.is_terminal():
            return f"action {action}"
        return self.engine.action_text(self.engine_action(action))

    def is_terminal(self) -> bool:
        return self.engine is not None and self.engine.is_terminal()

    def returns(self) -> list[float]:
        seats = self._arena_game.engine.info.seat_teams
        if self.engine is None or not self.engine.is_terminal():
            return [0.0] * len(seats)
        winner = self.engine.winner()
        if winner is None:
            return [0.0] * len(seats)
        return [1.0 if team == winner else -1.0 for team in seats]

    def information_state_string(self, player: int | None = None) -> str:
        seat = self.current_player() if player is None else player
        assert self.engine is not None, "no information state before the deal"
        return information_state(self.engine, seat)

    def observation_string(self, player: int | None = None) -> str:
        seat = self.current_player() if player is None else player
        assert self.engine is not None, "no observation before the deal"
        return repr(self.engine.observation(seat))

    def resample_from_infostate(self, player: int, sampler: object = None) -> ArenaState:
        """A state the seat cannot tell from this one, its hidden cards drawn afresh."""
        assert self.engine is not None
        rng = random.Random(self._arena_game.rng.getrandbits(64))
        engine = determinize(
            self._arena_game.name,
            self.engine.observation(player),
            self._arena_game.options,
            rng,
            information_state(self.engine, player),
            actor=self.engine.current_seat(),
            events=seen_events(self.engine, player),
        )
        clone = ArenaState(self._arena_game)
        clone.engine = engine
        return clone

    def __str__(self) -> str:
        if self.engine is None:
            return "(chance: the seed)"
        return "\n".join(e.text for e in self.engine.events[-8:])


class _Observer:
    """What OpenSpiel's C++ side reads a Python game's views from. With perfect recall:
    the information state, as its string and as the tensor ``arena.envs.infostate``
    documents. Without: the observation, as its string and as the tensor
    ``arena.envs.layouts`` documents. Both tensors are the environments'; ``dict`` names
    their blocks."""

    def __init__(self, game: str, perfect_recall: bool) -> None:
        self.game = game
        self.perfect_recall = perfect_recall
        if perfect_recall:
            size, blocks = infostate.information_state_tensor_size(game), infostate.layout(game)
        else:
            size, blocks = layouts.tensor_size(game), layouts.layout(game)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, Any] = {
            name: self.tensor[offset : offset + width] for name, offset, width in blocks
        }

    def set_from(self, state: ArenaState, player: int) -> None:
        self.tensor.fill(0.0)
        if state.engine is None:  # before the deal there is nothing to see
            return
        if self.perfect_recall:
            self.tensor[:] = infostate.encode_state(state.engine, player)
        else:
            message = wire.observation(self.game, state.engine.observation(player))
            self.tensor[:] = layouts.encode(self.game, player, message)

    def string_from(self, state: ArenaState, player: int) -> str:
        if self.perfect_recall:
            return state.information_state_string(player)
        return state.observation_string(player)


class ArenaGame(pyspiel.Game):  # type: ignore[misc]
    """One arena game as a pyspiel game; parameter ``seeds`` sizes the chance node."""

    name: str

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        self.seeds = int(params.get("seeds", DEFAULT_SEEDS))
        self.engine = get_game(self.name)
        specs = {o.name for o in self.engine.info.options}
        self.options = self.engine.info.resolve_options(
            {key: value for key, value in params.items() if key in specs}
        )
        self.rng = random.Random(int(params.get("resample_seed", 0)))
        super().__init__(_game_type(self.name), _game_info(self.name, self.seeds), params)

    def new_initial_state(self) -> ArenaState:
        return ArenaState(self)

    def make_py_observer(
        self, iig_obs_type: Any = None, params: dict[str, Any] | None = None
    ) -> _Observer:
        perfect_recall = iig_obs_type is not None and bool(iig_obs_type.perfect_recall)
        return _Observer(self.name, perfect_recall)


def _game_type(name: str) -> Any:
    info = get_game(name).info
    return pyspiel.GameType(
        short_name=short_name(name),
        long_name=f"Card Arena {info.title}",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=info.num_seats,
        min_num_players=info.num_seats,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification={
            "seeds": DEFAULT_SEEDS,
            "resample_seed": 0,
            **{o.name: o.default for o in info.options},
        },
    )


def _game_info(name: str, seeds: int) -> Any:
    return pyspiel.GameInfo(
        num_distinct_actions=_num_distinct_actions(name),
        max_chance_outcomes=seeds,
        num_players=get_game(name).info.num_seats,
        min_utility=-1.0,
        max_utility=1.0,
        utility_sum=0.0,
        max_game_length=100_000,  # the engines' safeguards (max hands, deals) end a match
    )


GAME_CLASSES: dict[str, type[ArenaGame]] = {}


def register() -> list[str]:
    """Register every arena game with pyspiel (once); return their pyspiel names."""
    registered = set(pyspiel.registered_names())
    for name in modelled():
        if name not in GAME_CLASSES:
            made = type(f"ArenaGame_{name.replace('-', '_')}", (ArenaGame,), {"name": name})
            # A module attribute, so that pickle (and so OpenSpiel's serialization) finds
            # the class by its name.
            GAME_CLASSES[name] = globals()[made.__name__] = made
        if short_name(name) not in registered:
            pyspiel.register_game(_game_type(name), GAME_CLASSES[name])
    return [short_name(name) for name in modelled()]


def modelled() -> list[str]:
    """The games whose folder has an ``openspiel`` part."""
    return [name for name in game_names() if part(name, "openspiel") is not None]


def load(game: str, **params: int) -> ArenaGame:
    """The pyspiel game of an arena game, registering them all first."""
    register()
    loaded: ArenaGame = pyspiel.load_game(short_name(game), params)
    return loaded


# -- determinization: an engine state a seat cannot tell from the one it is in


def seen_events(state: State, seat: int) -> list[Event]:
    """The event log as ``seat`` knows it: the events it may see, and each hand's
    ``deal`` event without its cards (it marks where a hand starts)."""
    seen = []
    for event in state.events:
        if event.visible_to is None or seat in event.visible_to:
            seen.append(event)
        elif event.kind == "deal":
            seen.append(Event(event.kind, event.text, event.seat, {}, event.visible_to))
    return seen


def determinize(
    game: str,
    observation: Any,
    options: dict[str, Any],
    rng: random.Random,
    target: str | None = None,
    *,
    actor: int | None = None,
    events: list[Event] | None = None,
) -> State:
    """An engine state for ``observation``'s seat, the cards it cannot see dealt at
    random consistently with what it knows (``arena.games.worlds.determinize``; ``actor``
    is the seat to act, when known). With ``events`` (``seen_events`` of the real
    state) the state takes them as its log; with ``target`` as well, a state whose
    information state for the seat differs is drawn again, up to ``RESAMPLE_TRIES``
    times. ``InconsistentView`` when the observation fits no world."""
    for _ in range(RESAMPLE_TRIES):
        state = worlds.determinize(game, observation, options, rng, actor)
        if events is not None:
            state.events = list(events)
        if target is None or information_state(state, observation.seat) == target:
            return state
    raise InconsistentView(
        f"{game}: no world drawn gives seat {observation.seat} its information state"
    )
