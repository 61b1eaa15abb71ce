"""A cgroup for every sandbox, planned (issue 23, ADR 0025). Pure: what `/proc/self/cgroup` and
`/proc/self/mountinfo` say in; where a sandbox's cgroup goes, what is written there and which
counters tell that a limit was reached out. `adapters/cgroups.py` does the IO.

Where: beneath the cgroup oms itself runs in, in each hierarchy that carries a controller oms uses —
`pids` and `memory` (required) and `cpu` (when the host has it) — never anywhere else, and no
process ever leaves its own subtree, which is all a delegated subtree allows:
- cgroup v1 (a hierarchy per controller, or a few mounted together): `<own>/<name>` in each;
- cgroup v2 (one hierarchy): `<own>/<name>`, the controllers enabled in
  `<own>/cgroup.subtree_control`. A v2 cgroup that enables controllers for its children may hold no
  process itself ("no internal processes"; the kernel says EBUSY, the root cgroup aside), so when
  enabling them is refused the processes of `<own>` move into `<own>/oms-leaf` (inside their own
  subtree) and it is tried again (`prepare_v2`); a process running in a cgroup named `oms-leaf`
  places sandboxes beside it, in its parent;
- the kernel binds each controller to one hierarchy: a controller mounted as v1 is taken there, any
  other from v2 (a hybrid host, like the one this was written on: v1 controllers, an empty v2).

What (`node_steps`): the pids limit (`pids.max`); the memory limit with no way around it through
swap (v1 `memory.limit_in_bytes`, then `memory.memsw.limit_in_bytes` where swap is accounted; v2
`memory.max`, `memory.swap.max` 0, `memory.oom.group` 1); the CPU weight (v2 `cpu.weight`; v1
`cpu.shares`, weight x 1024 / 100). A limit reached shows in counters (`counters`): v1 `pids.events`
`max` and `memory.oom_control` `oom_kill`; v2 `pids.events` `max` and `memory.events` `oom_kill`.

A mount that a later mount covers (a tmpfs over `/sys/fs/cgroup/memory/...`) is not taken for the
cgroup file system: the last mount over a path is what a path names.
"""

from __future__ import annotations

import posixpath
import re
from typing import NamedTuple

from oms.domain.sandbox_limits import SandboxLimits
from oms.errors import CgroupUnavailableError

CONTROLLERS = ("pids", "memory", "cpu")
REQUIRED = ("pids", "memory")
LEAF = "oms-leaf"  # a v2 cgroup's own processes go here, so it may enable controllers for children
# trial: delivery's and doctor's; job: a tree job (docs/adr/0024)
KINDS = {"worker": "w", "check": "c", "probe": "p", "trial": "t", "job": "j"}
_NAME = re.compile(r"^oms-[wcptj]-[a-z0-9][a-z0-9-]{0,150}$")


class Mount(NamedTuple):
    """One line of mountinfo: where, which directory of its file system it shows, and its type."""

    point: str
    root: str
    fstype: str
    options: frozenset[str]  # the super options (v1: its controllers)


class Membership(NamedTuple):
    """What `/proc/self/cgroup` says: the path in each v1 hierarchy (by controllers) and in v2."""

    v1: tuple[tuple[frozenset[str], str], ...]
    v2: str | None


class Place(NamedTuple):
    """One hierarchy a sandbox's cgroup is made in."""

    version: int
    controllers: tuple[str, ...]  # those oms uses here, in `CONTROLLERS` order
    base: str  # the directory sandboxes' cgroups go in: oms's own cgroup (its parent: `LEAF`)


class Step(NamedTuple):
    """One change to the cgroup file system: `mkdir` a directory, `write` `value` to a file, or
    `adopt`: move every process `path` (a `cgroup.procs`) lists into `value` (another one)."""

    op: str
    path: str
    value: str = ""
    optional: bool = False  # a file the host may lack (swap accounting, `memory.oom.group`)


class Counter(NamedTuple):
    """A counter that grows when a sandbox reaches `limit`: `key` in the flat keyed file `path`."""

    path: str
    key: str
    limit: str


class Identity(NamedTuple):
    """Who a sandbox is, in one place: its kind and the name of its cgroup in every hierarchy
    (unique among live sandboxes; where a uid of its own would be derived from: ADR 0025)."""

    kind: str
    name: str


