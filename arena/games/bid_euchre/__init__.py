"""Bid Euchre, whole: the rules (``game``), explanations of illegal moves
(``why``), the viewer's table (``table``), the environments' pack and action space
(``layout``), the OpenSpiel model's facts (``openspiel``), its reference page's
examples (``docs``), how its calls read on the play screen (``screen``), an example
bot (``bot``) and a bot that searches with OpenSpiel's ISMCTS (``openspiel_bot``).
Its ``game`` module registers the game when the registry loads it; the rest of the
arena finds the parts through ``arena.games.registry.part``. The package itself loads
nothing, so one part (the example bot, say) comes without the rules."""
