"""A sandbox's cgroup on this machine (issue 23, ADR 0025): found, made, watched and removed,
through `fsio/cgroupfs.py`, as `domain/cgroups.py` plans it.

`make(who, limits)` reads where oms's own cgroup is (`/proc/self/cgroup`, `/proc/self/mountinfo`),
makes `who`'s cgroup beneath it in every hierarchy with its limits written, and opens each
`cgroup.procs` for the sandbox's first process to join before it executes (`process/confine.py`).
`reached()` reads the counters that grow when a limit is reached. `remove()` kills what is left
inside (by pidfd, each still a member) and removes the directories. `CgroupUnavailableError` says
why none can be made: nothing may run then, unless the limits say `unsafe-none` (`Cgroup.none`).
"""

from __future__ import annotations

import contextlib
import errno
import os
import posixpath
import time

from oms.domain import cgroups as plan
from oms.domain.sandbox_limits import SandboxLimits
from oms.errors import CgroupUnavailableError
from oms.fsio.cgroupfs import CgroupFiles, CgroupFs, processes
from oms.limits import LIMITS
from oms.process.confine import Confinement, end_members, host_quotas

SELF_CGROUP = "/proc/self/cgroup"
MOUNTINFO = "/proc/self/mountinfo"
REAL = CgroupFs()
CAP = LIMITS.cgroup_file_bytes
HINT_ROOT = (
    "run oms as root, or inside a cgroup made yours in each hierarchy (an administrator makes "
    "it, gives you the directory and its cgroup.procs, and moves your shell in)"
)
HINT_V2 = (
    "run oms in a cgroup v2 subtree delegated to you: "
    "`systemd-run --user --scope -p Delegate=yes oms ...` "
    "(or a service with Delegate=yes)"
)
HINT_NONE = 'or, knowing nothing then bounds a sandbox, set [limits] cgroup = "unsafe-none"'


def where(files: CgroupFiles = REAL) -> tuple[plan.Place, ...]:
    """The hierarchies a sandbox's cgroup is made in, beneath this process's own cgroup."""
    try:
        mounts = plan.parse_mountinfo(files.read(MOUNTINFO, LIMITS.mountinfo_bytes))
        membership = plan.parse_membership(files.read(SELF_CGROUP, CAP))
        located = plan.locate(mounts, membership)
    except OSError as exc:
        raise CgroupUnavailableError(f"cannot read where oms's cgroup is: {exc.strerror}") from exc
    offered: frozenset[str] = frozenset()
    if located.v2 is not None:
        with contextlib.suppress(OSError):
            offered = frozenset(files.read(f"{located.v2}/cgroup.controllers", CAP).split())
    try:
        return plan.layout(located, offered)
    except CgroupUnavailableError as exc:
        raise CgroupUnavailableError(exc.message, hint=f"{HINT_V2}; {HINT_NONE}") from None


class Cgroup:
    """One sandbox's cgroup, in every hierarchy it is made in."""

    def __init__(
        self,
        files: CgroupFiles,
        who: plan.Identity,
        nodes: tuple[str, ...],
        counters: tuple[plan.Counter, ...],
        places: tuple[plan.Place, ...] = (),
    ) -> None:
        self.files = files
        self.who = who
        self.nodes = nodes  # its directories, one per hierarchy
        self.counters = counters
        self.places = places
        self._fds: list[int] = []
        self._before: dict[plan.Counter, int] = {}

    @classmethod
    def none(cls, who: plan.Identity) -> Cgroup:
        """No cgroup (`[limits] cgroup = "unsafe-none"`): nothing to join, watch or remove."""
        return cls(REAL, who, (), ())

    def confinement(self, file_bytes: int | None) -> Confinement:
        """What the sandbox's first process takes on before it executes: these cgroups (descriptors
        opened now, closed by `release`), the largest file and its share of the host user's kernel
        quotas (`process/confine.py`)."""
        self.release()
        try:
            for node in self.nodes:
                self._fds.append(self.files.open_join(posixpath.join(node, "cgroup.procs")))
        except OSError as exc:
            self.release()
            why = f"cannot open {self.who.name}'s cgroup.procs: {exc.strerror}"
            raise CgroupUnavailableError(why) from exc
        quotas = host_quotas(LIMITS.sandbox_quota_share)  # and its share of the user's quotas
        return Confinement(tuple(self._fds), file_bytes, quotas)

    def release(self) -> None:
        """Close the descriptors the first process joined through (it has started, or failed to)."""
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []

    def reached(self) -> str | None:
        """The limit whose counter grew since the cgroup was made (`pids`, `memory`), or None."""
        now = self._read()
        return plan.reached(self._before, now)

    def _read(self) -> dict[plan.Counter, int]:
        out: dict[plan.Counter, int] = {}
        for counter in self.counters:
            with contextlib.suppress(OSError):
                value = plan.parse_flat(self.files.read(counter.path, CAP)).get(counter.key)
                if value is not None:
                    out[counter] = value
        return out

    def remove(self, within_s: float = LIMITS.cgroup_remove_s) -> bool:
        """Kill what is left inside and remove the directories; False when one could not be removed
        within `within_s` (it is left, empty of processes or not)."""
        self.release()
        deadline = time.monotonic() + within_s
        left = [n for n in self.nodes if self.files.exists(n)]
        while left:
            for node in list(left):
                if _remove(self.files, node):
                    left.remove(node)
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.01)  # the kernel tears the killed processes down
        return not left


