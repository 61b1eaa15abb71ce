"""`adapters/cgroups.py` on cgroup v2, driven against a SIMULATED cgroup tree (ADR 0025).

Real cgroup v2 could not be run here: the machine this was written and tested on mounts `pids`,
`memory` and `cpu` as cgroup v1 hierarchies, and the kernel binds each controller to one hierarchy,
so its cgroup2 mount (`/sys/fs/cgroup/unified`) offers none of them (its `cgroup.controllers` reads
`hugetlb`). CI runs on the same kind of machine. So this test models what the kernel enforces on v2
and drives the real code (`where`, `make`, `remove`) against it:
- a cgroup's `cgroup.controllers` is what its parent enabled in `cgroup.subtree_control`; a
  controller's files exist only where it is available;
- "no internal processes": enabling a controller in `cgroup.subtree_control` of a non-root cgroup
  that holds processes fails with EBUSY, and so does moving a process into a cgroup that has
  controllers enabled for its children;
- a cgroup with processes or children cannot be removed (EBUSY); `cgroup.kill` kills what is inside;
- a delegated subtree: writes outside it fail with EACCES.
"""

from __future__ import annotations

import errno
import posixpath
from dataclasses import dataclass, field

import pytest

from oms.adapters import cgroups
from oms.domain.cgroups import LEAF, identity
from oms.domain.sandbox_limits import SandboxLimits
from oms.errors import CgroupUnavailableError

MOUNT = "/sys/fs/cgroup"
SCOPE = "/user.slice/user-1000.slice/user@1000.service/app.slice/oms.scope"
OMS, SHELL = 4242, 4243  # oms, and another process the delegated scope holds
PER_CONTROLLER = {
    "pids": ("pids.max", "pids.events", "pids.current"),
    "memory": (
        "memory.max",
        "memory.swap.max",
        "memory.oom.group",
        "memory.events",
        "memory.current",
    ),
    "cpu": ("cpu.weight", "cpu.stat"),
}


def _err(code: int) -> OSError:
    import os

    return OSError(code, os.strerror(code))


@dataclass
class Node:
    procs: set[int] = field(default_factory=set)
    enabled: set[str] = field(default_factory=set)  # its cgroup.subtree_control
    values: dict[str, str] = field(default_factory=dict)


