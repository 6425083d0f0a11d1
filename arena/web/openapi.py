"""The OpenAPI 3.1 document of the site's JSON routes, served at ``/api/openapi.json``.

The JSON answers are the gRPC API's messages as ``json_format`` prints them, so their
schemas are derived here from the same protobuf descriptors that print them, and cannot
drift from what is served; the replay's is the referee's ``replay.schema.json``. A JSON
route added to the site gets an entry in ``OPERATIONS`` (a test checks every ``/api/``
route has one, and that real answers match their schema).
"""

from __future__ import annotations

import copy
import functools
import json
from importlib import resources
from typing import Any

from google.protobuf.descriptor import Descriptor, FieldDescriptor

from arena import __version__
from arena.v1 import arena_pb2, bot_pb2
from arena.web.data import DEFAULT_LIMIT, MAX_LIMIT

Schema = dict[str, Any]
REF = "#/components/schemas/"

_INTEGER = {
    FieldDescriptor.TYPE_INT32,
    FieldDescriptor.TYPE_SINT32,
    FieldDescriptor.TYPE_SFIXED32,
    FieldDescriptor.TYPE_UINT32,
    FieldDescriptor.TYPE_FIXED32,
}
# The proto3 JSON mapping prints 64-bit integers as decimal strings (JavaScript's
# numbers would lose digits).
_INTEGER64 = {
    FieldDescriptor.TYPE_INT64,
    FieldDescriptor.TYPE_SINT64,
    FieldDescriptor.TYPE_SFIXED64,
    FieldDescriptor.TYPE_UINT64,
    FieldDescriptor.TYPE_FIXED64,
}
_NUMBER: Schema = {
    "anyOf": [{"type": "number"}, {"enum": ["NaN", "Infinity", "-Infinity"]}],
}
_WELL_KNOWN: dict[str, Schema] = {
    "google.protobuf.Timestamp": {"type": "string", "format": "date-time"},
    "google.protobuf.Duration": {"type": "string", "pattern": r"^-?[0-9]+(\.[0-9]{1,9})?s$"},
}


def _scalar(field: FieldDescriptor, schemas: dict[str, Schema]) -> Schema:
    if field.type in _INTEGER:
        return {"type": "integer"}
    if field.type in _INTEGER64:
        return {"type": "string", "pattern": "^-?[0-9]+$"}
    if field.type in (FieldDescriptor.TYPE_DOUBLE, FieldDescriptor.TYPE_FLOAT):
        return copy.deepcopy(_NUMBER)
    if field.type == FieldDescriptor.TYPE_BOOL:
        return {"type": "boolean"}
    if field.type == FieldDescriptor.TYPE_STRING:
        return {"type": "string"}
    if field.type == FieldDescriptor.TYPE_BYTES:
        return {"type": "string", "contentEncoding": "base64"}
    if field.type == FieldDescriptor.TYPE_ENUM:
        assert field.enum_type is not None
        return {"type": "string", "enum": [v.name for v in field.enum_type.values]}
    message = field.message_type
    assert message is not None, field.full_name
    if message.full_name in _WELL_KNOWN:
        return dict(_WELL_KNOWN[message.full_name])
    add_message(message, schemas)
    return {"$ref": REF + message.full_name}


def add_message(message: Descriptor, schemas: dict[str, Schema]) -> None:
    """Add ``message``'s schema, and those of the messages it holds, to ``schemas``.

    Fields without presence (plain scalars, repeated, maps) are always printed, so they
    are required; a message field, an ``optional`` or a ``oneof`` member only when set."""
    if message.full_name in schemas:
        return
    properties: dict[str, Schema] = {}
    schemas[message.full_name] = {
        "type": "object",
        "properties": properties,
        "additionalProperties": False,
    }
    required = []
    for field in message.fields:
        entry = field.message_type
        if entry is not None and entry.GetOptions().map_entry:
            value = _scalar(entry.fields_by_name["value"], schemas)
            schema: Schema = {"type": "object", "additionalProperties": value}
        elif field.is_repeated:
            schema = {"type": "array", "items": _scalar(field, schemas)}
        else:
            schema = _scalar(field, schemas)
        properties[field.name] = schema
        if not field.has_presence:
            required.append(field.name)
    if required:
        schemas[message.full_name]["required"] = required