def _members(files: CgroupFiles, node: str) -> list[int]:
    with contextlib.suppress(OSError):
        return processes(files, posixpath.join(node, "cgroup.procs"), CAP)
    return []


def _remove(files: CgroupFiles, node: str) -> bool:
    """One try: kill its members (v2: `cgroup.kill` too), then rmdir; True once it is gone."""
    kill = posixpath.join(node, "cgroup.kill")
    if files.exists(kill):
        with contextlib.suppress(OSError):
            files.write(kill, "1")
    end_members(_members(files, node), lambda: set(_members(files, node)))
    try:
        files.rmdir(node)
    except OSError as exc:
        return exc.errno == errno.ENOENT
    return True


def make(who: plan.Identity, limits: SandboxLimits, files: CgroupFiles = REAL) -> Cgroup:
    """`who`'s cgroup with `limits`, beneath this process's own (`Cgroup.none` when the limits say
    `unsafe-none`); `CgroupUnavailableError` when it cannot be made (nothing of it is left then)."""
    if limits.unsafe:
        return Cgroup.none(who)
    places = where(files)
    made: list[str] = []
    counters: list[plan.Counter] = []
    try:
        for place in places:
            _prepare(files, place)
            at = plan.node(place, who)
            _clear_stale(files, at)
            for step in plan.node_steps(place, who, limits):
                _apply(files, step)
                if step.op == "mkdir":
                    made.append(step.path)
            counters += plan.counters(place, who)
    except CgroupUnavailableError:
        Cgroup(files, who, tuple(made), ()).remove()
        raise
    group = Cgroup(files, who, tuple(made), tuple(counters), places)
    group._before = group._read()
    return group


def _apply(files: CgroupFiles, step: plan.Step) -> None:
    try:
        if step.op == "mkdir":
            files.mkdir(step.path)
        elif step.op == "write":
            if step.optional and not files.exists(step.path):
                return
            files.write(step.path, step.value)
        elif step.op == "adopt":
            _adopt(files, step.path, step.value)
    except OSError as exc:
        raise _unavailable(step, exc) from exc


def _unavailable(step: plan.Step, exc: OSError) -> CgroupUnavailableError:
    what = {"mkdir": "make", "write": "write", "adopt": "move processes into"}[step.op]
    target = step.value if step.op == "adopt" else step.path
    why = exc.strerror or str(exc)
    hint = HINT_ROOT if os.geteuid() != 0 and exc.errno in (errno.EACCES, errno.EPERM) else HINT_V2
    return CgroupUnavailableError(f"cannot {what} {target}: {why}", hint=f"{hint}; {HINT_NONE}")


def _adopt(files: CgroupFiles, source: str, target: str) -> None:
    """Move every process `source` lists into `target` (v2: the processes of a cgroup into its leaf;
    a process may fork meanwhile, so a few rounds)."""
    for _ in range(LIMITS.cgroup_adopt_rounds):
        pids = processes(files, source, CAP)
        if not pids:
            return
        for pid in pids:
            try:
                files.write(target, str(pid))
            except OSError as exc:
                if exc.errno != errno.ESRCH:  # gone meanwhile
                    raise


def _prepare(files: CgroupFiles, place: plan.Place) -> None:
    """v2: make `place` ready for children with its controllers (its processes into its leaf if the
    kernel refuses while it holds any)."""
    try:
        enabled = frozenset(files.read(f"{place.base}/cgroup.subtree_control", CAP).split())
    except OSError:
        enabled = frozenset()
    direct, via_leaf = plan.prepare_v2(place, enabled)
    try:
        for step in direct:
            files.write(step.path, step.value)
    except OSError as exc:
        if exc.errno != errno.EBUSY:  # EBUSY: it holds processes ("no internal processes")
            raise _unavailable(direct[0], exc) from exc
        for step in via_leaf:
            if step.op == "mkdir" and files.exists(step.path):
                continue
            _apply(files, step)


def _clear_stale(files: CgroupFiles, node: str) -> None:
    """An earlier sandbox's cgroup of this name (its supervisor was killed) goes if it is empty."""
    if not files.exists(node):
        return
    if _members(files, node):
        raise CgroupUnavailableError(f"{node} still holds processes of an earlier sandbox")
    try:
        files.rmdir(node)
    except OSError as exc:
        raise CgroupUnavailableError(f"cannot remove the earlier {node}: {exc.strerror}") from exc


def remove_left(who: plan.Identity, within_s: float) -> bool:
    """Remove what is left of `who`'s cgroup beneath this process's own (its supervisor was killed
    before it could); True when nothing of it is left. Never raises."""
    try:
        nodes = tuple(plan.node(place, who) for place in where())
    except CgroupUnavailableError:
        return True
    try:
        return Cgroup(REAL, who, nodes, ()).remove(within_s)
    except OSError:
        return False


_TRIALS = [0]


def trial(limits: SandboxLimits) -> str:
    """Make and remove a cgroup as a sandbox's would be (delivery's check before a pane, `oms
    doctor`); what it found (`CgroupUnavailableError` when none can be made)."""
    if limits.unsafe:
        return "none (unsafe-none)"
    _TRIALS[0] += 1
    group = make(plan.identity("trial", f"{os.getpid()}-{_TRIALS[0]}"), limits)
    try:
        shown = (f"v{p.version} {'+'.join(p.controllers)} beneath {p.base}" for p in group.places)
        return "; ".join(shown)
    finally:
        group.remove()
