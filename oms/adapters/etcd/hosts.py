"""Hosts' heartbeats in an etcd store (ADR 0043, amendment `etcdhost`): one key per host,
`hosts/<host>` under the store's prefix, holding the host's `host-beat` document and put under a
lease of `LIMITS.host_lease_s` that each beat keeps alive. A host whose conductor stops beating
loses its lease, and etcd deletes the key with it: a reader finds no key and says `host
unreachable`, comparing no clock (`leased`). A beat's put is fenced by the conductor's lock of
its host when one is given (`write(doc, fence)`): a conductor that lost its lock beats no more.

etcd is not trusted to vouch for the bytes: a key under `hosts/` is read only when its name is a
host name, its bytes a `host-beat` naming that host, and it is under a lease no longer than a
host's (`beat_problem`); anything else is skipped here and named by `oms store verify`, never
followed.
"""

from __future__ import annotations

from typing import Protocol

from oms.adapters.etcd.client import Compare, Etcd, KeyValue, Put
from oms.canonical import JsonObject
from oms.domain import hosts as rules
from oms.errors import EtcdError, LeaseError, OmsError, shown
from oms.limits import LIMITS
from oms.store.backend import Fence
from oms.store.documents import encode_document, parse_document
from oms.store.hosts import SCHEMA

DIR = "hosts/"


def beat_problem(kv: KeyValue, name: str) -> str | None:
    """What is wrong with the heartbeat key `hosts/<name>` (one line), or None: its name is not a
    host's, it is not under a lease (it would never lapse), it is too large, or its bytes are not a
    `host-beat` naming that host."""
    if rules.NAME.fullmatch(name) is None:
        return "not a heartbeat (its name is not a host name)"
    if kv.lease == 0:
        return "a heartbeat under no lease (it would never lapse)"
    if len(kv.value) > LIMITS.host_beat_bytes:
        return f"over {LIMITS.host_beat_bytes} bytes"
    try:
        doc = parse_document(kv.value, SCHEMA, kv.key)
    except OmsError as exc:
        return exc.message
    if doc["host"] != name:
        return f"names host {shown(str(doc['host']))}, not {name}"
    return None


class Keys(Protocol):
    """What heartbeats need of the store on etcd (`store.EtcdStore`): its client and its keys
    (a protocol, so that the store can make its heartbeats without the two importing each
    other)."""

    client: Etcd

    def key(self, rel: str) -> str:
        """The cluster key of relative name `rel`."""
        ...


class EtcdBeats:
    """`store/hosts.Beats` on an etcd store: a key per host under its lease."""

    leased = True

    def __init__(self, store: Keys, lease_s: int = LIMITS.host_lease_s) -> None:
        self.store = store
        self.lease_s = lease_s

    def read_all(self) -> dict[str, JsonObject]:
        """Every host whose heartbeat key is there (its lease has not lapsed) and sound, by host:
        one range. At most `LIMITS.hosts_listed` hosts, those that beat last."""
        under = self.store.key(DIR)
        out: dict[str, JsonObject] = {}
        for kv in self.store.client.range_prefix(under):
            name = kv.key[len(under) :]
            if beat_problem(kv, name) is None:
                out[name] = parse_document(kv.value, SCHEMA, kv.key)
        if len(out) > LIMITS.hosts_listed:
            latest = sorted(out, key=lambda h: str(out[h]["beat_at"]), reverse=True)
            out = {h: out[h] for h in sorted(latest[: LIMITS.hosts_listed])}
        return out

    def write(self, doc: JsonObject, fence: Fence | None = None) -> None:
        """Put `doc` at `hosts/<host>` under the key's own lease, then keep that lease alive (a new
        one when it lapsed, or was granted longer than a host's lease). With `fence`, the put lands
        only while that lock is still the one created at its token, and nothing is kept alive
        otherwise (`LeaseError`): a conductor that lost its lock does not keep its host up."""
        host = str(doc["host"])
        key = self.store.key(DIR + rules.check_name(host, "a heartbeat's host"))
        data = encode_document(doc, SCHEMA, key, LIMITS.host_beat_bytes)
        client = self.store.client
        found = client.get(key)
        lease = 0 if found is None else found.lease
        compares = [] if fence is None else [Compare.created_at(fence.key, fence.token)]
        for _ in range(3):  # its lease lapsed (or is too long): once more under a new one
            granted = not lease
            if granted:
                lease = client.grant(self.lease_s).lease_id
            try:
                done = client.txn(compares, [Put(key, data, lease=lease)])
            except EtcdError as exc:  # the lease lapsed since the key was read
                if "lease not found" not in exc.message:
                    raise
                lease = 0
                continue
            if not done.succeeded:  # (only a fenced put can fail)
                lock = "" if fence is None else shown(fence.key)
                raise LeaseError(
                    f"lock {lock} was lost (its lease lapsed): host {host}'s "
                    "heartbeat was not written",
                    hint="take the conductor's lock again (`oms conductor run` there)",
                )
            if granted:
                return
            ttl = client.keepalive(lease)
            if 0 < ttl <= self.lease_s:
                return
            lease = 0
        raise LeaseError(f"host {host}'s heartbeat was not kept: its lease lapsed as it was put")
