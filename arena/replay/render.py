"""A replay as a readable hand-by-hand account, for ``arena replay show``."""

from __future__ import annotations

from typing import Any

from arena.games import UnknownGameError, get_game
from arena.games.cards import pretty_cards, pretty_text
from arena.wording import count, plural


def render(doc: dict[str, Any]) -> str:
    seats = doc["seats"]
    try:
        unit = get_game(doc["game"]).info.score_unit
    except UnknownGameError:
        unit = "point"
    lines = [
        f"{doc['game']} match {doc['match_id']}  seed {doc['seed']}",
        "options: " + (", ".join(f"{k}={v}" for k, v in sorted(doc["options"].items())) or "none"),
    ]
    if "deal_commitment" in doc:
        lines.insert(1, f"deal commitment: {doc['deal_commitment']}")
    for seat in seats:
        lines.append(f"  seat {seat['seat']} (team {seat['team']}): {seat['bot']}")
    for hand in doc["hands"]:
        lines.append("")
        dealer = hand.get("dealer")
        lines.append(
            f"Hand {hand['number']}" + (f", dealer seat {dealer}" if dealer is not None else "")
        )
        for seat, cards in enumerate(hand.get("deal", [])):
            lines.append(f"  seat {seat} holds {pretty_cards(cards)}")
        echo_of: int | None = None  # seat whose decision the next event may just repeat
        for entry in hand["log"]:
            if "decision" in entry:
                d = entry["decision"]
                mark = "  (played by the referee)" if d["substituted"] else ""
                text = pretty_text(d["text"])
                lines.append(f"  seat {d['seat']}: {text:<16} {d['think_ms']:8.1f} ms{mark}")
                if "table" in d:
                    lines.append(f"      {d['table']}")
                echo_of = d["seat"]
                continue
            if "fault" in entry:
                f = entry["fault"]
                lines.append(f"  ! seat {f['seat']} fault {f['kind']}: {f['detail']}")
            elif entry["event"]["kind"] != "deal" and entry["event"].get("seat", -1) != echo_of:
                lines.append(f"  - {entry['event']['text']}")
            echo_of = None
        if "scores" in hand:
            lines.append(f"  scores after hand: {scores(hand['scores'], unit)}")
    result = doc.get("result") or {}
    lines.append("")
    if doc["faults"] and not any("fault" in e for h in doc["hands"] for e in h["log"]):
        for f in doc["faults"]:
            lines.append(f"! seat {f['seat']} fault {f['kind']}: {f['detail']}")
    winner = result.get("winner_team")
    verdict = "draw" if winner is None else f"team {winner} wins"
    if result.get("end") == "forfeit":
        verdict = f"team {result.get('forfeit_team')} forfeits; " + verdict
    elif result.get("end") == "no_contest":
        verdict = "no contest"
    lines.append(
        f"Result: {verdict}, scores {scores(result.get('scores', []), unit)}, "
        f"{count(result.get('decisions', 0), 'decision')}, {count(len(doc['faults']), 'fault')}"
    )
    return "\n".join(lines)


def scores(values: list[int], unit: str) -> str:
    """``"54 : 40 points"``, ``"1 : 0 bazzis"``: the unit once, plural unless all are 1."""
    shown = " : ".join(map(str, values))
    return f"{shown} {plural(unit, 1 if values and all(v == 1 for v in values) else 0)}"
