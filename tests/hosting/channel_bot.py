"""A hosted bot that tries to pass bits to another box through the host they share.

Two ways, each with a fixed pattern of bits that every copy of this bot knows:

- Time is cut into 25 ms slots, each carrying one bit. A sender, in a slot whose bit
  is 1, keeps eight child processes spinning; in a slot whose bit is 0 they rest. A
  receiver measures, in every slot that falls wholly within its own thinking (so that
  when its turn began does not count), how much work it gets done and the host's
  runnable threads (``/proc/loadavg``; -1 where unreadable), and prints
  ``SLOT <slot> <bit sent> <work> <runnable>``. Were the two boxes to run at once, or
  the host's load be readable, the receiver would decode the pattern.
- Each decision carries one bit, by its index in the match. A sender, at a decision
  whose bit is 1, opens 200 files and keeps them open, frozen or not, until its next
  decision; at one whose bit is 0 it closes them; it prints ``SENT <index> <bit>``. A
  receiver reads the host's open files (``/proc/sys/fs/file-nr``) at each decision and
  prints ``TURN <index> <open files>``, to be read against the sender's last bit
  before it: a state that outlives a turn, which taking turns alone would not stop.

Arguments: the role, ``send``, ``receive``, ``partner`` (the team's lower seat sends,
the other receives) or ``self`` (one box both sends and receives: a check that the
receiver sees a channel that exists); seconds to think on each of its first decisions;
how many decisions to think on (then it plays at once).
"""

from __future__ import annotations

import hashlib
import os
import sys
import threading
import time
from typing import IO

ROLE = sys.argv[1]
THINK = float(sys.argv[2]) if len(sys.argv) > 2 else 0.3
THINKING = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
SLOT = 0.025
SENDING = "/tmp/sending"


def bit(slot: int) -> int:
    return hashlib.sha256(str(slot).encode()).digest()[0] & 1


def now_slot() -> int:
    return int(time.time() / SLOT)


def rest_until_next_slot() -> None:
    time.sleep(max(0.0, (now_slot() + 1) * SLOT - time.time()))


def spinner() -> None:
    """A child process that spins through the 1-slots while the box sends."""
    while True:
        if os.path.exists(SENDING) and bit(now_slot()):
            end = (now_slot() + 1) * SLOT
            while time.time() < end:
                pass
        else:
            rest_until_next_slot()


def counter(path: str, pick: int) -> int:
    try:
        with open(path) as handle:
            return int(handle.read().replace("/", " ").split()[pick])
    except (OSError, ValueError, IndexError):
        return -1


thinking = [0, False]
"""How many decisions the bot has thought on, and whether it is thinking now."""


def receive() -> None:
    while True:
        rest_until_next_slot()
        slot, began = now_slot(), list(thinking)
        end = (slot + 1) * SLOT
        work = 0
        while time.time() < end:
            work += 1
        runnable = counter("/proc/loadavg", 3)
        if ROLE == "self" or (began[1] and thinking == began):
            print(f"SLOT {slot} {bit(slot)} {work} {runnable}", flush=True)


roles: set[str] = set()
held: list[IO[bytes]] = []


def start(role: str) -> None:
    roles.update({"send", "receive"} if role == "self" else {role})
    if "send" in roles:
        with open(SENDING, "w"):
            pass
    if "receive" in roles:
        threading.Thread(target=receive, daemon=True).start()


# The spinners are forked before gRPC starts any thread.
for _ in range(8):
    if os.fork() == 0:
        spinner()
if ROLE != "partner":
    start(ROLE)

from arena.bots.examples.house import HouseBot  # noqa: E402
from arena.bots.sdk import serve  # noqa: E402


class Channel(HouseBot):
    decisions = 0

    def act(self, request):  # type: ignore[no-untyped-def]
        if ROLE == "partner" and self.decisions == 0:
            start("send" if request.seat < 2 else "receive")
        index = request.decision_index
        if "send" in roles:
            for handle in held:
                handle.close()
            held[:] = [open("/bot/bot.py", "rb") for _ in range(200 * bit(index))]  # noqa: SIM115
            print(f"SENT {index} {bit(index)}", flush=True)
        if "receive" in roles:
            print(f"TURN {index} {counter('/proc/sys/fs/file-nr', 0)}", flush=True)
        self.decisions += 1
        if self.decisions <= THINKING:
            thinking[:] = [self.decisions, True]
            time.sleep(THINK)
            thinking[1] = False
        return super().act(request)


serve(Channel())
