"""Baloot's reference page (``docs/games/baloot.md``, ``arena.reference_docs``): the
actions it shows as ``LegalAction`` messages, by id (an id means the same action in
every state of every match), and more whose text its table of kinds gives."""

EXAMPLE_ACTIONS = (0, 3, 4, 6, 10, 46, 53, 16)
MORE_TEXTS = (1, 2, 5, 7, 8, 9, 11, 12, 13, 1220, 135)
