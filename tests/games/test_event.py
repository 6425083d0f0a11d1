"""``Event`` is a named tuple for speed (``arena.games.api``): it must still behave as the
immutable record with defaults that engines, replays and snapshots rely on."""

from __future__ import annotations

import copy
import pickle

import pytest

from arena.games.api import Event


def test_an_event_has_its_defaults_and_a_fresh_data_dict_each() -> None:
    first, second = Event("deal", "dealt"), Event("deal", "dealt")
    assert (first.seat, first.data, first.visible_to) == (None, {}, None)
    assert first.data is not second.data
    assert first.public and not Event("deal", "dealt", visible_to=()).public


def test_an_event_cannot_be_changed() -> None:
    event = Event("play", "play QH", seat=2, data={"card": "QH"})
    with pytest.raises(AttributeError):
        event.seat = 1  # type: ignore[misc]


def test_an_event_equals_only_an_event_with_the_same_fields() -> None:
    event = Event("play", "play QH", 2, {"card": "QH"}, (0, 2))
    assert event == Event("play", "play QH", seat=2, data={"card": "QH"}, visible_to=(0, 2))
    assert event != Event("play", "play QH", 3, {"card": "QH"}, (0, 2))
    assert event != ("play", "play QH", 2, {"card": "QH"}, (0, 2))
    assert tuple(event) != event


def test_an_event_pickles_and_copies_to_an_equal_event() -> None:
    event = Event("take", "take 3", seat=1, data={"cards": ["QH", "2S"]})
    for copied in (pickle.loads(pickle.dumps(event)), copy.deepcopy(event)):
        assert type(copied) is Event and copied == event
