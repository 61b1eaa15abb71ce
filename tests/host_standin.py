"""A host's conductor as far as etcd serves it before the tick does (ADR 0043, amendments
`etcdhost` and `hosts3`): the conductor's lock of this host (`conductor.lock`, a lease of `ttl`
seconds kept by its thread) and the host's heartbeat under a lease of `lease_s` seconds, each
loop checking the lock is still the one taken (`conductor.still_held`), as a tick does first.

    python tests/host_standin.py STATE_ROOT CONFIG_ROOT LEASE_S TTL

Run by `tests/hosts_rig.py` in a host's network namespace, as that host (`OMS_HOST`). It prints
one JSON line per event: `lock` (taken, its token), `beat` (written, its token and time),
`fault` (the cluster did not answer: it goes on), `lost` (the lock's lease lapsed: it lets go and
takes the lock again), `waiting` (the lock is another's, or the cluster did not answer). The
host's lease is shorter than a real host's (`LIMITS.host_lease_s`, 90 s) so that a partition
longer than it fits in a test: `EtcdBeats(lease_s=...)`, as `test_hosts_etcd.py` does."""

from __future__ import annotations

import json
import os
import sys
import time

from oms.adapters.etcd.hosts import EtcdBeats
from oms.adapters.etcd.store import EtcdStore
from oms.canonical import JsonObject
from oms.domain import hosts as host_rules
from oms.errors import LeaseError, OmsError
from oms.services.conductor import tick as conductor
from oms.services.workspace import Workspace

PAUSE_S = 0.3  # between two checks of the lock (a real conductor ticks each second)


def say(**doc: object) -> None:
    print(json.dumps(doc, sort_keys=True), flush=True)


def main() -> None:
    state, repo, lease_s, ttl = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    ws = Workspace.open(state, repo, etcd=True)
    assert isinstance(ws.store.backend, EtcdStore), "the rig's store is etcd"
    beats = EtcdBeats(ws.store.backend, lease_s=lease_s)
    while True:
        try:
            held = conductor.lock(ws, ttl=ttl)
        except OmsError as exc:
            say(event="waiting", why=exc.message, at=ws.now())
            time.sleep(PAUSE_S)
            continue
        assert isinstance(held, conductor.HostLock)
        token = held.fence.token
        say(event="lock", token=token, at=ws.now())
        last: JsonObject | None = None
        try:
            while True:
                try:
                    conductor.still_held(ws)
                    now = ws.now()
                    if host_rules.beat_due(last, now, lease_s):
                        beat = host_rules.beat(ws.host(), now, os.getpid(), lease_s=lease_s)
                        beats.write(beat, ws.store.fence)
                        last = beat
                        say(event="beat", token=token, at=now)
                except LeaseError:
                    raise
                except OmsError as exc:  # the cluster did not answer: the lock may still be ours
                    say(event="fault", token=token, why=exc.message, at=ws.now())
                time.sleep(PAUSE_S)
        except LeaseError as exc:
            say(event="lost", token=token, why=exc.message, at=ws.now())
        finally:
            held.release()


if __name__ == "__main__":
    main()
