"""A worker's sandbox is bounded by default (issue 23, ADR 0025), with a real supervisor, real
bubblewrap and this machine's real cgroups: a fork bomb ends the worker with `limit: pids`, a 4 GiB
allocation with `limit: memory`, a worktree filled past its bound with `limit: disk`, one file past
the largest file fails; the cgroup is nested beneath the supervisor's own (no process moved out of
its subtree) and is gone once the sandbox ended; a cgroup's leftovers are killed before it is
removed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from oms.adapters import cgroups
from oms.domain.cgroups import identity
from oms.domain.sandbox_limits import SandboxLimits
from oms.fsio import Root
from oms.process import confine
from oms.store import StateRoot
from tests.helpers import eventually, oms_command
from tests.integration.test_supervise import _spec

MIB = 1024 * 1024
NODE = "oms-w-dsp-1"


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state"
    StateRoot.create(str(path), "2026-01-01T00:00:00.000Z")[0].close()
    return path


@pytest.fixture
def worktree(tmp_path: Path) -> Path:
    path = tmp_path / "wt"
    path.mkdir()
    return path


def _supervisor(state: Path) -> subprocess.Popen[bytes]:
    argv = [
        *oms_command().argv,
        "worker",
        "supervise",
        "--dispatch-id",
        "dsp-1",
        "--state-root",
        str(state),
    ]
    return subprocess.Popen(argv, stdin=subprocess.DEVNULL)


def _ended(state: Path, proc: subprocess.Popen[bytes], timeout: float = 120) -> dict[str, object]:
    proc.wait(timeout)
    doc = json.loads((state / "panes" / "dsp-1.exit.json").read_text())
    assert isinstance(doc, dict)
    return doc


def _nodes(name: str = NODE) -> list[Path]:
    """Where a sandbox's cgroup of `name` goes beneath this process's own cgroups."""
    return [Path(place.base) / name for place in cgroups.where()]


def _wait_for(what: str, ready: Callable[[], object], timeout: float = 60.0) -> None:
    eventually(ready, timeout=timeout, what=what)


def test_a_fork_bomb_is_bounded_and_ends_the_worker_with_limit_pids(
    state: Path,
    worktree: Path,
) -> None:
    """200 processes asked for, 64 allowed: the 65th fork fails, the supervisor sees `pids.events`
    grow and ends the sandbox. (Without a pids cgroup every one starts and the command ends by
    itself, exit 0.)"""
    bomb = "i=0; while [ $i -lt 200 ]; do sleep 30 & i=$((i+1)); done; echo all > started; exit 0"
    _spec(state, worktree, ["/bin/sh", "-c", bomb], limits=SandboxLimits(pids=64))
    ended = _ended(state, _supervisor(state))
    assert ended.get("limit") == "pids", ended
    assert str(ended["detail"]).startswith("limit: pids: it reached its bound of 64 tasks")
    assert not (worktree / "started").exists()
    assert not any(node.exists() for node in _nodes())  # removed once the sandbox ended


def test_a_4_gib_allocation_ends_the_worker_with_limit_memory(state: Path, worktree: Path) -> None:
    """4 GiB touched page by page against a 256 MiB bound: the kernel's OOM killer ends it inside
    its cgroup, and the end names the bound. (Without a memory cgroup the allocation succeeds on
    this host.)"""
    grab = "b = bytearray(4 << 30); open('allocated', 'w').write(str(len(b)))"
    _spec(
        state,
        worktree,
        ["/usr/bin/python3", "-c", grab],
        limits=SandboxLimits(memory_bytes=256 * MIB),
    )
    ended = _ended(state, _supervisor(state))
    assert ended.get("limit") == "memory", ended
    assert str(ended["detail"]).startswith("limit: memory")
    assert not (worktree / "allocated").exists()
    assert not any(node.exists() for node in _nodes())


def test_a_worktree_filled_past_its_bound_ends_the_worker_with_limit_disk(
    state: Path,
    worktree: Path,
) -> None:
    """Three files of 3 MiB, each under the largest file (4 MiB), together over the 8 MiB disk
    bound: the supervisor's watchdog measures the worktree and ends the worker."""
    fill = "for i in 1 2 3; do head -c 3145728 /dev/zero > f$i; done; exec sleep 600"
    bounds = SandboxLimits(disk_bytes=8 * MIB, file_bytes=4 * MIB)
    _spec(state, worktree, ["/bin/sh", "-c", fill], limits=bounds)
    ended = _ended(state, _supervisor(state))
    assert ended.get("limit") == "disk", ended
    assert "above its bound of 8388608" in str(ended["detail"])
    assert not any(node.exists() for node in _nodes())


