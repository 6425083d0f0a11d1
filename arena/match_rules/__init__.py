"""The rules a match is played under besides the game's own: what a fault costs and when
a seat forfeits, the seats' clocks, and the commitment to a deal's seed. The referee
plays by them and ``arena replay verify`` re-checks a record against them, so they sit
below both."""
