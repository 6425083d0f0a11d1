"""Generated protobuf and gRPC code for package arena.v1 (``make proto``); do not edit."""
