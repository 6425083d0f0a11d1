"""Persian Rummy's reference page (``docs/games/persian-rummy.md``, ``arena.reference_docs``): the
actions it shows as ``LegalAction`` messages, by id (an id means the same action in
every state of every match), and more whose text its table of kinds gives."""

EXAMPLE_ACTIONS = (0, 2, 57, 83, 1728, 858112, 16777217)
