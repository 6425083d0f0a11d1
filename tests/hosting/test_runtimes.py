"""Each runtime of the allow-list starts a real package in the sandbox: the Node.js
example bot as a package, and a statically linked C program."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import grpc
import pytest

from arena.hosting.example_packages import node_package
from arena.hosting.runtimes import NAMES, declared, runtime
from arena.hosting.sandbox import Sandbox
from arena.v1 import bot_pb2, bot_pb2_grpc

STATIC_BOT = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
int main(void) {
  const char *where = getenv("ARENA_BOT_ADDRESS");  /* "unix:/run/arena/bot.sock" */
  printf("static bot listening on %s\n", where);
  fflush(stdout);
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  struct sockaddr_un address = {.sun_family = AF_UNIX};
  strncpy(address.sun_path, where + 5, sizeof address.sun_path - 1);
  if (bind(fd, (struct sockaddr *)&address, sizeof address) || listen(fd, 1)) return 1;
  pause();
}
"""


def test_the_node_example_bot_runs_hosted(tmp_path: Path) -> None:
    package = node_package(tmp_path / "node-bot")
    log = tmp_path / "node.log"

    async def run() -> bot_pb2.HelloResponse:
        box = await Sandbox.start(package, runtime("node20"), ["node", "bot.js"], log)
        try:
            async with grpc.aio.insecure_channel(box.address) as channel:
                hello: bot_pb2.HelloResponse = await bot_pb2_grpc.BotStub(channel).Hello(
                    bot_pb2.HelloRequest(), timeout=10
                )
                return hello
        finally:
            await box.close()

    hello = asyncio.run(run())
    assert hello.name == "node-basic" and "bid-euchre" in hello.games
    assert "bot node-basic listening on unix:/run/arena/bot.sock" in log.read_text()


def test_a_static_binary_runs_hosted(tmp_path: Path) -> None:
    package = tmp_path / "static"
    package.mkdir()
    source = tmp_path / "bot.c"
    source.write_text(STATIC_BOT)
    subprocess.run(["gcc", "-static", "-O2", "-o", str(package / "bot"), str(source)], check=True)
    log = tmp_path / "static.log"

    async def run() -> None:
        box = await Sandbox.start(package, runtime("binary"), ["./bot"], log)
        await box.close()

    asyncio.run(run())
    assert log.read_text() == "static bot listening on unix:/run/arena/bot.sock\n"


def test_a_runtime_as_declared_knows_its_program_words_whatever_the_host_has() -> None:
    assert declared("node20").program("node") == "node"
    assert declared("python3.11").program("python3") == "python3"
    assert declared("binary").programs == ()
    with pytest.raises(
        ValueError, match=r"unknown runtime 'ruby3'; allowed: python3\.11, node20, binary"
    ):
        declared("ruby3")
    for name in NAMES:  # what a host runs offers the words the declaration names
        assert [w for w, _ in runtime(name).programs] == [w for w, _ in declared(name).programs]
