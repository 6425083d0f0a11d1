"""The Arena gRPC API: bot registry, hosted bots, tournaments and leaderboard."""
