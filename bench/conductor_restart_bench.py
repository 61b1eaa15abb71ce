"""The conductor killed with SIGKILL and restarted, many rounds (issue 12's acceptance scenario, by
hand).

    .venv/bin/python bench/conductor_restart_bench.py [--rounds 10] [--tickets 14] [--workers 8]
        [--seed 1] [--repeat 1] [--min-delay 0.2] [--max-delay 3] [--keep]

Each repeat builds a real fleet (`tests/fleet.py`: git, tmux, panes, sandboxes), runs `oms conductor
run --interval 1 --json` as a real process, kills it with SIGKILL after a seeded random delay and
restarts it, `--rounds` times, then lets it work through the queue (`tests/restart.py`). Printed per
repeat: rounds, kills, restarts whose first tick was checked, ticks, dispatches, failed attempts,
and the counts that must be 0 — duplicate launches, lost results, workers not classified by a
restart's first tick, panes or sandboxes left running, failed ticks — and each violation. Each
repeat also runs its baseline: a fleet of the same seed (the same tickets, the same naps) worked
through by one conductor never killed, counted the same way; printed last, the median time to work
through the queue with the kills against it. The oms under test is `OMS_TEST_BINARY` (default: this
checkout's `python -m oms`). Exit 1 if any count is not 0.
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
from tests.restart import prepare, scenario


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=10)
    parser.add_argument("--tickets", type=int, default=14)
    parser.add_argument("--workers", type=int, default=8)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--min-delay", type=float, default=0.2)
    parser.add_argument("--max-delay", type=float, default=3.0)
    parser.add_argument("--settle", type=float, default=300.0, help="seconds the last run may take")
    parser.add_argument("--keep", action="store_true", help="keep each fleet's directory (printed)")
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    failed = 0
    seconds: dict[str, list[float]] = {"killed": [], "baseline": []}
    for n in range(args.repeat):
        for name, rounds in (("killed", args.rounds), ("baseline", 0)):
            report = one(args, args.seed + n, rounds)
            print(json.dumps({"run": name, **report}, sort_keys=True), flush=True)
            if "error" in report or report.get("violations"):
                failed += 1
            else:
                seconds[name].append(float(report["seconds"]))
    print(json.dumps({"repeats": args.repeat, "failed": failed}))
    if seconds["killed"] and seconds["baseline"]:
        print_ratio(
            f"the queue worked through, {args.rounds} SIGKILLs",
            statistics.median(seconds["killed"]),
            "never killed",
            statistics.median(seconds["baseline"]),
            unit="s",
        )
    return 1 if failed else 0


def one(args: argparse.Namespace, seed: int, rounds: int) -> dict[str, object]:
    """One fleet of `seed` worked through with `rounds` kills; its report (`Outcome.to_json`)."""
    tmp = tempfile.mkdtemp(prefix="oms-restart-")
    base = Path(tmp, "fleet")
    fleets = prepare(base, tickets_n=args.tickets, max_workers=args.workers, seed=seed)
    fleet = next(fleets)
    try:
        outcome = scenario(
            fleet,
            rounds=rounds,
            seed=seed,
            min_delay=args.min_delay,
            max_delay=args.max_delay,
            settle_s=args.settle,
        )
        report = outcome.to_json()
    except AssertionError as exc:
        report = {"error": str(exc)}
    finally:
        with contextlib.suppress(StopIteration):
            next(fleets)  # ends what the fleet left (`tests/restart.clean_up`)
    kept = args.keep or "error" in report or report.get("violations")
    if not kept:
        shutil.rmtree(tmp, ignore_errors=True)
    return {"seed": seed, **report, "directory": tmp if kept else None}


if __name__ == "__main__":
    sys.exit(main())
