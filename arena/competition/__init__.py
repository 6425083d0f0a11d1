"""Competitions: a season from the call for bots to the final board, run by the arena
(``docs/competitions.md``). Pure parts only: the spec and its checks (``spec``), the
phases the clock gives (``phases``) and invite codes (``invites``); the store keeps
them (``arena.store.competitions``), the API serves them (``arena.api.competitions``)
and the workers advance the phases (``workers.competitions``)."""
