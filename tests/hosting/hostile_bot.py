"""A hosted bot that tries what an author who wants more than one box would try: keep
a kernel keyring key for its next match, make a user namespace, reach io_uring, lock a
file every box sees, read the host's counters in /proc. It reports each outcome on stdout as one
JSON line, then serves like any bot. Argument: a word to store in the keyring."""

from __future__ import annotations

import ctypes
import errno
import fcntl
import json
import os
import sys

libc = ctypes.CDLL(None, use_errno=True)
SYS_ADD_KEY, SYS_REQUEST_KEY, SYS_KEYCTL, SYS_IO_URING_SETUP = 248, 249, 250, 425
KEY_SPEC_USER_KEYRING = -4
CLONE_NEWUSER, CLONE_NEWNS, CLONE_NEWNET = 0x10000000, 0x00020000, 0x40000000
PR_GET_SECCOMP = 21


def outcome(result: int) -> str:
    if result >= 0:
        return "allowed"
    return f"refused: {errno.errorcode.get(ctypes.get_errno(), ctypes.get_errno())}"


def add_key(word: str) -> str:
    return outcome(
        libc.syscall(
            SYS_ADD_KEY, b"user", b"arena-memory", word.encode(), len(word), KEY_SPEC_USER_KEYRING
        )
    )


def find_key() -> str:
    found = libc.syscall(SYS_REQUEST_KEY, b"user", b"arena-memory", None, 0)
    if found < 0:
        return outcome(found)
    buffer = ctypes.create_string_buffer(256)
    size = libc.syscall(SYS_KEYCTL, 11, found, buffer, 256)  # KEYCTL_READ
    return "found " + buffer.raw[: max(size, 0)].decode(errors="replace")


def io_uring() -> str:
    params = ctypes.create_string_buffer(120)
    return outcome(libc.syscall(SYS_IO_URING_SETUP, 8, params))


def lock_shared_file() -> str:
    try:
        with open(sys.executable, "rb") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        return f"refused: {errno.errorcode.get(error.errno or 0, error.errno)}"
    return "allowed"


def record_lock() -> str:
    try:
        with open("/tmp/lock", "wb") as handle:
            fcntl.lockf(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        return f"refused: {errno.errorcode.get(error.errno or 0, error.errno)}"
    return "allowed"


report = {
    "key_before": find_key(),
    "add_key": add_key(sys.argv[1] if len(sys.argv) > 1 else "hand=AS,KH,7D"),
    "key_after": find_key(),
    "unshare_user": outcome(libc.unshare(CLONE_NEWUSER)),
    "unshare_mount_net": outcome(libc.unshare(CLONE_NEWNS | CLONE_NEWNET)),
    "io_uring_setup": io_uring(),
    "flock_shared": lock_shared_file(),
    "lockf_tmp": record_lock(),
    "mount": outcome(libc.mount(b"none", b"/tmp", b"tmpfs", 0, None)),
    "sys": sorted(os.listdir("/sys")) if os.path.isdir("/sys") else "absent",
    "proc": sorted(os.listdir("/proc")) if os.path.isdir("/proc") else "absent",
    "seccomp": libc.prctl(PR_GET_SECCOMP, 0, 0, 0, 0),
}
print("PROBE " + json.dumps(report), flush=True)

from arena.bots.examples.random_bot import RandomBot  # noqa: E402
from arena.bots.sdk import serve  # noqa: E402

serve(RandomBot())
