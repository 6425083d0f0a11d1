"""A sandbox against an author who wants more than one box: memory across matches,
channels between boxes, the kernel's rarer doors, the host's memory. Each test starts
real packages in real sandboxes (as root, as CI and the deploy files run the referee)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import subprocess
import tempfile
import textwrap
from pathlib import Path

import pytest

from arena.hosting import cgroups, sandbox, seccomp
from arena.hosting.example_packages import HOUSE_BOT
from arena.hosting.pool import Bubblewrap
from arena.hosting.private import UnsafeDirectory, private_directory
from arena.hosting.runtimes import RuntimeUnavailable, runtime
from arena.hosting.sandbox import Limits, Sandbox, SandboxError, Uncontained, sweep
from arena.referee.hosted import Hosting
from tests.support.sandbox import (
    assert_at_chance,
    beyond_chance,
    channel_package,
    decoded,
    hello,
    short_directory,
)

HOSTILE = Path(__file__).with_name("hostile_bot.py")
AS_ROOT = os.geteuid() == 0
as_root = pytest.mark.skipif(not AS_ROOT, reason="the referee runs as root in CI and deploy")


def hostile_package(directory: Path) -> Path:
    directory.mkdir(parents=True)
    shutil.copy(HOSTILE, directory / "bot.py")
    return directory


def serve_and_report(
    pkg: Path, log: Path, *args: str, limits: Limits | None = None, root: Path | None = None
) -> dict[str, object]:
    """Start the hostile bot, see it serve, stop it: what it reported, and what the host
    sees of its process (``host_*``: its user map, seccomp mode and user namespace)."""
    seen: dict[str, object] = {}

    async def run() -> None:
        command = ["python3", "bot.py", *args]
        box = await Sandbox.start(pkg, runtime("python3.11"), command, log, limits, root)
        try:
            assert (await hello(box.address)).name == "random"
            seen.update(seen_from_the_host(box))
        finally:
            await box.close()

    asyncio.run(run())
    (line,) = [x for x in log.read_text().splitlines() if x.startswith("PROBE ")]
    report: dict[str, object] = json.loads(line.removeprefix("PROBE "))
    return report | seen


def seen_from_the_host(box: Sandbox) -> dict[str, object]:
    """The bot's own process, as the host's /proc shows it: the box shows the bot none."""
    assert box.box is not None
    pids = Path(box.box.procs_files[0]).read_text().split()
    argvs = {p: Path(f"/proc/{p}/cmdline").read_bytes().split(b"\0") for p in pids}
    (bot,) = [p for p, argv in argvs.items() if argv[1:2] == [b"bot.py"]]
    status = dict(
        line.split(":\t", 1) for line in Path(f"/proc/{bot}/status").read_text().splitlines()
    )
    return {
        "host_uid_map": Path(f"/proc/{bot}/uid_map").read_text().split(),
        "host_seccomp": status["Seccomp"],
        "host_own_user_namespace": os.readlink(f"/proc/{bot}/ns/user")
        != os.readlink("/proc/self/ns/user"),
    }


@as_root
def test_a_keyring_key_left_in_one_match_is_not_there_in_the_next_nor_for_another_author(
    tmp_path: Path,
) -> None:
    first = serve_and_report(hostile_package(tmp_path / "a"), tmp_path / "a.log", "hand=AS,KH")
    again = serve_and_report(hostile_package(tmp_path / "a2"), tmp_path / "a2.log")
    other = serve_and_report(hostile_package(tmp_path / "b"), tmp_path / "b.log")
    assert first["add_key"] == "refused: EPERM"
    for report in (first, again, other):
        assert str(report["key_before"]).startswith("refused"), report["key_before"]
        assert str(report["key_after"]).startswith("refused"), report["key_after"]


@as_root
def test_a_box_makes_no_namespace_no_mount_and_no_io_uring_under_its_seccomp_filter(
    tmp_path: Path,
) -> None:
    report = serve_and_report(hostile_package(tmp_path / "p"), tmp_path / "p.log")
    assert report["unshare_user"] == "refused: EPERM"
    assert report["unshare_mount_net"] == "refused: EPERM"
    assert report["io_uring_setup"] == "refused: EPERM"
    assert report["mount"] == "refused: EPERM"
    assert report["seccomp"] == 2 and report["host_seccomp"] == "2"  # a filter is installed


@as_root
def test_a_box_runs_in_a_user_namespace_of_its_own_under_a_user_id_of_its_own(
    tmp_path: Path,
) -> None:
    report = serve_and_report(hostile_package(tmp_path / "p"), tmp_path / "p.log")
    assert report["host_own_user_namespace"] is True
    uid_map = report["host_uid_map"]
    assert isinstance(uid_map, list)
    inside, outside, count = uid_map
    assert count == "1" and inside == outside  # one id mapped: not the host's namespace
    assert 61000 <= int(outside) < 62000


@as_root
def test_no_file_lock_can_pass_a_bit_between_boxes(tmp_path: Path) -> None:
    report = serve_and_report(hostile_package(tmp_path / "p"), tmp_path / "p.log")
    assert report["flock_shared"] == "refused: EPERM"
    assert report["lockf_tmp"] == "refused: EPERM"


def test_a_box_has_neither_proc_nor_sys(tmp_path: Path) -> None:
    """Both show host-wide figures that move when any process works (open files, inodes,
    load) and the host's paths: a box sees neither, so none can carry a bit."""
    report = serve_and_report(hostile_package(tmp_path / "p"), tmp_path / "p.log")
    assert report["proc"] == "absent" and report["sys"] == "absent"


