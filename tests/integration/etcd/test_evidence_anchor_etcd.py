"""Evidence as keys and the keys' chain anchored outside the cluster (ADR 0043, amendment
`etcdtick`), on the real 3-member cluster: a signed evidence document is `evidence/<sha256>.json`,
created once with its ledger entry; `walk_keys` (`oms store verify`, `oms audit verify`) names a
tampered one and a foreign key under `evidence/`; a cluster whose newest entries were deleted with
their keys is named by `oms audit verify` (the anchor outside the cluster and the state root), and
`oms ticket add` after it gives no id twice."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore, walk_keys
from oms.canonical import JsonObject
from oms.errors import IntegrityError, SignatureError
from oms.store import Store
from oms.store.ledger import entry_name, parse_key_entry
from tests.chain import Chain
from tests.etcd_cluster import Cluster, line_of
from tests.helpers import OmsCommand, evidence_body
from tests.integration.etcd.test_commands_cli import _oms, _use_etcd


@pytest.fixture
def client(etcd_cluster: Cluster) -> Iterator[Etcd]:
    made = Etcd(etcd_cluster.endpoints)
    yield made
    made.close()


@pytest.fixture
def on_etcd(store: Store, client: Etcd, etcd_prefix: str) -> Store:
    meta = store.state.meta
    return Store(
        store.state, backend=EtcdStore(client, etcd_prefix, line_of(store), meta.public_key)
    )


def _backend(store: Store) -> EtcdStore:
    assert isinstance(store.backend, EtcdStore)
    return store.backend


def _problems(store: Store) -> dict[str, str]:
    found: dict[str, str] = {}
    for p in walk_keys(_backend(store)).problems:
        found[p.key] = f"{found.get(p.key, '')} | {p.problem}"
    return found


def test_evidence_is_a_key_created_with_its_entry_and_checked(on_etcd: Store, client: Etcd) -> None:
    made = on_etcd.put_evidence(evidence_body())
    again = on_etcd.put_evidence(evidence_body())  # the same body: the same key, not written twice
    assert again.ref == made.ref
    backend = _backend(on_etcd)
    rel = f"evidence/{made.ref}.json"
    kv = client.get(backend.key(rel))
    assert kv is not None
    assert kv.version == 1
    entry_kv = client.get(backend.key(entry_name(1)))
    assert entry_kv is not None
    entry = parse_key_entry(entry_kv.value, backend.line)
    assert (entry.kind, entry.path) == ("evidence", rel)
    assert entry_kv.create_revision == kv.create_revision  # one transaction
    assert client.get(backend.key(entry_name(2))) is None
    assert on_etcd.evidence.get(made.ref).body == made.body
    assert on_etcd.evidence.refs() == [made.ref]
    assert on_etcd.state.root.listdir("evidence") == []  # nothing on files
    walked = walk_keys(backend)
    assert walked.problems == []
    assert (walked.entries, walked.noted) == (1, 1)
    assert on_etcd.audit().ok, on_etcd.audit().problems


def test_tampered_evidence_and_a_foreign_key_under_it_are_named(
    on_etcd: Store, client: Etcd, store: Store
) -> None:
    made = on_etcd.put_evidence(evidence_body())
    other = on_etcd.put_evidence(evidence_body(ticket_id="tkt-2"))
    backend = _backend(on_etcd)
    key = backend.key(f"evidence/{made.ref}.json")
    kv = client.get(key)
    assert kv is not None
    envelope = json.loads(kv.value)
    sig = envelope["signatures"][0]["sig"]
    envelope["signatures"][0]["sig"] = ("B" if sig[0] == "A" else "A") + sig[1:]
    forged = json.dumps(envelope, sort_keys=True, separators=(",", ":")).encode()
    client.delete(key)
    client.put(key, forged)  # written once, as far as etcd's version counts
    moved = backend.key(f"evidence/{'0' * 64}.json")
    theirs = client.get(backend.key(f"evidence/{other.ref}.json"))
    assert theirs is not None
    client.put(moved, theirs.value)  # another document's bytes under another address
    planted = backend.key("evidence/planted")
    client.put(planted, b"{}")
    found = _problems(on_etcd)
    assert key in found, found
    assert "signature" in found[key], found
    assert "changed after it was written" in found[key], found
    assert "does not match its address" in found[moved], found
    assert "a foreign key" in found[planted], found
    audit = on_etcd.audit()
    assert any(f"etcd:{key}" in p for p in audit.problems), audit.problems
    with pytest.raises(SignatureError):
        on_etcd.evidence.get(made.ref)


@pytest.mark.cli
def test_a_cluster_whose_newest_entries_were_deleted_is_named_and_no_id_is_reused(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str, client: Etcd
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for title in ("First", "Second", "Third"):
        code, out = _oms(oms, chain, "ticket", "add", "--title", title, "--no-body")
        assert code == 0, out
    code, out = _oms(oms, chain, "audit", "verify")
    assert code == 0, out
    # the newest ticket and its ledger entry deleted together: the keys' chain still holds
    entries = sorted(kv.key for kv in client.range_prefix(etcd_prefix + "ledger/"))
    last = client.get(entries[-1])
    assert last is not None
    assert json.loads(last.value)["path"] == "records/ticket/tkt-3/0.json"
    for kv in list(client.range_prefix(etcd_prefix + "records/ticket/tkt-3/")):
        client.delete(kv.key)
    client.delete(etcd_prefix + "latest/ticket/tkt-3")
    client.delete(entries[-1])
    code, out = _oms(oms, chain, "store", "verify")
    assert code == 0, out  # the keys alone are consistent: only the anchor knows
    code, out = _oms(oms, chain, "audit", "verify")
    assert code != 0, out
    assert "the etcd store under" in out, out
    assert f"names ledger entry {len(entries)}, but the ledger ends at entry" in out, out
    assert "Traceback" not in out
    code, out = _oms(oms, chain, "ticket", "add", "--title", "Fourth", "--no-body")
    assert code == 0, out
    code, out = _oms(oms, chain, "ticket", "list", "--json")
    assert code == 0, out
    ids = [t["id"] for t in json.loads(out)["tickets"]]
    assert ids == ["tkt-1", "tkt-2", "tkt-4"], ids  # tkt-3 is never given again
    code, out = _oms(oms, chain, "audit", "verify")
    assert code != 0, out  # the anchor stays where it was: still named
    assert "rolled back" in out, out


def test_ticket_content_is_a_key_and_tampered_content_is_named(
    on_etcd: Store, client: Etcd
) -> None:
    """A ticket's body on the cluster (another host fills the ticket): created once with its entry,
    read back checked; another body under its address is named and refused."""
    doc: JsonObject = {
        "format": "oms-ticket-content-v1",
        "ticket_id": "tkt-1",
        "source": "local",
        "title": "A ticket",
        "body": "do it",
        "repository": None,
        "url": None,
        "number": None,
    }
    sha = on_etcd.ticket_content.put(doc)
    assert on_etcd.ticket_content.put(doc) == sha  # the same body: the same key
    backend = _backend(on_etcd)
    key = backend.key(f"tickets/tkt-1/{sha}.json")
    kv = client.get(key)
    assert kv is not None
    assert kv.version == 1
    assert on_etcd.ticket_content.get("tkt-1", sha) == doc
    assert walk_keys(backend).problems == []
    client.delete(key)
    client.put(key, kv.value.replace(b"do it", b"rm -rf"))
    found = _problems(on_etcd)
    assert "does not match its sha256" in found[key], found
    with pytest.raises(IntegrityError, match="tampered"):
        on_etcd.ticket_content.get("tkt-1", sha)
