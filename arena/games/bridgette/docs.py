"""Bridgette's reference page (``docs/games/bridgette.md``, ``arena.reference_docs``): the
actions it shows as ``LegalAction`` messages, by id (an id means the same action in
every state of every match), and more whose text its table of kinds gives."""

EXAMPLE_ACTIONS = (2, 55, 56, 57, 58, 62, 97, 148)
MORE_TEXTS = (59, 93)
