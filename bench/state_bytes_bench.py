"""State-root bytes per dispatch (issue 14, ADR 0022: what compaction of old records would save).

    .venv/bin/python bench/state_bytes_bench.py [--dispatches 20]

Runs `--dispatches` dispatches through the authority chain on a real chain (ticket, lease, worktree,
propose, review by the command advisor, accept, acknowledge and a completed result through the bridge's
tools, the worker stopped), then reports the bytes on disk (allocated blocks) of each area of the state
root, per dispatch. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import table
from oms.services.delivery import Delivery
from tests.agent_side import BoundTools, bind
from tests.chain import make_chain

AREAS = ("records", "events", "evidence", "journals", "outbox", "index", "ledger", "tickets", "worktree-records")


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
    with tempfile.TemporaryDirectory() as tmp:
        for chain in make_chain(Path(tmp)):
            before = {area: _bytes(chain.state / area) for area in AREAS}
            for n in range(args.dispatches):
                bound = bind(chain, f"Ticket {n}")
                tools = BoundTools(bound)
                try:
                    tools.call("acknowledge_dispatch", {})
                    commit = bound.commit_change(f"work {n}\n")
                    tools.call(
                        "record_dispatch_result", {"status": "completed", "summary": "Done.", "result_commit": commit}
                    )
                finally:
                    tools.close()
                with chain.workspace() as ws:
                    Delivery.open(ws).stop(bound.dispatch_id, "bench over")
            rows, total = [], 0
            for area in AREAS:
                size, files = _bytes(chain.state / area)
                grown = size - before[area][0]
                total += grown
                rows.append(
                    [
                        area,
                        f"{grown / args.dispatches / 1024:.1f}",
                        f"{(files - before[area][1]) / args.dispatches:.1f}",
                    ]
                )
            rows.append(["all", f"{total / args.dispatches / 1024:.1f}", ""])
    print(table(["area", "KiB per dispatch", "files per dispatch"], rows))


if __name__ == "__main__":
    main()
