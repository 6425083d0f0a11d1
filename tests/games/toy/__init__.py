"""The toy game of the generic suite as a game folder: the rules (``game``), its wire
messages (``messages``, as it is in no ``.proto`` file), explanations of illegal moves
(``why``), the viewer's table (``table``), the environments' pack and action space
(``layout``), the OpenSpiel model's facts (``openspiel``) and an example bot (``bot``).

Importing it registers nothing: a test registers the game (``tests.games.generic
.registered(toy_game())``) and the arena then finds every part through
``arena.games.registry.part``, as for a game under ``arena/games``."""
