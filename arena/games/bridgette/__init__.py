"""Bridgette, whole: the rules (``game``), explanations of illegal moves
(``why``), the viewer's table (``table``), the environments' pack and action space
(``layout``), the OpenSpiel model's facts (``openspiel``), its reference page's
examples (``docs``) and an example bot (``bot``).
Importing the package registers the game; the rest of the arena finds the parts through
``arena.games.registry.part``."""

from arena.games.bridgette.game import BridgetteGame

__all__ = ["BridgetteGame"]
