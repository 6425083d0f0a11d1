"""Games by name: canonical names on the wire, what a person types accepted loosely, and
an unknown name answered with the closest one."""

from __future__ import annotations

import pytest

from arena.games import UnknownGameError, all_games, game_name, get_game


@pytest.mark.parametrize(
    ("typed", "name"),
    [
        ("seep", "seep"),
        ("Seep", "seep"),
        ("BID-EUCHRE", "bid-euchre"),
        ("bid euchre", "bid-euchre"),
        ("bid_euchre", "bid-euchre"),
        ("  Persian   Rummy ", "persian-rummy"),
    ],
)
def test_a_typed_name_finds_its_game(typed: str, name: str) -> None:
    assert game_name(typed) == name


def test_every_title_finds_its_game() -> None:
    for game in all_games():
        assert game_name(game.info.title) == game.info.name


@pytest.mark.parametrize(
    ("typed", "suggested"),
    [
        ("euchre", "bid-euchre"),
        ("seeep", "seep"),
        ("Bridge", "bridgette"),
        ("rummy", "persian-rummy"),
        ("chess", None),
    ],
)
def test_an_unknown_name_suggests_the_closest_and_lists_them_all(
    typed: str, suggested: str | None
) -> None:
    with pytest.raises(UnknownGameError) as raised:
        game_name(typed)
    message = str(raised.value)
    hint = f" (did you mean {suggested!r}?)" if suggested else ""
    assert message == (
        f"unknown game {typed!r}{hint}; available games: "
        "baloot, bid-euchre, bridgette, persian-rummy, seep"
    )


def test_the_wire_takes_canonical_names_only() -> None:
    assert get_game("seep").info.name == "seep"
    with pytest.raises(UnknownGameError, match=r"unknown game 'Seep' \(did you mean 'seep'\?\)"):
        get_game("Seep")
