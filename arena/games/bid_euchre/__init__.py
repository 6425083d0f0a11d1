"""Bid Euchre, whole: the rules (``game``), explanations of illegal moves
(``why``), the viewer's table (``table``), the environments' pack and action space
(``layout``), the OpenSpiel model's facts (``openspiel``), its reference page's
examples (``docs``), how its calls read on the play screen (``screen``), an example
bot (``bot``) and a bot that searches with OpenSpiel's ISMCTS (``openspiel_bot``).
Importing the package registers the game; the rest of the arena finds the parts through
``arena.games.registry.part``."""

from arena.games.bid_euchre.game import BidEuchreGame

__all__ = ["BidEuchreGame"]
