"""More files in `hosts/` than `LIMITS.hosts_listed` (many hosts, or whoever writes the state root
planting beat-shaped names that sort first): a host whose names sort after them must still be
read as up, and its own tick must still prune its older beats. Before, the bound cut the sorted
listing: such a host was `unreachable` while it beat, and each of its beats stayed for ever (one
file more every tick, unbounded). SECURITY.md, Hosts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.canonical import add_ms
from oms.domain import hosts as rules
from oms.errors import UnsafeFileError
from oms.fsio import Root
from oms.limits import LIMITS
from oms.store import hosts

AT = "2026-12-03T07:00:00.000Z"


def test_a_host_sorted_after_the_bound_is_read_and_prunes_its_beats(state_path: Path) -> None:
    with Root.open(str(state_path)) as root:
        root.mkdirs(hosts.DIR)
        for n in range(LIMITS.hosts_listed):  # each a host of its own, sorted before ours
            hosts.write(root, rules.beat(f"a{n:05d}", AT, os.getpid()))
        beats = LIMITS.host_beats_kept + 5
        for tick in range(beats):  # host `zz` beats every 30 s
            hosts.write(root, rules.beat("zz", add_ms(AT, tick * 30_000), os.getpid()))
        ours = [n for n in root.listdir(hosts.DIR) if n.startswith("zz.")]
        assert len(ours) <= LIMITS.host_beats_kept, ours
        found = hosts.read_all(root)
    assert found["zz"]["beat_at"] == add_ms(AT, (beats - 1) * 30_000)
    assert len(found) == LIMITS.hosts_listed  # the hosts that beat last


def test_odd_entries_among_the_beats_are_passed_over(state_path: Path) -> None:
    """A symlink, an oversized file, a non-UTF-8 name, each named as a beat newer than the real
    ones: a host's newest readable beat is read, and its tick's publish and prune go on. A
    directory named as an old beat is an attack (`UnsafeFileError`, never removed): the prune says
    so, after the new beat is published (the tick reports it in a line and goes on)."""
    with Root.open(str(state_path)) as root:
        root.mkdirs(hosts.DIR)
    where = state_path / hosts.DIR
    (where / "zz.9999999999999.json").symlink_to("/etc/passwd")
    (where / "zz.9999999999998.json").write_bytes(b"{" * (LIMITS.host_beat_bytes + 1))
    os.mkdir(os.path.join(os.fsencode(where), b"zz.\xff.json"))
    with Root.open(str(state_path)) as root:
        for tick in range(LIMITS.host_beats_kept + 2):
            hosts.write(root, rules.beat("zz", add_ms(AT, (tick + 1) * 30_000), os.getpid()))
        assert hosts.read_all(root)["zz"]["beat_at"] == add_ms(AT, (tick + 1) * 30_000)
        (where / "zz.1.json").mkdir()
        with pytest.raises(UnsafeFileError, match=r"zz\.1\.json"):
            hosts.write(root, rules.beat("zz", add_ms(AT, (tick + 2) * 30_000), os.getpid()))
        assert hosts.read_all(root)["zz"]["beat_at"] == add_ms(AT, (tick + 2) * 30_000)
