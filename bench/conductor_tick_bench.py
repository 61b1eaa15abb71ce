"""What an idle `oms conductor tick` costs as the store grows (issue 12: ≤ 200 ms at 1,000 tickets
and 50 workers; at 10,000 tickets ≤ 1.5 x the cost at 1,000).

    .venv/bin/python bench/conductor_tick_bench.py [--sizes 1000,10000] [--workers 50] [--repeat 7]

A real state root and repository (the demo's), filled through the store's own API: N finished
tickets (done or blocked) and W ended workers (so a tick has nothing to do: the fleet is idle), the
pool full of nothing, and nothing written for longer than a change takes to settle
(`Limits.summary_racy_ns`). Each tick runs in-process on one open workspace, as `oms conductor
run` does; printed: the tick's median per phase and in all, tmux calls and record reads per tick,
and the ratio against the smallest size measured in the same run. Then the same ticks one-shot, as
`oms conductor tick` from cron runs them: each in a fresh workspace with nothing kept from the tick
before (`one_shot`), its phases and the ratio.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import pin_scratch_git, print_ratio, scratch_anchors, table
from oms.canonical import stable_id
from oms.demo import scratch as demo
from oms.domain import tickets as ticket_machine
from oms.domain import workers as worker_machine
from oms.limits import LIMITS
from oms.services.conductor import tick as conductor
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store import summary
from oms.store.records import RecordStore

SESSION = "11111111-2222-4333-8444-555555555555"


def fill(ws: Workspace, tickets: int, workers: int) -> None:
    """`tickets` finished tickets and `workers` ended workers, written through the store's API."""
    now = ws.now()
    records = ws.store.records("ticket")
    for n in range(tickets):
        nxt = ticket_machine.new(
            title=f"t{n}",
            source="local",
            repository=None,
            content_sha256="0" * 64,
            created_at=now,
            repository_root=ws.config_root,
            added_by=ws.store.state.meta.key_id,
        )
        state = "done" if n % 2 else "blocked"
        records.create(
            f"tkt-{n + 1}",
            state=state,
            payload={**nxt.payload, "reason": "finished"},
            operation_id=stable_id("bench", n),
            actor=SYSTEM_ACTOR,
            observed_at=now,
        )
    box = ws.store.records("worker")
    for n in range(workers):
        dispatch = {
            "ticket_id": f"tkt-{n + 1}",
            "session_id": SESSION,
            "role_id": "oms.command-executor",
            "provider_mode": "command",
            "worktree_id": "wt-bench",
        }
        payload = worker_machine.new(f"dsp-{n:032x}", dispatch, updated_at=now).payload
        payload = {**payload, "health": "stopped", "end_reason": "exit", "end_detail": "ended"}
        box.create(
            f"dsp-{n:032x}",
            state="done",
            payload=payload,
            operation_id=stable_id("bw", n),
            actor=SYSTEM_ACTOR,
            observed_at=now,
        )


class Counted:
    """Counts record reads (`RecordStore.read_version`) while it is installed."""

    def __init__(self) -> None:
        self.reads = 0
        self.original = RecordStore.read_version

    def __enter__(self) -> Counted:
        counter = self

        def read_version(store: RecordStore, record_id: str, version: int):  # type: ignore[no-untyped-def]
            counter.reads += 1
            return counter.original(store, record_id, version)

        RecordStore.read_version = read_version  # type: ignore[method-assign]
        return self

    def __exit__(self, *_: object) -> None:
        RecordStore.read_version = self.original  # type: ignore[method-assign]


def measure(base: Path, tickets: int, workers: int, repeat: int) -> dict[str, float]:
    run = demo._prepare(str(base))
    with Workspace.open(run.state_root, run.repo) as ws:
        start = time.perf_counter()
        fill(ws, tickets, workers)
        made = time.perf_counter() - start
        conductor.tick(ws)  # warm-up (and the tmux server need not run: the fleet is idle)
        time.sleep(
            LIMITS.summary_racy_ns / 1e9 + 0.1
        )  # idle: no write for longer than a change takes to settle
        conductor.tick(ws)
        totals: list[float] = []
        phases: dict[str, list[float]] = {}
        reads = 0
        for _ in range(repeat):
            with Counted() as counted:
                report = conductor.tick(ws)
            reads = counted.reads
            totals.append(sum(p.ms for p in report.phases))
            for p in report.phases:
                phases.setdefault(p.name, []).append(p.ms)
            assert all(not p.done for p in report.phases), report.to_json()  # idle: nothing to do
        shots: list[float] = []
        shot_phases: dict[str, list[float]] = {}
        for _ in range(repeat):
            report = one_shot(run.state_root, run.repo)
            shots.append(sum(p.ms for p in report.phases))
            for p in report.phases:
                shot_phases.setdefault(p.name, []).append(p.ms)
            assert all(not p.done for p in report.phases), report.to_json()
    out = {"tick_ms": statistics.median(totals), "reads": float(reads), "fill_s": made}
    out.update({name: statistics.median(v) for name, v in phases.items()})
    out["shot_ms"] = statistics.median(shots)
    out.update({f"shot_{name}": statistics.median(v) for name, v in shot_phases.items()})
    return out


def one_shot(state_root: str, repo: str) -> conductor.Tick:
    """A tick as `oms conductor tick` runs it from cron: a new process, so nothing kept between
    ticks (the record summaries cleared, a fresh `Memory`), its workspace opened
    for it."""
    summary._CACHES.clear()
    with Workspace.open(state_root, repo) as ws:
        return conductor.tick(ws, memory=conductor.Memory())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--workers", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {}
    with tempfile.TemporaryDirectory(prefix="oms-tick-") as tmp:
        for size in sizes:
            results[size] = measure(Path(tmp) / f"n{size}", size, args.workers, args.repeat)
    base = results[sizes[0]]["tick_ms"]
    phase_names = list(conductor.PHASES)
    rows = [
        [
            f"{size} tickets, {args.workers} workers",
            f"{r['tick_ms']:.1f}",
            f"{r['tick_ms'] / base:.2f}",
            str(int(r["reads"])),
            *(f"{r[p]:.1f}" for p in phase_names),
        ]
        for size, r in results.items()
    ]
    print(table(["store", "tick ms (median)", "x smallest", "record reads", *phase_names], rows))
    print()
    shot = results[sizes[0]]["shot_ms"]
    rows = [
        [
            f"{size} tickets, {args.workers} workers",
            f"{r['shot_ms']:.1f}",
            f"{r['shot_ms'] / shot:.2f}",
            *(f"{r['shot_' + p]:.1f}" for p in phase_names),
        ]
        for size, r in results.items()
    ]
    print("one-shot ticks (`oms conductor tick`, as from cron: nothing kept between ticks)")
    print(table(["store", "tick ms (median)", "x smallest", *phase_names], rows))
    print()
    for size, r in results.items():
        if size != sizes[0]:
            print_ratio(f"an idle tick, {size} tickets", r["tick_ms"], f"{sizes[0]} tickets", base)
            print_ratio(
                f"a one-shot tick, {size} tickets", r["shot_ms"], f"{sizes[0]} tickets", shot
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
