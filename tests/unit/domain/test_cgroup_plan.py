"""The cgroup planner (`domain/cgroups.py`, ADR 0025): where a sandbox's cgroup goes on cgroup v1,
v2 and hybrid hosts, what is written there, and which counters say a limit was reached — tables and
properties.

The invariant every property checks: a sandbox's cgroup is always strictly beneath the cgroup oms
itself runs in (or beneath its parent when oms runs in its own v2 leaf), through a mount of the
right type that no later mount covers; nothing is written anywhere else but that cgroup's own
`cgroup.subtree_control` and, on v2, its leaf's `cgroup.procs` (a process never leaves its own
subtree)."""

from __future__ import annotations

import posixpath

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.domain import cgroups as plan
from oms.domain.sandbox_limits import SandboxLimits
from oms.errors import CgroupUnavailableError

V1_HOST = """\
31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755
32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu
33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
V1_SELF = """\
9:name=systemd:/
8:pids:/
4:memory:/process_api/658f
2:cpuacct:/
1:cpu:/
0::/
"""
V2_HOST = """\
24 1 0:22 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:4 - cgroup2 cgroup2 rw,nsdelegate
"""
V2_SELF = "0::/user.slice/user-1000.slice/user@1000.service/app.slice/oms.scope\n"
SCOPE = "/sys/fs/cgroup/user.slice/user-1000.slice/user@1000.service/app.slice/oms.scope"
WHO = plan.identity("worker", "dsp-1")
LIMITS = SandboxLimits(pids=100, memory_bytes=64 << 20, cpu_weight=50)


def _places(
    mountinfo: str,
    membership: str,
    v2: frozenset[str] = frozenset(),
) -> tuple[plan.Place, ...]:
    located = plan.locate(plan.parse_mountinfo(mountinfo), plan.parse_membership(membership))
    return plan.layout(located, v2)


def test_cgroup_v1_nests_each_controller_beneath_its_own_cgroup() -> None:
    places = _places(V1_HOST, V1_SELF, frozenset({"hugetlb"}))  # this machine: v1, empty v2 beside
    assert places == (
        plan.Place(1, ("pids",), "/sys/fs/cgroup/pids"),
        plan.Place(1, ("memory",), "/sys/fs/cgroup/memory/process_api/658f"),
        plan.Place(1, ("cpu",), "/sys/fs/cgroup/cpu"),
    )
    steps = [s for p in places for s in plan.node_steps(p, WHO, LIMITS)]
    assert steps == [
        plan.Step("mkdir", "/sys/fs/cgroup/pids/oms-w-dsp-1"),
        plan.Step("write", "/sys/fs/cgroup/pids/oms-w-dsp-1/pids.max", "100"),
        plan.Step("mkdir", "/sys/fs/cgroup/memory/process_api/658f/oms-w-dsp-1"),
        plan.Step(
            "write",
            "/sys/fs/cgroup/memory/process_api/658f/oms-w-dsp-1/memory.limit_in_bytes",
            str(64 << 20),
        ),
        plan.Step(
            "write",
            "/sys/fs/cgroup/memory/process_api/658f/oms-w-dsp-1/memory.memsw.limit_in_bytes",
            str(64 << 20),
            True,
        ),
        plan.Step("mkdir", "/sys/fs/cgroup/cpu/oms-w-dsp-1"),
        plan.Step("write", "/sys/fs/cgroup/cpu/oms-w-dsp-1/cpu.shares", "512"),
    ]
    assert [c.path.rsplit("/", 1)[1] for p in places for c in plan.counters(p, WHO)] == [
        "pids.events",
        "memory.oom_control",
    ]
    assert all(plan.prepare_v2(p, frozenset()) == ((), ()) for p in places)  # v1 moves no process


def test_cgroup_v2_enables_its_controllers_and_falls_back_to_a_leaf() -> None:
    (place,) = _places(V2_HOST, V2_SELF, frozenset({"cpu", "memory", "pids", "io"}))
    assert place == plan.Place(2, ("pids", "memory", "cpu"), SCOPE)
    direct, via_leaf = plan.prepare_v2(place, frozenset())
    enable = plan.Step("write", f"{SCOPE}/cgroup.subtree_control", "+pids +memory +cpu")
    assert direct == (enable,)
    assert via_leaf == (
        plan.Step("mkdir", f"{SCOPE}/oms-leaf"),
        plan.Step("adopt", f"{SCOPE}/cgroup.procs", f"{SCOPE}/oms-leaf/cgroup.procs"),
        enable,
    )
    assert plan.prepare_v2(place, frozenset({"pids", "memory", "cpu", "io"})) == ((), ())
    assert plan.node_steps(place, WHO, LIMITS)[1:] == (
        plan.Step("write", f"{SCOPE}/oms-w-dsp-1/pids.max", "100"),
        plan.Step("write", f"{SCOPE}/oms-w-dsp-1/memory.max", str(64 << 20)),
        plan.Step("write", f"{SCOPE}/oms-w-dsp-1/memory.swap.max", "0", True),
        plan.Step("write", f"{SCOPE}/oms-w-dsp-1/memory.oom.group", "1", True),
        plan.Step("write", f"{SCOPE}/oms-w-dsp-1/cpu.weight", "50"),
    )
    assert [c.path.rsplit("/", 1)[1] for c in plan.counters(place, WHO)] == [
        "pids.events",
        "memory.events",
    ]


def test_a_process_in_its_own_leaf_places_sandboxes_beside_it() -> None:
    (place,) = _places(V2_HOST, V2_SELF.strip() + "/oms-leaf\n", frozenset({"memory", "pids"}))
    assert place.base == SCOPE
    assert plan.node(place, WHO) == f"{SCOPE}/oms-w-dsp-1"


@pytest.mark.parametrize(
    ("mountinfo", "membership", "v2", "says"),
    [
        ("", V1_SELF, frozenset(), "pids and memory controllers (no cgroup v2 is mounted"),
        (V2_HOST, V2_SELF, frozenset({"cpu"}), "pids and memory controllers (v2 at"),
        (V2_HOST, V2_SELF, frozenset({"pids", "cpu"}), "gives oms the memory controller"),
        (V1_HOST.replace("rw,pids", "rw,blkio"), V1_SELF, frozenset(), "the pids controller"),
    ],
)
def test_no_place_for_pids_or_memory_is_refused_with_the_reason(
    mountinfo: str, membership: str, v2: frozenset[str], says: str
) -> None:
    with pytest.raises(CgroupUnavailableError, match="no cgroup hierarchy") as caught:
        _places(mountinfo, membership, v2)
    assert says in caught.value.message


def test_a_mount_covered_by_a_later_one_is_not_taken_for_the_cgroup_file_system() -> None:
    """A tmpfs mounted over the memory hierarchy (or over oms's cgroup in it): no cgroup there."""
    covered = V1_HOST + "50 35 0:60 / /sys/fs/cgroup/memory/process_api rw - tmpfs tmpfs rw\n"
    with pytest.raises(CgroupUnavailableError, match="memory controller"):
        _places(covered, V1_SELF)


def test_a_cgroup_namespace_root_maps_through_the_mount_root() -> None:
    """Inside a cgroup namespace (or a bind of a subtree) mountinfo's root field names what is
    shown."""
    mountinfo = "24 1 0:22 /ns /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n"
    (place,) = _places(mountinfo, "0::/ns/job\n", frozenset({"pids", "memory"}))
    assert place.base == "/sys/fs/cgroup/job"
    with pytest.raises(CgroupUnavailableError):  # a path the mount does not show is nowhere
        _places(mountinfo, "0::/other/job\n", frozenset({"pids", "memory"}))


def test_mountinfo_escapes_are_undone() -> None:
    (mount,) = plan.parse_mountinfo("1 0 0:1 / /sys/fs/my\\040cgroups rw - cgroup2 none rw\n")
    assert mount.point == "/sys/fs/my cgroups"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("max 3\n", {"max": 3}),
        (
            "oom_kill_disable 0\nunder_oom 0\noom_kill 2\n",
            {"oom_kill_disable": 0, "under_oom": 0, "oom_kill": 2},
        ),
        (
            "low 0\nhigh 0\nmax 5\noom 1\noom_kill 1\noom_group_kill 0\n",
            {"max": 5, "oom": 1, "oom_kill": 1},
        ),
        ("max\nbroken x\n", {}),
    ],
)
def test_flat_keyed_files_parse(text: str, expected: dict[str, int]) -> None:
    got = plan.parse_flat(text)
    assert {k: got[k] for k in expected} == expected
    assert "broken" not in got


