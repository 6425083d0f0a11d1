"""``holds_any``: the one check of "the caller holds one of these tokens" that the API's
read budget (``arena.api.reads``) and the referee's WatchMatch shares use; a token the
server was not given is held by nobody, where ``holds_token`` lets everyone through."""

from __future__ import annotations

from arena.access import bearer, holds_any, holds_token


def test_a_caller_holds_one_of_the_tokens_only_by_sending_it_whole() -> None:
    tokens = ("operator", "reader")
    assert holds_any((bearer("operator"),), tokens)
    assert holds_any([("x-other", "1"), bearer("reader")], tokens)
    for sent in ("operato", "operator ", "readers", ""):
        assert not holds_any((bearer(sent),), tokens)
    assert not holds_any((("authorization", "operator"),), tokens)  # not as Bearer
    assert not holds_any((("authorization", "bearer operator"),), tokens)
    assert not holds_any(None, tokens) and not holds_any((), tokens)


def test_a_token_the_server_was_not_given_is_held_by_nobody() -> None:
    for unset in ((None, None), ("", ""), ()):
        assert not holds_any((bearer(""),), unset)
        assert not holds_any(None, unset)
        assert not holds_any((("authorization", "Bearer "),), unset)
    assert holds_any((bearer("reader"),), (None, "reader"))
    # Unlike holds_token, for which a server without a token is open to all.
    assert holds_token(None, None) and holds_token(None, "")
    assert holds_token((bearer("t"),), "t") and not holds_token((bearer("u"),), "t")
