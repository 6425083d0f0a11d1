"""Everything about a game is in its folder: the generic code (``arena/`` outside
``arena/games/`` and the generated ``arena/v1/``, and ``workers/``) names no game, not
even in a comment, and asks the registry for a game's parts instead. The folders follow
the registry's convention (named for their game), and each of the five has every part."""

from __future__ import annotations

import re
from pathlib import Path
from types import ModuleType

import pytest

from arena.games import get_game
from arena.games.registry import builtin_game_names, game_names, part

ROOT = Path(__file__).resolve().parents[2]
GENERIC = (ROOT / "arena", ROOT / "workers")
GAME_OWNED = (ROOT / "arena" / "games", ROOT / "arena" / "v1")
"""The games' folders, and the code protoc generates from ``proto/``."""
PARTS = ("why", "table", "layout", "openspiel", "bot", "docs", "worlds", "infostate")


def name_pattern() -> re.Pattern[str]:
    """Any game's name or title, in any case, its words joined by nothing, a space, a
    hyphen or an underscore: ``bid-euchre``, ``Bid Euchre``, ``BidEuchreState``,
    ``BID_EUCHRE_PHASE_PLAY``."""
    words = set()
    for name in game_names():
        for spelling in (name, get_game(name).info.title):
            words.add(r"[-_ ]?".join(re.escape(w) for w in re.split(r"[-_ ]", spelling)))
    return re.compile("|".join(sorted(words)), re.IGNORECASE)


def generic_files() -> list[Path]:
    found = []
    for top in GENERIC:
        for path in sorted(top.rglob("*")):
            if not path.is_file() or "__pycache__" in path.parts:
                continue
            if any(path.is_relative_to(owned) for owned in GAME_OWNED):
                continue
            found.append(path)
    return found


def test_the_generic_code_names_no_game() -> None:
    pattern = name_pattern()
    hits = []
    for path in generic_files():
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:  # a picture
            continue
        for number, line in enumerate(text.splitlines(), start=1):
            if pattern.search(line):
                hits.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not hits, "game names outside arena/games/ (ask the registry):\n" + "\n".join(hits)


def test_the_pattern_finds_every_spelling() -> None:
    pattern = name_pattern()
    for text in ("BidEuchreState", "BID_EUCHRE_PHASE_PLAY", "persian rummy", "a seep floor"):
        assert pattern.search(text), text
    assert not pattern.search("the house bot plays every game")


def test_each_folder_is_named_for_its_game() -> None:
    assert builtin_game_names() == game_names()


@pytest.mark.parametrize("game", game_names())
@pytest.mark.parametrize("kind", PARTS)
def test_each_game_has_every_part(game: str, kind: str) -> None:
    assert part(game, kind) is not None, f"arena/games/{game.replace('-', '_')}/{kind}.py"


def test_a_missing_part_is_none_but_one_that_fails_to_import_raises(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert part("seep", "no_such_part") is None
    assert part("seep", "why") is not None

    def lacks_a_dependency(name: str) -> ModuleType:
        raise ModuleNotFoundError("No module named 'absent'", name="absent")

    monkeypatch.setattr("importlib.import_module", lacks_a_dependency)
    with pytest.raises(ModuleNotFoundError, match="absent"):
        part("seep", "why")
