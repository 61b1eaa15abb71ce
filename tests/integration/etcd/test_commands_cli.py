"""`oms ticket add`, `oms ticket list` and `oms status` on `[store] backend = "etcd"` (ADR 0043):
the same flows as on files, their records in the cluster and none in the state root; a member
killed before a command; an unreachable cluster is one line and nothing written."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from oms.adapters.etcd import summary
from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore, verify_keys
from oms.limits import LIMITS
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from oms.store import Store
from oms.store.verify import verify
from tests.chain import Chain
from tests.etcd_cluster import Cluster, free_ports, line_of, pin_cluster
from tests.helpers import OmsCommand, payload, ts


def _use_etcd(chain: Chain, endpoints: list[str], prefix: str, home: Path | None = None) -> Path:
    """Commit a `[store]` naming `endpoints` under `prefix`, and pin that cluster for the chain's
    state root in the person's settings (`pin_cluster`: `home`, else `$XDG_CONFIG_HOME`, made a
    folder of the test's own), as a person runs `oms store pin-cluster` once it is theirs (ADR
    0043, amendment `clusterpin`): the settings home."""
    table = (
        f'\n[store]\nbackend = "etcd"\nendpoints = {json.dumps(endpoints)}\nprefix = "{prefix}"\n'
    )
    chain.edit_config(lambda text: text + table, commit=True)
    return pin_cluster(chain.repo, chain.state, home)


def _oms(oms: OmsCommand, chain: Chain, *args: str) -> tuple[int, str]:
    where = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    done = oms.run(*args, *where)
    return done.returncode, done.stdout + done.stderr


@pytest.mark.cli
def test_ticket_add_list_and_status_run_on_the_cluster(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    for title in ("First", "Second"):
        code, out = _oms(oms, chain, "ticket", "add", "--title", title, "--no-body", "--json")
        assert code == 0, out
    code, out = _oms(oms, chain, "ticket", "list", "--json")
    assert code == 0, out
    listed = json.loads(out)["tickets"]
    assert [(t["id"], t["title"], t["state"]) for t in listed] == [
        ("tkt-1", "First", "open"),
        ("tkt-2", "Second", "open"),
    ]
    code, out = _oms(oms, chain, "status", "--json")
    assert code == 0, out
    assert [t["id"] for t in json.loads(out)["tickets"]] == ["tkt-1", "tkt-2"]
    code, out = _oms(oms, chain, "status")
    assert code == 0, out
    assert "tickets (2)" in out
    client = Etcd(etcd_cluster.endpoints)
    try:
        found = client.get(etcd_prefix + "latest/ticket/tkt-2")
        assert found is not None
        assert found.value == b"0"
    finally:
        client.close()
    assert not (chain.state / "records" / "ticket").exists()  # nothing half on files
    code, out = _oms(oms, chain, "store", "verify", "--json")
    assert code == 0, out
    # each: version, pointer, op, its ledger entry; its content and its entry (amendment
    # `etcdtick`); the host's name bound by the first command that asked it, and its entry
    # (amendment `hostname`)
    assert json.loads(out)["counts"]["etcd keys"] == 14


@pytest.mark.cli
def test_a_member_killed_before_the_command_is_stepped_over(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    etcd_cluster.kill(etcd_cluster.members[0])  # the endpoint asked first
    code, out = _oms(oms, chain, "ticket", "add", "--title", "Despite", "--no-body")
    assert code == 0, out
    code, out = _oms(oms, chain, "ticket", "list", "--json")
    assert code == 0, out
    assert [t["title"] for t in json.loads(out)["tickets"]] == ["Despite"]
    client = Etcd(etcd_cluster.endpoints[1:])
    try:
        assert client.get(etcd_prefix + "latest/ticket/tkt-1") is not None  # in the cluster
    finally:
        client.close()


@pytest.mark.cli
def test_an_unreachable_cluster_is_one_line_and_nothing_is_written(
    chain: Chain, oms: OmsCommand
) -> None:
    _use_etcd(chain, [f"http://127.0.0.1:{p}" for p in free_ports(2)], "/oms/nowhere/")
    ledger = chain.state / "ledger"
    before = sorted(p.name for p in ledger.iterdir()) if ledger.exists() else []
    sizes = {p.name: p.stat().st_size for p in ledger.iterdir()} if ledger.exists() else {}
    for args in (
        ("ticket", "add", "--title", "Lost", "--no-body"),
        ("ticket", "list"),
        ("status",),
        ("dispatch", "cancel", "tkt-1", "--reason", "lost"),  # branch attack-parts
    ):
        began = time.monotonic()
        code, out = _oms(oms, chain, *args)
        # two endpoints, each within LIMITS.etcd_call_s, and the process's own start
        assert time.monotonic() - began < 2 * LIMITS.etcd_call_s + 10
        assert code != 0, out
        lines = [line for line in out.splitlines() if line.strip()]
        assert lines[0].startswith("oms: error: etcd unreachable"), out
        assert len(lines) == 2, out
        assert "Traceback" not in out
    after = sorted(p.name for p in ledger.iterdir()) if ledger.exists() else []
    assert after == before
    assert {p.name: p.stat().st_size for p in ledger.iterdir()} == sizes if ledger.exists() else 1
    assert not (chain.state / "records" / "ticket").exists()


def test_the_summary_reads_only_what_changed_and_survives_the_process(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    client = Etcd(etcd_cluster.endpoints)
    try:
        with Store.open(str(chain.state)) as files:
            store = Store(files.state, backend=EtcdStore(client, etcd_prefix, line_of(files)))
            tickets = store.records("ticket")
            for n in range(70):
                tickets.create(
                    f"tkt-{n + 1}",
                    state="open",
                    payload=payload("ticket"),
                    operation_id=f"op-{n}",
                    actor="oms-system",
                    observed_at=ts(0),
                )
            summary.forget()
            first = store.latest("ticket")
            assert (len(first.records), first.read) == (70, 70)
            assert store.latest("ticket").read == 0
            rec = tickets.read("tkt-5")
            tickets.transition(
                "tkt-5",
                expected_version=rec.version,
                state="leased",
                payload=payload("ticket"),
                operation_id="op-lease",
                actor="oms-system",
                observed_at=ts(1),
            )
            again = store.latest("ticket")
            assert again.read == 1
            assert {r.record_id: r.state for r in again.records}["tkt-5"] == "leased"
            assert [r.record_id for r in store.live("ticket").records if r.state == "leased"] == [
                "tkt-5"
            ]
            summary.forget()  # a new process: the summary file, then what changed since
            assert store.latest("ticket").read == 1  # tkt-5 changed after the file was written
            client.put(etcd_prefix + "latest/ticket/tkt-7", b"9")  # a pointer to no version
            broken = store.latest("ticket")
            assert "tkt-7" in broken.errors
            assert "absent" in broken.errors["tkt-7"].message
    finally:
        summary.forget()
        client.close()


def test_a_member_killed_between_the_read_and_the_write_of_ticket_add(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    with Workspace.open(str(chain.state), str(chain.repo), etcd=True) as ws:
        backend = ws.store.backend
        assert isinstance(backend, EtcdStore)
        ws.host()  # its host claimed before its first write (ADR 0043 amendment `cross6`)
        client, real = backend.client, backend.client.call
        paths: list[str] = []

        def call(path: str, body: dict[str, object]) -> dict[str, object]:
            paths.append(path)
            # after `ids`, the floor's rollbacks, the body's create and the read of tkt-1, before
            # its create
            if len(paths) == 5:
                etcd_cluster.kill(etcd_cluster.members[client._first])  # the one it talks to
            return real(path, body)

        monkeypatch.setattr(client, "call", call)
        rec = tickets.add(ws, "Mid-command", "")
        assert paths == [
            "/v3/kv/range",
            "/v3/kv/range",  # `rollbacks/`: the floor every host numbers above (`floor`)
            "/v3/kv/txn",
            "/v3/kv/txn",
            "/v3/kv/txn",
        ]
        assert [m.proc is None for m in etcd_cluster.members].count(True) == 1
        assert [r.record_id for r in ws.store.latest("ticket").records] == [rec.record_id]
        problems, read = verify_keys(backend)
        # the name's binding and its entry; the body and its entry; the version, pointer, op and
        # its entry: whole
        assert (problems, read) == ([], 8)


def test_the_summary_asks_one_range_when_nothing_changed_and_sees_a_deleted_pointer(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = Etcd(etcd_cluster.endpoints)
    try:
        with Store.open(str(chain.state)) as files:
            store = Store(files.state, backend=EtcdStore(client, etcd_prefix, line_of(files)))
            for n in range(3):
                store.records("ticket").create(
                    f"tkt-{n + 1}",
                    state="open",
                    payload=payload("ticket"),
                    operation_id=f"op-{n}",
                    actor="oms-system",
                    observed_at=ts(0),
                )
            summary.forget()
            assert store.latest("ticket").read == 3
            asked: list[tuple[str, dict[str, object]]] = []
            real = client.call

            def call(path: str, body: dict[str, object]) -> dict[str, object]:
                asked.append((path, body))
                return real(path, body)

            monkeypatch.setattr(client, "call", call)
            assert store.latest("ticket").read == 0
            assert [path for path, _ in asked] == ["/v3/kv/range"]
            assert "min_mod_revision" in asked[0][1]  # the pointers modified since: none
            client.delete(etcd_prefix + "latest/ticket/tkt-2")  # what oms never does
            assert [r.record_id for r in store.latest("ticket").records] == ["tkt-1", "tkt-3"]
            other = Store(
                files.state, backend=EtcdStore(client, etcd_prefix + "other/", line_of(files))
            )
            assert other.latest("ticket").records == []  # not this prefix's summary
    finally:
        summary.forget()
        client.close()


def test_a_summary_file_of_another_prefix_is_not_served(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    client = Etcd(etcd_cluster.endpoints)
    try:
        with Store.open(str(chain.state)) as files:
            stores = [
                Store(files.state, backend=EtcdStore(client, etcd_prefix + name, line_of(files)))
                for name in ("a/", "b/")
            ]
            for store in reversed(stores):  # the same ids, b's written before a's summary
                for n in range(70):
                    store.records("ticket").create(
                        f"tkt-{n + 1}",
                        state="open",
                        payload=payload("ticket"),
                        operation_id=f"op-{n}",
                        actor="oms-system",
                        observed_at=ts(0),
                    )
            summary.forget()
            assert stores[0].latest("ticket").read == 70  # and saved: index/etcd.ticket/
            assert (chain.state / "index" / "etcd.ticket").is_dir()
            summary.forget()
            assert stores[1].latest("ticket").read == 70  # a's file is not b's summary
            summary.forget()
            assert stores[1].latest("ticket").read == 0  # b's own file now
        report = verify(str(chain.state))  # the file is a cache verify notes, not an error
        assert report.ok, report.findings
        assert [f.path for f in report.findings if f.severity == "note"] == [
            "index/etcd.ticket/2.json"
        ]
    finally:
        summary.forget()
        client.close()


def test_an_edited_summary_file_on_etcd_is_refused_and_a_moved_pointer_is_seen(
    chain: Chain, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """The columnar summary file (`oms-summary-v2`) keeps v1's guarantees on a cluster: a body
    edited without the state key is not served (every record is read again), and a pointer moved
    after the file was written is read whatever the file says."""
    client = Etcd(etcd_cluster.endpoints)
    try:
        with Store.open(str(chain.state)) as files:
            store = Store(files.state, backend=EtcdStore(client, etcd_prefix, line_of(files)))
            tickets_ = store.records("ticket")
            for n in range(70):
                tickets_.create(
                    f"tkt-{n + 1}",
                    state="open",
                    payload=payload("ticket"),
                    operation_id=f"op-{n}",
                    actor="oms-system",
                    observed_at=ts(0),
                )
            summary.forget()
            assert store.latest("ticket").read == 70  # and the file written (70 >= 64)
            [path] = (chain.state / "index" / summary.label("ticket")).iterdir()
            head, _, body = path.read_bytes().partition(b"\n")
            assert body.startswith(b'{"format":"oms-summary-v2"')
            path.write_bytes(head + b"\n" + body.replace(b'"open"', b'"done"', 1))
            summary.forget()  # a new process
            edited = store.latest("ticket")
            assert edited.read == 70  # not authenticated: read again, all of it
            assert {r.state for r in edited.records} == {"open"}
            rec = tickets_.read("tkt-9")
            tickets_.transition(
                "tkt-9",
                expected_version=rec.version,
                state="leased",
                payload=payload("ticket"),
                operation_id="op-lease",
                actor="oms-system",
                observed_at=ts(1),
            )
            summary.forget()  # a new process, from the file the first refresh wrote again
            moved = store.latest("ticket")
            assert moved.read == 1
            assert {r.record_id: r.state for r in moved.records}["tkt-9"] == "leased"
    finally:
        summary.forget()
        client.close()


@pytest.mark.cli
def test_the_read_commands_show_the_clusters_records_not_the_files(
    chain: Chain, oms: OmsCommand, etcd_cluster: Cluster, etcd_prefix: str
) -> None:
    """`oms ticket show`, `oms dispatch list|show` and `oms pool show` read the cluster: before,
    they were refused on etcd (and earlier still read the state root's files, where a ticket of the
    same id said something else)."""
    from tests.chain import accepted
    from tests.integration.etcd.test_deliver_etcd import EtcdChain

    with chain.workspace() as ws:  # on files: the same id, another ticket, never to be shown
        tickets.add(ws, "On files", "")
    _use_etcd(chain, etcd_cluster.endpoints, etcd_prefix)
    on_etcd = EtcdChain(chain.base, chain.repo, chain.state, chain.advisor)
    on_etcd.clock = chain.clock
    dispatch_id, _ = accepted(on_etcd, "On the cluster")
    code, out = _oms(oms, chain, "ticket", "show", "tkt-1", "--json")
    assert code == 0, out
    shown = json.loads(out)
    assert shown["content"]["title"] == "On the cluster"
    assert shown["ticket"]["state"] == "leased"
    assert shown["compacted"] is None
    code, out = _oms(oms, chain, "ticket", "show", "tkt-1")
    assert code == 0, out
    assert "# On the cluster" in out
    code, out = _oms(oms, chain, "dispatch", "list", "--json")
    assert code == 0, out
    assert [(d["id"], d["state"]) for d in json.loads(out)["dispatches"]] == [
        (dispatch_id, "accepted")
    ]
    code, out = _oms(oms, chain, "dispatch", "show", dispatch_id[:12], "--json")
    assert code == 0, out
    assert json.loads(out)["dispatch"]["id"] == dispatch_id
    code, out = _oms(oms, chain, "pool", "show", "--json")
    assert code == 0, out
    assert json.loads(out)["pool"]["slots"]
    code, out = _oms(oms, chain, "pool", "show")
    assert code == 0, out
    assert "worker-1" in out
