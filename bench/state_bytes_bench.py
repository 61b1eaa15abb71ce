"""State-root bytes per dispatch, before and after compaction (issue 14, ADR 0022).

    .venv/bin/python bench/state_bytes_bench.py [--dispatches 20]

Runs `--dispatches` dispatches through the authority chain on a real chain (ticket, lease, worktree,
propose, review by the command advisor, accept, acknowledge and a completed result through the
bridge's tools, verified and merged, the worker stopped), then reports the bytes on disk (allocated
blocks) of each area of the state root, per dispatch; then removes the worktrees (`oms worktree
gc`), lets the retention run out (`[retention] compact_after_days = 1`, the clock moved two days)
and compacts (`oms store compact`), and reports the same again, with the time compaction took.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import pin_scratch_git, print_ratio, scratch_anchors, table
from oms.services.admin import compaction
from oms.services.delivery.service import Delivery
from oms.services.finishing import finish, verify, worktree_gc
from tests.agent_side import BoundTools, bind
from tests.chain import make_chain

AREAS = (
    "records",
    "events",
    "evidence",
    "journals",
    "outbox",
    "index",
    "ledger",
    "tickets",
    "worktree-records",
    "compacted",
)
CHECKS = '\n[verify]\ncommands = [["true"]]\n\n[retention]\ncompact_after_days = 1\n'


def _bytes(path: Path) -> tuple[int, int]:
    """(allocated bytes, files) under `path`."""
    total, files = 0, 0
    for dirpath, _dirs, names in os.walk(path):
        for name in names:
            total += os.lstat(os.path.join(dirpath, name)).st_blocks * 512
            files += 1
    return total, files


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dispatches", type=int, default=20)
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    with tempfile.TemporaryDirectory() as tmp:
        for chain in make_chain(Path(tmp)):
            chain.edit_config(
                lambda text: (
                    text.replace("[worktrees]\n", "[worktrees]\ngc_after_days = 0\n", 1) + CHECKS
                )
            )
            chain.commit("config")
            before = {area: _bytes(chain.state / area) for area in AREAS}
            for n in range(args.dispatches):
                bound = bind(chain, f"Ticket {n}")
                tools = BoundTools(bound)
                try:
                    tools.call("acknowledge_dispatch", {})
                    commit = bound.commit_change(f"work {n}\n")
                    tools.call(
                        "record_dispatch_result",
                        {"status": "completed", "summary": "Done.", "result_commit": commit},
                    )
                finally:
                    tools.close()
                with chain.workspace() as ws:
                    verify.verify(ws, bound.dispatch_id)
                    finish.merge(ws, bound.dispatch_id)
                    Delivery.open(ws).stop(bound.dispatch_id, "bench over")
            ended = {area: _bytes(chain.state / area) for area in AREAS}
            with chain.workspace() as ws:
                worktree_gc.gc(ws, dry_run=False)
            chain.clock.advance(2 * 24 * 60)
            started = time.perf_counter()
            with chain.workspace() as ws:
                report = compaction.compact(ws, dry_run=False)
            took = time.perf_counter() - started
            after = {area: _bytes(chain.state / area) for area in AREAS}
            rows, totals = [], [0, 0]
            n = args.dispatches
            for area in AREAS:
                grown = [ended[area][0] - before[area][0], after[area][0] - before[area][0]]
                files = [ended[area][1] - before[area][1], after[area][1] - before[area][1]]
                totals = [totals[0] + grown[0], totals[1] + grown[1]]
                rows.append(
                    [
                        area,
                        *(f"{g / n / 1024:.1f}" for g in grown),
                        *(f"{f / n:.1f}" for f in files),
                    ]
                )
            rows.append(["all", *(f"{t / n / 1024:.1f}" for t in totals), "", ""])
    print(
        table(
            [
                "area",
                "KiB/dispatch ended",
                "KiB/dispatch compacted",
                "files ended",
                "files compacted",
            ],
            rows,
        )
    )
    print()
    print_ratio(
        "state root bytes, compacted",
        totals[1] / n / 1024,
        "ended",
        totals[0] / n / 1024,
        unit="KiB",
        stat="per dispatch",
    )
    print(
        f"compacted {len(report.compacted)} tickets in {took * 1000:.0f} ms "
        f"({took * 1000 / max(1, len(report.compacted)):.1f} ms a ticket); kept {len(report.kept)}"
    )


if __name__ == "__main__":
    main()
