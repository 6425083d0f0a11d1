"""The bot author's guide maps every enum a bot reads, number to name: on each game's
page (docs/games/GAME.md), every enum field of its observation and its actions (the
trump field's numbers to suits, ...), and in the guide the card's own enums once for all
games. A field or value added to a game's proto fails here until the page maps it."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from google.protobuf.descriptor import FieldDescriptor

from arena.v1 import bot_pb2, cards_pb2
from tests.support.guide import GAMES, game_section, guide_text

CARD = cards_pb2.Card.DESCRIPTOR.full_name
OBSERVATIONS = bot_pb2.ActRequest.DESCRIPTOR.oneofs_by_name["observation"]
PAYLOADS = bot_pb2.LegalAction.DESCRIPTOR.oneofs_by_name["payload"]


def enum_fields(message: Any, path: str = "") -> Iterator[tuple[str, Any]]:
    """Every enum field under ``message`` but a card's, as ``a[].b`` paths."""
    for field in message.fields:
        name = f"{path}{field.name}"
        if field.type == FieldDescriptor.TYPE_ENUM:
            yield name, field.enum_type
        elif field.type == FieldDescriptor.TYPE_MESSAGE and field.message_type.full_name != CARD:
            yield from enum_fields(field.message_type, name + ("[]." if field.is_repeated else "."))


def short(enum: Any, value: Any) -> str:
    """``BID_EUCHRE_PHASE_PLAY`` as the guide writes it: ``PLAY``."""
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum.name).upper() + "_"
    return str(value.name).removeprefix(prefix)


def rows(section: str, header: str) -> list[tuple[str, str]]:
    """The (first, second) cells of the table whose header row starts ``| header |``."""
    lines = section.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(f"| {header} |"))
    found = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip("|").split("|")]
        found.append((cells[0], cells[1]))
    return found


def assert_mapped(table: list[tuple[str, str]], enum: Any, where: list[str], place: str) -> None:
    row = [(first, numbers) for first, numbers in table if f"(`{enum.name}`)" in first]
    assert len(row) == 1, f"{place}: no row (or several) for `{enum.name}`"
    first, numbers = row[0]
    for name in where:
        assert f"`{name}`" in first, f"{place}: `{enum.name}`'s row does not name `{name}`"
    for value in enum.values:
        if value.number:
            text = f"{value.number} `{short(enum, value)}`"
            assert text in numbers, f"{place}: `{enum.name}`'s row lacks {text}"


@pytest.mark.parametrize("game", GAMES)
def test_every_enum_field_of_a_game_is_mapped_number_to_name(game: str) -> None:
    section = game_section(game)
    table = rows(section, "enum field")
    observation = next(f for f in OBSERVATIONS.fields if f.name == game.replace("-", "_"))
    action = next(f for f in PAYLOADS.fields if f.name == observation.name)
    by_enum: dict[str, tuple[Any, list[str]]] = {}
    for found in (enum_fields(observation.message_type), enum_fields(action.message_type)):
        for name, enum in found:
            by_enum.setdefault(enum.full_name, (enum, []))[1].append(name)
    for enum, where in by_enum.values():
        assert_mapped(table, enum, where, f"{game}'s page")
    assert len(table) == len(by_enum), f"{game}: a row for an enum the game does not use"


def test_a_cards_enums_are_mapped_once_for_every_game() -> None:
    text = guide_text()
    section = text[text.index('<a id="card-enums"></a>') :]
    table = rows(section, "enum")
    card = cards_pb2.Card.DESCRIPTOR
    for field in card.fields:
        if field.type == FieldDescriptor.TYPE_ENUM:
            assert_mapped(table, field.enum_type, [field.name], "the card enums")