@as_root
def test_the_processes_of_a_box_share_one_memory_limit(tmp_path: Path) -> None:
    """Four children of 120 MiB each: each is far inside its own address-space limit,
    but together they pass the box's 256 MiB, so the kernel kills at least one."""
    pkg = tmp_path / "hog"
    pkg.mkdir()
    (pkg / "bot.py").write_text(
        textwrap.dedent(
            """
            import os, time
            children = []
            for _ in range(4):
                pid = os.fork()
                if pid == 0:
                    hoard = bytearray(120 << 20)
                    for i in range(0, len(hoard), 4096):
                        hoard[i] = 1
                    time.sleep(2)
                    os._exit(0)
                children.append(pid)
            ends = [os.waitpid(pid, 0)[1] for pid in children]
            print("CHILDREN " + " ".join(str(os.waitstatus_to_exitcode(e)) for e in ends), flush=True)
            from arena.bots.examples.random_bot import RandomBot
            from arena.bots.sdk import serve
            serve(RandomBot())
            """
        )
    )
    limits = Limits(box_memory_bytes=256 << 20, start_s=30)

    async def run() -> str:
        try:
            box = await Sandbox.start(
                pkg, runtime("python3.11"), ["python3", "bot.py"], tmp_path / "hog.log", limits
            )
        except SandboxError as error:
            return str(error)
        await box.close()
        return (tmp_path / "hog.log").read_text()

    said = asyncio.run(run())
    if "CHILDREN" in said:  # the parent lived: at least one child did not
        (line,) = [x for x in said.splitlines() if x.startswith("CHILDREN")]
        assert "-9" in line.split(), line
    else:
        assert "killed at the box's memory limit" in said, said


@as_root
def test_a_lock_file_planted_as_a_link_is_not_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    victim = tmp_path / "victim"
    victim.write_text("root's own\n")
    with short_directory() as short:
        locks = private_directory(short / "uids")
        # Ids no other test's sandbox leases from the host's directory meanwhile.
        monkeypatch.setattr(sandbox, "UIDS", range(61990, 62000))
        monkeypatch.setattr(sandbox, "uid_locks", lambda: locks)
        (locks / "61990.lock").symlink_to(victim)
        report = serve_and_report(hostile_package(tmp_path / "p"), tmp_path / "p.log")
    assert victim.read_text() == "root's own\n"
    assert report["host_uid_map"][1] == "61991"  # type: ignore[index]


@as_root
def test_sandboxes_on_different_state_directories_never_share_a_user_id(tmp_path: Path) -> None:
    """The kernel counts processes per user id: two boxes under one would share a
    process limit (bubblewrap refused one with EAGAIN) and each other's keys."""
    package = hostile_package(tmp_path / "p")

    async def run(roots: list[Path]) -> list[str]:
        boxes = [
            await Sandbox.start(
                package,
                runtime("python3.11"),
                ["python3", "bot.py"],
                tmp_path / f"{n}.log",
                None,
                root,
            )
            for n, root in enumerate(roots)
        ]
        try:
            return [str(seen_from_the_host(box)["host_uid_map"][1]) for box in boxes]  # type: ignore[index]
        finally:
            for box in boxes:
                await box.close()

    with short_directory() as one, short_directory() as two:
        uids = asyncio.run(run([private_directory(one / "s"), private_directory(two / "s")]))
    assert len(set(uids)) == 2, uids


