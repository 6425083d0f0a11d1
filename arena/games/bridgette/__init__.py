"""Bridgette, whole: the rules (``game``), explanations of illegal moves
(``why``), the viewer's table (``table``), the environments' pack and action space
(``layout``), the OpenSpiel model's facts (``openspiel``), its reference page's
examples (``docs``) and an example bot (``bot``).
Its ``game`` module registers the game when the registry loads it; the rest of the
arena finds the parts through ``arena.games.registry.part``. The package itself loads
nothing, so one part (the example bot, say) comes without the rules."""