def identity(kind: str, ident: str) -> Identity:
    """The identity of a `kind` sandbox (worker: its dispatch id; check, probe, trial: a unique
    token)."""
    name = f"oms-{KINDS[kind]}-{ident}"
    if not _NAME.fullmatch(name):
        raise ValueError(f"{name[:80]!r} is not a sandbox cgroup name")
    return Identity(kind, name)


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def parse_mountinfo(text: str) -> tuple[Mount, ...]:
    """Every mount of `/proc/self/mountinfo` (lines that do not parse are skipped)."""
    out: list[Mount] = []
    for line in text.splitlines():
        left, sep, right = line.partition(" - ")
        fields, tail = left.split(" "), right.split(" ")
        if not sep or len(fields) < 6 or len(tail) < 3:
            continue
        options = frozenset(tail[2].split(","))
        out.append(Mount(_unescape(fields[4]), _unescape(fields[3]), tail[0], options))
    return tuple(out)


def parse_membership(text: str) -> Membership:
    """`/proc/self/cgroup`: `id:controllers:path` lines; v2's is `0::path`."""
    v1: list[tuple[frozenset[str], str]] = []
    v2: str | None = None
    for line in text.splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3 or not parts[2].startswith("/"):
            continue
        if parts[0] == "0" and parts[1] == "":
            v2 = parts[2]
        elif parts[1]:
            v1.append((frozenset(parts[1].split(",")), parts[2]))
    return Membership(tuple(v1), v2)


def _inside(path: str, top: str) -> bool:
    return top in (path, "/") or path.startswith(top.rstrip("/") + "/")


def _covering(mounts: tuple[Mount, ...], path: str) -> Mount | None:
    """The mount a path is on: the last one mounted at it or above it."""
    found = None
    for mount in mounts:
        if _inside(path, mount.point):
            found = mount
    return found


def _directory(
    mounts: tuple[Mount, ...],
    path: str,
    same: tuple[str, frozenset[str]],
) -> str | None:
    """The host directory of cgroup `path` in the hierarchy `same` (file system type, and for v1 its
    controllers), through a mount that shows it and that no later mount covers."""
    fstype, controllers = same
    for mount in mounts:
        if mount.fstype != fstype or not controllers <= mount.options:
            continue
        if not _inside(path, mount.root):
            continue
        rest = path[len(mount.root) :] if mount.root != "/" else path
        found = mount.point
        if rest.strip("/"):
            found = posixpath.normpath(mount.point + "/" + rest.lstrip("/"))
        top = _covering(mounts, found)
        same_mount = top is not None and top.fstype == fstype and top.root == mount.root
        if same_mount and top is not None and controllers <= top.options:
            return found
    return None


class Located(NamedTuple):
    """Where oms's own cgroup is: per v1 hierarchy (its controllers that oms uses, its directory),
    and in v2 (the directory sandboxes go in)."""

    v1: tuple[tuple[tuple[str, ...], str], ...]
    v2: str | None


def locate(mounts: tuple[Mount, ...], membership: Membership) -> Located:
    """Where oms's own cgroup is in each hierarchy this process can see."""
    v1: list[tuple[tuple[str, ...], str]] = []
    for names, path in membership.v1:
        used = tuple(c for c in CONTROLLERS if c in names)
        if not used:
            continue
        found = _directory(mounts, path, ("cgroup", frozenset(used)))
        if found is not None:
            v1.append((used, found))
    v2 = None
    if membership.v2 is not None:
        path = membership.v2
        if posixpath.basename(path) == LEAF:
            path = posixpath.dirname(path)
        v2 = _directory(mounts, path, ("cgroup2", frozenset()))
    return Located(tuple(v1), v2)


def layout(located: Located, v2_controllers: frozenset[str]) -> tuple[Place, ...]:
    """The hierarchies a sandbox's cgroup is made in (`v2_controllers`: what the v2 base's
    `cgroup.controllers` offers); `CgroupUnavailableError` when `pids` or `memory` is nowhere."""
    places: list[Place] = [Place(1, used, base) for used, base in located.v1]
    taken = {c for place in places for c in place.controllers}
    rest = tuple(c for c in CONTROLLERS if c not in taken and c in v2_controllers)
    if rest and located.v2 is not None:
        places.append(Place(2, rest, located.v2))
        taken.update(rest)
    missing = [c for c in REQUIRED if c not in taken]
    if missing:
        where = (
            "no cgroup v2 is mounted"
            if located.v2 is None
            else f"v2 at {located.v2} offers {', '.join(sorted(v2_controllers)) or 'none'}"
        )
        raise CgroupUnavailableError(
            f"no cgroup hierarchy gives oms the {' and '.join(missing)} controller"
            f"{'s' if len(missing) > 1 else ''} ({where}; v1 here: "
            f"{', '.join(','.join(u) for u, _ in located.v1) or 'none'})"
        )
    return tuple(places)


