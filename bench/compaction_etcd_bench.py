"""Compaction on etcd against compaction on files, in the same run (ADR 0043, amendment `upkeep`).

    .venv/bin/python bench/compaction_etcd_bench.py [--tickets 200] [--versions 5] [--events 8]

Starts a real 3-member etcd cluster on loopback ports in a scratch directory (tests/etcd_cluster.py;
killed by pid at the end) and two demo repositories, one on files and one whose committed `[store]`
names the cluster, `[retention] compact_after_days = 1`. Into each it writes `--tickets` ended
tickets, each with a dispatch, a worker and a session record of `--versions` versions and
`--events` events (schema-valid, written through the store: ledgered as any write), then times one
`oms store compact` pass (`admin/compaction.py`, in this process) on each: each ticket's records
and events archived and deleted (on etcd: the archive a key, every delete fenced by the compaction
lock). Then, on the cluster: the
keys under the prefix and the members' database size (`/v3/maintenance/status`) before and after
oms's compaction, after etcd's own MVCC compaction to the current revision (`/v3/kv/compaction`,
what `--auto-compaction-*` does on its schedule) and after a defragmentation of each member.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import pin_scratch_git, print_ratio, scratch_anchors, table
from oms.adapters import git
from oms.adapters.etcd.client import Etcd
from oms.canonical import add_ms
from oms.demo import scratch as demo
from oms.services.admin import compaction
from oms.services.workspace import Workspace
from oms.store import Change
from tests.etcd_cluster import Cluster, pin_cluster
from tests.helpers import T0, payload

ACTOR = "oms-system"
ENDS = {"dispatch": "result-received", "worker": "done", "session": "stopped"}


def fill(ws: Workspace, tickets: int, versions: int, events: int) -> None:
    """`tickets` ended tickets, each with its dispatch, worker and session of `versions`
    versions and `events` events."""
    at = T0
    for n in range(tickets):
        tid, did, sid = f"tkt-{n + 1}", f"dsp-{n + 1}", str(uuid.UUID(int=n + 1))
        ws.store.records("ticket").create(
            tid, state="done", payload=payload("ticket"), operation_id="op-0", actor=ACTOR,
            observed_at=at,
        )  # fmt: skip
        ids = {"ticket_id": tid, "session_id": sid}
        for kind, rid, body in (
            ("dispatch", did, payload("dispatch", worker_record_id=did, **ids)),
            ("worker", did, payload("worker", dispatch_id=did, health="stopped", **ids)),
            ("session", sid, payload("session", dispatch_id=did, ticket_id=tid)),
        ):
            records = ws.store.records(kind)
            state = {"dispatch": "accepted", "worker": "idle", "session": "running"}[kind]
            rec = records.create(
                rid, state=state, payload=body, operation_id="op-0", actor=ACTOR, observed_at=at
            ).record
            for v in range(1, versions):
                at = add_ms(at, 1)
                last = v == versions - 1
                rec = records.write_next(
                    rec,
                    Change(ENDS[kind] if last else state, body, f"op-{v}", ACTOR, at),
                ).record
        for k in range(events):
            ws.store.events.create(
                f"evt-{n + 1}-{k}",
                "dispatch-delivery-requested",
                at,
                {
                    "dispatch_id": did, "dispatch_version": k, "worker_record_id": did,
                    "ticket_id": tid, "attempt": 1, "lease_token": "b" * 64,
                },
            )  # fmt: skip


def _prepare(base: Path, name: str, cluster: Cluster | None) -> tuple[str, str]:
    run = demo._prepare(str(base / name))
    config = Path(run.repo) / ".oms" / "config.toml"
    text = config.read_text() + "\n[retention]\ncompact_after_days = 1\n"
    if cluster is not None:
        text += (
            f'\n[store]\nbackend = "etcd"\nendpoints = {json.dumps(cluster.endpoints)}\n'
            'prefix = "/oms/bench-compact/"\n'
        )
    config.write_text(text)
    git.commit_all(run.repo, "retention (and the store on etcd)")
    if cluster is not None:
        pin_cluster(Path(run.repo), Path(run.state_root))
    return run.state_root, run.repo


def _db_size(client: Etcd) -> int:
    answer = client.call("/v3/maintenance/status", {})
    return int(str(answer.get("dbSize", "0")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tickets", type=int, default=200)
    parser.add_argument("--versions", type=int, default=5)
    parser.add_argument("--events", type=int, default=8)
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    with tempfile.TemporaryDirectory() as scratch:
        os.environ["XDG_CONFIG_HOME"] = f"{scratch}/person-config"
        os.makedirs(os.environ["XDG_CONFIG_HOME"], mode=0o700)
        cluster = Cluster(Path(scratch))
        try:
            cluster.start_all()
            client = Etcd(cluster.endpoints)
            took: dict[str, float] = {}
            keys: list[list[str]] = []
            for name in ("files", "etcd"):
                state, repo = _prepare(Path(scratch), name, cluster if name == "etcd" else None)
                with Workspace.open(state, repo, etcd=True) as ws:
                    fill(ws, args.tickets, args.versions, args.events)
                if name == "etcd":
                    count = sum(1 for _ in client.range_prefix("/oms/bench-compact/"))
                    keys.append(["keys under the prefix, ended", str(count)])
                    keys.append(["db size (bytes), ended", str(_db_size(client))])
                began = time.perf_counter()
                with Workspace.open(state, repo, etcd=True) as ws:
                    report = compaction.compact(ws, dry_run=False)
                took[name] = time.perf_counter() - began
                assert len(report.compacted) == args.tickets, report.kept[:3]
            count = sum(1 for _ in client.range_prefix("/oms/bench-compact/"))
            keys.append(["keys under the prefix, compacted by oms", str(count)])
            keys.append(["db size (bytes), compacted by oms", str(_db_size(client))])
            revision = int(str(client.call("/v3/kv/range", {"key": "AA=="})["header"]["revision"]))  # type: ignore[index]
            client.call("/v3/kv/compaction", {"revision": str(revision), "physical": True})
            keys.append(["db size (bytes), etcd's MVCC compaction", str(_db_size(client))])
            for member in cluster.endpoints:
                Etcd([member]).call("/v3/maintenance/defragment", {})
            keys.append(["db size (bytes), each member defragmented", str(_db_size(client))])
            client.close()
        finally:
            cluster.stop()
    print(
        f"{args.tickets} ended tickets, 3 records of {args.versions} versions and "
        f"{args.events} events each"
    )
    print(table(["on etcd", "value"], keys))
    per = {name: seconds / args.tickets for name, seconds in took.items()}
    print(
        table(
            ["store", "one pass (ms)", "a ticket (ms)"],
            [[n, f"{took[n] * 1000:.0f}", f"{per[n] * 1000:.1f}"] for n in took],
        )
    )
    print_ratio(
        "compaction a ticket, etcd", per["etcd"] * 1000, "files", per["files"] * 1000, stat="mean"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
