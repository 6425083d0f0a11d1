"""WhoAmI on a real API: whose a token is, and for a competitor what the daily limit
leaves them, counted from the submissions the store records (as SubmitBot counts)."""

from __future__ import annotations

import time

import grpc

from arena.access import bearer
from arena.competition.daily import WINDOW_S
from arena.store import keys
from arena.v1 import arena_pb2
from tests.competition.helpers import TOKEN, Api, refused, spec


def who(api: Api, token: str | None) -> arena_pb2.WhoAmIResponse:
    metadata = None if token is None else (bearer(token),)
    found: arena_pb2.WhoAmIResponse = api.stub.WhoAmI(arena_pb2.WhoAmIRequest(), metadata=metadata)
    return found


def test_whoami_names_the_tokens_holder_and_what_the_daily_limit_leaves(api: Api) -> None:
    refused(lambda: who(api, None), grpc.StatusCode.UNAUTHENTICATED, "WhoAmI needs")
    refused(lambda: who(api, "author-never-issued"), grpc.StatusCode.PERMISSION_DENIED)
    assert who(api, TOKEN) == arena_pb2.WhoAmIResponse(operator=True)
    outsider = api.stub.AddAuthor(
        arena_pb2.AddAuthorRequest(name="outsider"), metadata=api.operator()
    )
    assert who(api, outsider.token) == arena_pb2.WhoAmIResponse(author="outsider")

    rules = arena_pb2.CompetitionRules(daily_submissions=2)
    api.create(spec("whose", rules=rules))
    [code] = api.invites("whose")
    token = api.join(code, "wren").author.token
    fresh = who(api, token)
    assert (fresh.author, fresh.competition, fresh.submissions_left) == ("wren", "whose", 2)
    assert not fresh.HasField("next_submission_at")
    first = time.time() - 600
    api.redis.zadd(keys.submissions("wren"), {"v1": first, "v2": first + 60})
    full = who(api, token)
    assert full.submissions_left == 0
    assert full.next_submission_at.seconds == int(first + WINDOW_S)
