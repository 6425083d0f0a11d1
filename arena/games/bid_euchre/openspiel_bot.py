"""The Bid Euchre ISMCTS bot: the generic one (``arena.bots.ismcts``) for Bid Euchre,
kept under its old name. Serve it with
``python -m arena.games.bid_euchre.openspiel_bot --port N``.
"""

from __future__ import annotations

import argparse

from arena.bots.ismcts import IsmctsBot
from arena.bots.sdk import serve


class OpenSpielBot(IsmctsBot):
    """ISMCTS with random rollouts, ``simulations`` per decision, for Bid Euchre."""

    def __init__(self, simulations: int = 20, seed: int = 0) -> None:
        super().__init__("bid-euchre", simulations, seed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--port", type=int, default=50051)
    parser.add_argument("--simulations", type=int, default=20)
    arguments = parser.parse_args()
    serve(OpenSpielBot(arguments.simulations), port=arguments.port)


if __name__ == "__main__":
    main()
