"""What the read commands a fleet's operator runs all day cost as the store grows (issue 12: at
10,000 tickets `oms status` and `oms ticket list` ≤ 0.5 s, `oms store verify` ≥ 5,000 files/s).

    .venv/bin/python bench/read_commands_bench.py [--sizes 1000,10000] [--repeat 5]
        [--oms dist/oms/oms]

A real state root and repository (the demo's) with N tickets added through the service (a record
version and a content file each). Each command runs as a new process of the given `oms` (the frozen
CLI by default), as an operator's shell runs it: the first run after the tickets were added (it
reads every record and writes the summary, `store/summary.py`), then the median of `--repeat` runs.
The baseline, measured in the same run, is `oms --version` (the frozen binary's start-up alone).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import command_runner, pin_scratch_git, print_ratio, scratch_anchors, table
from oms.demo import scratch as demo
from oms.services.chain import tickets
from oms.services.workspace import Workspace


def seconds(fn: object, repeat: int) -> tuple[float, float]:
    """(first run, median of the next `repeat`) in seconds."""
    assert callable(fn)
    start = time.perf_counter()
    fn()
    first = time.perf_counter() - start
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        runs.append(time.perf_counter() - start)
    return first, statistics.median(runs)


def files_under(path: str) -> int:
    return sum(len(names) for _, _, names in os.walk(path))


def measure(base: Path, size: int, oms: str, repeat: int) -> dict[str, float]:
    run = demo._prepare(str(base))
    with Workspace.open(run.state_root, run.repo) as ws:
        for n in range(size):
            tickets.add(ws, f"ticket {n}", f"body of ticket {n}\n")
    where = ["--state-root", run.state_root, "--config-root", run.repo]
    out: dict[str, float] = {"files": float(files_under(run.state_root))}
    for name, argv in (
        ("version", [oms, "--version"]),
        ("ticket list", [oms, "ticket", "list", *where]),
        ("status", [oms, "status", *where]),
        ("store verify", [oms, "store", "verify", "--state-root", run.state_root]),
    ):
        first, median = seconds(command_runner(argv), repeat)
        out[f"{name} first"], out[name] = first, median
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="1000,10000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument(
        "--oms", default=str(Path(__file__).resolve().parent.parent / "dist" / "oms" / "oms")
    )
    args = parser.parse_args()
    if not Path(args.oms).is_file():
        print(f"{args.oms} is missing: run `python build/freeze.py` first", file=sys.stderr)
        return 1
    pin_scratch_git()
    scratch_anchors()
    rows = []
    sizes = [int(s) for s in args.sizes.split(",")]
    results: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="oms-reads-") as tmp:
        for size in sizes:
            r = results[size] = measure(Path(tmp) / f"n{size}", size, args.oms, args.repeat)
            rows.append(
                [
                    f"{size} tickets ({int(r['files'])} files)",
                    f"{r['version'] * 1000:.0f}",
                    f"{r['ticket list first'] * 1000:.0f} / {r['ticket list'] * 1000:.0f}",
                    f"{r['status first'] * 1000:.0f} / {r['status'] * 1000:.0f}",
                    f"{r['store verify'] * 1000:.0f}",
                    f"{r['files'] / r['store verify']:.0f}",
                    f"{r['status'] / r['version']:.1f}",
                ]
            )
    print(
        table(
            [
                "store",
                "oms --version ms",
                "ticket list ms (first / median)",
                "status ms (first / median)",
                "store verify ms",
                "verify files/s",
                "status x --version",
            ],
            rows,
        )
    )
    print()
    for size, r in results.items():
        for name in ("ticket list", "status", "store verify"):
            case = f"`oms {name}`, {size} tickets"
            print_ratio(case, r[name] * 1000, "`oms --version`", r["version"] * 1000)
    small, large = sizes[0], sizes[-1]
    if large != small:
        for name in ("ticket list", "status"):
            print_ratio(
                f"`oms {name}`, {large} tickets",
                results[large][name] * 1000,
                f"{small} tickets",
                results[small][name] * 1000,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
