"""Human play: a person plays any game in the terminal against a bot (``arena play``)."""

from arena.play.session import PlayConfig, PlayError, play

__all__ = ["PlayConfig", "PlayError", "play"]
