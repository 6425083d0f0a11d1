"""Every Redis key the arena uses, built here and nowhere else.

The layout, with what each key holds, is the table in ``arena.store``'s docstring; a
test (``tests/store/test_key_layout.py``) checks that every key built here is in that
table, that the table names no other, and that no module of ``arena/``, ``workers/`` or
``bench/`` spells a key out by hand. The strings are the stored data's names: changing
one loses what was stored under it.
"""

from __future__ import annotations

from typing import Final

PREFIX: Final = "arena:"
"""Every key starts with it, so the arena can share a Redis with others (the Celery
broker's keys, say) and its keys can be listed."""


def pattern(start: str = "") -> str:
    """A KEYS or SCAN pattern for the arena's keys whose name after ``arena:`` starts
    with ``start`` (every key of the arena by default)."""
    return f"{PREFIX}{start}*"


# The registry of bots and the hosted ones' packages (``arena.store.bots``,
# ``arena.store.packages``, ``arena.store.removal``).


def bots() -> str:
    """Hash: bot name -> registered bot (JSON): the registry every read and write of a
    bot goes through, and what hosted bots' transactions watch."""
    return f"{PREFIX}bots"


def hosted(name: str) -> str:
    """Hash: a hosted bot's version label -> the version (JSON), kept until removed."""
    return f"{PREFIX}hosted:{name}"


def hosted_removed(name: str) -> str:
    """Set: the labels of the hosted bot's removed versions, never given out again, so
    ``name@version`` names one package for good."""
    return f"{PREFIX}hosted:{name}:removed"


def package(sha256: str) -> str:
    """String: a hosted bot's package (tar.gz), named by the SHA-256 of its bytes so that
    it is stored once however many versions use it."""
    return f"{PREFIX}package:{sha256}"


def removed_packages() -> str:
    """Set: digests of removed versions' packages that may still be stored: what the
    next sweep looks at (``arena.store.removal``)."""
    return f"{PREFIX}packages:removed"


# Authors and their tokens (``arena.store.authors``).


def authors() -> str:
    """Hash: author name -> the SHA-256 of their current token."""
    return f"{PREFIX}authors"


def author_tokens() -> str:
    """Hash: the SHA-256 of a token -> its author: a token is checked without a scan."""
    return f"{PREFIX}author-tokens"


# Competitions and their invites (``arena.store.competitions``).


def competitions() -> str:
    """Sorted set: every competition's name, scored by creation time (ms): listing
    order."""
    return f"{PREFIX}competitions"


def competition(name: str) -> str:
    """Hash: the competition's ``spec`` (JSON), ``created_at`` and ``phase``; its
    ladder's and final's tournament ids, the final versions, the final's deals and why,
    its seed commitment and its frozen board, each set once."""
    return f"{PREFIX}c:{name}"


def competition_phases(name: str) -> str:
    """List: the competition's phase transitions (JSON), oldest first, each recorded
    once with the phase it moved to."""
    return f"{competition(name)}:phases"


def competitors(name: str) -> str:
    """Hash: author name -> how they joined the competition (JSON)."""
    return f"{competition(name)}:competitors"


def final_marks(name: str) -> str:
    """Hash: author name -> the version (``name@version``) they marked for the final."""
    return f"{competition(name)}:final-marks"


def submissions(author: str) -> str:
    """Sorted set: ``name@version`` of each version the author submitted while a
    competition of theirs counted them, scored by when (s): the daily limit's window."""
    return f"{PREFIX}submissions:{author}"


def invite(sha256: str) -> str:
    """Hash: an invite code's record, by the code's SHA-256: ``competition``, ``uses``,
    ``left``, ``expires_at``, ``created_at``."""
    return f"{PREFIX}invite:{sha256}"


# Tournaments as a whole (``arena.store.tournaments``).


def tournaments() -> str:
    """Sorted set: every tournament id, scored by creation time (ms): listing order."""
    return f"{PREFIX}tournaments"


def running() -> str:
    """Set: the ids of running tournaments, which share the workers
    (``workers.scheduler``): counted without reading every tournament."""
    return f"{PREFIX}tournaments:running"


def to_trim() -> str:
    """Set: cancelled tournaments whose per-match bookkeeping goes once no attempt holds
    a lease."""
    return f"{PREFIX}tournaments:to-trim"


# One tournament (``arena.store.tournaments`` unless said otherwise).


def tournament(tournament_id: str) -> str:
    """Hash: the tournament's record: spec, state, totals, the scheduler's state."""
    return f"{PREFIX}t:{tournament_id}"


def _part(tournament_id: str, part: str) -> str:
    return f"{tournament(tournament_id)}:{part}"


def schedule(tournament_id: str) -> str:
    """Hash: match id -> scheduled match (JSON), for the matches handed out so far."""
    return _part(tournament_id, "schedule")


def results(tournament_id: str) -> str:
    """Hash: match id -> result (JSON), written once (HSETNX)."""
    return _part(tournament_id, "results")


def match_logs(tournament_id: str) -> str:
    """Hash: match id -> the match's record (``arena.v1.MatchLog``), stored with its
    result: what replays and verification are built from."""
    return _part(tournament_id, "match-logs")