def test_a_counter_that_grew_names_its_limit_pids_first() -> None:
    pids = plan.Counter("/x/pids.events", "max", "pids")
    memory = plan.Counter("/x/memory.events", "oom_kill", "memory")
    assert plan.reached({pids: 0, memory: 0}, {pids: 0, memory: 0}) is None
    assert plan.reached({pids: 0, memory: 0}, {pids: 0, memory: 1}) == "memory"
    assert plan.reached({pids: 2, memory: 0}, {memory: 3, pids: 3}) == "pids"
    assert plan.reached({}, {pids: 1}) == "pids"  # a counter unread at the start counted from zero


@pytest.mark.parametrize("bad", ["", "x/y", "UPPER", "a" * 200, "-lead", "dsp\n1"])
def test_identities_are_plain_names(bad: str) -> None:
    with pytest.raises((ValueError, KeyError)):
        plan.identity("worker", bad)
    with pytest.raises(KeyError):
        plan.identity("root", "dsp-1")


# ------------------------------------------------------------------------------- properties
NAME_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789-._"
segments = st.text(alphabet=NAME_CHARS, min_size=1, max_size=12).filter(
    lambda s: s not in (".", ".."),
)
paths = st.lists(segments, max_size=4).map(lambda parts: "/" + "/".join(parts))
ids = st.from_regex(r"[a-z0-9][a-z0-9-]{0,30}[a-z0-9]", fullmatch=True)
limits = st.builds(
    SandboxLimits,
    pids=st.integers(8, 4_194_304),
    memory_bytes=st.integers(16 << 20, 1 << 50),
    cpu_weight=st.integers(1, 10_000),
)


