"""The replay viewer's frames JSON, with and without each frame's request: one match of
each game at its default options, played by a real referee between random bots
(``tests.replay.matches``).

Baseline, measured in the same run: the frames as version 1 served them, every frame
carrying ``sent`` (the seat's ActRequest). Measured: version 2, which leaves it out (the
site serves it per frame). Sizes are of the compact JSON the site sends.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from arena.replay.frames import build
from tests.replay.matches import play_games

GAMES: dict[str, dict[str, int]] = {
    "seep": {},
    "bid-euchre": {},
    "bridgette": {},
    "persian-rummy": {},
    "baloot": {},
}


def _size(document: Any) -> int:
    return len(json.dumps(document, separators=(",", ":")).encode())


def sizes(replays: dict[str, dict[str, Any]]) -> list[tuple[str, int, int, int, int]]:
    """Per game: decisions, bytes with every frame's request, bytes without, and the
    requests' wire bytes (what the site's cache keeps beside the frames)."""
    rows = []
    for game, doc in replays.items():
        built = build(doc)
        before = {
            **built.frames,
            "version": 1,
            "frames": [
                {**frame, "sent": None if wire is None else built.sent(frame["index"])}
                for frame, wire in zip(built.frames["frames"], built.requests, strict=True)
            ],
        }
        wire = sum(len(w) for w in built.requests if w is not None)
        rows.append(
            (game, len(built.frames["frames"]) - 1, _size(before), _size(built.frames), wire)
        )
    return rows


def main() -> None:
    with tempfile.TemporaryDirectory() as directory:
        played = play_games(Path(directory), GAMES)
    print("| game | decisions | with `sent` (v1) | without (v2) | ratio | requests cached |")
    print("|---|---|---|---|---|---|")
    for game, decisions, before, after, wire in sizes(played.replays):
        print(
            f"| {game} | {decisions} | {before / 1e6:.2f} MB | {after / 1e6:.2f} MB "
            f"| {after / before:.2f} | {wire / 1e6:.2f} MB |"
        )


if __name__ == "__main__":
    main()
