"""The replay viewer's frames (``arena.replay.frames``) for every game, from real matches:
a frame per decision and one where the match stopped, every card of the pack on the
table at every frame, each seat shown exactly the request its bot was sent (kept apart
from the frames), hand ends where the viewer shows them, faults at their decision, and
replays of another version refused."""

from __future__ import annotations

import collections
import copy
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format

from arena.games import get_game
from arena.replay.frames import Built, FramesRefused, NoRequest, build, build_frames
from arena.replay.record import seat_token
from arena.replay.tables import deck_size
from tests.games.generic import Case, recorded_replay
from tests.replay.matches import FAULTY, SHORT, Played, play_all

MATCHES = [*SHORT, FAULTY]


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Played:
    return play_all(Path(tmp_path_factory.mktemp("frames")))


@pytest.fixture(scope="module")
def built(played: Played) -> dict[str, Built]:
    return {name: build(doc) for name, doc in played.replays.items()}


@pytest.fixture(scope="module")
def frames(built: dict[str, Built]) -> dict[str, dict[str, Any]]:
    return {name: b.frames for name, b in built.items()}


@pytest.mark.parametrize("match", MATCHES)
def test_a_frame_per_decision_and_one_at_the_end(
    played: Played, frames: dict[str, dict[str, Any]], match: str
) -> None:
    doc, shown = played.replays[match], frames[match]
    decisions = [e["decision"] for h in doc["hands"] for e in h["log"] if "decision" in e]
    assert decisions and len(decisions) == doc["result"]["decisions"]
    steps = shown["frames"]
    assert [f["kind"] for f in steps] == ["decision"] * len(decisions) + ["end"]
    assert [f["index"] for f in steps] == list(range(len(steps)))
    for frame, decision in zip(steps, decisions, strict=False):
        assert frame["decision"] == decision["index"]
        assert frame["seat"] == decision["seat"]
        assert frame["action"]["text"] == decision["text"]
        assert frame["action"]["id"] == str(decision["action"])
    assert steps[-1]["seat"] is None
    assert not any("sent" in f for f in steps)  # served apart, per frame
    assert steps[-1]["scores"] == doc["result"]["scores"]
    # The hand selector: each hand's first frame, in order, and where its end shows.
    hands = shown["hands"]
    assert [h["number"] for h in hands] == [h["number"] for h in doc["hands"]]
    assert all(steps[h["frame"]]["hand"] == h["number"] for h in hands if h["decisions"])
    for hand, recorded in zip(hands, doc["hands"], strict=True):
        assert hand.get("scores") == recorded.get("scores")
    assert [s["name"] for s in shown["seats"]] == [s["bot"] for s in doc["seats"]]


@pytest.mark.parametrize("match", list(SHORT))
def test_the_frames_say_whether_every_seat_is_its_own_team(
    frames: dict[str, dict[str, Any]], match: str
) -> None:
    """The viewer counts scores and the winner per seat where every seat is its own team:
    the frames say so, and the viewer names no game."""
    shown = frames[match]
    assert shown["per_seat"] is (shown["game"] == "bridgette")
    assert shown["per_seat"] is (shown["teams"] == len(shown["seats"]))


@pytest.mark.parametrize("match", MATCHES)
def test_every_card_of_the_pack_is_on_the_table_at_every_frame(
    played: Played, frames: dict[str, dict[str, Any]], match: str
) -> None:
    doc = played.replays[match]
    _every_card_on_the_table(frames[match], deck_size(doc["game"], doc["options"]))


def _every_card_on_the_table(shown: dict[str, Any], pack: int) -> None:
    for frame in shown["frames"]:
        table = frame["table"]
        cards = [c for hand in table["hands"] for c in hand]
        cards += [c for pile in table["piles"] for c in pile["cards"]]
        twice = [c for c, n in collections.Counter(cards).items() if n > 1]
        assert not twice and len(cards) == pack, (frame["index"], table)
        for pile in table["piles"]:
            if "seats" in pile:
                assert len(pile["seats"]) == len(pile["cards"])


@pytest.mark.parametrize("seed", range(4))
def test_bid_euchre_with_the_joker_shows_25_cards_and_the_discard_face_down(seed: int) -> None:
    options: dict[str, object] = {"joker": True, "max_hands": 1, "ace_no_face": seed % 2 == 1}
    doc = recorded_replay(get_game("bid-euchre"), Case(seed, seed + 11, options))
    shown = build(doc).frames
    assert deck_size("bid-euchre", doc["options"]) == 25
    _every_card_on_the_table(shown, 25)
    discards = [
        pile
        for frame in shown["frames"]
        for pile in frame["table"]["piles"]
        if pile["kind"] == "discard"
    ]
    assert discards and all(p["face_down"] and len(p["cards"]) == 1 for p in discards)
    first = shown["frames"][0]["table"]
    assert first["phase"] == "discard" and sorted(map(len, first["hands"])) == [6, 6, 6, 7]


