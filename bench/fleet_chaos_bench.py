"""The fleet chaos run as a soak (issue 24 item 7): `tests/chaos.py`, for as long as asked.

    .venv/bin/python bench/fleet_chaos_bench.py [--seconds 3600] [--tickets 12] [--workers 8]
        [--seed 1] [--gap 3] [--settle 600] [--keep]

A real fleet of `--workers` stand-ins for Claude Code (`tests/chaos_agent.py`) talks to a scripted
upstream (`tests/model_mock.py`) only through the real model proxy, worked by a real `oms conductor
run`; for `--seconds` a seeded RNG SIGKILLs the proxy, the conductor, a worker's broker or the tmux
server, lapses the earliest lease, cancels an attempt or starts a 429 storm, every `--gap` seconds
or so, while new tickets keep `--workers` of them in work; then the fleet settles. Printed: one
JSON line of counts (requests, kills by kind, launches, results, tickets done, waiting for a person
and why) and the counts that must be 0 — duplicate launches, lost results, requests forwarded for
ended or fenced attempts, dispatches over budget by more than one answer, an unsettled fleet, an
unclean `oms audit verify` — with each violation; then the spread of the time from a ticket's
creation to its done (p95 against p50). The seed is printed first: a failure reproduces with it.
The oms under test is `OMS_TEST_BINARY` (default: this checkout's `python -m oms`). Exit 1 on any
violation.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import pin_scratch_git, print_ratio, scratch_anchors
from tests.chaos import prepare, run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=3600.0, help="how long the chaos lasts")
    parser.add_argument("--tickets", type=int, default=12)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--gap", type=float, default=3.0, help="seconds between chaos actions, about"
    )
    parser.add_argument(
        "--settle", type=float, default=600.0, help="seconds the fleet may take to settle"
    )
    parser.add_argument("--keep", action="store_true", help="keep the fleet's directory (printed)")
    args = parser.parse_args()
    print(f"seed: {args.seed}", flush=True)
    pin_scratch_git()
    scratch_anchors()
    tmp = tempfile.mkdtemp(prefix="oms-chaos-")
    fleets = prepare(
        Path(tmp, "fleet"), tickets_n=args.tickets, max_workers=args.workers, seed=args.seed
    )
    chaos = next(fleets)
    try:
        outcome = run(
            chaos,
            seed=args.seed,
            seconds=args.seconds,
            gap=args.gap,
            settle_s=args.settle,
            feed=args.workers,
        )
    finally:
        with contextlib.suppress(StopIteration):
            next(fleets)
    report = outcome.to_json()
    kept = args.keep or bool(outcome.bad())
    if not kept:
        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps({**report, "directory": tmp if kept else None}, sort_keys=True), flush=True)
    if len(outcome.time_to_done) >= 2:
        ordered = sorted(outcome.time_to_done)
        p95 = ordered[int(0.95 * (len(ordered) - 1))]
        print_ratio(
            "time to done under chaos, p95",
            p95,
            "p50",
            statistics.median(ordered),
            unit="s",
            stat="p95 / p50",
        )
    return 1 if outcome.bad() else 0


if __name__ == "__main__":
    sys.exit(main())