def prepare_v2(place: Place, enabled: frozenset[str]) -> tuple[tuple[Step, ...], tuple[Step, ...]]:
    """What makes a v2 `place` ready for children with its controllers (`enabled`: what its
    `cgroup.subtree_control` says now): (the steps, and the steps when the kernel refuses them
    because the cgroup holds processes: those move into `LEAF` first). Nothing for v1, or when
    enabled already."""
    if place.version != 2 or set(place.controllers) <= enabled:
        return (), ()
    leaf = posixpath.join(place.base, LEAF)
    wanted = " ".join(f"+{c}" for c in place.controllers)
    enable = Step("write", posixpath.join(place.base, "cgroup.subtree_control"), wanted)
    procs = posixpath.join(place.base, "cgroup.procs")
    adopt = Step("adopt", procs, posixpath.join(leaf, "cgroup.procs"))
    return (enable,), (Step("mkdir", leaf), adopt, enable)


def cpu_shares(weight: int) -> int:
    """cgroup v1 `cpu.shares` for a v2 `cpu.weight` (100 → 1024, the default share; at least 2)."""
    return max(2, weight * 1024 // 100)


def node(place: Place, who: Identity) -> str:
    """The directory of `who`'s cgroup in `place`."""
    return posixpath.join(place.base, who.name)


def node_steps(place: Place, who: Identity, limits: SandboxLimits) -> tuple[Step, ...]:
    """Make `who`'s cgroup in `place` and set its limits, in order (v1 needs the memory limit before
    the memory+swap one)."""
    at = node(place, who)
    steps = [Step("mkdir", at)]

    def write(name: str, value: int | str, optional: bool = False) -> None:
        steps.append(Step("write", posixpath.join(at, name), str(value), optional))

    for controller in place.controllers:
        if controller == "pids":
            write("pids.max", limits.pids)
        elif controller == "memory" and place.version == 1:
            write("memory.limit_in_bytes", limits.memory_bytes)
            write("memory.memsw.limit_in_bytes", limits.memory_bytes, optional=True)
        elif controller == "memory":
            write("memory.max", limits.memory_bytes)
            write("memory.swap.max", 0, optional=True)
            write("memory.oom.group", 1, optional=True)
        elif controller == "cpu":
            write(
                "cpu.weight" if place.version == 2 else "cpu.shares",
                _cpu(place.version, limits.cpu_weight),
            )
    return tuple(steps)


def _cpu(version: int, weight: int) -> int:
    return weight if version == 2 else cpu_shares(weight)


def counters(place: Place, who: Identity) -> tuple[Counter, ...]:
    """The counters of `who`'s cgroup in `place` that grow when it reaches a limit."""
    at = node(place, who)
    out: list[Counter] = []
    if "pids" in place.controllers:
        out.append(Counter(posixpath.join(at, "pids.events"), "max", "pids"))
    if "memory" in place.controllers:
        name = "memory.oom_control" if place.version == 1 else "memory.events"
        out.append(Counter(posixpath.join(at, name), "oom_kill", "memory"))
    return tuple(out)


def parse_flat(text: str) -> dict[str, int]:
    """A flat keyed cgroup file (`key value` lines; values that are not integers are skipped)."""
    out: dict[str, int] = {}
    for line in text.splitlines():
        key, _, value = line.strip().partition(" ")
        if key and value.strip().isdigit():
            out[key] = int(value.strip())
    return out


def reached(before: dict[Counter, int], now: dict[Counter, int]) -> str | None:
    """The limit whose counter grew (pids before memory), or None."""
    for counter in sorted(now, key=lambda c: CONTROLLERS.index(c.limit)):
        if now[counter] > before.get(counter, 0):
            return counter.limit
    return None
