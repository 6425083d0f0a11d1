"""Tournaments as plain data: the spec's validation and the duplicate round-robin schedule."""
