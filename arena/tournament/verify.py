"""Checks an ended tournament against its commitments, from what any reader can fetch.

``GetTournament`` gives the master seed, its salt and the commitment published at
submission; ``ListResults`` gives every match's deal key, seed and deal commitment. The
tournament verifies when the commitment is the hash of its seed and salt, every match's
seed derives from the master seed by the deal key the schedule assigns that match (so
nobody picked deals to suit an entry), no open tournament dealt the same cards twice,
every match's deal commitment, published before its first card, is the hash of its
seed and salt, every match's stored record (``ListResults`` with ``with_logs``) was
played with the options the tournament gives its game (``TournamentSpec.game_options``,
defaults for a game it gives none) and re-runs on the engine to the result stored beside
it: its scores, winner, ending, decision count and faults by team and kind, and that all
of them together hash to the digest published when it finished
(``arena.tournament.digest``: a result taken away or added shows there). The formulas
are in ``arena.tournament.fair_play`` and ``arena.match_rules.commitment``; the re-run
in ``arena.replay.match_log``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

from arena.games import OptionError, UnknownGameError, get_game
from arena.games.api import OptionValue
from arena.match_rules.commitment import deal_commitment
from arena.replay.match_log import Replayed, rerun_as_stored
from arena.replay.verify import ReplayMismatch
from arena.tournament.digest import read_line, results_digest
from arena.tournament.fair_play import MODES, OPEN, deal_seed, public_match_id, seed_commitment
from arena.tournament.progress import result_end_name
from arena.v1 import arena_pb2
from arena.wording import count


class TournamentMismatch(ValueError):
    """The first check that failed, said for a reader."""


def verify_tournament(
    tournament: arena_pb2.Tournament, results: Sequence[arena_pb2.MatchRecord], pinned: str = ""
) -> str:
    """A one-line summary when every check passes; else TournamentMismatch. ``pinned``:
    the commitment as the caller saw it published, which the arena must still serve."""
    seed = tournament.seed
    if not seed.revealed:
        raise TournamentMismatch(
            f"tournament {tournament.id} has not ended: its seed is revealed when it finishes "
            "or is cancelled"
        )
    if not seed.commitment:
        raise TournamentMismatch(
            f"tournament {tournament.id} published no seed commitment (it predates them)"
        )
    if pinned and pinned != seed.commitment:
        raise TournamentMismatch(
            f"seed commitment mismatch: {pinned} was published, but the arena now serves "
            f"{seed.commitment}"
        )
    try:
        expected = seed_commitment(tournament.id, seed.master_seed, seed.salt)
    except ValueError as error:
        raise TournamentMismatch(f"bad revealed seed: {error}") from None
    if expected != seed.commitment:
        raise TournamentMismatch(
            f"seed commitment mismatch: master seed {seed.master_seed} with salt {seed.salt} "
            f"hashes to {expected}, but {seed.commitment} was published"
        )
    mode = MODES.get(tournament.fair_play, OPEN)
    dealt: dict[int, str] = {}
    former: dict[str, int] = {}
    options = {
        game: dict(given.options)
        for game, given in tournament.spec.game_options.items()
        if given.options
    }
    for record in results:
        _check_match(tournament.id, mode, seed.master_seed, record)
        _check_public_id(seed.master_seed, seed.salt, record)
        if rule := _check_log(record, options.get(record.game, {})):
            former[rule] = former.get(rule, 0) + 1
        if mode == OPEN and record.seed in dealt:
            raise TournamentMismatch(
                f"{record.match_id} and {dealt[record.seed]} were dealt the same seed "
                f"{record.seed} in an open tournament"
            )
        dealt[record.seed] = record.match_id
    digest = ""
    if tournament.results_digest:
        read = results_digest(read_line(record) for record in results)
        if read != tournament.results_digest:
            raise TournamentMismatch(
                f"results digest mismatch: the results and records read hash to {read}, but "
                f"{tournament.results_digest} was published when the tournament finished"
            )
        digest = "; results digest OK"
    source = "operator's seed" if seed.source == arena_pb2.SEED_SOURCE_OPERATOR else "arena seed"
    return (
        f"verified: tournament {tournament.id} ({mode}, {source}): seed commitment OK; "
        f"{len(results)} match seeds and public ids derive from the master seed; "
        f"{len(results)} deal commitments OK; {len(results)} match records re-run to their "
        f"results{digest}"
        + (
            f"; played with the tournament's game options ({_options_text(options)})"
            if options
            else ""
        )
        + "".join(
            f"; {count(n, 'match')} played under a former rule: {rule}"
            for rule, n in former.items()
        )
    )


def _check_match(
    tournament_id: str, mode: str, master_seed: int, record: arena_pb2.MatchRecord
) -> None:
    name = record.match_id
    own = name.removeprefix(f"{tournament_id}-")
    key = own if mode == OPEN else own.rpartition("-")[0]
    if record.deal_key != key:
        raise TournamentMismatch(
            f"{name}: deal key {record.deal_key!r}, but the schedule gives this match {key!r}"
        )
    if not record.HasField("seed"):
        raise TournamentMismatch(f"{name}: no seed revealed")
    derived = deal_seed(master_seed, key)
    if record.seed != derived:
        raise TournamentMismatch(
            f"{name}: seed {record.seed}, but master seed {master_seed} and deal key {key!r} "
            f"give {derived}"
        )
    try:
        committed = deal_commitment(record.referee_match_id, record.seed, record.deal_salt)
    except ValueError as error:
        raise TournamentMismatch(f"{name}: bad deal salt: {error}") from None
    if committed != record.deal_commitment:
        raise TournamentMismatch(
            f"{name}: deal commitment mismatch: referee match {record.referee_match_id}, seed "
            f"{record.seed} and salt {record.deal_salt} hash to {committed}, but "
            f"{record.deal_commitment} was published"
        )


def _check_public_id(master_seed: int, salt: str, record: arena_pb2.MatchRecord) -> None:
    """The id public reads gave the match while the tournament ran is the one its seed
    and salt derive: the published mapping is the true one."""
    derived = public_match_id(master_seed, salt, record.match_id)
    if record.public_id != derived:
        raise TournamentMismatch(
            f"{record.match_id}: public id {record.public_id!r}, but master seed {master_seed} "
            f"and salt {salt!r} give {derived}"
        )


def _check_log(record: arena_pb2.MatchRecord, options: Mapping[str, str]) -> str:
    """The match's record exists, was played with ``options`` (the tournament's for its
    game) and re-runs to what its result says; the former rule of its game it re-ran
    under, if any ("")."""
    name = record.match_id
    if record.log_error:
        raise TournamentMismatch(f"{name}: its stored record is damaged: {record.log_error}")
    if not record.HasField("log"):
        raise TournamentMismatch(
            f"{name}: no record of its decisions is stored, so nothing shows how its result "
            "came about (a result from before the arena kept records: `arena replay import`)"
        )
    log = record.log
    if log.match_id != record.referee_match_id or log.seed != record.seed:
        raise TournamentMismatch(
            f"{name}: its record is of referee match {log.match_id!r} with seed {log.seed}, "
            f"but the result is of {record.referee_match_id!r} with seed {record.seed}"
        )
    _check_options(record, options)
    kinds = [dict(k.by_kind) for k in record.team_fault_kinds]

    def difference(rerun: Replayed) -> str | None:
        return rerun.difference(
            deal_commitment=record.deal_commitment,
            end=result_end_name(record.end),
            scores=record.scores,
            winner_team=record.winner_team if record.HasField("winner_team") else None,
            forfeit_team=record.forfeit_team if record.HasField("forfeit_team") else None,
            decisions=record.decisions,
            team_faults=record.team_faults,
            team_fault_kinds=kinds or None,  # results from before kinds were kept have none
        )

    try:
        rerun, different = rerun_as_stored(log, difference)
    except ReplayMismatch as error:
        raise TournamentMismatch(f"{name}: its record does not re-run: {error}") from None
    if different is not None:
        raise TournamentMismatch(f"{name}: {different}")
    return rerun.former_rule


def _check_options(record: arena_pb2.MatchRecord, given: Mapping[str, str]) -> None:
    """The record's options are the tournament's for its game, ``given``, as the game
    reads both (defaults filled in, text parsed): a match played with other options is
    not one of the tournament's, whatever it re-runs to."""
    name = record.match_id
    try:
        info = get_game(record.game).info
    except UnknownGameError as error:
        raise TournamentMismatch(f"{name}: {error}") from None
    try:
        played = json.loads(record.log.options_json) if record.log.options_json else {}
    except ValueError:
        played = None
    if not isinstance(played, dict):
        raise TournamentMismatch(f"{name}: its record's options are not a JSON object")
    try:
        wanted = info.resolve_options(dict(given))
    except OptionError as error:
        raise TournamentMismatch(f"the tournament's options of {record.game}: {error}") from None
    try:
        got = info.resolve_options(played)
    except OptionError as error:
        raise TournamentMismatch(f"{name}: its record's options: {error}") from None
    if got != wanted:
        differ = sorted(k for k in wanted.keys() | got.keys() if wanted.get(k) != got.get(k))
        raise TournamentMismatch(
            f"{name}: played with {record.game} options {_values(got, differ)}, but the "
            f"tournament plays {record.game} with {_values(wanted, differ)}"
        )


def _values(options: Mapping[str, OptionValue], names: Sequence[str]) -> str:
    """``names``' values in ``options`` as ``arena games`` writes them (``name=value``)."""
    return ", ".join(f"{n}={_text(options[n]) if n in options else '(none)'}" for n in names)


def _text(value: OptionValue) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _options_text(options: Mapping[str, Mapping[str, str]]) -> str:
    return "; ".join(
        f"{game}: {', '.join(f'{n}={v}' for n, v in sorted(given.items()))}"
        for game, given in sorted(options.items())
    )
