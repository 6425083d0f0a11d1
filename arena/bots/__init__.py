"""Bot SDK: write one class with one method, then call ``serve``."""

from arena.bots.sdk import Bot, serve, start

__all__ = ["Bot", "serve", "start"]
