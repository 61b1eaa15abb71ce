"""Store benchmark: record write/read latency and ops/s, and read cost at 10 vs 10,000 records.

    .venv/bin/python bench/store_bench.py [--records 10000] [--samples 2000]

Runs in a fresh state root under $TMPDIR. Prints medians, p90 and the ratios: create and
transition against their baseline, a durable publish of a file of a record version's size (the
three take turns), and a read at `--records` records against one at 10 (each record read once
first, both warm). Nothing is asserted.
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    median_ms,
    p90_ms,
    print_ratio,
    scratch_anchors,
    table,
    time_calls,
    time_interleaved,
)
from oms.canonical import add_ms, now
from oms.store import StateRoot, Store
from tests.helpers import T0, payload


def fill(store: Store, count: int, start: int = 0) -> None:
    records = store.records("worker")
    for i in range(start, count):
        records.create(
            f"dsp-{i}",
            state="idle",
            payload=payload("worker"),
            operation_id="op-0",
            actor="oms-system",
            observed_at=T0,
        )


def read_samples(store: Store, count: int, samples: int, rng: random.Random) -> list[float]:
    """Reads of random records among `count`, each read once before (its parse is then kept by its
    digest, as in a long-lived process: without this the small case reads kept parses and the large
    one mostly new ones, and the ratio measures the cache instead of the store's size)."""
    records = store.records("worker")
    for i in range(count):
        records.read(f"dsp-{i}")
    ids = [f"dsp-{rng.randrange(count)}" for _ in range(samples + 3)]
    it = iter(ids)
    return time_calls(lambda: records.read(next(it)), samples)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=2_000)
    args = parser.parse_args()
    rng = random.Random(7)
    scratch_anchors()
    with tempfile.TemporaryDirectory(prefix="oms-bench-") as scratch:
        state, _ = StateRoot.create(f"{scratch}/state", now())
        state.close()
        store = Store.open(f"{scratch}/state")
        records = store.records("worker")

        # writes: create (version 0) and transition (version N+1: index + publish), taking turns
        # with the baseline, a durable publish of a file of a record version's size (the file and
        # its directory fsynced): what any write of that file costs, without the store's checks
        records.create(
            "hot",
            state="idle",
            payload=payload("worker"),
            operation_id="op-0",
            actor="oms-system",
            observed_at=T0,
        )
        data = b"x" * len(store.state.root.read_bytes("records/worker/hot/0.json", 1 << 20))
        store.state.root.mkdirs("bench")
        counter = iter(range(10**9))
        version = iter(range(1, 10**9))

        def create() -> None:
            records.create(
                f"w-{next(counter)}",
                state="idle",
                payload=payload("worker"),
                operation_id="op-0",
                actor="oms-system",
                observed_at=T0,
            )

        def step() -> None:
            v = next(version)
            records.transition(
                "hot",
                expected_version=v - 1,
                state="working",
                payload=payload("worker"),
                operation_id=f"op-{v}",
                actor="oms-system",
                observed_at=add_ms(T0, v),
            )

        def publish() -> None:
            store.state.root.publish(f"bench/{next(counter)}.json", data)

        cases = {"create": create, "transition": step, "publish": publish}
        writes = time_interleaved(cases, args.samples)
        creates, transitions, publishes = writes["create"], writes["transition"], writes["publish"]

        fill(store, 10)
        small = read_samples(store, 10, args.samples, rng)
        fill(store, args.records, start=10)
        large = read_samples(store, args.records, args.samples, rng)
        store.close()

    rows = [
        [
            "publish a file of the same size (baseline)",
            f"{median_ms(publishes):.3f}",
            f"{p90_ms(publishes):.3f}",
            f"{1000 / median_ms(publishes):.0f}",
        ],
        [
            "create (version 0)",
            f"{median_ms(creates):.3f}",
            f"{p90_ms(creates):.3f}",
            f"{1000 / median_ms(creates):.0f}",
        ],
        [
            "transition (N+1, indexed)",
            f"{median_ms(transitions):.3f}",
            f"{p90_ms(transitions):.3f}",
            f"{1000 / median_ms(transitions):.0f}",
        ],
        [
            "read latest, 10 records",
            f"{median_ms(small):.3f}",
            f"{p90_ms(small):.3f}",
            f"{1000 / median_ms(small):.0f}",
        ],
        [
            f"read latest, {args.records:,} records",
            f"{median_ms(large):.3f}",
            f"{p90_ms(large):.3f}",
            f"{1000 / median_ms(large):.0f}",
        ],
    ]
    print(table(["operation", "median ms", "p90 ms", "ops/s (1/median)"], rows))
    print()
    publish_ms, same_size = median_ms(publishes), "a publish of the same size"
    print_ratio("create", median_ms(creates), same_size, publish_ms)
    print_ratio("transition", median_ms(transitions), same_size, publish_ms)
    reads = f"read latest, {args.records:,} records"
    print_ratio(reads, median_ms(large), "10 records", median_ms(small))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
