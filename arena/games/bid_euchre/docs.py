"""Bid Euchre's reference page (``docs/games/bid-euchre.md``, ``arena.reference_docs``): the
actions it shows as ``LegalAction`` messages, by id (an id means the same action in
every state of every match), and more whose text its table of kinds gives."""

EXAMPLE_ACTIONS = (0, 1, 2, 6, 8, 26, 41, 60, 84, 111)
MORE_TEXTS = (3, 4, 5, 7, 9, 10, 11)