@pytest.mark.parametrize("match", list(SHORT))
def test_each_seat_is_shown_exactly_what_its_bot_was_sent(
    played: Played, built: dict[str, Built], match: str
) -> None:
    doc = played.replays[match]
    compared = 0
    steps = built[match].frames["frames"]
    assert len(built[match].requests) == len(steps)
    for frame in steps[:-1]:
        request = played.sent[(seat_token(doc, frame["seat"]), frame["decision"])]
        sent = json_format.MessageToDict(
            request, preserving_proto_field_name=True, always_print_fields_with_no_presence=True
        )
        shown = built[match].sent(frame["index"])
        # The replay keeps the time bank to the microsecond; the rest is exact.
        bank_sent, bank_shown = sent.pop("time_bank", None), shown.pop("time_bank", None)
        assert (bank_sent is None) == (bank_shown is None)
        if bank_sent is not None:
            assert abs(float(bank_sent[:-1]) - float(bank_shown[:-1])) < 2e-6
        assert shown == sent, frame["index"]
        assert shown["seat"] == frame["seat"]
        compared += 1
    assert compared == played.replays[match]["result"]["decisions"]
    if match == "baloot":
        assert "time_bank" in built[match].sent(0)
    last = len(steps) - 1
    for index in (last, last + 1, -1):
        with pytest.raises(NoRequest) as none:
            built[match].sent(index)
        assert str(none.value) == (
            f"frame {index} has no request: the frames with a seat to act are 0 to {last - 1}"
        )


@pytest.mark.parametrize("match", MATCHES)
def test_each_hand_end_is_where_the_viewer_shows_it(
    played: Played, frames: dict[str, dict[str, Any]], match: str
) -> None:
    """The engines deal the next hand in the step that ends one: the frame after a hand's
    last decision is the first to know how it ended, and carries its hand_end events."""
    shown = frames[match]
    steps = shown["frames"]
    ended = [h for h in shown["hands"] if "end" in h]
    assert ended, "every short match ends at least one hand"
    for hand, recorded in zip(shown["hands"], played.replays[match]["hands"], strict=True):
        if "end" not in hand:
            continue
        assert hand["end"] == recorded["end"] and hand["scores"] == recorded["scores"]
        assert hand["end_frame"] == hand["frame"] + hand["decisions"]
        after = steps[hand["end_frame"]]
        assert after["hand"] != hand["number"] or after["kind"] == "end"
        assert steps[hand["end_frame"] - 1]["hand"] == hand["number"]
        assert any(e["hand_end"] for e in after["events"]), after["events"]


def test_faults_are_shown_at_their_decision(
    played: Played, frames: dict[str, dict[str, Any]]
) -> None:
    doc = played.replays[FAULTY]
    assert len(doc["faults"]) > 3
    faulted = {f["decision"]: f for f in doc["faults"]}
    for frame in frames[FAULTY]["frames"][:-1]:
        fault = faulted.get(frame["decision"])
        assert frame["faults"] == ([fault] if fault else [])
        assert frame["action"]["substituted"] == (fault is not None)
        if fault:
            assert frame["seat"] == fault["seat"] and fault["kind"] == "illegal_action"
            assert frame["action"]["text"] == fault["substituted_action"]


def test_names_and_a_bad_replay(played: Played) -> None:
    doc = played.replays["seep"]
    named = build_frames(doc, names=["north", "east", "south", "west"])
    assert [s["name"] for s in named["seats"]] == ["north", "east", "south", "west"]

    newer = copy.deepcopy(doc)
    newer["version"] = 2
    with pytest.raises(FramesRefused) as refused:
        build_frames(newer)
    assert str(refused.value) == (
        "it is replay format version 2, and this viewer reads version 1 only"
    )
    other = {**doc, "format": "chess-pgn"}
    with pytest.raises(
        FramesRefused, match="it is not a Card Arena replay \\(its format is 'chess-pgn'"
    ):
        build_frames(other)
    with pytest.raises(FramesRefused, match="not a JSON object"):
        build_frames([doc])  # type: ignore[arg-type]
