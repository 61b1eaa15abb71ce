"""`services/containment/bounds.py`: when a running sandbox is measured, and what its end says (ADR
0025)."""

from __future__ import annotations

import time
from pathlib import Path

from oms.adapters.cgroups import Cgroup
from oms.domain.cgroups import identity
from oms.domain.sandbox_limits import SandboxLimits
from oms.services.containment.bounds import Guard

MIB = 1024 * 1024
WHO = identity("worker", "dsp-1")


def test_nothing_to_watch_is_never_due() -> None:
    guard = Guard(Cgroup.none(WHO), (), SandboxLimits(cgroup="unsafe-none"), every_s=5.0)
    assert guard.due() is None
    assert guard.poll() is None


def test_a_tree_over_its_bound_is_disk_once_a_walk_ends(tmp_path: Path) -> None:
    for i in range(3):
        (tmp_path / f"f{i}").write_bytes(b"x" * MIB)
    bounds = SandboxLimits(disk_bytes=2 * MIB, file_bytes=MIB)
    guard = Guard(Cgroup.none(WHO), (str(tmp_path),), bounds, every_s=0.0)
    due = guard.due()
    assert due is not None
    assert due <= time.monotonic()
    assert guard.poll() == "disk"
    assert guard.detail("disk").startswith("limit: disk: it holds ")
    assert "above its bound of 2097152" in guard.detail("disk")
    guard.close()


def test_walking_again_waits_at_least_every_s(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"y")
    guard = Guard(Cgroup.none(WHO), (str(tmp_path),), SandboxLimits(), every_s=0.0)
    assert guard.poll() is None  # one walk, under the bound
    assert guard.measured is not None
    guard.every_s = 60.0
    guard._walk_at = 0.0  # due now: the next walk then waits `every_s` after it ends
    assert guard.poll() is None
    due = guard.due()
    assert due is not None
    assert due >= time.monotonic() + 59


def test_what_a_check_leaves_counts_once_it_ended(tmp_path: Path) -> None:
    (tmp_path / "left").write_bytes(b"z" * (3 * MIB))
    bounds = SandboxLimits(disk_bytes=2 * MIB, file_bytes=MIB)
    guard = Guard(Cgroup.none(WHO), (str(tmp_path),), bounds, every_s=3600.0)
    assert guard.poll() is None  # not due for an hour
    assert guard.final() == "disk"


def test_each_bound_is_named_in_the_end() -> None:
    guard = Guard(Cgroup.none(WHO), (), SandboxLimits(pids=64, memory_bytes=256 * MIB), every_s=1.0)
    assert guard.detail("pids") == "limit: pids: it reached its bound of 64 tasks"
    said = guard.detail("memory")
    assert said.startswith(f"limit: memory: it reached its bound of {256 * MIB} bytes")
