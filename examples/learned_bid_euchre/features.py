"""What the policy sees: one vector per decision, built the same way in training and play.

The core is the arena's own tensor (``arena.envs.layouts.encode``), the one the PettingZoo
environment gives as ``observation``. It is a multi-hot of the trick in progress, so it
loses which card was led and which one is partner's, and those decide most plays (follow
the led suit; do not overtake a partner who is winning). Two one-hots over the pack put
them back. Both parts are read from the observation message a bot is sent, so a vector
built from the environment's ``act_request()`` and one built from the referee's
``ActRequest`` are equal by construction.

The action space is the environment's: the engine's 112 stable action ids, so a legal
mask is the same array whether it comes from ``observe(agent)["action_mask"]`` or from
the ids of ``ActRequest.legal_actions``.
"""

from __future__ import annotations

import numpy as np

from arena.envs import layouts
from arena.v1 import bid_euchre_pb2, bot_pb2

GAME = "bid-euchre"
PACK = layouts.pack(GAME)
CARD_INDEX = {code: i for i, code in enumerate(PACK)}
TENSOR_SIZE = layouts.tensor_size(GAME)
SIZE = TENSOR_SIZE + 2 * len(PACK)
"""The vector's length: the arena's tensor, then the led card, then partner's card."""
NUM_ACTIONS = layouts.action_space_size(GAME)
PARTNER = 2
"""Partners sit opposite: seat s plays with seat s + 2 (mod 4)."""


def trick_cards(observation: bid_euchre_pb2.BidEuchreObservation) -> np.ndarray:
    """One-hot of the card led to the trick in progress, then of partner's card in it."""
    out = np.zeros(2 * len(PACK), dtype=np.float32)
    if observation.trick:
        out[CARD_INDEX[observation.trick[0].card.code]] = 1.0
    partner = (observation.seat + PARTNER) % 4
    for play in observation.trick:
        if play.seat == partner:
            out[len(PACK) + CARD_INDEX[play.card.code]] = 1.0
    return out


def from_observation(seat: int, observation: bid_euchre_pb2.BidEuchreObservation) -> np.ndarray:
    """The policy's input for ``seat`` from its Bid Euchre observation message."""
    tensor = layouts.encode(GAME, seat, observation)
    return np.concatenate([tensor, trick_cards(observation)])


def from_request(request: bot_pb2.ActRequest) -> np.ndarray:
    return from_observation(request.seat, request.bid_euchre)


def legal_mask(request: bot_pb2.ActRequest) -> np.ndarray:
    """1 at the id of every legal action: the environment's ``action_mask``."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.int8)
    mask[[action.id for action in request.legal_actions]] = 1
    return mask
