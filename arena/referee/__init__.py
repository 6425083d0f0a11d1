"""The referee: runs matches between bots over gRPC and records them."""
