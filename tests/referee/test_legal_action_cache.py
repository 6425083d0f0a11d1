"""``arena.wire.LegalActionCache``: each (game, action id) converted once while kept, the
oldest dropped first once the cache is full, and games kept apart."""

from __future__ import annotations

from arena.games import State, get_game
from arena.wire import LegalActionCache


def test_each_action_is_converted_once_and_the_oldest_goes_first() -> None:
    made: list[tuple[str, int]] = []

    def convert(state: State, action: int) -> str:
        made.append((state.game_info.name, action))
        return f"{state.game_info.name}:{action}"

    cache = LegalActionCache(convert, size=3)
    seep = get_game("seep").new_state(1, {})
    euchre = get_game("bid-euchre").new_state(1, {})
    assert [cache.get(seep, a) for a in (1, 2, 1, 2)] == ["seep:1", "seep:2"] * 2
    assert made == [("seep", 1), ("seep", 2)]
    assert cache.get(euchre, 1) == "bid-euchre:1"  # the same id in another game
    assert cache.get(seep, 3) == "seep:3"  # the fourth: seep 1, the oldest, goes
    assert made[-2:] == [("bid-euchre", 1), ("seep", 3)]
    cache.get(seep, 2)
    assert made[-1] == ("seep", 3)  # still kept
    cache.get(seep, 1)
    assert made[-1] == ("seep", 1)  # made again
