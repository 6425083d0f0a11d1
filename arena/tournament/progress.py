"""How a running tournament's progress reads, the same in the CLI and on the web page."""

from __future__ import annotations

from datetime import UTC

from google.protobuf.message import Message

from arena.v1 import arena_pb2
from arena.wording import count


def result_end_name(end: arena_pb2.ResultEnd.ValueType) -> str:
    """``completed``, ``forfeit`` or ``no_contest``: a stored result's end, as results say it."""
    return arena_pb2.ResultEnd.Name(end).removeprefix("RESULT_END_").lower()


def waiting_text(t: arena_pb2.Tournament) -> str:
    """Why the tournament waits ('' when it does not): since when, and the last failure."""
    if not t.HasField("waiting"):
        return ""
    since = t.waiting.since.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    return f"waiting for a referee since {since} ({t.waiting.reason})"


def stranded_text(t: arena_pb2.Tournament) -> str:
    """Which matches are neither queued nor played ('' when none), and since when."""
    if not t.HasField("stranded"):
        return ""
    s = t.stranded
    since = s.since.ToDatetime(tzinfo=UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    named = ", ".join(s.match_ids) + (", ..." if s.count > len(s.match_ids) else "")
    return (
        f"{count(s.count, 'match')} stranded since {since} ({named}): neither queued nor "
        "being played; the watchdog queues them again"
    )


def held_up_text(t: arena_pb2.Tournament) -> str:
    """What holds a running tournament up ('' when nothing does)."""
    return "; ".join(text for text in (waiting_text(t), stranded_text(t)) if text)


STATE_NAMES = {
    arena_pb2.TOURNAMENT_STATE_RUNNING: "running",
    arena_pb2.TOURNAMENT_STATE_FINISHED: "finished",
    arena_pb2.TOURNAMENT_STATE_CANCELLED: "cancelled",
}
FAIR_PLAY_NAMES = {
    arena_pb2.FAIR_PLAY_OPEN: "open",
    arena_pb2.FAIR_PLAY_SEALED: "sealed",
    arena_pb2.FAIR_PLAY_TRUSTED: "trusted",
}


def fair_play_text(t: arena_pb2.Tournament) -> str:
    """The fair-play mode, and for trusted play who vouches for it."""
    mode = FAIR_PLAY_NAMES.get(t.fair_play, "open")
    note = " (the operator vouches for the entries)" if mode == "trusted" else ""
    return mode + note


def seed_text(t: arena_pb2.Tournament) -> str:
    """Who chose the master seed, and the seed once revealed (its commitment until then)."""
    seed = t.seed
    source = "operator's seed" if seed.source == arena_pb2.SEED_SOURCE_OPERATOR else "secret seed"
    if seed.revealed:
        return f"{source} {seed.master_seed} revealed"
    return f"{source}, commitment {seed.commitment[:16]}"


def partners_text(t: arena_pb2.Tournament) -> str:
    """Whether partners may share a process, and which entries' do."""
    if t.partners == arena_pb2.PARTNERS_ISOLATED:
        return "partners isolated (each seat its own sandbox)"
    return "; ".join(t.caveats) or "partners shared (no remote entry plays a partnership game)"


def fairness(t: arena_pb2.Tournament) -> str:
    """The fair-play mode, the seed's state and how partners sit, as every read of a
    tournament says them."""
    return f"fair play {fair_play_text(t)}, {seed_text(t)}, {partners_text(t)}"


def _units(value: float) -> str:
    return f"{value:g}"


def format_text(t: arena_pb2.Tournament) -> str:
    """The format, and where it stands in a few words (``Format.progress_text``; a format
    this arena does not know reads as a round robin)."""
    # Here, not above: the formats use this module's texts, and load numpy besides.
    from arena.tournament import formats

    kind = formats.by_proto(t.spec.format) or formats.get(formats.ROUND_ROBIN)
    return kind.progress_text(t)


def shown_standings(standings: arena_pb2.Standings) -> Message | None:
    """What the format shows of itself (``Standings.kind``: a ``SwissStandings``, a
    ``KnockoutBracket``...), to be drawn as what it is; None for a format with none."""
    kind = standings.WhichOneof("kind")
    shown: Message | None = None if kind is None else getattr(standings, kind)
    return shown


VERDICTS = {
    arena_pb2.SPRT_VERDICT_PENDING: "pending",
    arena_pb2.SPRT_VERDICT_H0: "H0 accepted",
    arena_pb2.SPRT_VERDICT_H1: "H1 accepted",
    arena_pb2.SPRT_VERDICT_INCONCLUSIVE: "inconclusive",
}


def sprt_bounds(s: arena_pb2.SprtStatus) -> tuple[float, float]:
    """The LLR bounds the test stops at (Wald's for a status stored before they moved)."""
    if s.lower_in_force or s.upper_in_force:
        return s.lower_in_force, s.upper_in_force
    return s.lower, s.upper


def sprt_elo_text(s: arena_pb2.SprtStatus) -> str:
    """The Elo estimate with its 95% interval: "+3.1 [-0.4, +6.6]"."""
    if s.elo_low or s.elo_high:
        return f"{s.elo + 0.0:+.1f} [{s.elo_low + 0.0:+.1f}, {s.elo_high + 0.0:+.1f}]"
    return f"{s.elo + 0.0:+.1f} ± {s.elo_ci95:.1f}"


def sprt_text(s: arena_pb2.SprtStatus) -> str:
    """LLR, the bounds it stops at and the Elo estimate, as fishtest shows them."""
    lower, upper = sprt_bounds(s)
    return (
        f"{VERDICTS.get(s.verdict, 'pending')}, LLR {s.llr:+.2f} ({lower:+.2f}, "
        f"{upper:+.2f}) [{s.params.elo0:g}, {s.params.elo1:g}], Elo {sprt_elo_text(s)}, "
        f"{s.units} units (W {s.wins} D {s.draws} L {s.losses})"
    )


def swiss_lines(s: arena_pb2.SwissStandings) -> list[str]:
    """Each round's pairings on one line."""
    lines = []
    for r in s.rounds:
        tables = [f"{t.a} {_units(t.a_units)}-{_units(t.b_units)} {t.b}" for t in r.tables]
        bye = [f"bye {r.bye}"] if r.bye else []
        state = "" if r.complete else " (playing)"
        lines.append(f"round {r.round}{state}: " + ", ".join(tables + bye))
    return lines


def bracket_lines(k: arena_pb2.KnockoutBracket) -> list[str]:
    """Each round's ties on one line, with who went on and why."""
    lines = []
    for r in k.rounds:
        ties = []
        for tie in r.ties:
            if not tie.b:
                ties.append(f"{tie.a} ({tie.a_seed}) bye")
                continue
            score = f"{_units(tie.a_units)}-{_units(tie.b_units)}"
            went = f" -> {tie.winner} by {tie.decided_by}" if tie.winner else ""
            ties.append(f"{tie.a} ({tie.a_seed}) {score} {tie.b} ({tie.b_seed}){went}")
        lines.append(f"round {r.round}: " + "; ".join(ties))
    if k.champion:
        lines.append(f"champion: {k.champion}")
    return lines
