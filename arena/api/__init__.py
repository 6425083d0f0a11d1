"""The Arena gRPC API: bot registry, tournaments and leaderboard."""