def test_no_file_grows_past_the_largest_file(state: Path, worktree: Path) -> None:
    """RLIMIT_FSIZE: a write past 2 MiB fails (SIGXFSZ), and so does an fallocate (EFBIG)."""
    write = (
        "dd if=/dev/zero of=big bs=1M count=3 2>/dev/null; echo $? > dd.rc; "
        "fallocate -l 3M big2 2>/dev/null; echo $? > fallocate.rc; exit 0"
    )
    _spec(state, worktree, ["/bin/sh", "-c", write], limits=SandboxLimits(file_bytes=2 * MIB))
    ended = _ended(state, _supervisor(state))
    assert ended["status"] == 0, ended
    assert (worktree / "dd.rc").read_text().strip() != "0"
    assert (worktree / "big").stat().st_size == 2 * MIB
    assert (worktree / "fallocate.rc").read_text().strip() != "0"
    assert not (worktree / "big2").exists() or (worktree / "big2").stat().st_size == 0


def _cgroups_of(pid: int) -> dict[str, str]:
    """controller (or '' for v2) -> path, from /proc/<pid>/cgroup."""
    out = {}
    for line in Path(f"/proc/{pid}/cgroup").read_text().splitlines():
        _, names, path = line.split(":", 2)
        for name in names.split(",") if names else [""]:
            out[name] = path
    return out


def test_the_sandbox_cgroup_is_nested_beneath_the_supervisors_and_moves_no_process(
    state: Path,
    worktree: Path,
) -> None:
    _spec(state, worktree, ["/bin/sh", "-c", "exec sleep 600"])
    proc = _supervisor(state)
    try:
        init = state / "panes" / "dsp-1.init.json"
        _wait_for("the sandbox's init recorded", init.exists)
        inner = json.loads(init.read_text())["pid"]
        mine, supervisor, sandbox = (
            _cgroups_of(os.getpid()),
            _cgroups_of(proc.pid),
            _cgroups_of(inner),
        )
        assert supervisor == mine  # the supervisor was not moved: it runs where its caller does
        for place in cgroups.where():
            for controller in place.controllers:
                expected = mine[controller].rstrip("/") + "/" + NODE
                assert sandbox[controller] == expected, (controller, sandbox, mine)
                procs = Path(place.base) / NODE / "cgroup.procs"
                assert procs.read_text().split()  # it holds the sandbox
        assert {k: v for k, v in sandbox.items() if k not in ("pids", "memory", "cpu")} == {
            k: v for k, v in mine.items() if k not in ("pids", "memory", "cpu")
        }  # every other hierarchy: where it was
        pids_node = next(n for n in _nodes() if "pids" in str(n.parent) or n.parent.name == "pids")
        assert (pids_node / "pids.max").read_text().strip() == str(SandboxLimits().pids)
    finally:
        proc.send_signal(signal.SIGTERM)  # passed on to the sandbox's group: the agent ends
        proc.wait(60)
    assert not any(node.exists() for node in _nodes())


def test_what_is_left_in_a_cgroup_is_killed_before_it_is_removed(tmp_path: Path) -> None:
    """`remove` kills the cgroup's members by pidfd (each still a member), then removes it."""
    group = cgroups.make(identity("check", f"{os.getpid()}-leftover"), SandboxLimits())
    try:
        joined = group.confinement(None)
        child = subprocess.Popen(  # joins before it executes, as a sandbox's first process does
            ["/bin/sleep", "600"],
            preexec_fn=confine.before_exec(joined),  # noqa: PLW1509 - one thread
            start_new_session=True,
        )
        group.release()
        procs = [Path(n) / "cgroup.procs" for n in group.nodes]
        assert all(str(child.pid) in p.read_text().split() for p in procs)
    finally:
        assert group.remove()
    assert child.wait(10) == -signal.SIGKILL
    assert not any(Path(n).exists() for n in group.nodes)


def test_an_unsafe_none_worker_runs_without_a_cgroup_and_says_so(
    state: Path,
    worktree: Path,
) -> None:
    _spec(state, worktree, ["/bin/sh", "-c", "exit 0"], limits=SandboxLimits(cgroup="unsafe-none"))
    ended = _ended(state, _supervisor(state))
    assert ended["status"] == 0
    with Root.open(str(state)) as root:
        log = root.read_bytes("panes/dsp-1.log", 1 << 20).decode()
    assert 'cgroup = "unsafe-none": no pids, memory or CPU bound' in log
