"""A Bid Euchre bot that asks OpenSpiel's ISMCTS for each move (needs the extra
``card-arena[openspiel]``). Serve it with
``python -m arena.games.bid_euchre.openspiel_bot --port N``.

A bot sees only its observation, so for each request it deals the cards it cannot see
at random among the other seats, consistently with everything it has seen
(``arena.openspiel.determinize``), and lets ISMCTS search from that state: ISMCTS
itself redraws the hidden cards for every simulation, so the one drawn here only
starts the search. Rollouts end with the current hand (the match is cut to
``max_hands`` = this hand's number), whose winner is the team ahead after it. When no
deal fits its view (rare: an ASK exchange between two other seats), the bot plays its
first legal action.
"""

from __future__ import annotations

import argparse
import random
from types import SimpleNamespace
from typing import Any

from arena.bots.sdk import Bot, serve
from arena.games import GameError
from arena.v1 import bid_euchre_pb2, bot_pb2, cards_pb2

SUIT_LETTERS = {
    cards_pb2.SUIT_CLUBS: "C",
    cards_pb2.SUIT_DIAMONDS: "D",
    cards_pb2.SUIT_HEARTS: "H",
    cards_pb2.SUIT_SPADES: "S",
}


def bid_euchre_view(obs: bid_euchre_pb2.BidEuchreObservation) -> SimpleNamespace:
    """The fields of the engine's ``BidEuchreObservation`` that ``determinize`` reads,
    from the proto a bot is sent."""

    def played(cards: Any) -> tuple[SimpleNamespace, ...]:
        return tuple(SimpleNamespace(seat=p.seat, card=p.card.code) for p in cards)

    prefix = "BID_EUCHRE_CALL_"
    return SimpleNamespace(
        seat=obs.seat,
        dealer=obs.dealer,
        hand_number=obs.hand_number,
        hand=tuple(card.code for card in obs.hand),
        calls=tuple(
            SimpleNamespace(
                seat=c.seat, call=bid_euchre_pb2.BidEuchreCall.Name(c.call)[len(prefix) :].lower()
            )
            for c in obs.calls
        ),
        declarer=obs.declarer if obs.HasField("declarer") else None,
        phase=bid_euchre_pb2.BidEuchrePhase.Name(obs.phase)[len("BID_EUCHRE_PHASE_") :].lower(),
        contract=bid_euchre_pb2.BidEuchreCall.Name(obs.contract)[len(prefix) :].lower(),
        trump=SUIT_LETTERS.get(obs.trump),
        card_given=obs.card_given.code or None,
        card_returned=obs.card_returned.code or None,
        trick=played(obs.trick),
        tricks=tuple(SimpleNamespace(cards=played(t.cards)) for t in obs.tricks),
        scores=tuple(obs.scores),
    )


class OpenSpielBot(Bot):
    """ISMCTS with random rollouts, ``simulations`` per decision."""

    name = "openspiel-ismcts"
    games = ("bid-euchre",)

    def __init__(self, simulations: int = 20, seed: int = 0) -> None:
        self.simulations = simulations
        self.rng = random.Random(seed)
        self.fallbacks = 0

    def act(self, request: bot_pb2.ActRequest) -> int:
        import numpy as np
        from open_spiel.python.algorithms import ismcts, mcts

        from arena import openspiel

        legal = [action.id for action in request.legal_actions]
        if len(legal) == 1:
            return legal[0]
        view = bid_euchre_view(request.bid_euchre)
        game = openspiel.load("bid-euchre", max_hands=view.hand_number, seeds=1)
        try:
            engine = openspiel.determinize("bid-euchre", view, game.options, self.rng)
        except GameError:
            self.fallbacks += 1
            return legal[0]
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
    parser.add_argument("--port", type=int, default=50051)
    parser.add_argument("--simulations", type=int, default=20)
    arguments = parser.parse_args()
    serve(OpenSpielBot(arguments.simulations), port=arguments.port)


if __name__ == "__main__":
    main()
