"""The one exception the web layer raises: an HTTP status and a message for the reader."""

from __future__ import annotations


class HttpError(Exception):
    """A request that cannot be answered; ``message`` is shown to the reader as is."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class TooMany(HttpError):
    """A share or a cap is full (429 or 503): the answer says when to try again, as
    ``Retry-After``."""

    def __init__(self, status: int, message: str, retry_after_s: int) -> None:
        super().__init__(status, message)
        self.retry_after_s = retry_after_s
