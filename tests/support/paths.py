"""Where the tests live."""

from __future__ import annotations

from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