class SimulatedV2:
    """A cgroup2 file system mounted at `MOUNT`, as the kernel behaves; `delegated` is ours."""

    def __init__(self, delegated: str, offered: set[str], swap: bool = True) -> None:
        self.nodes: dict[str, Node] = {"/": Node(enabled=set(offered))}
        parts = delegated.strip("/").split("/")
        for i in range(1, len(parts) + 1):
            path = "/" + "/".join(parts[:i])
            self.nodes[path] = Node(enabled=set(offered) if i < len(parts) else set())
        self.nodes[delegated].procs = {OMS, SHELL}
        self.delegated = delegated
        self.swap = swap
        self.writes: list[tuple[str, str]] = []
        self.self_pid = OMS

    # ---- the model
    def _cg(self, host: str) -> tuple[str, str]:
        """(cgroup path, file name or '') of a host path beneath the mount."""
        if not (host == MOUNT or host.startswith(MOUNT + "/")):
            raise _err(errno.ENOENT)
        rel = "/" + host[len(MOUNT) :].strip("/")
        if rel in self.nodes or rel == "/":
            return rel, ""
        head, name = posixpath.split(rel)
        if head in self.nodes:
            return head, name
        raise _err(errno.ENOENT)

    def available(self, path: str) -> set[str]:
        parent = "/" if path == "/" else posixpath.dirname(path)
        return set(self.nodes[parent].enabled)

    def _files(self, path: str) -> set[str]:
        names = {
            "cgroup.procs",
            "cgroup.controllers",
            "cgroup.subtree_control",
            "cgroup.kill",
            "cgroup.events",
        }
        for controller in self.available(path):
            names.update(PER_CONTROLLER.get(controller, ()))
        if not self.swap:
            names.discard("memory.swap.max")
        return names

    def _writable(self, path: str) -> bool:
        return path == self.delegated or path.startswith(self.delegated + "/")

    def where_is(self, pid: int) -> str:
        return next(p for p, n in self.nodes.items() if pid in n.procs)

    # ---- CgroupFiles
    def read(self, path: str, cap: int) -> str:
        if path == cgroups.MOUNTINFO:
            return f"24 1 0:22 / {MOUNT} rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate\n"
        if path == cgroups.SELF_CGROUP:
            return f"0::{self.where_is(self.self_pid)}\n"
        cg, name = self._cg(path)
        if name not in self._files(cg):
            raise _err(errno.ENOENT)
        node = self.nodes[cg]
        if name == "cgroup.procs":
            return "".join(f"{p}\n" for p in sorted(node.procs))
        if name == "cgroup.controllers":
            return " ".join(sorted(self.available(cg))) + "\n"
        if name == "cgroup.subtree_control":
            return " ".join(sorted(node.enabled)) + "\n"
        return node.values.get(name, "max 0\n" if name.endswith(".events") else "0\n")

    def exists(self, path: str) -> bool:
        try:
            cg, name = self._cg(path)
        except OSError:
            return False
        return name == "" or name in self._files(cg)

    def mkdir(self, path: str) -> None:
        parent, name = self._cg(path)
        if name == "":
            raise _err(errno.EEXIST)
        if not self._writable(parent):
            raise _err(errno.EACCES)
        self.nodes[posixpath.join(parent, name)] = Node()

    def rmdir(self, path: str) -> None:
        cg, name = self._cg(path)
        if name:
            raise _err(errno.ENOTDIR)
        if self.nodes[cg].procs or any(posixpath.dirname(p) == cg for p in self.nodes if p != cg):
            raise _err(errno.EBUSY)
        del self.nodes[cg]

    def write(self, path: str, value: str) -> None:
        cg, name = self._cg(path)
        if name not in self._files(cg):
            raise _err(errno.ENOENT)
        if not self._writable(cg):
            raise _err(errno.EACCES)
        self.writes.append((path, value))
        node = self.nodes[cg]
        if name == "cgroup.subtree_control":
            wanted = {w[1:] for w in value.split() if w.startswith("+")}
            if not wanted <= self.available(cg):
                raise _err(errno.ENOENT)
            if node.procs and cg != "/":
                raise _err(errno.EBUSY)  # no internal processes
            node.enabled |= wanted
        elif name == "cgroup.procs":
            pid = self.self_pid if value.strip() == "0" else int(value)
            if node.enabled and cg != "/":
                raise _err(errno.EBUSY)
            source = self.where_is(pid)
            if not (self._writable(source) and self._writable(cg)):
                raise _err(errno.EACCES)  # both ends inside the delegated subtree
            self.nodes[source].procs.discard(pid)
            node.procs.add(pid)
        elif name == "cgroup.kill":
            node.procs.clear()
        else:
            node.values[name] = value

    def open_join(self, path: str) -> int:
        raise AssertionError("not used here: nothing forks in a simulation")


WHO = identity("worker", "dsp-1")
BOUNDS = SandboxLimits(pids=256, memory_bytes=512 << 20, cpu_weight=40)


def test_a_delegated_v2_scope_gets_its_processes_into_a_leaf_and_a_bounded_child() -> None:
    fs = SimulatedV2(SCOPE, {"pids", "memory", "cpu", "io"})
    group = cgroups.make(WHO, BOUNDS, fs)
    node = f"{SCOPE}/oms-w-dsp-1"
    assert group.nodes == (MOUNT + node,)
    assert fs.nodes[SCOPE].procs == set()  # it may enable controllers only once it holds no process
    assert fs.nodes[f"{SCOPE}/{LEAF}"].procs == {
        OMS,
        SHELL,
    }  # ... they moved, but only into its own child
    assert fs.nodes[SCOPE].enabled == {"pids", "memory", "cpu"}
    assert fs.nodes[node].values == {
        "pids.max": "256",
        "memory.max": str(512 << 20),
        "memory.swap.max": "0",
        "memory.oom.group": "1",
        "cpu.weight": "40",
    }
    assert all(p.startswith(MOUNT + SCOPE + "/") for p, _ in fs.writes)  # nothing outside the scope
    assert group.reached() is None
    fs.nodes[node].values["pids.events"] = "max 3\n"
    assert group.reached() == "pids"
    fs.nodes[node].procs = {5000, 5001}  # what the sandbox left
    assert group.remove()
    assert node not in fs.nodes
    assert f"{SCOPE}/{LEAF}" in fs.nodes


