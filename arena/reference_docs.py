"""Every game's reference page, ``docs/games/GAME.md``, generated from where its facts live.

A game's page holds two kinds of text. What a bot of that game is sent and may answer
comes from the game's proto (``proto/arena/v1/GAME.proto``, whose every message, field
and enum value carries a comment) and from the engine's own facts
(``arena.games.get_game(name).info``: title, seats, teams, options and their defaults);
the rules told in words, notes and recorded requests are written by hand around it. Each
generated part sits between a ``<!-- generated: NAME ... -->`` line and an
``<!-- end generated -->`` line, and only those parts are ever rewritten::

    python -m arena.reference_docs           # rewrite the generated parts of every page
    python -m arena.reference_docs --check   # exit 1, naming each page that is out of date

The pages are ``docs/games/README.md`` (the games side by side, and the card messages
every game shares) and one page per game, created with a place for its rules when a new
game has none yet. Actions are shown by the ids in the ``EXAMPLE_ACTIONS`` of the game's
``docs`` part (``arena/games/GAME/docs.py``), as the engine
sends them (``arena.wire.legal_action``); a kind of action with no id listed there is
shown by the first one a seeded random match offers. ``tests/docs/test_game_pages.py``
fails when a page is out of date. This needs a checkout (``proto/``) and the protoc of
``grpcio-tools`` (the test extra), which keeps the protos' comments.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import sys
import tempfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, json_format
from google.protobuf.message import Message

from arena import wire
from arena.games import GameInfo, OptionSpec, get_game
from arena.games.registry import part as game_part
from arena.v1 import bot_pb2

ROOT = Path(__file__).resolve().parents[1]
PROTO_ROOT = ROOT / "proto"
PAGES = ROOT / "docs" / "games"
INDEX = PAGES / "README.md"
COMMAND = "python -m arena.reference_docs"
CARDS_PROTO = "arena/v1/cards.proto"
WIDTH = 96
"""Columns a JSON example may take before its values go one to a line."""


def _ids(game: str, name: str) -> tuple[int, ...]:
    """Action ids the game's ``docs`` part lists under ``name``; none without the part."""
    ids: tuple[int, ...] = getattr(game_part(game, "docs"), name, ())
    return ids


SUIT_SYMBOLS = {"CLUBS": "♣", "DIAMONDS": "♦", "HEARTS": "♥", "SPADES": "♠"}
_MARKER = re.compile(
    r"^<!-- generated: (?P<name>[\w-]+)\b[^\n]*-->\n(?P<body>.*?)^<!-- end generated -->\n?",
    re.S | re.M,
)
_FD = descriptor_pb2.FieldDescriptorProto
_SCALARS = {
    value: name.removeprefix("TYPE_").lower()
    for name, value in _FD.Type.items()
    if name not in ("TYPE_MESSAGE", "TYPE_ENUM", "TYPE_GROUP")
}


# -- the protos, comments included ------------------------------------------------------


@dataclass(frozen=True)
class Declared:
    """A message or enum of the protos: its file, its descriptor and its source path."""

    file: str
    proto: Any
    path: tuple[int, ...]

    @property
    def name(self) -> str:
        return str(self.proto.name)


@dataclass
class Protos:
    """``proto/arena/v1`` as protoc reads it: every message and enum by full name
    (``arena.v1.Card``), and the comment before each declaration."""

    messages: dict[str, Declared] = field(default_factory=dict)
    enums: dict[str, Declared] = field(default_factory=dict)
    comments: dict[tuple[str, tuple[int, ...]], str] = field(default_factory=dict)

    def comment(self, file: str, path: tuple[int, ...]) -> str:
        """The comment before a declaration, on one line, safe in a table cell."""
        text = " ".join(self.comments.get((file, path), "").split())
        return text.replace("|", "\\|")

    def message(self, name: str) -> Declared:
        return self.messages[name.lstrip(".")]

    def enum(self, name: str) -> Declared:
        return self.enums[name.lstrip(".")]


