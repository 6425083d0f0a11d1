"""Each runtime of the allow-list starts a real package in the sandbox: the Node.js
example bot as a package, and a statically linked C program."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import grpc
import pytest

from arena.hosting.example_packages import node_package
from arena.hosting.package import digest, pack
from arena.hosting.runtimes import NAMES, declared, runtime
from arena.hosting.sandbox import Sandbox, SandboxError
from arena.referee.hosted import HostedEntry, Hosting, Refused
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


LIST_ROOT = r"""
#include <dirent.h>
#include <stdio.h>
#include <unistd.h>
int main(void) {
  DIR *root = opendir("/");
  struct dirent *entry;
  printf("ROOT");
  while ((entry = readdir(root)) != NULL)
    if (entry->d_name[0] != '.') printf(" %s", entry->d_name);
  printf("\nUSR %d\n", access("/usr", F_OK) == 0);
  return 0;
}
"""
PYTHON_VIEW = """
import importlib, json, os
found = {}
for name in ("grpc", "google.protobuf", "numpy", "arena.bots.sdk", "celery", "starlette", "redis", "pytest"):
    try:
        importlib.import_module(name)
        found[name] = True
    except ImportError:
        found[name] = False
found["/usr/bin"] = os.path.exists("/usr/bin")
found["/usr/lib"] = os.path.exists("/usr/lib")
print("VIEW " + json.dumps(found), flush=True)
"""
NODE_VIEW = """
const fs = require("fs");
console.log("VIEW " + JSON.stringify({usr_bin: fs.existsSync("/usr/bin/python3"), gcc: fs.existsSync("/usr/bin/gcc"), opt: fs.existsSync("/opt/arena")}));
"""


def said(package: Path, runtime_name: str, argv: list[str], log: Path) -> str:
    """What a program that prints and exits wrote, from the refusal of its start."""

    async def run() -> None:
        box = await Sandbox.start(package, runtime(runtime_name), argv, log)
        await box.close()

    with pytest.raises(SandboxError):
        asyncio.run(run())
    return log.read_text()


def test_a_binary_bot_sees_nothing_of_the_host(tmp_path: Path) -> None:
    package = tmp_path / "lister"
    package.mkdir()
    (tmp_path / "list.c").write_text(LIST_ROOT)
    subprocess.run(
        ["gcc", "-static", "-o", str(package / "bot"), str(tmp_path / "list.c")], check=True
    )
    output = said(package, "binary", ["./bot"], tmp_path / "log")
    (root,) = [line.split()[1:] for line in output.splitlines() if line.startswith("ROOT")]
    assert set(root) == {"bot", "dev", "run", "tmp"}, root
    assert "USR 0" in output


def test_a_python_bot_imports_the_sdk_and_nothing_else_of_the_arenas_environment(
    tmp_path: Path,
) -> None:
    package = tmp_path / "view"
    package.mkdir()
    (package / "bot.py").write_text(PYTHON_VIEW)
    output = said(package, "python3.11", ["python3", "bot.py"], tmp_path / "log")
    (line,) = [x for x in output.splitlines() if x.startswith("VIEW ")]
    view = json.loads(line.removeprefix("VIEW "))
    assert view == {
        "grpc": True, "google.protobuf": True, "numpy": True, "arena.bots.sdk": True,
        "celery": False, "starlette": False, "redis": False, "pytest": False,
        "/usr/bin": False, "/usr/lib": True,
    }  # fmt: skip


def test_a_node_bot_sees_node_and_no_other_program(tmp_path: Path) -> None:
    package = tmp_path / "view"
    package.mkdir()
    (package / "bot.js").write_text(NODE_VIEW)
    output = said(package, "node20", ["node", "bot.js"], tmp_path / "log")
    (line,) = [x for x in output.splitlines() if x.startswith("VIEW ")]
    assert json.loads(line.removeprefix("VIEW ")) == {"usr_bin": False, "gcc": False, "opt": False}


def test_a_binary_bot_that_is_not_a_static_executable_is_refused_with_the_reason(
    tmp_path: Path,
) -> None:
    (tmp_path / "t.c").write_text("int main(void) { return 0; }\n")
    dynamic = tmp_path / "dynamic"
    dynamic.mkdir()
    subprocess.run(["gcc", "-o", str(dynamic / "bot"), str(tmp_path / "t.c")], check=True)
    script = tmp_path / "script"
    script.mkdir()
    (script / "bot").write_text("#!/bin/sh\necho hi\n")
    (script / "bot").chmod(0o755)

    async def refusal(directory: Path) -> str:
        hosting = Hosting(tmp_path / "hosting")
        blob = pack(directory)
        entry = HostedEntry(0, digest(blob), "binary", "./bot", blob)
        try:
            with pytest.raises(Refused) as refused:
                await hosting.prepare([entry])
            return str(refused.value)
        finally:
            await hosting.close()

    said_dynamic = asyncio.run(refusal(dynamic))
    assert said_dynamic.startswith("hosted[0].command './bot': './bot': it is dynamically linked")
    assert "gcc -static" in said_dynamic
    assert "it is a script (#!/bin/sh)" in asyncio.run(refusal(script))