def _replay_schema() -> Schema:
    """The referee's replay schema, its own ``$defs`` re-pointed to where it sits here
    (its ``$id`` names no real host, so nothing would find them by it)."""
    text = resources.files("arena.replay").joinpath("replay.schema.json").read_text()
    base = REF + "Replay/$defs/"
    text = text.replace('"#/$defs/', f'"{base}')
    schema: Schema = json.loads(text)
    schema.pop("$id", None)
    schema.pop("$schema", None)
    return schema


ERROR: Schema = {
    "type": "object",
    "required": ["error", "status"],
    "additionalProperties": False,
    "properties": {
        "error": {"type": "string", "description": "why, for a person to read"},
        "status": {"type": "integer", "description": "the HTTP status again"},
    },
}

MATCH_EXTRA: Schema = {
    "tournament_id": {"type": "string"},
    "tournament_name": {"type": "string"},
    "replay_url": {
        "type": ["string", "null"],
        "description": "the replay page; null until the tournament ends",
    },
    "replay_json_url": {"type": ["string", "null"], "description": "the replay as JSON"},
}


def _match_entry(schemas: dict[str, Schema]) -> Schema:
    """A MatchRecord with the tournament it belongs to and its replay's links."""
    entry = copy.deepcopy(schemas["arena.v1.MatchRecord"])
    entry["properties"].update(MATCH_EXTRA)
    entry["required"] = [*entry.get("required", []), *MATCH_EXTRA]
    return entry


def _query(name: str, description: str, schema: Schema | None = None) -> Schema:
    return {
        "name": name,
        "in": "query",
        "required": False,
        "description": description,
        "schema": schema or {"type": "string"},
    }


def _path(name: str, description: str) -> Schema:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "description": description,
        "schema": {"type": "string", "pattern": r"^[A-Za-z0-9_.-]{1,200}$"},
    }


GAME = _query("game", "only this game (empty or absent: all games)")
COMPETITION: Schema = {
    "name": "name",
    "in": "path",
    "required": True,
    "description": "a competition's name",
    "schema": {"type": "string", "pattern": r"^[A-Za-z0-9_.-]{1,40}$"},
}
TOURNAMENT = _path("tournament", "a tournament id")
MATCH = _path("match", "a match id")

