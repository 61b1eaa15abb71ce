"""Another host's ledger entries and evidence on the cluster are checked, not trusted (ADR 0043,
amendment `hostkeys`; SECURITY.md "The authority store on etcd"). Whoever can write the cluster
could add a record version with a ledger entry claiming a made-up key id, and every host's
`oms audit verify` stayed clean: entries and evidence of another key id were only counted in a
note. Now each entry carries an Ed25519 signature by its host's state key, and a verifier checks
it against the key the person pinned for that key id (`[hosts]` in their own `oms/etcd.toml`):
one that checks is vouched for, one that does not is forged, one of a key id no pinned host holds
is named with its fix. On the real 3-member cluster."""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Iterator
from contextlib import ExitStack

import pytest

from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore, Walked, walk_keys
from oms.domain.etcd_settings import PinnedHost
from oms.limits import LIMITS
from oms.services.admin.setup import init
from oms.store import Store
from oms.store.evidence import EvidenceStore
from oms.store.keys import SigningKey, key_id
from oms.store.ledger import LineKey
from tests.chain import Chain
from tests.etcd_cluster import Cluster, line_of
from tests.helpers import OmsCommand, evidence_body, payload, ts
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd

MADE_UP = "f" * 64  # a key id no host has


@pytest.fixture
def client(etcd_cluster: Cluster) -> Iterator[Etcd]:
    made = Etcd(etcd_cluster.endpoints)
    yield made
    made.close()


@dataclasses.dataclass
class Hosts:
    """Host a's and host b's state roots on one prefix, each with its store on the cluster."""

    a: Store
    b: Store
    on_a: EtcdStore
    on_b: EtcdStore

    def pin_each_on_the_other(self) -> None:
        for on, other, name in ((self.on_a, self.b, "host-b"), (self.on_b, self.a, "host-a")):
            meta = other.state.meta
            on.pinned = {meta.key_id: PinnedHost(name, meta.key_id, meta.public_key)}


@pytest.fixture
def hosts(chain: Chain, client: Etcd, etcd_prefix: str) -> Iterator[Hosts]:
    other = chain.base / "state-b"
    init(str(other), str(chain.repo))
    with ExitStack() as stack:
        a = stack.enter_context(Store.open(str(chain.state)))
        b = stack.enter_context(Store.open(str(other)))
        yield Hosts(
            a,
            b,
            EtcdStore(client, etcd_prefix, line_of(a), a.state.meta.public_key),
            EtcdStore(client, etcd_prefix, line_of(b), b.state.meta.public_key),
        )


def _ticket(files: Store, backend: EtcdStore, n: int) -> None:
    Store(files.state, backend=backend).records("ticket").create(
        f"tkt-{n}",
        state="open",
        payload=payload("ticket"),
        operation_id=f"op-{n}",
        actor="oms-system",
        observed_at=ts(n),
    )


def _forger(client: Etcd, prefix: str, keyid: str) -> EtcdStore:
    """A writer of the cluster claiming `keyid`, with a MAC key and a state key of its own."""
    signer = SigningKey(os.urandom(32))
    return EtcdStore(client, prefix, LineKey(keyid, lambda: os.urandom(32), lambda: signer))


def _named(walked: Walked) -> dict[str, str]:
    found: dict[str, str] = {}
    for p in walked.problems:
        found[p.key] = f"{found.get(p.key, '')} | {p.problem}"
    return found