def load_protos(root: Path = PROTO_ROOT) -> Protos:
    """Every ``arena/v1/*.proto`` under ``root`` through protoc, with its comments."""
    import grpc_tools
    from grpc_tools import protoc

    files = sorted(str(p.relative_to(root)) for p in (root / "arena" / "v1").glob("*.proto"))
    include = Path(grpc_tools.__file__).parent / "_proto"
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "protos.pb"
        args = [
            "protoc",
            f"-I{root}",
            f"-I{include}",
            "--include_source_info",
            f"--descriptor_set_out={out}",
            *files,
        ]
        if protoc.main(args) != 0:
            raise SystemExit(f"protoc could not read the protos under {root}")
        found = descriptor_pb2.FileDescriptorSet.FromString(out.read_bytes())
    protos = Protos()
    for file in found.file:
        for location in file.source_code_info.location:
            if location.leading_comments:
                protos.comments[(file.name, tuple(location.path))] = location.leading_comments
        prefix = f"{file.package}." if file.package else ""
        for i, message in enumerate(file.message_type):
            _index_message(protos, file.name, prefix, message, (4, i))
        for i, enum in enumerate(file.enum_type):
            protos.enums[prefix + enum.name] = Declared(file.name, enum, (5, i))
    return protos


def _index_message(
    protos: Protos, file: str, prefix: str, message: Any, path: tuple[int, ...]
) -> None:
    protos.messages[prefix + message.name] = Declared(file, message, path)
    for i, nested in enumerate(message.nested_type):
        _index_message(protos, file, f"{prefix}{message.name}.", nested, (*path, 3, i))
    for i, enum in enumerate(message.enum_type):
        protos.enums[f"{prefix}{message.name}.{enum.name}"] = Declared(file, enum, (*path, 4, i))


# -- the games --------------------------------------------------------------------------


@dataclass(frozen=True)
class GameProtos:
    """A game's two messages: its observation (``ActRequest.observation``) and its
    action payload (``LegalAction.payload``), both in the field named after the game."""

    game: str
    field: str
    observation: Declared
    action: Declared


def _oneof_fields(protos: Protos, message: str, oneof: str) -> dict[str, str]:
    """The fields of a oneof, name to message type."""
    declared = protos.message(message).proto
    index = [o.name for o in declared.oneof_decl].index(oneof)
    return {
        f.name: f.type_name
        for f in declared.field
        if f.HasField("oneof_index") and f.oneof_index == index
    }


def games(protos: Protos) -> list[GameProtos]:
    """Every game of ``ActRequest.observation``, in the proto's order (``other``, the
    packed messages of a game in no ``.proto`` file here, is no game's)."""
    observations = _oneof_fields(protos, "arena.v1.ActRequest", "observation")
    payloads = _oneof_fields(protos, "arena.v1.LegalAction", "payload")
    for fields in (observations, payloads):
        fields.pop(wire.OTHER, None)
    if list(observations) != list(payloads):
        raise SystemExit(
            "ActRequest.observation and LegalAction.payload must name the same games in the "
            f"same order: {list(observations)} and {list(payloads)}"
        )
    return [
        GameProtos(
            name.replace("_", "-"),
            name,
            protos.message(observations[name]),
            protos.message(payloads[name]),
        )
        for name in observations
    ]


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: ``Observation: `CardObservation``` is
    ``observation-cardobservation``."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _short_enum(enum: str, value: str) -> str:
    """``CARD_GAME_PHASE_PLAY`` of ``CardGamePhase`` as pages write it: ``PLAY``."""
    prefix = re.sub(r"(?<!^)(?=[A-Z])", "_", enum).upper() + "_"
    return value.removeprefix(prefix)


def _type_cell(protos: Protos, f: Any, home: str) -> str:
    """A field's type: its scalar, or a link to its message or enum's table."""
    if f.type in (_FD.TYPE_MESSAGE, _FD.TYPE_ENUM):
        declared = protos.message(f.type_name) if f.type == _FD.TYPE_MESSAGE else None
        declared = declared or protos.enum(f.type_name)
        page = "" if declared.file == home else "README.md"
        kind = f"[`{declared.name}`]({page}#{slug(declared.name)})"
    else:
        kind = f"`{_SCALARS[f.type]}`"
    if f.label == _FD.LABEL_REPEATED:
        return f"repeated {kind}"
    return f"optional {kind}" if f.proto3_optional else kind


def _reached(protos: Protos, roots: Iterable[Declared], home: str) -> tuple[list[str], list[str]]:
    """The messages and enums of file ``home`` that ``roots`` use, directly or not, by
    full name in the order first met (roots excluded)."""
    messages: list[str] = []
    enums: list[str] = []
    root_names = {r.proto.name for r in roots}

    def visit(declared: Declared) -> None:
        for f in declared.proto.field:
            name = f.type_name.lstrip(".")
            if f.type == _FD.TYPE_ENUM and protos.enum(name).file == home and name not in enums:
                enums.append(name)
            elif f.type == _FD.TYPE_MESSAGE:
                target = protos.message(name)
                if target.file == home and name not in messages and target.name not in root_names:
                    messages.append(name)
                    visit(target)

    for root in roots:
        visit(root)
    return messages, enums


