"""The leaderboard web site, ``arena leaderboard serve``: public and read-only but for
the author's view (``/author/``, ``docs/web.md``), where an author signs in with their
token.

It holds no state but the authors' sessions (in memory: a restart signs them out):
every request reads the Arena gRPC API (ratings, tournaments, results), and a replay,
or a live match's events, from the referee playing the match.
Pages are rendered on the server and work without JavaScript (the replay viewer's table
and a live match's events need it; the replay's text below it does not).

=======================================  ================================================
route                                    answer
=======================================  ================================================
``/``                                    HTML: overall leaderboard with its top 20 bots'
                                         LOS matrix, one table per game,
                                         tournaments in progress, the 20 most recent
                                         matches, the 10 most recent ended tournaments
``/games/{game}``                        HTML: one game's leaderboard and recent matches
``/tournaments/{tournament}``            HTML: a tournament's format, progress, fair play
                                         and seed, a link to its matches, and its
                                         standings: Swiss rounds and table, knockout
                                         bracket, SPRT verdict and LLR chart, or (round
                                         robin, gauntlet, ladder) its leaderboard
``/replays/{tournament}/{match}``        HTML: the replay viewer (cards on the table, step
                                         by decision, a seat's request; ``docs/web.md``),
                                         and the replay as ``arena replay show`` prints it
``/bots/{bot}``                          HTML: the bot's registry facts (games, Hello,
                                         a hosted bot's versions), its rating over time
                                         (a chart, Elo and its 95% band, inline SVG, and
                                         a table per board), recent matches, fault rates
                                         by kind per match; leaderboard names link here
``/matches?game=&bot=&tournament=``      HTML: every stored match, a page at a time
                                         (``cursor=``, ``limit=``), with a filter form
``/live``                                HTML: the matches being played now, linking to
                                         their pages (duplicate halves only counted)
``/live/{tournament}/{match}``           HTML: follows one match as it is played on a
                                         card table (what the public events show), its
                                         events beside it (``static/live.js``,
                                         ``cards.js``)
``/competitions``                        HTML: every competition: phase, timeline (UTC),
                                         competitors
``/competitions/{name}``                 HTML: one competition: games, timeline, rules,
                                         its description (Markdown, no raw HTML), its
                                         phases as recorded, and its phase's board: the
                                         public board by author while open, the final's
                                         versions, seed commitment and tournament, the
                                         frozen final board (``competitions``)
``/api/leaderboard?game=&tournament=``   JSON: ``Leaderboard`` (all games when no game, all
                                         tournaments when no tournament); ``anchor``,
                                         ``anchor_elo``, ``prior_sd``, ``bootstrap`` and
                                         ``bootstrap_seed`` ask for another scale
``/api/tournaments/{tournament}``        JSON: ``Tournament``, standings included
``/api/matches?game=&bot=&tournament=``  JSON: a page of ``MatchRecord`` s plus
                                         ``tournament_id`` and replay links, and
                                         ``next_cursor``/``next_url``; ``limit=`` 1..500
                                         (default 50), ``cursor=`` the page before's
                                         ``next_cursor`` (``arena.web.matchlist``)
``/api/replays/{tournament}/{match}``    JSON: the replay document from the referee
``/api/replays/{t}/{match}/frames``      JSON: the viewer's frames
                                         (``arena.replay.frames``)
``/api/replays/{t}/{m}/frames/{i}/sent`` JSON: the ``ActRequest`` the seat to act
                                         was sent at frame ``i``
``/api/bots/{bot}/history?game=``        JSON: ``RatingHistory`` (every board when no
                                         game)
``/api/live?tournament=``                JSON: ``ListLiveMatchesResponse``, the matches
                                         being played that anyone may follow
``/api/live/{t}/{match}/events``         ``text/event-stream``: the match's public
                                         events, ``id:`` its sequence, resuming after
                                         ``Last-Event-ID``; ends after ENDED
``/api/competitions``                    JSON: ``ListCompetitionsResponse``
``/api/competitions/{name}``             JSON: ``Competition``, as GetCompetition gives it
``/api/competitions/{name}/board?game=`` JSON: ``CompetitionLeaderboard``, the public board
                                         (never ``mine``); 404 before the ladder starts
``/api/openapi.json``                    JSON: the OpenAPI 3.1 schema of the ``/api/``
                                         routes, message schemas derived from the protos
``/author/``                             HTML: a signed-in author's page: daily
                                         submissions left, their versions on their
                                         competitions' boards, their bots and
                                         versions, recent matches with links to their
                                         logs, the upload form (``author_app``)
``/author/sign-in``                      HTML: the sign-in form; POST: sign in (name,
                                         token), a session cookie
``/author/sign-out``                     POST: sign out
``/author/submit``                       POST (multipart): a package, sent with SubmitBot
                                         and the author's token
``/author/logs?bot=&match=``             HTML: a match's logs of an author's bot
                                         (``tournament=`` too for a public id)
``/livez``                               ``ok``: the process answers (liveness; says
                                         nothing of the API)
``/healthz``                             the same as ``/livez``, kept for older probes
``/readyz``                              ``ok``, or 503 ``not ready: WHY`` when the arena
                                         API's health check fails or takes over 2 s
``/favicon.ico``                         the site's icon (``static/favicon.svg``)
``/static/...``                          the package's ``arena/web/static/`` files (the
                                         stylesheet, the replay viewer's script and
                                         styles); nothing is loaded from elsewhere
=======================================  ================================================

Errors: an unknown game, bot, tournament, match or competition is 404 saying what was
not found (so is an id or a name that cannot be one, and a competition's board before
its ladder starts), a ``limit`` outside 1..500 or a ``cursor`` that is no page's 400,
an unreachable API or referee 502, an event stream past a client's share
(``relay.PER_CLIENT``) 429 and past the matches the site follows at once
(``relay.MAX_MATCHES``) 503, replay reads past a client's budget
(``arena.throttle.READS_PER_S``) 429, the API's budget for the site spent (started
without the API's read token, ``arena.api.reads``) 503, each with ``Retry-After``, any
method but GET and HEAD 405 (but a POST to the author's three forms; a post from
another origin or without its CSRF token 403);
under ``/api/`` as ``{"error", "status"}`` JSON, elsewhere
as an HTML page that says why. Everything a reader typed is escaped on the page.

Modules: ``data`` (fetching, grpc.aio), ``pages`` (HTML), ``standings`` (the tournament
page and its format views), ``bots`` (the bot page), ``chart`` (its SVG chart),
``matchlist`` (paging the match list, a bot's fault rates), ``competitions`` (the
competitions' pages), ``markdown`` (their descriptions, made safe), ``viewer`` (the
replay viewer's frames), ``app`` (the Starlette routes), ``openapi`` (the JSON routes'
schema), ``server`` (uvicorn); the author's view: ``sessions`` (sessions, CSRF and
origin checks), ``forms`` (bounded form reading), ``uploads`` (the upload's checks),
``author_data`` (API calls with the author's token), ``author`` (its HTML),
``author_app`` (its routes).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from arena.web.server import serve

__all__ = ["serve"]


def __getattr__(name: str) -> Any:
    """``serve``, loaded when first asked for: the pure modules (``pages``, ``relay``,
    ``matchlist``...) import without uvicorn."""
    if name == "serve":
        from arena.web.server import serve

        return serve
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