def test_a_second_sandbox_from_the_leaf_goes_beside_it_and_moves_nothing() -> None:
    fs = SimulatedV2(SCOPE, {"pids", "memory", "cpu"})
    cgroups.make(WHO, BOUNDS, fs).remove()
    moved = [w for w in fs.writes if w[0].endswith("/cgroup.procs")]
    second = cgroups.make(identity("worker", "dsp-2"), BOUNDS, fs)  # oms now runs in the leaf
    assert second.nodes == (f"{MOUNT}{SCOPE}/oms-w-dsp-2",)
    assert [w for w in fs.writes if w[0].endswith("/cgroup.procs")] == moved  # none moved again
    assert fs.where_is(OMS) == f"{SCOPE}/{LEAF}"


def test_without_swap_accounting_or_a_cpu_controller_only_what_exists_is_written() -> None:
    fs = SimulatedV2(SCOPE, {"pids", "memory"}, swap=False)
    group = cgroups.make(WHO, BOUNDS, fs)
    values = fs.nodes[f"{SCOPE}/oms-w-dsp-1"].values
    assert set(values) == {"pids.max", "memory.max", "memory.oom.group"}
    assert group.remove()


@pytest.mark.parametrize(
    ("offered", "delegated", "says"),
    [
        ({"cpu", "io"}, SCOPE, "pids and memory controllers"),  # the scope was not given them
        (
            {"pids", "memory", "cpu"},
            "/user.slice/other.scope",
            "cannot write",
        ),  # not delegated to us
    ],
)
def test_no_delegation_is_refused_with_a_reason_and_how_to_fix_it(
    offered: set[str],
    delegated: str,
    says: str,
) -> None:
    fs = SimulatedV2(SCOPE, offered)
    if delegated != SCOPE:
        fs.delegated = delegated  # the scope exists, but oms may not write to it
    with pytest.raises(CgroupUnavailableError) as caught:
        cgroups.make(WHO, BOUNDS, fs)
    assert says in caught.value.message
    assert "systemd-run --user --scope -p Delegate=yes" in caught.value.remedy
    assert 'cgroup = "unsafe-none"' in caught.value.remedy
    assert not any(p.endswith("oms-w-dsp-1") for p in fs.nodes)  # nothing of it left
    assert fs.where_is(OMS) == SCOPE
    assert fs.where_is(SHELL) == SCOPE


def test_an_earlier_sandbox_cgroup_is_reused_only_when_empty() -> None:
    fs = SimulatedV2(SCOPE, {"pids", "memory"})
    cgroups.make(WHO, BOUNDS, fs)  # its supervisor "was killed": left behind
    fs.nodes[f"{SCOPE}/oms-w-dsp-1"].procs = {7000}
    with pytest.raises(CgroupUnavailableError, match="still holds processes"):
        cgroups.make(WHO, BOUNDS, fs)
    fs.nodes[f"{SCOPE}/oms-w-dsp-1"].procs = set()
    group = cgroups.make(WHO, BOUNDS, fs)
    assert group.nodes == (f"{MOUNT}{SCOPE}/oms-w-dsp-1",)


def test_unsafe_none_makes_nothing() -> None:
    fs = SimulatedV2(SCOPE, set())
    group = cgroups.make(WHO, SandboxLimits(cgroup="unsafe-none"), fs)
    assert group.nodes == ()
    assert group.counters == ()
    assert fs.writes == []
    assert group.reached() is None
    assert group.remove()
