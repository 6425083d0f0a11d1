"""A bot for any game that asks OpenSpiel's ISMCTS for each move (needs the extra
``card-arena[openspiel]``). Serve it with
``python -m arena.bots.ismcts --game NAME --port N``.

A bot sees only its observation, so for each request it turns the proto observation
back into the engine's (``arena.bots.observations``), deals the cards it cannot see at
random consistently with everything it has seen (``arena.openspiel.determinize``, from
the game's ``worlds`` part), and lets ISMCTS search from that state: ISMCTS redraws the
hidden cards for every simulation, so the one drawn here only starts the search.
Rollouts are random and end with the match. A bot is not sent the match's options, so
``--option NAME=VALUE`` gives them (a variant changes the pack; a safeguard such as a
hand limit also ends the rollouts sooner). When no world fits its view (a corrupted
request), the bot plays its first legal action and counts a fallback.
"""

from __future__ import annotations

import argparse
import random
from typing import Any

from arena.bots.observations import engine_observation
from arena.bots.sdk import Bot, serve
from arena.games import GameError, game_name, get_game
from arena.v1 import bot_pb2
from arena.wire import observation_of


class IsmctsBot(Bot):
    """ISMCTS with random rollouts, ``simulations`` per decision, for one game."""

    name = "openspiel-ismcts"

    def __init__(
        self,
        game: str,
        simulations: int = 20,
        seed: int = 0,
        options: dict[str, Any] | None = None,
    ) -> None:
        self.game = game_name(game)
        self.games = (self.game,)
        self.simulations = simulations
        self.rng = random.Random(seed)
        self.options = dict(options or {})
        self.fallbacks = 0

    def act(self, request: bot_pb2.ActRequest) -> int:
        legal = [action.id for action in request.legal_actions]
        if len(legal) == 1:
            return legal[0]
        message = observation_of(request)
        if message is None:
            self.fallbacks += 1
            return legal[0]
        try:
            return self._search(engine_observation(self.game, message), legal)
        except GameError:
            self.fallbacks += 1
            return legal[0]

    def _search(self, view: Any, legal: list[int]) -> int:
        import numpy as np
        from open_spiel.python.algorithms import ismcts, mcts

        from arena import openspiel

        game = openspiel.load(self.game, seeds=1, **self.options)
        engine = openspiel.determinize(self.game, view, game.options, self.rng, actor=view.seat)
        state = game.new_initial_state()
        state.engine = engine
        numbers = np.random.RandomState(self.rng.getrandbits(32))
        bot = ismcts.ISMCTSBot(
            game,
            mcts.RandomRolloutEvaluator(1, numbers),
            2.0,
            self.simulations,
            random_state=numbers,
        )
        action = int(state.engine_action(bot.step(state)))
        return action if action in legal else legal[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--game", required=True)
    parser.add_argument("--port", type=int, default=50051)
    parser.add_argument("--simulations", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--option",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="an option of the matches it plays (as the referee has them)",
    )
    arguments = parser.parse_args()
    name = game_name(arguments.game)
    resolved = get_game(name).info.resolve_options(
        dict(pair.split("=", 1) for pair in arguments.option)
    )
    chosen = {pair.split("=", 1)[0] for pair in arguments.option}
    options = {key: value for key, value in resolved.items() if key in chosen}
    serve(IsmctsBot(name, arguments.simulations, arguments.seed, options), port=arguments.port)


if __name__ == "__main__":
    main()
