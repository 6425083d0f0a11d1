"""docs/games/: every game has a page, and every page's generated parts are what
``python -m arena.reference_docs`` makes today from the protos (proto/arena/v1/, their
comments included) and the engines' facts (``arena.games.get_game(name).info``).

A proto comment, a field, an enum value, an option or its default that changes without
the pages fails here, naming the page and the command that rewrites it; what is written
by hand around the generated parts is never touched by that command.
"""

from __future__ import annotations

import dataclasses
import re
import shutil
from pathlib import Path

import pytest

from arena import reference_docs
from arena.games import game_names, get_game
from arena.reference_docs import COMMAND, INDEX, PAGES, Protos

ROOT = Path(__file__).resolve().parents[2]
GUIDE = ROOT / "docs" / "writing-a-bot.md"


@pytest.fixture(scope="module")
def protos() -> Protos:
    return reference_docs.load_protos()


@pytest.fixture(scope="module")
def expected(protos: Protos) -> dict[Path, dict[str, str]]:
    return reference_docs.expected_blocks(protos)


def test_every_game_has_a_page_and_no_page_is_of_no_game() -> None:
    pages = {page.stem for page in PAGES.glob("*.md")} - {"README"}
    assert pages == set(game_names())


def test_every_page_is_up_to_date(expected: dict[Path, dict[str, str]]) -> None:
    found = [p for page, parts in expected.items() for p in reference_docs.problems(page, parts)]
    assert found == [], "\n".join(found)


def test_every_generated_row_says_what_it_means(expected: dict[Path, dict[str, str]]) -> None:
    """A field, kind or enum value without a comment in its proto shows an empty meaning."""
    empty = [
        f"{page.relative_to(ROOT)}: {row}"
        for page, parts in expected.items()
        for body in parts.values()
        for row in body.splitlines()
        if re.match(r"\| `\w+` \|", row) and "|  |" in row
    ]
    assert empty == [], "comment these in the proto:\n" + "\n".join(empty)


def test_a_changed_proto_comment_makes_the_page_stale(tmp_path: Path) -> None:
    shutil.copytree(ROOT / "proto" / "arena", tmp_path / "arena")
    proto = tmp_path / "arena" / "v1" / "bid_euchre.proto"
    old = "  // Dealer of the current hand.\n"
    assert old in proto.read_text()
    proto.write_text(proto.read_text().replace(old, "  // Who dealt this hand.\n"))
    parts = reference_docs.expected_blocks(reference_docs.load_protos(tmp_path))
    page = PAGES / "bid-euchre.md"
    assert "Who dealt this hand." in parts[page]["reference"]
    assert reference_docs.problems(page, parts[page]) == [
        "docs/games/bid-euchre.md: the generated part `reference` is out of date with the "
        f"protos and the engine; `{COMMAND}` rewrites it"
    ]


def test_a_changed_option_makes_the_page_stale(protos: Protos) -> None:
    (game,) = [g for g in reference_docs.games(protos) if g.game == "seep"]
    info = get_game("seep").info
    longer = dataclasses.replace(info.options[0], default=3)
    changed = dataclasses.replace(info, options=(longer, *info.options[1:]))
    facts = reference_docs.facts_block(protos, game, changed)
    assert f"| `{longer.name}` | `3` |" in facts
    page = PAGES / "seep.md"
    parts = {"facts": facts, "reference": reference_docs.reference_block(protos, game)}
    assert [p.split(";")[0] for p in reference_docs.problems(page, parts)] == [
        "docs/games/seep.md: the generated part `facts` is out of date with the protos and "
        "the engine"
    ]


def test_rewriting_keeps_what_is_written_by_hand(expected: dict[Path, dict[str, str]]) -> None:
    for page, parts in expected.items():
        text = page.read_text(encoding="utf-8")
        stale = reference_docs.rewritten(text, {name: "stale\n" for name in parts})
        assert stale != text
        assert reference_docs.rewritten(stale, parts) == text


def test_a_new_game_gets_a_page_with_a_place_for_its_rules(
    expected: dict[Path, dict[str, str]],
) -> None:
    parts = expected[PAGES / "seep.md"]
    page = reference_docs.new_page(parts)
    assert "## The rules in brief" in page
    assert reference_docs.problems(PAGES / "new.md", parts, text=page) == []
    assert reference_docs.problems(PAGES / "new.md", parts, text="# New\n") == [
        f"docs/games/new.md: no generated part `{name}`; `{COMMAND}` adds it" for name in parts
    ]


def test_the_index_and_the_guide_link_every_game_page() -> None:
    index, guide = INDEX.read_text(encoding="utf-8"), GUIDE.read_text(encoding="utf-8")
    for game in game_names():
        assert f"]({game}.md)" in index, f"docs/games/README.md does not link {game}.md"
        assert f"](games/{game}.md)" in guide, f"docs/writing-a-bot.md does not link {game}.md"


def test_a_kind_with_no_example_id_is_shown_by_play_or_named(
    protos: Protos, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(reference_docs, "_ids", lambda game, name: ())
    by_game = {g.game: g for g in reference_docs.games(protos)}
    shown = reference_docs.example_actions(by_game["persian-rummy"])
    kinds = [a.persian_rummy.WhichOneof("kind") for a in shown]
    assert kinds == [f.name for f in by_game["persian-rummy"].action.proto.field]
    with pytest.raises(
        SystemExit, match=r"bid-euchre: no action of kind \['ace_no_face', 'discard'\]"
    ):
        reference_docs.example_actions(by_game["bid-euchre"])
