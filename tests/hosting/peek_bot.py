"""A bot that looks for its partner's hand wherever a process of its could find it.

It plays as the house bot, and at each decision it keeps its own hand where its
partner's seat (the seat two along, in a 4-seat game) could read it, then looks for the
partner's there: in its own memory (one process that holds both seats has both hands),
in a file in /tmp, and behind an abstract Unix socket (both shared by processes on one
host that share a mount or a network namespace). Each decision it prints
``PEEK <seat> <memory> <file> <socket>``, how many of the partner's cards each way found,
on stdout and, when run with a path argument (a remote bot), to that file too.

Arguments, as a remote bot: the report's path, then the port (0: any).
"""

from __future__ import annotations

import contextlib
import json
import socket
import sys
import threading
from pathlib import Path

from arena.bots.examples.house import HouseBot
from arena.bots.sdk import serve
from arena.v1 import bot_pb2

REPORT = sys.argv[1] if len(sys.argv) > 1 else ""
PORT = int(sys.argv[2]) if len(sys.argv) > 2 else 50051


def hand_of(request: bot_pb2.ActRequest) -> list[str]:
    observation = getattr(request, request.WhichOneof("observation") or "")
    return sorted(card.code for card in observation.hand)


class Peeker(HouseBot):
    def __init__(self) -> None:
        super().__init__()
        self.hands: dict[int, list[str]] = {}
        self.listening: dict[int, socket.socket] = {}

    def act(self, request: bot_pb2.ActRequest) -> int:
        seat, partner = request.seat, (request.seat + 2) % 4
        mine = hand_of(request)
        self.hands[seat] = mine
        self._leave(seat, mine)
        found = (
            self.hands.get(partner, []),
            self._read_file(partner),
            self._ask_socket(partner),
        )
        # Only cards that are not this seat's count: a partner's hand is disjoint from it.
        counts = [len(set(cards) - set(mine)) for cards in found]
        line = f"PEEK {seat} {counts[0]} {counts[1]} {counts[2]}"
        print(line, flush=True)
        if REPORT:
            with open(REPORT, "a") as out:
                out.write(line + "\n")
        return super().act(request)

    def _leave(self, seat: int, hand: list[str]) -> None:
        with contextlib.suppress(OSError):
            Path(f"/tmp/arena-peek-{seat}").write_text(json.dumps(hand))
        if seat not in self.listening:
            with contextlib.suppress(OSError):
                server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                server.bind(f"\0arena-peek-{seat}")
                server.listen()
                self.listening[seat] = server
                threading.Thread(target=self._answer, args=(server, seat), daemon=True).start()

    def _answer(self, server: socket.socket, seat: int) -> None:
        while True:
            connection, _ = server.accept()
            with connection:
                connection.sendall(json.dumps(self.hands.get(seat, [])).encode())

    @staticmethod
    def _read_file(seat: int) -> list[str]:
        try:
            found: list[str] = json.loads(Path(f"/tmp/arena-peek-{seat}").read_text())
        except (OSError, ValueError):
            return []
        return found

    @staticmethod
    def _ask_socket(seat: int) -> list[str]:
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
                client.settimeout(0.2)
                client.connect(f"\0arena-peek-{seat}")
                found: list[str] = json.loads(client.recv(65536).decode() or "[]")
        except (OSError, ValueError):
            return []
        return found


if __name__ == "__main__":
    serve(Peeker(), port=PORT)
