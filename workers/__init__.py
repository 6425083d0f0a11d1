"""Celery workers that schedule and play tournaments (arrives with the tournament work)."""
