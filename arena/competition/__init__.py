"""Competitions: a season from the call for bots to the final board, run by the arena
(``docs/competitions.md``). Pure parts only: the spec and its checks (``spec``), the
phases the clock gives (``phases``), invite codes (``invites``), the daily limit
(``daily``), the open ladder, its leagues and its board by author (``ladder``,
``leagues``, ``board``), and the final: who plays it and its round robin (``final``),
its frozen board (``final_board``).
The store keeps them (``arena.store.competitions``), the API serves them
(``arena.api.competitions``) and the workers advance the phases and run the ladder and
the final (``workers.competitions``, ``workers.competition_final``)."""
