"""The front page's render bench on a tiny budget, and the socket option it found
missing."""

from __future__ import annotations

import asyncio
import socket
import sys

import pytest

from arena.web.server import listen
from bench import web_render
from tests.support.fake_source import Site
from tests.web.dom import Document


def test_the_synthetic_source_fills_the_front_page() -> None:
    source = web_render.SyntheticSource(bots=12, matches=300)
    doc = Document(Site(source, "api:1").get("/").body.decode())
    assert len(doc.tables["leaderboard-overall"]) == 12
    assert len(doc.tables["los-matrix"]) == 12
    assert all(len(doc.tables[f"leaderboard-{g}"]) == 12 for g in source.games())
    assert len(doc.tables["recent-matches"]) == 20
    assert len(doc.tables["running-tournaments"]) == 2


def test_the_bench_runs_and_prints_its_ratio(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["web_render", "--bots", "8", "--matches", "200", "--rounds", "1", "--per-round", "2"]
    monkeypatch.setattr(sys, "argv", argv)
    web_render.main()
    out = capsys.readouterr().out
    assert "8 bots, 200 stored matches" in out
    assert "x the static file" in out and "GET /static/site.css" in out


def test_served_connections_send_without_waiting_for_acks() -> None:
    """Nagle's algorithm off on every accepted connection: with it on, an answer written
    as headers then body waited 40 ms for the client's delayed ACK on a kept-alive
    connection (the bench's first finding: every request took 44 ms)."""

    async def accepted_nodelay() -> int:
        seen: asyncio.Future[int] = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                conn = transport.get_extra_info("socket")
                seen.set_result(conn.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))
                transport.close()

        sock = listen("127.0.0.1", 0)
        server = await asyncio.get_running_loop().create_server(Probe, sock=sock)
        async with server:
            _, writer = await asyncio.open_connection(*sock.getsockname()[:2])
            try:
                return await asyncio.wait_for(seen, 10)
            finally:
                writer.close()

    assert asyncio.run(accepted_nodelay()) != 0
