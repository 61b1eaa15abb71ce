"""What the CLI's command tree costs a command's start: the whole app (every group's module
imported, every command built) against the app a run gets (`oms/cli/app.py` `app_for`: its own
group's module, its own command's tree, `oms/cli/narrow.py`).

    .venv/bin/python bench/cli_tree_bench.py [--runs 20]

Two parts, each against its baseline measured in the same run, the cases taking turns:
- in this process: Typer's Click tree built for the whole app, and for the app narrowed to each
  command (the median over the commands of each one's median);
- whole processes from source, in a scratch repository with a state root of one ticket: `oms
  ticket list --json`, `oms status --json` and `oms worker deliver` with no argument (a usage error)
  run as the boundary runs them, and given the whole app (the same process otherwise).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    median_ms,
    p90_ms,
    pin_scratch_git,
    print_ratio,
    scratch_anchors,
    table,
    time_calls,
    time_interleaved,
)

RUNNER = (
    "import sys\n"
    "from oms.cli import app, boundary\n"
    "if sys.argv[1] == 'whole':\n"
    "    app.app_for = lambda _args: app.app\n"
    "raise SystemExit(boundary.run_cli(sys.argv[2:]))\n"
)


def _paths(command: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    commands = getattr(command, "commands", None)
    if commands is None:
        yield path
        return
    for name, sub in commands.items():
        yield from _paths(sub, (*path, name))


def tree_costs(runs: int) -> tuple[float, float, int]:
    """(whole app, narrowed) in ms: the whole app's median build, and the median over commands of
    each one's median build narrowed to it."""
    from typer.main import get_command

    from oms.cli.app import app
    from oms.cli.narrow import narrowed

    paths = sorted(_paths(get_command(app)))
    whole = median_ms(time_calls(lambda: get_command(app), runs, warmup=1))
    narrow = [
        median_ms(time_calls(lambda p=p: get_command(narrowed(app, [*p, "--json"])), runs, 1))
        for p in paths
    ]
    return whole, statistics.median(narrow), len(paths)


def _process(mode: str, argv: Sequence[str], cwd: str, code: int) -> Callable[[], None]:
    def once() -> None:
        done = subprocess.run(
            [sys.executable, "-c", RUNNER, mode, *argv],
            cwd=cwd,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,
        )
        if done.returncode != code:
            raise SystemExit(f"{' '.join(argv)} ({mode}) exited {done.returncode}, not {code}")

    return once


def process_costs(runs: int) -> dict[str, list[float]]:
    from oms.demo import scratch as demo
    from oms.services.chain import tickets
    from oms.services.workspace import Workspace

    with tempfile.TemporaryDirectory(prefix="oms-tree-") as tmp:
        run = demo._prepare(str(Path(tmp) / "demo"))
        with Workspace.open(run.state_root, run.repo) as ws:
            tickets.add(ws, "one ticket", "its body\n")
        where = ["--state-root", run.state_root, "--config-root", run.repo]
        cases: dict[str, Callable[[], None]] = {}
        for name, argv, code in (
            ("oms ticket list --json", ["ticket", "list", "--json", *where], 0),
            ("oms status --json", ["status", "--json", *where], 0),
            ("oms worker deliver (usage)", ["worker", "deliver"], 2),
        ):
            cases[f"{name}, whole app"] = _process("whole", argv, tmp, code)
            cases[f"{name}, narrowed"] = _process("narrow", argv, tmp, code)
        return time_interleaved(cases, runs, warmup=1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    whole, narrow, count = tree_costs(args.runs)
    print(
        table(
            ["Click tree built (in process)", "median ms over commands"],
            [[f"whole app ({count} commands)", f"{whole:.1f}"], ["narrowed", f"{narrow:.1f}"]],
        )
    )
    print()
    samples = process_costs(args.runs)
    rows = [[name, f"{median_ms(s):.1f}", f"{p90_ms(s):.1f}"] for name, s in samples.items()]
    print(table(["process (from source)", "median ms", "p90 ms"], rows))
    print()
    print_ratio("Click tree, narrowed", narrow, "whole app", whole)
    for name in ("oms ticket list --json", "oms status --json", "oms worker deliver (usage)"):
        print_ratio(
            f"{name}, narrowed",
            median_ms(samples[f"{name}, narrowed"]),
            "whole app",
            median_ms(samples[f"{name}, whole app"]),
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
