"""Tokens nothing can link: a bot that records what it is sent while a watcher reads
every live listing, every watched event and every results page of the running
tournament finds nothing that names a match's pairing, deal or half: every seat is
told a token of its own, and public reads name matches by public ids until the
tournament ends, when the mapping is published and checks against the revealed seed.
Real workers, referee, API and bot processes."""

from __future__ import annotations

import base64
import json
import threading
from pathlib import Path

import grpc

from arena.processes import Service, start_service
from arena.tournament.fair_play import PUBLIC_ID, public_match_id
from arena.v1 import arena_pb2, referee_pb2, referee_pb2_grpc
from tests.support.arena import Arena
from tests.support.bots import bot_command


class Watcher:
    """Reads, until stopped, what anyone may read of the tournament while it runs."""

    def __init__(self, arena: Arena, tournament_id: str) -> None:
        self.arena, self.tournament_id = arena, tournament_id
        self.seen: list[str] = []
        self.live_ids: set[str] = set()
        self.result_ids: set[str] = set()
        self.watched: set[str] = set()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._poll, daemon=True)]

    def __enter__(self) -> Watcher:
        self.threads[0].start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=60)

    def _poll(self) -> None:
        stub = self.arena.stub
        # Within an anonymous reader's budget: a page of a running tournament's results is
        # a costly read (arena.api.reads), 10 a second.
        while not self.stop.wait(0.15):
            live = stub.ListLiveMatches(arena_pb2.ListLiveMatchesRequest())
            for match in live.matches:
                self.seen.append(str(match))
                self.live_ids.add(match.match_id)
                if match.watch_id not in self.watched:
                    self.watched.add(match.watch_id)
                    follow = threading.Thread(
                        target=self._watch, args=(match.referee, match.watch_id), daemon=True
                    )
                    self.threads.append(follow)
                    follow.start()
            ask = arena_pb2.ListResultsRequest(tournament_id=self.tournament_id, page_size=2)
            page = stub.ListResults(ask)
            if self.arena.get(self.tournament_id).seed.revealed:
                return  # ended: from here on the schedule's ids are public
            for record in page.results:
                self.seen.append(str(record))
                self.result_ids.add(record.match_id)
            if page.next_page_token:
                token = page.next_page_token
                self.seen.append(base64.urlsafe_b64decode(token + "=" * (-len(token) % 4)).decode())

    def _watch(self, referee: str, watch_id: str) -> None:
        with grpc.insecure_channel(referee) as channel:
            stub = referee_pb2_grpc.RefereeStub(channel)
            request = referee_pb2.WatchMatchRequest(match_id=watch_id)
            try:
                for event in stub.WatchMatch(request, timeout=120):
                    self.seen.append(str(event))
            except grpc.RpcError:  # listed before it reached its referee: missed
                pass


def spy(arena: Arena, out: Path) -> Service:
    bot = start_service(bot_command("spy", "--out", str(out)))
    arena.bots["spy"] = bot
    arena.stub.RegisterBot(arena_pb2.RegisterBotRequest(name="spy", address=bot.address))
    return bot


def test_nothing_a_bot_can_read_ties_its_plays_to_a_pairing_deal_or_half(
    arena: Arena, tmp_path: Path
) -> None:
    acts = tmp_path / "acts.jsonl"
    spy(arena, acts)
    arena.start_bot("other", "random", "--seed", "3")
    arena.start_bot("third", "random", "--seed", "4")
    arena.start_worker("w", concurrency=2)
    tournament = arena.submit(["spy", "other", "third"], deals=2, games=["bid-euchre"])
    with Watcher(arena, tournament.id) as watcher:
        arena.wait_until(tournament.id)
    final = arena.stub.ListResults(arena_pb2.ListResultsRequest(tournament_id=tournament.id))
    schedule_ids = [r.match_id for r in final.results]
    assert len(schedule_ids) == 12 and watcher.live_ids and watcher.result_ids
    assert any("MATCH_EVENT_KIND_GAME" in text for text in watcher.seen)  # it watched play
    # While it ran, every id anyone could read was a public one, and no read named the
    # tournament's schedule: no match id, no pair key, no "-<deal>-<half>" part of one.
    assert all(PUBLIC_ID.fullmatch(i) for i in watcher.live_ids | watcher.result_ids)
    seen = "\n".join(watcher.seen)
    for match_id in schedule_ids:
        assert match_id.removeprefix(tournament.id) not in seen
    # Once it has ended the mapping is published, and the revealed seed checks it.
    seed = arena.get(tournament.id).seed
    assert seed.revealed
    public = {r.match_id: r.public_id for r in final.results}
    for match_id, public_id in public.items():
        assert public_id == public_match_id(seed.master_seed, seed.salt, match_id)
    assert watcher.live_ids | watcher.result_ids <= set(public.values())
    # Every seat is told a token of its own: the spy's two seats in each of its 8 matches
    # were told 16 different tokens, none ever used for another seat.
    requests = [json.loads(line) for line in acts.read_text().splitlines()]
    seat_of: dict[str, set[int]] = {}
    for request in requests:
        seat_of.setdefault(request["matchId"], set()).add(request.get("seat", 0))
    assert len(seat_of) == 16 and all(len(seats) == 1 for seats in seat_of.values())
    assert not any(token in seen for token in seat_of)