def _enum_fields(protos: Protos, declared: Declared, path: str = "") -> Iterator[tuple[str, str]]:
    """Every enum field under a message but a card's, as ``a[].b`` paths with the enum's
    full name."""
    for f in declared.proto.field:
        name = f"{path}{f.name}"
        if f.type == _FD.TYPE_ENUM:
            yield name, f.type_name.lstrip(".")
        elif f.type == _FD.TYPE_MESSAGE and f.type_name != ".arena.v1.Card":
            nested = "[]." if f.label == _FD.LABEL_REPEATED else "."
            yield from _enum_fields(protos, protos.message(f.type_name), name + nested)


# -- tables -------------------------------------------------------------------------------


def _fields_table(protos: Protos, declared: Declared, home: str) -> list[str]:
    rows = ["| field | type | meaning |", "|---|---|---|"]
    for i, f in enumerate(declared.proto.field):
        meaning = protos.comment(declared.file, (*declared.path, 2, i))
        rows.append(f"| `{f.name}` | {_type_cell(protos, f, home)} | {meaning} |")
    return rows


def _message_section(protos: Protos, name: str, home: str, level: str = "###") -> list[str]:
    declared = protos.message(name)
    return [
        f"{level} `{declared.name}`",
        "",
        protos.comment(declared.file, declared.path),
        "",
        *_fields_table(protos, declared, home),
        "",
    ]


def _enum_section(protos: Protos, name: str, level: str = "###") -> list[str]:
    declared = protos.enum(name)
    lines = [
        f"{level} `{declared.name}`",
        "",
        protos.comment(declared.file, declared.path),
        "",
        "| number | name | meaning |",
        "|---|---|---|",
    ]
    for i, value in enumerate(declared.proto.value):
        meaning = protos.comment(declared.file, (*declared.path, 2, i))
        lines.append(f"| {value.number} | `{value.name}` | {meaning} |")
    return [*lines, ""]


def _numbers(protos: Protos, enum: str) -> str:
    """``1 `PASS`, 2 `THREE`, ...``: an enum's set values, number to short name."""
    declared = protos.enum(enum)
    parts = []
    for value in declared.proto.value:
        if value.number:
            short = _short_enum(declared.name, value.name)
            symbol = f" {SUIT_SYMBOLS[short]}" if enum == "arena.v1.Suit" else ""
            parts.append(f"{value.number} `{short}`{symbol}")
    return ", ".join(parts)


def _enum_rows(protos: Protos, game: GameProtos) -> list[str]:
    """The enum fields of the observation and the actions, one row per enum."""
    where: dict[str, tuple[list[str], list[str]]] = {}
    for side, root in enumerate((game.observation, game.action)):
        for path, enum in _enum_fields(protos, root):
            where.setdefault(enum, ([], []))[side].append(f"`{path}`")
    rows = ["| enum field | numbers |", "|---|---|"]
    for enum, (seen, answered) in where.items():
        fields = ", ".join(seen)
        if answered:
            fields += ("; " if fields else "") + "action " + ", ".join(answered)
        rows.append(f"| {fields} (`{protos.enum(enum).name}`) | {_numbers(protos, enum)} |")
    return rows


# -- actions as the engine sends them -------------------------------------------------------


def _dict(message: Message) -> dict[str, Any]:
    return json_format.MessageToDict(message, preserving_proto_field_name=True)


def message_json(message: Message) -> str:
    """A message as the docs show it: proto3 JSON with proto field names, as grpcurl
    prints them, nested values on one line when they fit in ``WIDTH`` columns."""
    return compact_json(_dict(message), 0, 0)


def messages_json(messages: Iterable[Message]) -> str:
    """A JSON list of messages, one item after another, as the docs show examples."""
    items = ",\n".join("  " + compact_json(_dict(m), 2, 0) for m in messages)
    return f"[\n{items}\n]"


