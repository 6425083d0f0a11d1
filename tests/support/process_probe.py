"""What a process sees of how it was started, as one JSON line: the fork server's
processes must see what a freshly exec'd interpreter does (``tests/test_forkserver.py``)."""

from __future__ import annotations

import json
import os
import random
import signal
import sys

import arena  # noqa: F401  # its import sets gRPC's log level where unset

if __name__ == "__main__":
    said = sys.stdin.read() if "--read" in sys.argv else ""
    print(
        json.dumps(
            {
                "argv": sys.argv[1:],
                "main": sys.argv[0].endswith("process_probe.py"),
                "cwd": os.getcwd(),
                "path0": sys.path[0],
                "probe_env": os.environ.get("PROBE"),
                "grpc_verbosity": os.environ.get("GRPC_VERBOSITY"),
                "own_session": os.getsid(0) == os.getpid(),
                "stdin": said,
                "random": random.random(),
                "sigint": signal.getsignal(signal.SIGINT) is signal.default_int_handler,
                "sigterm": signal.getsignal(signal.SIGTERM) == signal.SIG_DFL,
            }
        )
    )
    print("to stderr", file=sys.stderr)
    if "--fail" in sys.argv:
        raise RuntimeError("as asked")
    if "--exit" in sys.argv:
        sys.exit(int(sys.argv[sys.argv.index("--exit") + 1]))
