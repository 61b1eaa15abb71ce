"""A sandbox's share of its host user's kernel quotas (`process/confine.py`, ADR 0025): each quota
divided by the share, never 0 (a sandbox with no inotify instance at all breaks every file watcher;
one is what a sandbox needs least), and a quota the kernel does not have is left alone."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from oms.process.confine import QUOTAS, host_quotas, shares

names = st.sampled_from(sorted(QUOTAS))


@given(
    st.dictionaries(names, st.integers(0, 2**31 - 1)),
    st.integers(0, 2**40),
    st.integers(1, 64),
)
def test_each_share_is_at_most_its_part_and_at_least_one(
    host: dict[str, int], msgqueue: int, share: int
) -> None:
    quotas = shares(host, msgqueue, share)
    got = dict(quotas.sysctls)
    assert set(got) == set(host)
    for name, value in got.items():
        assert value == max(1, host[name] // share)
        assert value * share <= host[name] or value == 1
    assert quotas.msgqueue_bytes * share <= msgqueue


def test_this_hosts_share_bounds_inotify_instances() -> None:
    quotas = host_quotas(8)
    got = dict(quotas.sysctls)
    with open("/proc/sys/fs/inotify/max_user_instances") as f:
        system = int(f.read())
    assert 1 <= got["max_inotify_instances"] <= max(1, system // 8)