@pytest.mark.cli
def test_a_record_and_its_entry_under_a_made_up_key_id_are_named_by_verify(
    chain: Chain, oms: OmsCommand, client: Etcd, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    code, out = _oms(oms, chain, "ticket", "add", "--title", "Mine", "--no-body")
    assert code == 0, out
    code, out = _oms(oms, chain, "audit", "verify")
    assert code == 0, out  # one host alone: as before, nothing pinned, nothing to pin
    with Store.open(str(chain.state)) as files:
        _ticket(files, _forger(client, etcd_prefix, MADE_UP), 9)  # the record and its entry
    for command in (("audit", "verify"), ("store", "verify")):
        code, out = _oms(oms, chain, *command)
        assert code == 1, out
        named = f": 1 ledger entries by state key {MADE_UP[:16]}, which no host pinned in your "
        line = [x for x in out.splitlines() if named in x]
        assert line, out
        assert f"etcd:{etcd_prefix}ledger/0000" in line[0], line  # its entry named, by its key
        assert "run `oms host key` on that host" in line[0], line


def test_an_entry_claiming_a_pinned_hosts_key_signed_by_another_is_forged(
    hosts: Hosts, client: Etcd, etcd_prefix: str
) -> None:
    hosts.pin_each_on_the_other()
    _ticket(hosts.b, hosts.on_b, 1)
    _ticket(hosts.a, hosts.on_a, 3)
    b_keyid = hosts.b.state.meta.key_id
    _ticket(hosts.b, _forger(client, etcd_prefix, b_keyid), 2)  # host b's key id, not its key
    walked = walk_keys(hosts.on_a)
    named = _named(walked)
    forged = named.get(etcd_prefix + "ledger/00000000000000000003", "")
    assert "does not check against the key pinned" in forged, named
    assert "in no ledger entry" in named.get(etcd_prefix + "records/ticket/tkt-2/0.json", ""), named
    assert len(named) == 2, named
    assert "1 ledger entries by host host-b" in " ".join(walked.notes), walked.notes  # the genuine


def test_a_pinned_hosts_genuine_entries_and_evidence_are_vouched_for(hosts: Hosts) -> None:
    _ticket(hosts.a, hosts.on_a, 1)
    _ticket(hosts.b, hosts.on_b, 2)
    Store(hosts.b.state, backend=hosts.on_b).put_evidence(evidence_body())
    unpinned = _named(walk_keys(hosts.on_a))  # another key id and nothing pinned: named
    assert len(unpinned) == 2, unpinned  # its entries, its evidence: one line each
    assert all("which no host pinned" in p for p in unpinned.values()), unpinned
    hosts.pin_each_on_the_other()
    _ticket(hosts.a, hosts.on_a, 3)  # chained onto host b's entries, checked as it writes
    for on, other in ((hosts.on_a, "host-b"), (hosts.on_b, "host-a")):
        walked = walk_keys(on)
        assert walked.problems == [], walked.problems
        assert any(f"by host {other}" in n for n in walked.notes), walked.notes
    notes = " ".join(walk_keys(hosts.on_a).notes)
    assert "2 ledger entries by host host-b" in notes, notes
    assert "1 evidence documents by host host-b" in notes, notes


def test_evidence_of_another_host_forged_is_named(
    hosts: Hosts, client: Etcd, etcd_prefix: str
) -> None:
    hosts.pin_each_on_the_other()
    forger = SigningKey(os.urandom(32))
    b_keyid = hosts.b.state.meta.key_id
    writes = _forger(client, etcd_prefix, b_keyid)  # its entries claim host b's key id too
    claimed = EvidenceStore(
        hosts.b.state.root, forger.public_raw(), b_keyid, LIMITS, backend=writes
    ).put(evidence_body(), forger)
    made_up = SigningKey(os.urandom(32))
    stranger = key_id(made_up.public_raw())
    unknown = EvidenceStore(
        hosts.b.state.root, made_up.public_raw(), stranger, LIMITS, backend=writes
    ).put(evidence_body(ticket_id="tkt-2"), made_up)
    named = _named(walk_keys(hosts.on_a))
    assert "does not check against host host-b's pinned key (forged)" in named.get(
        etcd_prefix + f"evidence/{claimed.ref}.json", ""
    ), named
    assert f"by state key {stranger[:16]}, which no host pinned" in named.get(
        etcd_prefix + f"evidence/{unknown.ref}.json", ""
    ), named
