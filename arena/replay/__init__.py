"""Replays: a versioned JSON record of every match, its store and its readable form."""

from arena.replay.record import FORMAT, VERSION, ReplayRecorder
from arena.replay.store import ReplayNotFound, ReplayStore

__all__ = ["FORMAT", "VERSION", "ReplayNotFound", "ReplayRecorder", "ReplayStore"]
