"""The suite's fork server starts ``python -m`` processes that behave as exec'd ones."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support import forkserver

PROBE = [sys.executable, "-m", "tests.support.process_probe"]
ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.skipif(
    subprocess.Popen is not forkserver.ForkedPopen, reason="ARENA_TEST_FORKSERVER=0"
)


def run(
    popen: Any, *args: str, given: bytes = b"", **kwargs: Any
) -> tuple[int, dict[str, Any], str]:
    """The probe's exit code, report and standard error, started by ``popen``."""
    process = popen(
        [*PROBE, *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )
    out, err = process.communicate(given, timeout=60)
    return process.returncode, json.loads(out.splitlines()[0]), err.decode()


def test_a_forked_process_sees_what_an_execd_one_does(tmp_path: Path) -> None:
    env = {"PROBE": "x", "PYTHONPATH": str(ROOT)}
    forked = run(forkserver.ForkedPopen, "a", "b c", cwd=tmp_path, env=env, start_new_session=True)
    execd = run(
        forkserver._ORIGINAL_POPEN, "a", "b c", cwd=tmp_path, env=env, start_new_session=True
    )
    for (code, report, err), how in ((forked, "forked"), (execd, "exec'd")):
        assert code == 0, (how, err)
        assert err == "to stderr\n", how
        assert report["argv"] == ["a", "b c"] and report["main"], (how, report)
        assert report["cwd"] == str(tmp_path) == report["path0"], (how, report)
        assert report["probe_env"] == "x" and report["own_session"], (how, report)
        assert report["grpc_verbosity"] == "ERROR", (how, report)
        assert report["sigint"] and report["sigterm"], (how, report)
    assert forked[1]["random"] != run(forkserver.ForkedPopen)[1]["random"]  # reseeded


def test_the_server_starts_python_m_commands_and_nothing_else() -> None:
    forked = subprocess.Popen([*PROBE], stdout=subprocess.DEVNULL)
    execd = subprocess.Popen([sys.executable, "-c", "pass"])
    kept, other_end = os.pipe()
    asked = subprocess.Popen([*PROBE], stdout=subprocess.DEVNULL, pass_fds=[kept])
    for fd in (kept, other_end):
        os.close(fd)
    own = subprocess.Popen(
        [*PROBE], stdout=subprocess.DEVNULL, env={"PYTHONHASHSEED": "7", "PATH": "/usr/bin"}
    )
    started = (forked, execd, asked, own)
    assert [p.wait(60) for p in started] == [0, 0, 0, 0]
    assert [getattr(p, "_forked", None) is not None for p in started] == [
        True,
        False,
        False,
        False,
    ], os.path.exists(os.environ.get(forkserver.ENV, ""))


def test_without_its_server_a_command_starts_the_usual_way(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(forkserver.ENV, "/nonexistent/fork.sock")
    process = subprocess.Popen([*PROBE, "--exit", "4"], stdout=subprocess.DEVNULL)
    assert process.wait(60) == 4
    assert getattr(process, "_forked", "") is None


def test_exit_codes_errors_input_and_signals_come_back_as_from_a_child() -> None:
    assert run(subprocess.Popen, "--exit", "3")[0] == 3
    code, _, err = run(subprocess.Popen, "--fail")
    assert code == 1 and "RuntimeError: as asked" in err
    code, report, _ = run(subprocess.Popen, "--read", given=b"hello")
    assert report["stdin"] == "hello"
    sleeper = subprocess.Popen(
        [sys.executable, "-m", "http.server", "0"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    assert getattr(sleeper, "_forked", None) is not None
    with pytest.raises(subprocess.TimeoutExpired):
        sleeper.wait(0.2)
    assert sleeper.poll() is None
    sleeper.send_signal(signal.SIGKILL)
    assert sleeper.wait(10) == -signal.SIGKILL
    assert sleeper.poll() == -signal.SIGKILL