def order(tournament_id: str) -> str:
    """Sorted set: the match ids of ``results``, all scored 0, for reading a page in
    match id order (ZRANGEBYLEX)."""
    return _part(tournament_id, "order")


def lineup(tournament_id: str) -> str:
    """Hash: a ladder's entry -> how to seat it (JSON), as last seen: its lineup changes
    as it runs."""
    return _part(tournament_id, "lineup")


def probes(tournament_id: str) -> str:
    """Hash: a ladder's suspended entry -> the watchdog's last Hello to it (JSON)
    (``arena.store.suspensions``)."""
    return _part(tournament_id, "probes")


def finished(tournament_id: str) -> str:
    """List: match ids in the order their results were stored: what the scheduler reads
    on from."""
    return _part(tournament_id, "finished")


def forfeits(tournament_id: str) -> str:
    """Set: match ids that ended in a forfeit, counted without reading the results."""
    return _part(tournament_id, "forfeits")


def playing(tournament_id: str) -> str:
    """Sorted set: matches being played, scored by when their lease runs out
    (``arena.store.leases``)."""
    return _part(tournament_id, "playing")


def holders(tournament_id: str) -> str:
    """Hash: match id -> its lease holder's token (``arena.store.leases``)."""
    return _part(tournament_id, "holders")


def tries(tournament_id: str) -> str:
    """Hash: match id -> attempts so far: the retries' backoff."""
    return _part(tournament_id, "tries")


def failed_on(tournament_id: str) -> str:
    """Hash: match id -> the referees it failed on (JSON list): retries avoid them
    (``arena.store.referee_load``)."""
    return _part(tournament_id, "failed-on")


def failures(tournament_id: str) -> str:
    """Hash: match id -> its last failed attempt (JSON), until a result is stored."""
    return _part(tournament_id, "failures")


def per_match(tournament_id: str) -> tuple[str, str, str, str, str]:
    """The bookkeeping kept per match while a tournament runs and dropped when it ends:
    ``tries``, ``holders``, ``playing``, ``failed-on``, ``failures``, in this order (the
    scripts that drop them rely on it)."""
    return (
        tries(tournament_id),
        holders(tournament_id),
        playing(tournament_id),
        failed_on(tournament_id),
        failures(tournament_id),
    )


def leaderboard(tournament_id: str) -> str:
    """String: the ratings at the tournament's end (JSON)."""
    return _part(tournament_id, "leaderboard")


def logs(tournament_id: str) -> str:
    """Hash: match id -> what its hosted seats wrote (zlib JSON), for their authors
    (``arena.store.bot_logs``)."""
    return _part(tournament_id, "logs")


def live(tournament_id: str) -> str:
    """Hash: match id -> the attempt a referee is playing (JSON: referee, watch id), so
    the API can point watchers at it (``arena.store.live``)."""
    return _part(tournament_id, "live")


def step(tournament_id: str) -> str:
    """String: set while a scheduler step is asked for; the holder of ``scheduling``
    steps again while it is there (``workers.scheduler.advance``)."""
    return _part(tournament_id, "step")


def scheduling(tournament_id: str) -> str:
    """String: the tournament's scheduling lock (a redis-py lock), held while a step
    runs, so steps never overlap; removal's sweep waits for it
    (``arena.store.removal``)."""
    return _part(tournament_id, "scheduling")


# Ratings across tournaments (``arena.store.tournaments``, ``arena.store.history``).


def ratings() -> str:
    """String: the arena-wide ratings by game (JSON), refitted as results come."""
    return f"{PREFIX}ratings"


def tallies() -> str:
    """Hash: finished tournament id -> its results' tallies by game (JSON), which refits
    read instead of its results."""
    return f"{PREFIX}ratings:tallies"


def tally_sum() -> str:
    """String: the ids of the tournaments summed so far and their merged tallies, in one
    JSON value, so a reader never sees one without the other."""
    return f"{PREFIX}ratings:tally-sum"


def results_version() -> str:
    """String: counts results ever stored, so readers can tell whether anything
    changed."""
    return f"{PREFIX}results:version"


def results_epoch() -> str:
    """String: set once per Redis data set, so a ``results_version`` that restarted from
    zero (a flushed or lost data set) is not taken for the one before."""
    return f"{PREFIX}results:epoch"


def history(bot: str) -> str:
    """List: the bot's rating at each refit (compact JSON), oldest first, capped."""
    return f"{PREFIX}history:{bot}"


def history_events() -> str:
    """Set: the refits whose points are recorded, so each is recorded once."""
    return f"{PREFIX}history:events"


# The workers and referees (``arena.store.referee_load``, ``workers``).


def referee_playing(address: str) -> str:
    """Sorted set: ``tournament:match`` in flight on the referee at ``address``, scored
    by when the entry lapses: workers pick the least loaded referee."""
    return f"{PREFIX}referee:{address}:playing"


def workers() -> str:
    """Hash: worker hostname -> its pool size, deliveries held and until when that holds
    (JSON) (``workers.capacity``)."""
    return f"{PREFIX}workers"


def watchdog() -> str:
    """String: the watchdog's lock (a redis-py lock): one worker's watchdog acts per
    round (``workers.watchdog``)."""
    return f"{PREFIX}watchdog"
