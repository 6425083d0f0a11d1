"""What a sandbox sees of the host's counters: a still picture, the same for every box.

``/proc`` shows host-wide figures (load, CPU ticks, free memory, interrupts, locks)
that move when any process on the host works. Two bots on one host could talk through
them: one works or rests in each time slot, the other reads the load. Inside a sandbox
these files are replaced by fixed texts that describe one CPU and the box's own memory
limit, enough for a runtime that sizes its heap or thread pool from them.
"""

from __future__ import annotations

from pathlib import Path

PROC = Path("/proc")
EMPTY = ("diskstats", "interrupts", "softirqs", "schedstat", "zoneinfo", "buddyinfo",
         "pagetypeinfo", "locks", "key-users", "keys", "vmallocinfo", "slabinfo",
         "timer_list", "sched_debug")  # fmt: skip
"""Host-wide counters no runtime needs: shown empty."""
MASKED_DIRECTORIES = ("pressure",)
"""Directories of host-wide counters: shown empty."""


def masked_files(memory_bytes: int) -> dict[str, bytes]:
    """Each masked file under /proc, by name, with what the sandbox reads there: only
    files this host has (a mount needs something to cover)."""
    kib = memory_bytes // 1024
    texts = {
        "loadavg": "0.00 0.00 0.00 1/1 1\n",
        "uptime": "0.00 0.00\n",
        "stat": (
            "cpu  0 0 0 0 0 0 0 0 0 0\ncpu0 0 0 0 0 0 0 0 0 0 0\nintr 0\nctxt 0\nbtime 0\n"
            "processes 1\nprocs_running 1\nprocs_blocked 0\nsoftirq 0\n"
        ),
        "meminfo": (
            f"MemTotal:       {kib} kB\nMemFree:        {kib} kB\nMemAvailable:   {kib} kB\n"
            "Buffers:               0 kB\nCached:                0 kB\n"
            "SwapTotal:             0 kB\nSwapFree:              0 kB\n"
        ),
        "vmstat": "nr_free_pages 0\n",
        "cpuinfo": (
            "processor\t: 0\nvendor_id\t: arena\nmodel name\t: arena sandbox CPU\n"
            "cpu MHz\t\t: 1000.000\ncpu cores\t: 1\n\n"
        ),
        **{name: "" for name in EMPTY},
    }
    return {name: text.encode() for name, text in texts.items() if (PROC / name).exists()}


def masked_directories() -> list[str]:
    return [name for name in MASKED_DIRECTORIES if (PROC / name).is_dir()]
