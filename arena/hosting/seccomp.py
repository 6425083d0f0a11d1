"""The system calls a hosted bot may not make, and the filter that refuses them.

A card-playing bot needs threads, sockets, files and memory; it never needs the kernel
surfaces that privilege escalations and cross-sandbox channels go through. Each rule
below says why it is there. Calls are refused with an error, not by killing the bot: a
runtime that probes a feature (as glibc probes ``clone3``) goes on without it, and a bot
that tries something forbidden learns so from its own error message.

The filter is compiled by libseccomp (through ``pyseccomp``) for the host's native
architecture; calls of any other architecture (32-bit ``int 0x80`` on x86-64) are killed,
libseccomp's default, so the table cannot be sidestepped through a compat entry point.
Bubblewrap installs it (``--seccomp``) just before it starts the bot, after it has set
the sandbox up.
"""

from __future__ import annotations

import errno
import tempfile
from functools import cache

CLONE_NAMESPACES = 0x7E020000
"""CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET."""
FILE_LOCKS = {"F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7, "F_OFD_GETLK": 36,
              "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38}  # fmt: skip
"""fcntl commands of record locks (and asking about them)."""

DENIED: dict[str, tuple[str, ...]] = {
    "kernel keyrings outlive the sandbox and are keyed by user: memory across matches": (
        "add_key", "request_key", "keyctl",
    ),
    "io_uring is a second system-call interface with a long list of kernel bugs": (
        "io_uring_setup", "io_uring_enter", "io_uring_register",
    ),
    "new namespaces (a nested user namespace above all) open the kernel's root-only code": (
        "unshare", "setns",
    ),
    "mounting would reshape the sandbox's view of the filesystem": (
        "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen",
        "fsmount", "fsconfig", "fspick", "mount_setattr",
    ),
    "tracing another process reads its memory": (
        "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    ),
    "BPF programs, performance counters and userfaultfd are timing and exploit tools": (
        "bpf", "perf_event_open", "userfaultfd",
    ),
    "loading a kernel or a module replaces the kernel": (
        "kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module",
    ),
    "personality can turn off address-space randomisation": ("personality",),
    "file handles reach files by number, around the sandbox's mounts": (
        "name_to_handle_at", "open_by_handle_at",
    ),
    "the host's clock, swap, accounting and kernel log are the host's": (
        "settimeofday", "clock_settime", "clock_adjtime", "adjtimex", "swapon", "swapoff",
        "acct", "syslog", "reboot", "quotactl", "lookup_dcookie", "vhangup",
    ),
    "a lock on a file every sandbox sees would be a channel between sandboxes": ("flock",),
}  # fmt: skip
"""Each reason, with the calls it refuses outright (EPERM)."""

ARGUMENT_RULES = (
    "clone with a namespace flag (EPERM): as unshare",
    "clone3 (ENOSYS): its flags live in memory no filter can read; glibc then uses clone",
    "fcntl record locks (EPERM): as flock",
)
"""The rules that look at arguments, in words, for the documentation."""


def rules() -> list[tuple[str, str]]:
    """Every refused call beside the reason for it, for documentation and tests."""
    return [(call, why) for why, calls in DENIED.items() for call in calls]


@cache
def compiled() -> bytes:
    """The filter as a BPF program, the form bubblewrap's ``--seccomp`` reads."""
    import pyseccomp as seccomp  # loads libseccomp: only where a sandbox starts

    refused = seccomp.ERRNO(errno.EPERM)
    rules = seccomp.SyscallFilter(defaction=seccomp.ALLOW)
    for calls in DENIED.values():
        for call in calls:
            rules.add_rule(refused, call)
    for flag in _bits(CLONE_NAMESPACES):
        rules.add_rule(refused, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    rules.add_rule(seccomp.ERRNO(errno.ENOSYS), "clone3")
    for command in FILE_LOCKS.values():
        rules.add_rule(refused, "fcntl", seccomp.Arg(1, seccomp.EQ, command))
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


def _bits(mask: int) -> list[int]:
    return [1 << i for i in range(mask.bit_length()) if mask >> i & 1]
