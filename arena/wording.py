"""Counts as people read them ("1 trick", "2 tricks", "1 bazzi"), shared by the CLI,
the replay renderer and the terminal play screen. Imports nothing."""

from __future__ import annotations


def plural(word: str, count: int) -> str:
    """``word`` for one, its plural otherwise: ``match`` -> ``matches``, ``trick`` ->
    ``tricks`` (enough for the nouns the arena counts)."""
    if count == 1:
        return word
    return word + ("es" if word.endswith(("s", "x", "ch", "sh")) else "s")


def count(number: int, word: str) -> str:
    """``"1 trick"``, ``"0 tricks"``, ``"2 matches"``."""
    return f"{number} {plural(word, number)}"
