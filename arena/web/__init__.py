"""The read-only leaderboard web site, ``arena leaderboard serve``.

It holds no state: every request reads the Arena gRPC API (ratings, tournaments,
results), and a replay is fetched from the referee that played the match. Pages are
rendered on the server and work without JavaScript.

=====================================  ==================================================
route                                  answer
=====================================  ==================================================
``/``                                  HTML: overall leaderboard, one table per game,
                                       the 20 most recent matches
``/games/{game}``                      HTML: one game's leaderboard and recent matches
``/replays/{tournament}/{match}``      HTML: the replay as ``arena replay show`` prints it
``/api/leaderboard?game=``             JSON: ``Leaderboard`` (all games when no game)
``/api/matches?limit=&game=``          JSON: recent ``MatchRecord`` s plus
                                       ``tournament_id`` and replay links; limit 1..500,
                                       default 50
``/api/replays/{tournament}/{match}``  JSON: the replay document from the referee
``/healthz``                           ``ok``: the web server is up (the API may not be)
=====================================  ==================================================

Errors: an unknown game or match is 404, a bad ``limit`` 400, an unreachable API or
referee 502, any method but GET and HEAD 405; under ``/api/`` as ``{"error", "status"}``
JSON, elsewhere as an HTML page that says why.

Modules: ``data`` (fetching), ``pages`` (HTML), ``routes`` (URL to response),
``server`` (HTTP).
"""

from arena.web.server import serve

__all__ = ["serve"]
