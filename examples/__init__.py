"""Worked examples beyond the SDK's example bots; a package so ``python -m examples...`` runs
them from the repository's root."""
