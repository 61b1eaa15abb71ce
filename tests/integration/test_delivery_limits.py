"""Delivery and what bounds a worker (issue 23, ADR 0025): the role's effective `[limits]` are part
of the approved intent and are what its sandbox's cgroup gets; where no cgroup can be made the
worker is parked before any pane with the reason, and `oms doctor` says how to fix it; `[limits]
cgroup = "unsafe-none"` launches with no cgroup, and `oms status` and `oms doctor` warn of it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from oms.adapters import cgroups
from oms.services.admin.doctor import diagnose
from oms.services.admin.status import snapshot
from oms.services.delivery.service import Delivery
from tests.chain import Chain, accepted, use_worker
from tests.helpers import eventually

MOUNTINFO_V1 = "35 31 0:32 / {root}/memory rw - cgroup cgroup rw,memory\n"
MOUNTINFO_V1 += "39 31 0:36 / {root}/pids rw - cgroup cgroup rw,pids\n"


def _fake_host(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    """What `/proc/self/mountinfo` and `/proc/self/cgroup` say, as a test writes them."""
    root = tmp_path / "cgroupfs"
    root.mkdir()
    if case == "no hierarchy":  # no cgroup file system at all
        mountinfo, membership = "", "0::/\n"
    else:  # "unwritable root": where oms's cgroup should be is no directory
        (root / "memory").write_text("")
        (root / "pids").write_text("")
        mountinfo, membership = MOUNTINFO_V1.format(root=root), "8:pids:/\n4:memory:/\n"
    (tmp_path / "mountinfo").write_text(mountinfo)
    (tmp_path / "cgroup").write_text(membership)
    monkeypatch.setattr(cgroups, "MOUNTINFO", str(tmp_path / "mountinfo"))
    monkeypatch.setattr(cgroups, "SELF_CGROUP", str(tmp_path / "cgroup"))


@pytest.mark.parametrize("case", ["no hierarchy", "unwritable root"])
def test_delivery_parks_before_any_pane_when_no_cgroup_can_be_made(
    deliverable: Chain,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    case: str,
) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    _fake_host(tmp_path, monkeypatch, case)
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        outcome = delivery.deliver(event_id)["outcome"]
        assert isinstance(outcome, dict)
        assert outcome["status"] == "parked", outcome
        reason = str(outcome["reason"])
        expected = "no cgroup hierarchy gives oms" if case == "no hierarchy" else "cannot make"
        assert expected in reason, reason
        assert delivery.panes.list() == []  # nothing ran
        worker = ws.store.records("worker").read(dispatch_id).payload
        assert worker["health"] == "parked"
        assert worker["health_reason"] == reason
        checks = {c.name: c for c in diagnose(str(deliverable.state), str(deliverable.repo))}
    assert not checks["cgroups"].ok
    assert "systemd-run --user --scope -p Delegate=yes" in checks["cgroups"].fix
    assert 'cgroup = "unsafe-none"' in checks["cgroups"].fix


def test_the_approved_limits_are_what_the_sandbox_gets(deliverable: Chain) -> None:
    use_worker(deliverable)
    deliverable.edit_config(
        lambda s: (
            s.replace(
                '[roles."oms.command-executor"]\n',
                '[roles."oms.command-executor"]\nlimits = { pids = 300, cpu_weight = 30 }\n',
            )
            + "\n[limits]\npids = 500\nmemory_bytes = 1073741824\n"
        ),
        commit=True,
    )
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        approved = ws.store.records("dispatch").read(dispatch_id).payload["role_limits"]
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(approved, dict)
    got = (approved["pids"], approved["memory_bytes"], approved["cpu_weight"])
    assert got == (300, 1 << 30, 30)
    assert isinstance(outcome, dict)
    assert outcome["status"] == "created", outcome
    name = f"oms-w-{dispatch_id}"
    nodes = [Path(place.base) / name for place in cgroups.where()]
    procs = [n / "cgroup.procs" for n in nodes]
    eventually(  # the pane's supervisor makes it, after `deliver` returned
        lambda: all(p.is_file() and p.read_text() for p in procs),
        timeout=30,
        what=f"a sandbox in {nodes}",
    )
    written = {}
    for place in cgroups.where():
        node = Path(place.base) / name
        for file in ("pids.max", "memory.limit_in_bytes", "memory.max", "cpu.shares", "cpu.weight"):
            if (node / file).exists():
                written[file] = (node / file).read_text().strip()
    assert written["pids.max"] == "300"
    assert written.get("memory.limit_in_bytes", written.get("memory.max")) == str(1 << 30)
    assert written.get("cpu.shares", written.get("cpu.weight")) in ("307", "30")


def test_unsafe_none_launches_without_a_cgroup_and_is_shown_as_a_warning(
    deliverable: Chain,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_worker(deliverable)
    deliverable.edit_config(lambda s: s + '\n[limits]\ncgroup = "unsafe-none"\n', commit=True)
    dispatch_id, event_id = accepted(deliverable)
    _fake_host(tmp_path, monkeypatch, "no hierarchy")  # none could be made: it is not asked for
    with deliverable.workspace() as ws:
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
        assert isinstance(outcome, dict)
        assert outcome["status"] == "created", outcome
        warnings = snapshot(ws).warnings
    assert any(dispatch_id in w and "unsafe-none" in w for w in warnings), warnings
    checks = diagnose(str(deliverable.state), str(deliverable.repo))
    warned = [c for c in checks if c.name == "limits"]
    assert warned, [c.name for c in checks]
    assert all(c.warn and "unsafe-none" in c.detail for c in warned)
    intent = json.loads((deliverable.state / "panes").joinpath(f"{dispatch_id}.json").read_text())
    assert intent["dispatch_id"] == dispatch_id  # the pane exists: it ran


def test_doctor_makes_a_trial_cgroup_and_says_where(chain: Chain) -> None:
    checks = {c.name: c for c in diagnose(str(chain.state), str(chain.repo))}
    line = checks["cgroups"]
    assert line.ok, line.detail
    assert not line.warn
    assert "pids 2048, memory 4 GiB, cpu weight 50" in line.detail
    for place in cgroups.where():
        assert f"beneath {place.base}" in line.detail
        assert not list(Path(place.base).glob(f"oms-t-{os.getpid()}-*"))  # the trial is gone
    assert "limits" not in checks  # nothing unbounded: no warning