# Path (as the Starlette route writes it) to its GET operation: summary, parameters, the
# 200 answer's schema and the error statuses it can give.
OPERATIONS: dict[str, Schema] = {
    "/api/leaderboard": {
        "summary": "Ratings of every stored result, or of one tournament's",
        "parameters": [
            GAME,
            _query("tournament", "only this tournament's results (empty or absent: all)"),
            _query(
                "anchor",
                "fix this bot, ranked on the board, at anchor_elo; the others are shown "
                "at their difference to it (absent: the board centred on its bots' mean)",
            ),
            _query("anchor_elo", "the anchor's Elo (default 0)", {"type": "number"}),
            _query(
                "prior_sd",
                "sd in Elo of the fit's prior on each rating, above 0, at most 100000 "
                "(default 1000)",
                {"type": "number"},
            ),
            _query(
                "bootstrap",
                "resamples for bootstrap intervals (rows' elo_low and elo_high), 0 to 1000",
                {"type": "integer", "minimum": 0, "maximum": 1000},
            ),
            _query(
                "bootstrap_seed",
                "the resampling's seed (default 0)",
                {"type": "integer", "minimum": 0},
            ),
        ],
        "schema": {"$ref": REF + "arena.v1.Leaderboard"},
        "errors": [400, 404, 502],
    },
    "/api/tournaments/{tournament}": {
        "summary": "A tournament, its standings included",
        "parameters": [TOURNAMENT],
        "schema": {"$ref": REF + "arena.v1.Tournament"},
        "errors": [404, 502],
    },
    "/api/matches": {
        "summary": "Every stored result, a page at a time: newest tournament first, the "
        "latest scheduled match first in each, with their replays' links; filtered by game, "
        "bot and tournament (arena.web.matchlist)",
        "parameters": [
            _query(
                "limit",
                f"how many, 1 to {MAX_LIMIT} (default {DEFAULT_LIMIT})",
                {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
            ),
            GAME,
            _query(
                "bot",
                "only matches this bot played (name: every version; name@version: that one)",
                {"type": "string", "pattern": r"^[A-Za-z0-9_.@-]{1,200}$"},
            ),
            _query(
                "tournament",
                "only this tournament's matches",
                {"type": "string", "pattern": r"^[A-Za-z0-9_.-]{1,200}$"},
            ),
            _query(
                "cursor",
                "the next_cursor of the page before; absent for the first page",
                {"type": "string", "pattern": r"^[A-Za-z0-9_.-]{1,200}/[A-Za-z0-9_.-]{0,200}$"},
            ),
        ],
        "schema": {
            "type": "object",
            "required": [
                "limit",
                "game",
                "bot",
                "tournament",
                "cursor",
                "next_cursor",
                "next_url",
                "matches",
            ],
            "additionalProperties": False,
            "properties": {
                "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT},
                "game": {"type": "string"},
                "bot": {"type": "string"},
                "tournament": {"type": "string"},
                "cursor": {"type": ["string", "null"]},
                "next_cursor": {
                    "type": ["string", "null"],
                    "description": "where the next page starts; null on the last page",
                },
                "next_url": {"type": ["string", "null"]},
                "matches": {"type": "array", "items": {"$ref": REF + "MatchEntry"}},
            },
        },
        "errors": [400, 404, 502],
    },
    "/api/replays/{tournament}/{match}": {
        "summary": "A finished tournament's match replay, from the referee that played it",
        "parameters": [TOURNAMENT, MATCH],
        "schema": {"$ref": REF + "Replay"},
        "errors": [404, 502],
    },
    "/api/replays/{tournament}/{match}/frames": {
        "summary": "The replay viewer's frames: the table before every decision, whose turn "
        "it is, and the faults (arena.replay.frames), as compact JSON; what the seat to act "
        "was sent is served apart, per frame",
        "parameters": [TOURNAMENT, MATCH],
        "schema": {
            "type": "object",
            "required": ["format", "version", "match_id", "game", "seats", "hands", "frames"],
            "properties": {
                "format": {"type": "string"},
                "version": {"type": "integer"},
                "match_id": {"type": "string"},
                "game": {"type": "string"},
                "per_seat": {"type": "boolean"},
                "seats": {"type": "array"},
                "hands": {"type": "array"},
                "frames": {"type": "array", "items": {"type": "object"}},
            },
        },
        "errors": [404, 502],
    },
    "/api/replays/{tournament}/{match}/frames/{index}/sent": {
        "summary": "The ActRequest the seat to act at frame index was sent, built by the "
        "referee's own encoder (a frame where the match stopped has none)",
        "parameters": [
            TOURNAMENT,
            MATCH,
            {
                "name": "index",
                "in": "path",
                "required": True,
                "description": "a frame's index in the frames document",
                "schema": {"type": "integer", "minimum": 0},
            },
        ],
        "schema": {"$ref": REF + "arena.v1.ActRequest"},
        "errors": [400, 404, 502],
    },
    "/api/bots/{bot}/history": {
        "summary": "A bot's rating at each refit, a series per board",
        "parameters": [
            {
                "name": "bot",
                "in": "path",
                "required": True,
                "description": "a bot's name (name@version for a hosted entry's version)",
                "schema": {"type": "string", "pattern": r"^[A-Za-z0-9_.@-]{1,200}$"},
            },
            GAME,
        ],
        "schema": {"$ref": REF + "arena.v1.RatingHistory"},
        "errors": [404, 502],
    },
    "/api/live": {
        "summary": "The matches being played now that anyone may follow, with the referee "
        "and the id its WatchMatch takes; duplicate halves are only counted (withheld)",
        "parameters": [_query("tournament", "only this tournament's (empty or absent: all)")],
        "schema": {"$ref": REF + "arena.v1.ListLiveMatchesResponse"},
        "errors": [404, 502],
    },
    "/api/live/{tournament}/{match}/events": {
        "summary": "A match's public events (arena.v1.MatchEvent, one JSON line each) as "
        "server-sent events, from its start or after the Last-Event-ID header's sequence "
        "(each event's id is its sequence), ending with the ENDED event; 204 when "
        "nothing is left after Last-Event-ID",
        "parameters": [
            TOURNAMENT,
            MATCH,
            {
                "name": "Last-Event-ID",
                "in": "header",
                "required": False,
                "description": "the sequence of the last event received; the stream "
                "resumes after it (browsers send it when they reconnect)",
                "schema": {"type": "integer", "minimum": 0},
            },
        ],
        "media_type": "text/event-stream",
        "schema": {
            "type": "string",
            "description": "events 'id: <sequence>' and 'data: <MatchEvent as JSON>', "
            "and ': ' comment lines while the bots think",
        },
        "errors": [400, 404, 502, 503],
    },
    "/api/competitions": {
        "summary": "Every competition, newest first: its spec (description, games, "
        "timeline, rules), phase and transitions, competitors, and its final once there is "
        "one (ListCompetitions)",
        "parameters": [],
        "schema": {"$ref": REF + "arena.v1.ListCompetitionsResponse"},
        "errors": [502],
    },
    "/api/competitions/{name}": {
        "summary": "A competition as GetCompetition gives it: the final's versions, seed "
        "commitment and, once frozen, its board included",
        "parameters": [COMPETITION],
        "schema": {"$ref": REF + "arena.v1.Competition"},
        "errors": [404, 502],
    },
    "/api/competitions/{name}/board": {
        "summary": "A competition's public board from its open ladder: one row per author, "
        "their best active version (GetCompetitionLeaderboard without mine); 404 before "
        "its ladder starts",
        "parameters": [COMPETITION, GAME],
        "schema": {"$ref": REF + "arena.v1.CompetitionLeaderboard"},
        "errors": [404, 502],
    },
    "/api/openapi.json": {
        "summary": "This document",
        "parameters": [],
        "schema": {"type": "object"},
        "errors": [],
    },
}

ERROR_TEXT = {
    400: "a bad parameter (a limit out of range, a cursor that is no page's, a "
    "Last-Event-ID that is no sequence, a frame index that is no integer)",
    404: "unknown game, bot, tournament, match or competition, or an id or name that "
    "cannot be one; a match whose events are not to be had; a frame that has no request; "
    "a competition's board before its ladder starts",
    502: "the arena API or the referee could not be reached or failed",
    503: "the site follows as many matches as it may at once; try again later",
}


@functools.cache
def _document() -> str:
    schemas: dict[str, Schema] = {}
    for message in (
        arena_pb2.Leaderboard,
        arena_pb2.Tournament,
        arena_pb2.MatchRecord,
        arena_pb2.RatingHistory,
        arena_pb2.ListLiveMatchesResponse,
        arena_pb2.ListCompetitionsResponse,
        arena_pb2.CompetitionLeaderboard,
        bot_pb2.ActRequest,
    ):
        add_message(message.DESCRIPTOR, schemas)
    schemas["MatchEntry"] = _match_entry(schemas)
    schemas["Replay"] = _replay_schema()
    schemas["Error"] = ERROR
    paths: dict[str, Schema] = {}
    for path, op in OPERATIONS.items():
        responses: dict[str, Schema] = {
            "200": {
                "description": "OK",
                "content": {op.get("media_type", "application/json"): {"schema": op["schema"]}},
            }
        }
        for status in op["errors"]:
            responses[str(status)] = {
                "description": ERROR_TEXT[status],
                "content": {"application/json": {"schema": {"$ref": REF + "Error"}}},
            }
        paths[path] = {
            "get": {
                "summary": op["summary"],
                "parameters": op["parameters"],
                "responses": responses,
            }
        }
    document = {
        "openapi": "3.1.0",
        "info": {
            "title": "Card Arena leaderboard",
            "version": __version__,
            "description": (
                "Read-only JSON of the arena's ratings, tournaments, results, replays and "
                "competitions. "
                "Messages are the gRPC API's (arena.v1), printed by protobuf's JSON "
                "mapping with the proto field names. Only GET and HEAD are allowed; "
                'an error is {"error", "status"}.'
            ),
        },
        "paths": paths,
        "components": {"schemas": schemas},
    }
    return json.dumps(document, indent=1)


def document() -> Schema:
    """The whole OpenAPI document (a fresh copy: callers may change it)."""
    parsed: Schema = json.loads(_document())
    return parsed
