"""The directory of prometheus-client's multiprocess mode, set up before the client loads.

prometheus-client chooses where metric values live when it is first imported, so this
module must not import it, and ``prepare`` must run before anything else does.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

MULTIPROC_ENV = "PROMETHEUS_MULTIPROC_DIR"


def prepare() -> str:
    """Give this worker an empty ``PROMETHEUS_MULTIPROC_DIR``: files left by an earlier
    run would be summed into this run's counters."""
    if "prometheus_client" in sys.modules:
        raise RuntimeError("prometheus_client was imported before its multiprocess directory")
    directory = os.environ.get(MULTIPROC_ENV) or tempfile.mkdtemp(prefix="arena-metrics-")
    shutil.rmtree(directory, ignore_errors=True)
    os.makedirs(directory)
    os.environ[MULTIPROC_ENV] = directory
    return directory
