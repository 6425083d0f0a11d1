"""Everything the arena keeps, in Redis. Key layout (all keys start with ``arena:``, and
every one is built by ``arena.store.keys``, which ``tests/store/test_key_layout.py``
checks against this table):

=================================  =====  ============================================
key                                type   holds
=================================  =====  ============================================
``arena:bots``                     hash   bot name -> registered bot (JSON): remote
                                          (an address) or hosted (an author)
``arena:hosted:{name}``            hash   a hosted bot's version label -> the version
                                          (JSON: runtime, command, package digest, ...)
``arena:hosted:{name}:removed``    set    the labels of its removed versions, which are
                                          not given out again while the bot exists
``arena:package:{sha256}``         str    a hosted bot's package (tar.gz), named by the
                                          SHA-256 of its bytes; deleted once no version
                                          uses it and no running tournament plays it
``arena:packages:removed``         set    digests of removed versions' packages that may
                                          still be stored: what the next sweep looks at
                                          (``arena.store.removal``)
``arena:authors``                  hash   author name -> SHA-256 of their token
``arena:author-tokens``            hash   SHA-256 of a token -> author name
``arena:competitions``             zset   competition name, scored by creation time
                                          (ms) (``arena.store.competitions``)
``arena:c:{name}``                 hash   a competition: ``spec`` (JSON),
                                          ``created_at``, ``phase`` (as last recorded),
                                          ``ladder`` (its ladder's tournament id, once
                                          it opened); once the final began, ``final``
                                          (its tournament id), ``final_versions``
                                          (JSON), ``final_deals`` and
                                          ``final_deals_reason`` (how many deals it
                                          plays, and why), ``final_commitment``; once
                                          it ended,
                                          ``final_board`` (JSON), each written once
``arena:c:{name}:phases``          list   its phase transitions (JSON: phase, due at,
                                          recorded at), oldest first; each recorded
                                          once, by the script that sets ``phase``
``arena:c:{name}:competitors``     hash   author name -> how they joined (JSON: when,
                                          the invite's hash)
``arena:c:{name}:final-marks``     hash   author name -> the version they marked for
                                          the final (``name@version``)
``arena:submissions:{author}``     zset   ``name@version`` of each version an author
                                          submitted while a competition of theirs
                                          counted them, scored by when (s); older
                                          than a day trimmed (``arena.store.bots``)
``arena:invite:{sha256}``          hash   an invite code's record, by the code's
                                          SHA-256: ``competition``, ``uses``, ``left``,
                                          ``expires_at``, ``created_at``; a use is spent
                                          in the script that creates the author
``arena:tournaments``              zset   tournament id, scored by creation time (ms)
``arena:tournaments:running``      set    the ids of running tournaments, which share the
                                          workers (``workers.scheduler``)
``arena:tournaments:to-trim``      set    cancelled tournaments whose per-match
                                          bookkeeping goes once no attempt holds a lease
``arena:t:{id}``                   hash   ``spec``, ``games``, ``state``, ``created_at``,
                                          ``total`` (matches the format will play, 0 if
                                          it decides as it goes), ``scheduler`` (the
                                          scheduler's and the format's state, JSON);
                                          while matches fail, ``waiting_since``,
                                          ``waiting_reason``
``arena:t:{id}:schedule``          hash   match id -> scheduled match (JSON), for the
                                          matches handed out so far
``arena:t:{id}:results``           hash   match id -> result (JSON), written once (HSETNX)
``arena:t:{id}:match-logs``        hash   match id -> the match's record
                                          (``arena.v1.MatchLog``, binary), written with
                                          its result, in the same script
``arena:t:{id}:order``             zset   the match ids of ``results``, all scored 0:
                                          match id order, for reading a page
                                          (ZRANGEBYLEX); written with each result
``arena:t:{id}:lineup``            hash   a ladder's entry -> how to seat it (JSON: an
                                          address, or a hosted package), as last seen
``arena:t:{id}:probes``            hash   a ladder's suspended entry -> the watchdog's
                                          last Hello to it (JSON: the suspension, when,
                                          answered) (``arena.store.suspensions``)
``arena:t:{id}:finished``          list   match ids in the order their results were
                                          stored: what the scheduler reads on from
``arena:t:{id}:forfeits``          set    match ids that ended in a forfeit
``arena:t:{id}:playing``           zset   matches being played, scored by when their
                                          lease runs out (``arena.store.leases``)
``arena:t:{id}:holders``           hash   match id -> the lease holder's token
``arena:t:{id}:tries``             hash   match id -> attempts so far (the backoff); this
                                          and ``holders``, ``playing``, ``failed-on``
                                          and ``failures`` go when the tournament
                                          finishes (or, cancelled, once nothing plays),
                                          leaving ``attempts`` and ``retried``
                                          (matches tried more than once) on ``arena:t:{id}``
``arena:t:{id}:failed-on``         hash   match id -> the referees it failed on (JSON
                                          list, most recent last): retries avoid them
``arena:t:{id}:failures``          hash   match id -> its last failed attempt (JSON),
                                          until a result is stored
``arena:t:{id}:leaderboard``       str    ratings at the tournament's end (JSON)
``arena:t:{id}:logs``              hash   match id -> what its hosted seats wrote
                                          (zlib JSON); expires 30 days after the last
                                          match's logs are stored
``arena:t:{id}:live``              hash   match id -> the attempt a referee is playing
                                          (JSON: referee, watch id, ...), for watchers;
                                          read with the leases (``arena.store.live``)
``arena:t:{id}:step``              str    set while a scheduler step is asked for: the
                                          holder of ``scheduling`` steps again
``arena:t:{id}:scheduling``        str    the scheduling lock (redis-py), held while a
                                          step runs (``workers.scheduler.advance``); the
                                          packages' sweep waits for it
``arena:ratings``                  str    arena-wide ratings from every stored result,
                                          by game ("" for all games), refitted when a
                                          tournament finishes and every
                                          ``ARENA_LADDER_RATINGS_EVERY`` results of a
                                          ladder (JSON)
``arena:ratings:tallies``          hash   finished tournament id -> its results'
                                          tallies by game (JSON), which refits read
                                          instead of its results
``arena:ratings:tally-sum``        str    the tournaments summed so far and their
                                          merged tallies, in one JSON value
``arena:results:version``          str    counts the results ever stored: readers tell
                                          whether anything changed (cached boards)
``arena:results:epoch``            str    a random id set once per data set, so a
                                          restarted ``results:version`` is not taken
                                          for the one before
``arena:history:{bot}``            list   the bot's rating at each refit, a point per
                                          board it is on (compact JSON: time, event,
                                          game, Elo, interval, pairs, status, bound),
                                          oldest first; the newest 2,000 are kept
                                          (``arena.store.history``)
``arena:history:events``           set    the refits whose points are recorded: each
                                          is recorded once
``arena:referee:{addr}:playing``   zset   ``tournament:match`` in flight on the referee
                                          at that address, scored by when the entry
                                          lapses (renewed with the match's lease):
                                          workers pick the least loaded referee
                                          (``arena.store.referee_load``)
``arena:workers``                  hash   worker hostname -> its pool size and until
                                          when that holds (JSON), renewed every
                                          watchdog round (``workers.capacity``)
``arena:watchdog``                 str    the watchdog's lock (redis-py): one worker's
                                          watchdog acts per round (``workers.watchdog``)
=================================  =====  ============================================

The JSON records are typed and versioned (``arena.records``): a registered bot
(``arena.store.bots.RegisteredBot``), a hosted bot's version
(``arena.store.packages.HostedVersion``), a tournament's ``spec``
(``arena.tournament.spec.TournamentPlan``) and a match result
(``arena.store.results.MatchResult``). Each is written through its ``to_json``, which
validates it first (an invalid record is never written), and read through its
``from_json``, which names the field that is wrong. Each record carries its schema
version under ``record_version``, and readers read only the current one: a record an
earlier build stored (none: version 1), a tally or board missing a key added since, or
results without their order index are refused, naming ``arena store migrate``, which
upgrades them in place (``arena.store.migrate``), so readers see only the current type
and never raw keys.

A hosted bot's entry, its new version and the package are written in one transaction
(``BotRegistry.publish``), which also holds its author to their quotas
(``arena.quotas``). Removing a bot or a version deletes the records in one transaction
and then the packages nothing else uses, once no running tournament plays them
(``arena.store.removal``). Tokens are kept as hashes only.

A result is written with HSETNX: a match played twice (a worker died after the referee
finished, and the task ran again) is stored once, and only the first write counts.
Production Redis runs with AOF persistence (``appendonly yes``); see ``deploy/``.
"""

from arena.store.bots import BotRegistry, RegisteredBot
from arena.store.results import MatchResult
from arena.store.tournaments import TournamentRecord, TournamentStore

__all__ = ["BotRegistry", "MatchResult", "RegisteredBot", "TournamentRecord", "TournamentStore"]
