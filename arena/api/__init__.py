"""The Arena gRPC API: bot registry, hosted bots, tournaments and leaderboard."""

from arena.hosting.package import MAX_PACKAGE_BYTES

MAX_MESSAGE_BYTES = MAX_PACKAGE_BYTES + (1 << 20)
"""The largest request the API takes (gRPC's default is 4 MiB): a SubmitBot with a
package of the largest size allowed, and room for its other fields."""
