"""Bid Euchre on the play screen (``arena.play.screen``): its calls read as its events
and actions write them ("call ASK", "Seat 3 calls 3"), not by their enum names."""

from arena.games.bid_euchre.game import CALL_SHOWN

ENUM_WORDS = {"arena.v1.BidEuchreCall": ("", *CALL_SHOWN)}
"""Per enum, the word of each value, by value number (0, unset, has none)."""
