"""What `--help` costs (issue 15): the fast paths answer it before Typer loads, the rest through
Typer.

    .venv/bin/python bench/help_bench.py [--runs 30] [--binary dist/oms/oms]

Runs the frozen binary (default `dist/oms/oms`, from `python build/freeze.py`): `oms --version` is
the baseline (the fast path's floor), then the fast paths' `--help`, then Typer's `oms --help` and a
group's. The cases take turns run by run; medians and p90 in ms, and each against the baseline.
Nothing is asserted.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import command_runner, median_ms, p90_ms, print_ratio, table, time_interleaved

REPO = Path(__file__).resolve().parent.parent
BASELINE = "oms --version (baseline)"
CASES = {
    BASELINE: ("--version",),
    "oms hook provider --help": ("hook", "provider", "--help"),
    "oms worker bridge --help": ("worker", "bridge", "--help"),
    "oms worker supervise --help": ("worker", "supervise", "--help"),
    "oms --help (Typer)": ("--help",),
    "oms store compact --help (Typer)": ("store", "compact", "--help"),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--binary", default=str(REPO / "dist" / "oms" / "oms"))
    args = parser.parse_args()
    binary = str(Path(args.binary).resolve())
    if not Path(binary).is_file():
        print(f"{binary} is missing: run `python build/freeze.py` first", file=sys.stderr)
        raise SystemExit(1)
    samples = time_interleaved(
        {name: command_runner((binary, *argv)) for name, argv in CASES.items()}, args.runs
    )
    base = median_ms(samples[BASELINE])
    rows = [
        [name, f"{median_ms(s):.1f}", f"{p90_ms(s):.1f}", f"{median_ms(s) / base:.2f}"]
        for name, s in samples.items()
    ]
    print(table(["command (frozen)", "median ms", "p90 ms", "x baseline"], rows))
    print()
    for name, s in samples.items():
        if name != BASELINE:
            print_ratio(name, median_ms(s), "oms --version", base)


if __name__ == "__main__":
    main()
