"""The learned policy as an arena bot: ``python examples/learned_bid_euchre/bot.py --port 0``.

It reads only its ``ActRequest``, as any bot does: features from the observation message,
the mask from the legal actions, the network's most probable legal action as the answer.
The model is ``model.npz`` beside this file, so the bot runs from any directory.

Run as a script or loaded from its path (``arena test examples/learned_bid_euchre/bot.py
--vs random --local``), Python does not know this file's package; the repository's root
is then put on ``sys.path`` so its sibling modules import the same way in every case.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
if not __package__:
    sys.path.insert(0, str(HERE.parents[1]))

from arena.bots.sdk import Bot, serve  # noqa: E402 - after the path, see the docstring
from arena.v1 import bot_pb2  # noqa: E402
from examples.learned_bid_euchre import features  # noqa: E402
from examples.learned_bid_euchre.model import Policy  # noqa: E402

MODEL = HERE / "model.npz"


class LearnedBidEuchreBot(Bot):
    name = "learned-bid-euchre"
    games = ("bid-euchre",)

    def __init__(self, model: Path = MODEL) -> None:
        self.policy = Policy.load(model)

    def act(self, request: bot_pb2.ActRequest) -> int:
        return self.policy.choose(features.from_request(request), features.legal_mask(request))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Serve the learned Bid Euchre bot.")
    parser.add_argument("--port", type=int, default=50051, help="0 picks a free port")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--model", type=Path, default=MODEL, help="a model.npz from train.py")
    args = parser.parse_args(argv)
    serve(LearnedBidEuchreBot(args.model), port=args.port, host=args.host)


if __name__ == "__main__":
    main()