def test_a_state_directory_too_deep_for_a_socket_is_refused_before_any_bot_starts(
    tmp_path: Path,
) -> None:
    deep = private_directory(tmp_path / ("d" * 80))
    with pytest.raises(SandboxError, match=r"too deep: a bot's socket under it takes \d+ bytes"):
        serve_and_report(hostile_package(tmp_path / "p"), tmp_path / "p.log", root=deep)
    assert not [p for p in deep.iterdir() if p.name.startswith("sandbox-")]


def test_a_state_directory_that_another_user_could_touch_is_refused(tmp_path: Path) -> None:
    open_to_all = tmp_path / "open"
    open_to_all.mkdir(mode=0o777)
    open_to_all.chmod(0o777)
    with pytest.raises(UnsafeDirectory, match="mode 0777; it must be 0700"):
        private_directory(open_to_all)
    (tmp_path / "link").symlink_to(tmp_path)
    with pytest.raises(UnsafeDirectory, match="is not a directory"):
        private_directory(tmp_path / "link")
    if AS_ROOT:
        theirs = tmp_path / "theirs"
        theirs.mkdir(mode=0o700)
        os.chown(theirs, 65534, 65534)
        with pytest.raises(UnsafeDirectory, match="belongs to user 65534"):
            private_directory(theirs)
        with pytest.raises(UnsafeDirectory):
            serve_and_report(hostile_package(tmp_path / "p"), tmp_path / "p.log", root=theirs)
    assert private_directory(tmp_path / "mine").stat().st_mode & 0o777 == 0o700


@as_root
def test_what_a_killed_referees_boxes_left_is_swept_and_a_live_ones_is_not(tmp_path: Path) -> None:
    dead = subprocess.Popen(["true"])
    dead.wait()
    root = private_directory(tmp_path / "state")
    left = root / f"sandbox-{dead.pid}-x"
    (left / "run").mkdir(parents=True)
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=64k", "left", str(left / "run")], check=True
    )
    live = root / f"sandbox-{os.getpid()}-y"
    live.mkdir()
    box = cgroups.hierarchy().new_box(64 << 20, 8, 1.0)
    stale = [path.with_name(f"box-{dead.pid}-z") for path in box.paths]
    for path in stale:
        path.mkdir()
    try:
        removed = sweep(root)
        assert left.name in removed and f"box-{dead.pid}-z" in removed
        assert not left.exists() and live.exists()
        assert not any(path.exists() for path in stale)
        assert all(path.exists() for path in box.paths)  # this process's own box stays
    finally:
        box.remove_now()


