"""Shared fixtures, fakes and helpers for the tests.

No test module imports another test module (a ``test_*.py`` file or a ``conftest.py``);
what several test files share lives here, and tests/test_layout.py checks the rule.
"""
