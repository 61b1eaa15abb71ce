"""What `oms audit log --limit N` costs as the ledger grows (issue 26 item 4: O(N), not O(ledger)).

    .venv/bin/python bench/audit_log_bench.py [--sizes 1000,100000] [--limit 5] [--repeat 7]

A real state root and repository (the demo's), its ledger grown to each size with journal entries
(each file published, each line in the ledger's own format with its MAC: built directly, as
bench/ledger_bench.py does, faster than notes would). Timed in-process: `audit.timeline(limit=N)`,
what `oms audit log --limit N` runs, median of `--repeat` runs; printed per size, with the ratio of
the largest size against the smallest measured in the same run.
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
from oms.demo import scratch as demo
from oms.limits import LIMITS
from oms.services.admin import audit
from oms.services.workspace import Workspace
from oms.store import ledger


def grow(ws: Workspace, entries: int) -> None:
    """Grow the ledger to `entries` entries with journal files (each published, each noted)."""
    root = ws.store.state.root
    key = ledger.line_key(root)
    chain = ledger.read_chain(root, key)
    last, prev = chain.head
    data = root.read_bytes(ledger.LOG, LIMITS.ledger_log_bytes)
    root.mkdirs("journals/bench")
    lines = [data]
    for seq in range(last + 1, entries + 1):
        rel, body = f"journals/bench/{seq}.json", b'{"n":%d}' % seq
        root.publish(rel, body, durable=False)
        line = ledger.line_of(seq, prev, ledger.now(), "journal", rel, body, key)
        lines.append(line)
        prev = ledger.hash_of(line)
    root.unlink(ledger.LOG)
    root.publish(ledger.LOG, b"".join(lines))


def measure(base: Path, entries: int, limit: int, repeat: int) -> float:
    """The median ms of the timeline's last `limit` entries of a ledger of `entries`."""
    run = demo._prepare(str(base))
    with Workspace.open(run.state_root, run.repo) as ws:
        grow(ws, entries)
        took = []
        for _ in range(repeat + 1):
            start = time.perf_counter()
            rows, fault = audit.timeline(ws, limit=limit)
            took.append(time.perf_counter() - start)
            assert fault is None, fault
            assert len(rows) == limit, len(rows)
    return statistics.median(took[1:]) * 1000


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,100000")
    parser.add_argument("--limit", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    sizes = [int(s) for s in args.sizes.split(",")]
    results = {}
    with tempfile.TemporaryDirectory(prefix="oms-audit-log-") as tmp:
        for size in sizes:
            results[size] = measure(Path(tmp) / f"n{size}", size, args.limit, args.repeat)
    rows = [[f"{size} entries", f"{ms:.2f}"] for size, ms in results.items()]
    print(table([f"oms audit log --limit {args.limit}", "median ms"], rows))
    print()
    small, large = sizes[0], sizes[-1]
    print_ratio(
        f"audit log --limit {args.limit}, {large} entries",
        results[large],
        f"{small} entries",
        results[small],
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
