"""Benchmarks: each prints its figure as a ratio to a baseline measured in the same run."""