@st.composite
def hosts(draw: st.DrawFn) -> tuple[str, str, frozenset[str], dict[str, str]]:
    """A random host: some controllers on v1 (alone or co-mounted), the rest on v2; oms somewhere in
    each hierarchy (in its own v2 leaf, sometimes). Returns (mountinfo, /proc/self/cgroup, what v2
    offers, the expected own directory per controller)."""
    on_v1 = draw(st.sets(st.sampled_from(plan.CONTROLLERS)))
    comounted = draw(st.booleans())
    lines, members, own = [], [], {}
    groups = [tuple(sorted(on_v1))] if comounted and on_v1 else [(c,) for c in sorted(on_v1)]
    for i, group in enumerate(groups):
        point = f"/sys/fs/cgroup/{','.join(group)}"
        path = draw(paths)
        lines.append(f"{30 + i} 20 0:{30 + i} / {point} rw - cgroup cgroup rw,{','.join(group)}")
        members.append(f"{i + 1}:{','.join(group)}:{path}")
        for c in group:
            own[c] = posixpath.normpath(point + path) if path != "/" else point
    v2_path = draw(paths)
    leaf = draw(st.booleans())
    lines.append("60 20 0:60 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw")
    members.append(f"0::{v2_path.rstrip('/')}/{plan.LEAF}" if leaf else f"0::{v2_path}")
    offered = frozenset(c for c in plan.CONTROLLERS if c not in on_v1 and draw(st.booleans()))
    for c in offered:
        unified = "/sys/fs/cgroup/unified"
        own[c] = posixpath.normpath(unified + v2_path) if v2_path != "/" else unified
    return "\n".join(lines) + "\n", "\n".join(members) + "\n", offered, own


@given(hosts(), ids, limits)
def test_every_sandbox_cgroup_is_strictly_beneath_oms_own(
    host: tuple[str, str, frozenset[str], dict[str, str]], ident: str, bounds: SandboxLimits
) -> None:
    mountinfo, membership, offered, own = host
    who = plan.identity("worker", ident)
    try:
        places = _places(mountinfo, membership, offered)
    except CgroupUnavailableError as exc:
        assert not {"pids", "memory"} <= set(own), exc.message  # refused only when one is nowhere
        return
    assert {"pids", "memory"} <= {c for p in places for c in p.controllers}
    for place in places:
        for controller in place.controllers:
            assert place.base == own[controller]  # oms's own (its leaf's parent when in the leaf)
        node = plan.node(place, who)
        assert posixpath.dirname(node) == place.base
        assert posixpath.basename(node) == who.name
        for step in plan.node_steps(place, who, bounds):
            assert step.path == node or posixpath.dirname(step.path) == node  # only its own files
        direct, via_leaf = plan.prepare_v2(place, frozenset())
        for step in (*direct, *via_leaf):
            assert step.path in (
                f"{place.base}/cgroup.subtree_control",
                f"{place.base}/{plan.LEAF}",
            ) or (
                step.op == "adopt" and step.value == f"{place.base}/{plan.LEAF}/cgroup.procs"
            )  # a process moves only into a child of its own cgroup


@given(st.integers(1, 10_000), st.integers(1, 10_000))
def test_cpu_shares_keep_the_order_of_weights(a: int, b: int) -> None:
    assert plan.cpu_shares(100) == 1024
    assert plan.cpu_shares(a) >= 2
    if a <= b:
        assert plan.cpu_shares(a) <= plan.cpu_shares(b)


NAMES = st.sampled_from(["pids", "memory", "cpu,cpuacct", ""])


@given(st.lists(st.tuples(st.integers(0, 20), NAMES, paths)))
def test_membership_lines_parse_back(lines: list[tuple[int, str, str]]) -> None:
    text = "".join(f"{i}:{names}:{path}\n" for i, names, path in lines)
    got = plan.parse_membership(text)
    expected_v1 = tuple((frozenset(n.split(",")), p) for i, n, p in lines if n)
    assert got.v1 == expected_v1
    v2 = [p for i, n, p in lines if i == 0 and not n]
    assert got.v2 == (v2[-1] if v2 else None)
