"""`oms result diff` of a large change (issue 27: a 5,000-file change starts printing within
0.5 s): the diff streams from git as it writes it, never buffered whole.

    .venv/bin/python bench/review_bench.py [--files 5000] [--repeat 5] [--oms dist/oms/oms]

A real state root and repository (the demo's): one ticket leased, its worktree made, its dispatch
proposed, reviewed and accepted, and a completed result of `--files` new files recorded through the
bridge (oms commits them in its tree job, as for an agent). Each command runs as a new process of
the given `oms` (the frozen CLI when built, else the source's), its stdout a pipe: the time to its
first byte and to its end, medians of `--repeat` runs. Baselines measured in the same run: `oms
--version` (start-up alone), `oms ticket list` (a command that opens the state root, one ticket)
and `git diff` of the same two objects (first byte).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import pin_scratch_git, print_ratio, scratch_anchors, table
from oms.canonical import operation_nonce
from oms.demo import scratch as demo
from oms.services.chain import dispatches, tickets, worktrees
from oms.services.chain.liveness import CONSUMER
from oms.services.doors import bridge
from oms.services.finishing import review
from oms.services.workspace import Workspace

ROOT = Path(__file__).resolve().parent.parent


def first_byte(argv: list[str]) -> tuple[float, float]:
    """(seconds to the first byte on stdout, seconds to the end) of one run."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    first = os.read(fd, 65536)
    at = time.perf_counter() - start
    assert first, f"{argv[:3]} printed nothing"
    while os.read(fd, 1 << 20):
        pass
    proc.stdout.close()
    if proc.wait() != 0:
        raise SystemExit(f"{argv[:4]} failed")
    return at, time.perf_counter() - start


def medians(argv: list[str], repeat: int) -> tuple[float, float]:
    runs = [first_byte(argv) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), statistics.median(r[1] for r in runs)


def result_of(base: Path, files: int) -> tuple[str, str, str, review.Change]:
    """(state root, repository, dispatch id, its change) of a completed `files`-file result."""
    run = demo._prepare(str(base))
    with Workspace.open(run.state_root, run.repo) as ws:
        ticket = tickets.add(ws, "a large change", "Add many files.\n")
        tickets.lease(ws, ticket.record_id, "bench")
        worktrees.create(ws, ticket.record_id)
        proposed, _ = dispatches.propose(ws, ticket.record_id)
        dispatches.review(ws, proposed.record_id)
        accepted, event_id = dispatches.accept(ws, proposed.record_id)
        worktree = Path(str(accepted.payload["worktree_path"]))
        for i in range(files):
            sub = worktree / f"d{i % 50}"
            sub.mkdir(exist_ok=True)
            (sub / f"f{i}.txt").write_text(f"line one of {i}\nline two of {i}\n")
        args = bridge.BridgeArgs(
            accepted.record_id,
            str(accepted.payload["session_id"]),
            operation_nonce(event_id, CONSUMER),
        )
        tools = bridge.Tools(args, lambda: ws)
        tools.call("acknowledge_dispatch", {})
        done, is_error = tools.call(
            "record_dispatch_result", {"status": "completed", "summary": f"{files} files"}
        )
        assert is_error is False, done
        change = review.change_of(ws, accepted.record_id)
    return run.state_root, run.repo, accepted.record_id, change


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    frozen = ROOT / "dist" / "oms" / "oms"
    source = Path(sys.executable).parent / "oms"
    parser.add_argument("--oms", default=str(frozen if frozen.is_file() else source))
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    with tempfile.TemporaryDirectory(prefix="oms-review-") as tmp:
        state, repo, dispatch_id, change = result_of(Path(tmp) / "demo", args.files)
        where = ["--state-root", state, "--config-root", repo]
        cases = {
            "`oms --version`": [args.oms, "--version"],
            "`oms ticket list`": [args.oms, "ticket", "list", *where],
            "`git diff` of the same objects": [
                "git", "-C", repo, "--no-pager", "diff", change.old, change.new,
            ],
            "`oms result diff`": [args.oms, "result", "diff", dispatch_id, "--no-pager", *where],
            "`oms result diff --stat`": [args.oms, "result", "diff", dispatch_id, "--stat", *where],
            "`oms result show`": [args.oms, "result", "show", dispatch_id, *where],
        }  # fmt: skip
        got = {name: medians(argv, args.repeat) for name, argv in cases.items()}
    rows = [
        [name, f"{first * 1000:.0f}", f"{end * 1000:.0f}"] for name, (first, end) in got.items()
    ]
    print(f"{args.files} new files, `{args.oms}`")
    print(table(["command", "first byte ms", "end ms"], rows))
    print()
    start = got["`oms --version`"][1] * 1000
    for name in ("`oms result diff`", "`oms result diff --stat`", "`oms result show`"):
        print_ratio(
            f"{name} first byte, {args.files} files", got[name][0] * 1000, "`oms --version`", start
        )
    listed = got["`oms ticket list`"][0] * 1000
    print_ratio(
        f"`oms result diff` first byte, {args.files} files",
        got["`oms result diff`"][0] * 1000,
        "`oms ticket list` first byte",
        listed,
    )
    git_first = got["`git diff` of the same objects"][0] * 1000
    print_ratio(
        f"`oms result diff` first byte, {args.files} files",
        got["`oms result diff`"][0] * 1000,
        "`git diff` first byte",
        git_first,
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