def compact_json(value: Any, indent: int, prefix: int) -> str:
    """JSON with nested values on one line when they fit in ``WIDTH`` columns."""
    flat = json.dumps(value, ensure_ascii=False)
    if indent + prefix + len(flat) <= WIDTH or not value or not isinstance(value, dict | list):
        return flat
    pad = " " * (indent + 2)
    if isinstance(value, dict):
        items = [
            f"{pad}{json.dumps(k)}: {compact_json(v, indent + 2, len(json.dumps(k)) + 2)}"
            for k, v in value.items()
        ]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    parts = [compact_json(v, indent + 2, 0) for v in value]
    lines: list[str] = []
    for part in parts:
        if lines and "\n" not in part and "\n" not in lines[-1]:
            joined = f"{lines[-1]}, {part}"
            if len(pad) + len(joined) + 1 <= WIDTH:
                lines[-1] = joined
                continue
        lines.append(part)
    return "[\n" + ",\n".join(pad + line for line in lines) + "\n" + " " * indent + "]"


def _found_by_play(game: str, kinds: set[str], matches: int = 50) -> dict[str, int]:
    """For each kind, the first action of it that seeded random matches offer."""
    found: dict[str, int] = {}
    engine = get_game(game)
    for seed in range(matches):
        state, pick = engine.new_state(seed), random.Random(seed)
        while not state.is_terminal() and len(found) < len(kinds):
            for action in state.legal_actions():
                kind = state.action_payload(action)[0]
                if kind in kinds and kind not in found:
                    found[kind] = action
            state.apply(pick.choice(state.legal_actions()))
        if len(found) == len(kinds):
            break
    return found


def example_actions(game: GameProtos) -> list[bot_pb2.LegalAction]:
    """The ``LegalAction`` messages a page shows: ``EXAMPLE_ACTIONS``, then one of each
    kind it has none of."""
    state = get_game(game.game).new_state(1)
    shown = [wire.legal_action(state, i) for i in _ids(game.game, "EXAMPLE_ACTIONS")]
    kinds = [f.name for f in game.action.proto.field]
    missing = set(kinds) - {getattr(a, game.field).WhichOneof("kind") for a in shown}
    if missing:
        found = _found_by_play(game.game, missing)
        if set(found) != missing:
            raise SystemExit(
                f"{game.game}: no action of kind {sorted(missing - set(found))} to show; "
                "add one's id to EXAMPLE_ACTIONS in the game's docs part (arena/games/GAME/docs.py)"
            )
        shown += [wire.legal_action(state, found[k]) for k in kinds if k in found]
    return shown


def _texts(game: GameProtos, shown: list[bot_pb2.LegalAction]) -> dict[str, list[str]]:
    """For each kind, the texts of the shown actions and of ``MORE_TEXTS``, in order."""
    state = get_game(game.game).new_state(1)
    more = [wire.legal_action(state, i) for i in _ids(game.game, "MORE_TEXTS")]
    texts: dict[str, list[str]] = {}
    for action in sorted([*shown, *more], key=lambda a: a.id):
        kind = getattr(action, game.field).WhichOneof("kind")
        if action.text not in texts.setdefault(kind, []):
            texts[kind].append(action.text)
    return texts


# -- a game's page ------------------------------------------------------------------------


def _plural(unit: str) -> str:
    return unit if unit.endswith("s") else unit + "s"


def _seats(info: GameInfo) -> str:
    teams = [info.seats_of_team(t) for t in range(info.num_teams)]
    if all(len(seats) == 1 for seats in teams):
        return f"{info.num_seats} seats, each its own team (team = seat)"
    named = [
        f"team {t} is seats {', '.join(map(str, s[:-1]))} and {s[-1]}" for t, s in enumerate(teams)
    ]
    return f"{info.num_seats} seats in {info.num_teams} teams: " + "; ".join(named)


def _option_values(option: OptionSpec) -> str:
    if isinstance(option.default, bool):
        return "`true` or `false`"
    low = "" if option.minimum is None else str(option.minimum)
    high = "" if option.maximum is None else str(option.maximum)
    return f"{low} to {high}" if low and high else f"{low or 'any'} to {high or 'any'}"


