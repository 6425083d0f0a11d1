"""Seep's reference page (``docs/games/seep.md``, ``arena.reference_docs``): the
actions it shows as ``LegalAction`` messages, by id (an id means the same action in
every state of every match), and more whose text its table of kinds gives."""

EXAMPLE_ACTIONS = (
    4503599627370496,
    5922233509992202240,
    2031123414764224514,
    2913820162815688705,
    4327959241903046656,
    4719772409484279808,
)
MORE_TEXTS = (3575858104132172801,)
