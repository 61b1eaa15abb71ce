"""Holder-named locks: held while the exact holder lives, stale only when it is provably gone."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.errors import FsioError, LockHeldError
from oms.fsio import Root, procinfo
from oms.fsio.locks import acquire, inspect, parse, render

CHILD = """
import sys
from oms.fsio import Root
from oms.fsio.locks import acquire
root = Root.open(sys.argv[1])
lock = acquire(root, "x.lock")
print("held", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def root(tmp_path: Path) -> Iterator[Root]:
    (tmp_path / "r").mkdir(mode=0o700)
    with Root.open(str(tmp_path / "r")) as opened:
        yield opened


@pytest.fixture
def holder(root: Root) -> Iterator[subprocess.Popen[str]]:
    """A real child process that takes x.lock and keeps it until killed."""
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, root.path],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None
    assert child.stdout.readline() == "held\n"
    yield child
    child.kill()
    child.wait()
    assert child.stdin is not None
    child.stdin.close()
    child.stdout.close()


def test_lock_of_live_process_is_held(root: Root, holder: subprocess.Popen[str]) -> None:
    with pytest.raises(LockHeldError, match=f"process {holder.pid}"):
        acquire(root, "x.lock")
    state = inspect(root, "x.lock")
    assert state is not None
    assert state.alive


def test_lock_of_dead_process_is_stale_and_broken(
    root: Root, holder: subprocess.Popen[str]
) -> None:
    holder.kill()
    holder.wait()
    state = inspect(root, "x.lock")
    assert state is not None
    assert not state.alive
    with acquire(root, "x.lock") as lock:
        assert lock.held
        mine = inspect(root, "x.lock")
        assert mine is not None
        assert mine.holder == procinfo.current()
    assert inspect(root, "x.lock") is None


def test_zombie_holder_counts_as_gone(root: Root, holder: subprocess.Popen[str]) -> None:
    holder.kill()
    os.waitid(os.P_PID, holder.pid, os.WEXITED | os.WNOWAIT)  # dead but not reaped: a zombie
    assert procinfo.start_ticks(holder.pid) is None
    acquire(root, "x.lock").release()


def test_recycled_pid_is_not_the_holder(root: Root) -> None:
    me = procinfo.current()
    impostor = procinfo.ProcessIdentity(me.boot_id, me.pid, me.start_ticks + 1)
    assert not procinfo.is_alive(impostor)
    other_boot = procinfo.ProcessIdentity(
        "00000000-0000-0000-0000-000000000000", me.pid, me.start_ticks
    )
    assert not procinfo.is_alive(other_boot)
    root.publish("x.lock", render(impostor))
    acquire(root, "x.lock").release()


def test_unparseable_lock_is_not_guessed_at(root: Root) -> None:
    root.publish("x.lock", b"garbage\n")
    with pytest.raises(LockHeldError, match="not one oms wrote"):
        acquire(root, "x.lock")


def test_release_refuses_when_lock_was_replaced(root: Root) -> None:
    lock = acquire(root, "x.lock")
    root.unlink("x.lock")
    me = procinfo.current()
    someone_else = render(procinfo.ProcessIdentity(me.boot_id, me.pid + 1, me.start_ticks))
    root.publish("x.lock", someone_else)  # may even reuse the inode number
    with pytest.raises(FsioError, match="replaced"):
        lock.release()
    assert root.read_bytes("x.lock", 100) == someone_else


def test_render_parse_round_trip() -> None:
    me = procinfo.current()
    assert parse(render(me)) == me
    assert parse(render(me) + b"x") is None
    assert parse(b"\xff") is None
