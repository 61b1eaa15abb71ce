"""`locks_let_go`, the etcd tests' check that no lock is left: it waits for a lock whose holder
still runs (a worker's result recorder lets its end lock go a moment after its write), and fails
at once on a lock whose holder is gone, before the lock's lease could lapse and hide it."""

from __future__ import annotations

import subprocess
import threading
import time
from collections.abc import Iterator

import pytest

from oms.adapters.etcd.client import Etcd
from tests.etcd_cluster import locks_let_go
from tests.integration.etcd.test_deliver_etcd import client

__all__ = ["client"]


@pytest.fixture
def holder() -> Iterator[subprocess.Popen[bytes]]:
    proc = subprocess.Popen(["sleep", "600"])
    yield proc
    proc.kill()
    proc.wait()


def test_a_lock_whose_holder_is_gone_fails_at_once(client: Etcd, etcd_prefix: str) -> None:
    gone = subprocess.run(["sh", "-c", "echo $$"], capture_output=True, text=True, check=True)
    lease = client.grant(60)
    key = f"{etcd_prefix}locks/outbox/record-result/dsp-1"
    client.put(key, f"host vm pid {gone.stdout.strip()}".encode(), lease=lease.lease_id)
    started = time.monotonic()
    with pytest.raises(AssertionError, match="record-result/dsp-1"):
        locks_let_go(client, etcd_prefix, timeout=30)
    assert time.monotonic() - started < 10  # not waited out: its holder is gone
    client.revoke(lease.lease_id)


def test_a_lock_whose_holder_runs_is_waited_for(
    client: Etcd, etcd_prefix: str, holder: subprocess.Popen[bytes]
) -> None:
    key = f"{etcd_prefix}locks/outbox/record-result/dsp-2"
    client.put(key, f"host vm pid {holder.pid}".encode())
    let_go = threading.Timer(0.5, lambda: client.delete(key))  # the holder's release, soon
    let_go.start()
    try:
        locks_let_go(client, etcd_prefix, timeout=30)
    finally:
        let_go.join()
    assert client.get(key) is None


def test_a_lock_held_on_by_a_running_holder_fails(
    client: Etcd, etcd_prefix: str, holder: subprocess.Popen[bytes]
) -> None:
    key = f"{etcd_prefix}locks/conductor/host-a"
    client.put(key, f"host host-a pid {holder.pid}".encode())
    with pytest.raises(AssertionError, match="holder let it go or ended"):
        locks_let_go(client, etcd_prefix, timeout=1)
    client.delete(key)