def test_without_a_usable_cgroup_hierarchy_hosted_bots_are_refused_in_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A host without cgroups cannot be made here: its detection is replaced."""

    def none() -> cgroups.Hierarchy:
        raise cgroups.CgroupUnavailable("no cgroup v2 hierarchy with the memory controller")

    monkeypatch.setattr(cgroups, "hierarchy", none)
    with pytest.raises(RuntimeUnavailable) as refused:
        Bubblewrap().runtime("python3.11")
    assert "cannot give each sandbox a cgroup" in str(refused.value)
    assert "--unsafe-no-cgroups" in str(refused.value) and "\n" not in str(refused.value)
    assert Bubblewrap(unsafe_no_cgroups=True).runtime("python3.11").name == "python3.11"
    with pytest.raises(Uncontained, match="hosted bots need one"):
        serve_and_report(hostile_package(tmp_path / "p"), tmp_path / "p.log")


V1_MOUNTINFO = """\
30 25 0:26 / /sys/fs/cgroup ro,nosuid - tmpfs tmpfs ro,mode=755
31 30 0:27 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw
33 30 0:29 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory
34 30 0:30 / /sys/fs/cgroup/pids rw - cgroup cgroup rw,pids
35 30 0:31 / /sys/fs/cgroup/cpu,cpuacct rw - cgroup cgroup rw,cpu,cpuacct
36 30 0:32 / /sys/fs/cgroup/freezer rw - cgroup cgroup rw,freezer
"""
V1_SELF = "5:freezer:/\n4:cpu,cpuacct:/svc\n3:pids:/\n2:memory:/svc/referee\n0::/\n"
V2_MOUNTINFO = "30 25 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


def test_cgroup_layouts_are_read_from_the_kernels_own_tables() -> None:
    version, where = cgroups.parse(V1_MOUNTINFO, V1_SELF, lambda _: "hugetlb")
    assert version == 1
    assert where == {
        "memory": Path("/sys/fs/cgroup/memory/svc/referee"),
        "pids": Path("/sys/fs/cgroup/pids"),
        "cpu": Path("/sys/fs/cgroup/cpu,cpuacct/svc"),
        "freezer": Path("/sys/fs/cgroup/freezer"),
    }
    assert cgroups.parse(
        V2_MOUNTINFO, "0::/system.slice/referee\n", lambda _: "cpu memory pids io"
    ) == (
        2,
        {"": Path("/sys/fs/cgroup")},
    )
    with pytest.raises(cgroups.CgroupUnavailable, match="v1 hierarchy for pids, freezer"):
        cgroups.parse(V1_MOUNTINFO.replace("pids", "x").replace("freezer", "y"), V1_SELF)


def test_every_call_the_documentation_lists_as_refused_is_in_the_filter() -> None:
    """Each refused call resolves on this architecture, so none is silently skipped."""
    import pyseccomp

    arch = pyseccomp.system_arch()
    for call, _why in seccomp.rules():
        assert pyseccomp.resolve_syscall(arch, call) >= 0, call
    assert len(seccomp.compiled()) % 8 == 0 and seccomp.compiled()  # BPF: 8-byte insns


@as_root
def test_a_second_local_user_squatting_the_referees_paths_gets_a_refusal_and_writes_nothing(
    tmp_path: Path,
) -> None:
    """Another user of the host plants, in a shared temporary directory, a directory of
    theirs where the referee's hosting directory goes and a link where its sandbox state
    goes: the referee refuses both in one line and writes through neither."""
    shared = Path(tempfile.mkdtemp(prefix="arena-squat-", dir="/tmp"))
    try:
        shared.chmod(0o1777)  # as /tmp is
        victim = tmp_path / "victim"
        victim.write_text("root's own\n")
        plant = f"mkdir -m 777 {shared}/hosting && ln -s {victim} {shared}/sandboxes"
        subprocess.run(
            ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "sh", "-c", plant],
            check=True,
        )
        with pytest.raises(UnsafeDirectory, match="belongs to user 65534"):
            Hosting(shared / "hosting")
        with pytest.raises(UnsafeDirectory, match="is not a directory"):
            serve_and_report(
                hostile_package(tmp_path / "p"), tmp_path / "p.log", root=shared / "sandboxes"
            )
        assert victim.read_text() == "root's own\n"
        assert sorted(p.name for p in (shared / "hosting").iterdir()) == []
    finally:
        shutil.rmtree(shared, ignore_errors=True)


@as_root
def test_a_receiver_decodes_a_channel_that_exists(tmp_path: Path) -> None:
    """The decoder's own check: one box that both loads itself and measures its work
    reads the pattern back better than chance ever would, so a receiver that reads
    nothing elsewhere would have. (A loaded host blurs its signal: 0.75 of 81 bits at
    four test workers, where an idle one gives 0.8 or more.)"""
    log = tmp_path / "self.log"

    async def run() -> None:
        command = ["python3", "bot.py", "self"]
        box = await Sandbox.start(channel_package(tmp_path / "p"), runtime("python3.11"),
                                  command, log)  # fmt: skip
        try:
            # Enough of its slots to decode (a loaded machine gives it fewer a second).
            for _ in range(120):
                await asyncio.sleep(0.5)
                if slots(log)["work"][0] >= 160:
                    break
            box.freeze()  # its slots from serving to here, none from its end
        finally:
            await box.close()

    def slots(path: Path) -> dict[str, tuple[int, float]]:
        return decoded([[path.read_text().partition("listening on")[2]]])

    asyncio.run(run())
    found = slots(log)
    slots_seen, score = found["work"]
    assert slots_seen >= 60 and score > beyond_chance(slots_seen), found
    assert found["runnable"][1] == 0.5  # no /proc: nothing to read


@as_root
def test_partner_seats_pass_no_bit_through_the_host(tmp_path: Path) -> None:
    """The two seats of one entry in a Bid Euchre match: the first loads the host in the
    pattern's 1-slots, the other measures every slot it runs in. Boxes take turns, so the
    receiver never runs while the sender does, and it reads no host counter."""
    from tests.support.hosted_matches import Package, logs_by_seat, play, referee

    channel = Package(channel_package(tmp_path / "channel"))
    house = Package(tmp_path / "house", HOUSE_BOT)

    async def scenario() -> object:
        async with referee(tmp_path) as (stub, _):
            partner = channel.entry(command="python3 bot.py partner 0.12")
            return await play(stub, ["", ""], {0: partner, 1: house.entry()},
                              options={"max_hands": "5"})  # fmt: skip

    result = asyncio.run(scenario())
    logs = logs_by_seat(result)  # type: ignore[arg-type]
    sender, receiver = logs[0].output.decode(), logs[2].output.decode()
    assert "SENT" in sender and "SLOT" not in sender and "TURN" in receiver
    assert_at_chance([[sender, receiver]])
