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


_CONTROL = frozenset(
    (
        *range(0x00, 0x20),
        *range(0x7F, 0xA0),
        *(0x061C, 0x200E, 0x200F),
        *range(0x202A, 0x202F),
        *range(0x2066, 0x206A),
    )
)
"""C0 and C1 controls, DEL, and the bidirectional marks and overrides: what lets a
string move a terminal's cursor, recolour it, retitle it or reorder what follows."""


def printable(text: str, *, lines: bool = False) -> str:
    """``text`` with each control character escaped (``\\x1b``, ``\\u202e``), for a
    terminal: a bot chooses its Hello name and what it writes, and must not be able to
    rewrite the operator's screen. ``lines`` keeps newlines and tabs (a log)."""
    if not any(ord(c) in _CONTROL for c in text):
        return text
    kept = "\n\t" if lines else ""
    return "".join(
        c
        if ord(c) not in _CONTROL or c in kept
        else (f"\\x{ord(c):02x}" if ord(c) < 0x100 else f"\\u{ord(c):04x}")
        for c in text
    )
