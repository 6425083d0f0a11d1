"""Card Arena: a referee, bots and tournaments for five card games."""

import os

__version__ = "0.1.0"

# gRPC's C core logs connection teardown at INFO on stderr, which would break the
# one-line errors of the CLI; keep its errors. Set GRPC_VERBOSITY to see more.
os.environ.setdefault("GRPC_VERBOSITY", "ERROR")
