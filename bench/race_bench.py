"""Race counts for issue 11: two bridges of one dispatch recording different results at the same
moment.

    .venv/bin/python bench/race_bench.py [--races 500]

Each race restores one acknowledged dispatch (a real repository, a real worktree with one commit)
from a snapshot of its state root, forks two processes that wait on one pipe and then call
`record_dispatch_result` through the bridge's own tools (one `completed` with the commit, one
`blocked`), and checks the outcome from the store. Printed: races run, how many each result won,
disagreements (the worker's end is not the one the dispatch's result implies), double wins (both
callers told "recorded"), and signed result evidence left by a loser. Target: 0 disagreements, 0
double wins, 0 loser evidence. Each race takes turns with its baseline, one caller alone from the
same snapshot (the same fork and call with one process; it must be recorded): the median time of a
race against it is printed for orientation only. Exit 1 if a count is not 0.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, pin_scratch_git, print_ratio, scratch_anchors, table
from tests.agent_side import BoundTools, bind
from tests.chain import make_chain
from tests.integration.test_one_result_wins import outcome, race, restore


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--races", type=int, default=500)
    args = parser.parse_args()
    pin_scratch_git()
    scratch_anchors()
    with tempfile.TemporaryDirectory(prefix="oms-race-") as tmp, contextlib.ExitStack() as stack:
        chain = stack.enter_context(contextlib.contextmanager(make_chain)(Path(tmp)))
        bound = bind(chain)
        tools = BoundTools(bound)
        tools.call("acknowledge_dispatch", {})
        tools.close()
        commit = bound.commit_change()
        snap = Path(tmp) / "snapshot"
        shutil.copytree(chain.state, snap, symlinks=True)
        completed = {"status": "completed", "summary": "Fixed.", "result_commit": commit}
        blocked = {"status": "blocked", "summary": "Cannot reproduce."}
        wins = {"completed": 0, "blocked": 0}
        disagreements = double_wins = loser_evidence = refusals = solo_failures = 0
        raced, alone = [], []
        for n in range(args.races):
            restore(bound, snap)  # the baseline: one caller alone, from the same state
            started = time.perf_counter()
            (answer,) = race(bound, [blocked] if n % 2 else [completed])
            alone.append(time.perf_counter() - started)
            solo_failures += bool(answer["error"])
            restore(bound, snap)
            started = time.perf_counter()
            answers = race(bound, [completed, blocked] if n % 2 else [blocked, completed])
            raced.append(time.perf_counter() - started)
            won = [a for a in answers if not a["error"]]
            double_wins += len(won) > 1
            refusals += sum(
                "different result" in str(a["result"].get("error", "")) for a in answers
            )
            _state, status, worker_state, evidence = outcome(bound)
            if status:
                wins[status] += 1
            disagreements += worker_state != ("done" if status == "completed" else "blocked")
            loser_evidence += max(0, evidence - 1)
    rows = [
        ["races", str(args.races)],
        ["won by completed / blocked", f"{wins['completed']} / {wins['blocked']}"],
        ["losers refused (different result)", str(refusals)],
        ["double wins (both told recorded)", str(double_wins)],
        ["worker/dispatch disagreements", str(disagreements)],
        ["loser evidence left signed", str(loser_evidence)],
        ["one caller alone refused (baseline)", str(solo_failures)],
    ]
    print(table(["result races", "count"], rows))
    print()
    print_ratio("a race of two callers", median_ms(raced), "one caller alone", median_ms(alone))
    return 0 if (double_wins, disagreements, loser_evidence, solo_failures) == (0, 0, 0, 0) else 1


if __name__ == "__main__":
    raise SystemExit(main())
