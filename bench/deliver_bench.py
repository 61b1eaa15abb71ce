"""Delivery benchmark: `deliver()` latency excluding the agent, at 10 vs 10,000 stored dispatches.

    .venv/bin/python bench/deliver_bench.py [--samples 30] [--stored 10000]

A real repository, real worktrees, a real tmux server; the worker is `sleep 600` (the agent's own start-up
is not counted: deliver returns once the pane exists and the records say `working`). The 10,000 stored
dispatches are schema-valid records that delivery never needs to read.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, p90_ms, table
from oms.canonical import stable_id
from oms.services.delivery import Delivery
from tests.chain import make_chain
from tests.helpers import payload
from tests.integration.test_delivery_concurrency import make_events


def measure(chain: object, events: list[str]) -> list[float]:
    samples = []
    with chain.workspace() as ws:  # type: ignore[attr-defined]
        delivery = Delivery.open(ws)
        for event_id in events:
            start = time.perf_counter()
            result = delivery.deliver(event_id)
            samples.append(time.perf_counter() - start)
            assert result["outcome"]["status"] == "created", result  # type: ignore[index]
    return samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=10)
    parser.add_argument("--stored", type=int, default=10_000)
    args = parser.parse_args()
    os.environ.setdefault("OMS_EXECUTABLE", str(Path(sys.executable).parent / "oms"))
    with tempfile.TemporaryDirectory(prefix="oms-deliver-bench-") as scratch:
        chain = next(make_chain(Path(scratch)))
        chain.edit_config(lambda s: s.replace('argv = ["true"]', 'argv = ["sleep", "600"]'), commit=True)
        try:
            small_events = make_events(chain, args.samples)
            with chain.workspace() as ws:
                stored = len(ws.store.records("dispatch").ids())
            small = measure(chain, small_events)
            with chain.workspace() as ws:
                records = ws.store.records("dispatch")
                for i in range(args.stored - stored - args.samples):
                    rid = stable_id("dsp-filler", i)
                    records.create(
                        rid,
                        state="cancelled",
                        payload=payload("dispatch"),
                        operation_id="op-0",
                        actor="oms-system",
                        observed_at="2026-01-01T00:00:00.000Z",
                    )
            large_events = make_events(chain, args.samples)
            with chain.workspace() as ws:
                total = len(ws.store.records("dispatch").ids())
            large = measure(chain, large_events)
        finally:
            subprocess.run(
                ["tmux", "-S", str(chain.state / "tmux.sock"), "kill-server"], capture_output=True, check=False
            )
    rows = [
        [f"deliver, {stored} stored dispatches", f"{median_ms(small):.1f}", f"{p90_ms(small):.1f}"],
        [f"deliver, {total:,} stored dispatches", f"{median_ms(large):.1f}", f"{p90_ms(large):.1f}"],
    ]
    print(table(["case", "p50 ms", "p90 ms"], rows))
    print(f"\nratio p50 ({total:,} vs {stored}): {median_ms(large) / median_ms(small):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
