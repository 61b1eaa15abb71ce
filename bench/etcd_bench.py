"""The store on etcd against the store on files, in the same run (ADR 0043).

    .venv/bin/python bench/etcd_bench.py [--records 1000] [--samples 300]

Starts a real 3-member etcd cluster on loopback ports in a scratch directory (tests/etcd_cluster.py;
killed by pid at the end), fills `--records` worker records into a fresh state root and into the
cluster alike, then times, the two stores taking turns: a read of a random record's latest version,
and a compare-and-set transition of one record (`RecordStore.update`: read, decide, write), and the
client's bare round trip (a range of one key) for scale. Prints medians, p90 and the ratios etcd /
files. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, p90_ms, print_ratio, scratch_anchors, table, time_interleaved
from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore
from oms.canonical import add_ms, now
from oms.store import Change, Record, StateRoot, Store
from tests.etcd_cluster import Cluster
from tests.helpers import T0, payload


def fill(store: Store, count: int) -> None:
    records = store.records("worker")
    for i in range(count):
        records.create(
            f"dsp-{i}",
            state="idle",
            payload=payload("worker"),
            operation_id="op-0",
            actor="oms-system",
            observed_at=T0,
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=300)
    args = parser.parse_args()
    rng = random.Random(7)
    scratch_anchors()
    with tempfile.TemporaryDirectory(prefix="oms-bench-") as scratch:
        cluster = Cluster(Path(scratch))
        try:
            cluster.start_all()
            state, _ = StateRoot.create(f"{scratch}/state", now())
            state.close()
            files = Store.open(f"{scratch}/state")
            client = Etcd(cluster.endpoints)
            etcd = Store(files.state, backend=EtcdStore(client, "/oms/bench/"))
            fill(files, args.records)
            fill(etcd, args.records)
            step = iter(range(1, 10**9))

            def reader(store: Store) -> object:
                records = store.records("worker")
                return lambda: records.read(f"dsp-{rng.randrange(args.records)}")

            def writer(store: Store) -> object:
                records = store.records("worker")

                def decide(_current: Record) -> Change:
                    v = next(step)
                    return Change(
                        "working", payload("worker"), f"op-{v}", "oms-system", add_ms(T0, v)
                    )

                return lambda: records.update("dsp-0", decide)

            cases = {
                "files read": reader(files),
                "etcd read": reader(etcd),
                "files transition": writer(files),
                "etcd transition": writer(etcd),
                "etcd round trip": lambda: client.get("/oms/bench/latest/worker/dsp-0"),
            }
            times = time_interleaved(cases, args.samples)  # type: ignore[arg-type]
            client.close()
            files.close()
        finally:
            cluster.stop()

    rows = [
        [name, f"{median_ms(t):.3f}", f"{p90_ms(t):.3f}", f"{1000 / median_ms(t):.0f}"]
        for name, t in times.items()
    ]
    print(f"{args.records} records each, {args.samples} samples, 3 members on loopback\n")
    print(table(["case", "median ms", "p90 ms", "ops/s"], rows))
    print()
    n = args.records
    print_ratio(
        f"etcd read latest, {n} records",
        median_ms(times["etcd read"]),
        "files",
        median_ms(times["files read"]),
    )
    print_ratio(
        "etcd transition (read, decide, CAS)",
        median_ms(times["etcd transition"]),
        "files",
        median_ms(times["files transition"]),
    )
    print_ratio(
        "etcd read latest",
        median_ms(times["etcd read"]),
        "etcd round trip",
        median_ms(times["etcd round trip"]),
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