def _option_text(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def _options(info: GameInfo) -> list[str]:
    lines = [
        "Options, given as `--option NAME=VALUE` (`arena match play`, `arena play`) or in "
        "`PlayMatchRequest.options`, and listed by `arena games` and the referee's `ListGames`:",
        "",
    ]
    if not info.options:
        lines[0] = "No options: every match is played by the same rules (`arena games`)."
    else:
        lines += ["| option | default | values | what it does |", "|---|---|---|---|"]
        for o in info.options:
            help_text = o.help.replace("|", "\\|")
            lines.append(
                f"| `{o.name}` | `{_option_text(o.default)}` | {_option_values(o)} | {help_text} |"
            )
    for name, reason in info.refused_options:
        lines += ["", f"Not offered: `{name}` ({reason}); a match that asks for it is refused."]
    return lines


def _engine_path(game: str) -> str:
    module = type(get_game(game)).__module__
    return module.replace(".", "/") + ".py"


def facts_block(protos: Protos, game: GameProtos, info: GameInfo) -> str:
    """The top of a game's page: its title and the engine's facts."""
    proto_file = game.observation.file
    engine = _engine_path(game.game)
    observation, action = game.observation.name, game.action.name
    lines = [
        f"# {info.title} (`{info.name}`)",
        "",
        info.description,
        "",
        f"- **Seats**: {_seats(info)}.",
        f"- **Scores** count {_plural(info.score_unit)}, per team.",
        f"- **Observation**: [`{observation}`](#{slug(f'Observation: `{observation}`')}), "
        f"in `ActRequest.{game.field}`.",
        f"- **Actions**: [`{action}`](#{slug(f'Actions: `{action}`')}), "
        f"in `LegalAction.{game.field}`.",
        f"- **Sources**: the messages in [`proto/{proto_file}`](../../proto/{proto_file}), "
        f"the rules in [`{engine}`](../../{engine}).",
        "",
        *_options(info),
    ]
    return "\n".join(lines) + "\n"


def reference_block(protos: Protos, game: GameProtos) -> str:
    """What the game's seat is sent and may answer, from the proto and the engine."""
    home = game.observation.file
    obs, act = game.observation, game.action
    seen, seen_enums = _reached(protos, [obs], home)
    answered, answered_enums = _reached(protos, [act], home)
    answered = [m for m in answered if m not in seen]
    enums = [*seen_enums, *(e for e in answered_enums if e not in seen_enums)]
    shown = example_actions(game)
    texts = _texts(game, shown)
    lines = [
        f"## Observation: `{obs.name}`",
        "",
        protos.comment(obs.file, obs.path),
        "",
        *_fields_table(protos, obs, home),
        "",
    ]
    for name in seen:
        lines += _message_section(protos, name, home)
    lines += [
        f"## Actions: `{act.name}`",
        "",
        protos.comment(act.file, act.path)
        + " Every legal action carries one in the field named after the game, beside its"
        " `id` and `text`.",
        "",
        "| kind | payload | meaning | text, for example |",
        "|---|---|---|---|",
    ]
    for i, f in enumerate(act.proto.field):
        meaning = protos.comment(act.file, (*act.path, 2, i))
        example = ", ".join(f"`{t}`" for t in texts.get(f.name, []))
        lines.append(f"| `{f.name}` | {_type_cell(protos, f, home)} | {meaning} | {example} |")
    lines.append("")
    for name in answered:
        lines += _message_section(protos, name, home)
    lines += [
        "## Enums",
        "",
        "Enums arrive as numbers; JSON prints their names, with the type's prefix, and 0 "
        "(`..._UNSPECIFIED`) means unset. A card's `rank`, `suit` and `special` are the "
        "[same in every game](README.md#cards).",
        "",
        *_enum_rows(protos, game),
        "",
    ]
    for name in enums:
        lines += _enum_section(protos, name)
    lines += [
        "## Actions as the referee sends them",
        "",
        "One or more of every kind, exactly as a `LegalAction` of an `ActRequest` carries "
        "it (an id keeps its meaning in every state of every match; JSON leaves out an id "
        "of 0):",
        "",
        "<!-- example: arena.v1.LegalAction -->",
        "```json",
        messages_json(shown),
        "```",
    ]
    return "\n".join(lines) + "\n"


# -- the index ----------------------------------------------------------------------------


def games_block(protos: Protos) -> str:
    """The games side by side."""
    lines = [
        "| game | seats | options (default) | in short |",
        "|---|---|---|---|",
    ]
    for game in games(protos):
        info = get_game(game.game).info
        options = ", ".join(f"`{o.name}` ({_option_text(o.default)})" for o in info.options)
        teams = "2, each its own team" if info.num_seats == info.num_teams else None
        seats = teams or f"{info.num_seats}, {info.num_teams} teams"
        lines.append(
            f"| [{info.title}]({game.game}.md) `{game.game}` | {seats} | {options or 'none'} "
            f"| {info.description} |"
        )
    return "\n".join(lines) + "\n"


def cards_block(protos: Protos) -> str:
    """The messages and enums of ``cards.proto``, which every game uses."""
    lines: list[str] = []
    declared = [d for d in protos.messages.values() if d.file == CARDS_PROTO]
    for message in sorted(declared, key=lambda d: d.path):
        lines += _message_section(protos, f"arena.v1.{message.name}", CARDS_PROTO)
    enums = [d for d in protos.enums.values() if d.file == CARDS_PROTO]
    for enum in sorted(enums, key=lambda d: d.path):
        lines += _enum_section(protos, f"arena.v1.{enum.name}")
    return "\n".join(lines).rstrip("\n") + "\n"


# -- pages ----------------------------------------------------------------------------------


def _marker(name: str) -> str:
    return f"<!-- generated: {name} ({COMMAND} writes this part; edit the sources, not it) -->"


def expected_blocks(protos: Protos | None = None) -> dict[Path, dict[str, str]]:
    """Every page's generated parts as they should read, by page and part name."""
    protos = protos or load_protos()
    pages: dict[Path, dict[str, str]] = {
        INDEX: {"games": games_block(protos), "cards": cards_block(protos)}
    }
    for game in games(protos):
        info = get_game(game.game).info
        pages[PAGES / f"{game.game}.md"] = {
            "facts": facts_block(protos, game, info),
            "reference": reference_block(protos, game),
        }
    return pages


def blocks(text: str) -> dict[str, str]:
    """The generated parts of a page as it reads now, by name."""
    return {m["name"]: m["body"] for m in _MARKER.finditer(text)}


def _wrap(name: str, body: str) -> str:
    return f"{_marker(name)}\n{body}<!-- end generated -->\n"


def new_page(parts: dict[str, str]) -> str:
    """A page for a game that has none: its generated parts, and a place for the rules."""
    first, *rest = parts
    between = (
        "\nPart of the [bot author's guide](../writing-a-bot.md); "
        "[all the games](README.md).\n\n## The rules in brief\n\n"
        "To be written: how a match goes, for a bot author.\n\n"
    )
    return _wrap(first, parts[first]) + between + "\n".join(_wrap(n, parts[n]) for n in rest)


def rewritten(text: str, parts: dict[str, str]) -> str:
    """``text`` with each generated part replaced by ``parts``; a part the page lacks
    goes at its end."""
    done: set[str] = set()

    def replace(m: re.Match[str]) -> str:
        done.add(m["name"])
        return _wrap(m["name"], parts[m["name"]]) if m["name"] in parts else m[0]

    text = _MARKER.sub(replace, text)
    for name, body in parts.items():
        if name not in done:
            text = text.rstrip("\n") + "\n\n" + _wrap(name, body)
    return text


def problems(page: Path, parts: dict[str, str], text: str | None = None) -> list[str]:
    """What is out of date on a page, each with what to do about it."""
    where = page.relative_to(ROOT) if page.is_relative_to(ROOT) else page
    if text is None:
        if not page.exists():
            return [f"{where}: missing; `{COMMAND}` writes it"]
        text = page.read_text(encoding="utf-8")
    found = blocks(text)
    out = []
    for name, body in parts.items():
        if name not in found:
            out.append(f"{where}: no generated part `{name}`; `{COMMAND}` adds it")
        elif found[name] != body or _wrap(name, body) not in text:
            out.append(
                f"{where}: the generated part `{name}` is out of date with the protos and "
                f"the engine; `{COMMAND}` rewrites it"
            )
    out += [f"{where}: unknown generated part `{n}`" for n in found if n not in parts]
    return out


def write(pages: dict[Path, dict[str, str]]) -> list[Path]:
    """Rewrite every page whose generated parts changed; the pages written."""
    written = []
    for page, parts in pages.items():
        old = page.read_text(encoding="utf-8") if page.exists() else None
        new = new_page(parts) if old is None else rewritten(old, parts)
        if new != old:
            page.parent.mkdir(parents=True, exist_ok=True)
            page.write_text(new, encoding="utf-8")
            written.append(page)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=COMMAND, description="Rewrite the generated parts of docs/games/*.md."
    )
    parser.add_argument(
        "--check", action="store_true", help="change nothing; exit 1 if a page is out of date"
    )
    args = parser.parse_args(argv)
    pages = expected_blocks()
    if args.check:
        found = [p for page, parts in pages.items() for p in problems(page, parts)]
        for problem in found:
            print(problem, file=sys.stderr)
        return 1 if found else 0
    for page in write(pages):
        print(f"wrote {page.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
