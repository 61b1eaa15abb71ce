"""`bench/limits_bench.py --small` runs as CI would run it, in a fresh HOME, and its attackers are
ended at their bounds (issue 23): a bench nothing runs rots. Only what happened is checked, never a
timing."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.helpers import REPO


@pytest.mark.slow
def test_the_limits_bench_runs_small_and_its_attackers_end_at_their_bounds() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "bench" / "limits_bench.py"), "--small"],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "the attacker (fork bomb) lasted" in done.stdout
    assert "ended: limit: pids: it reached its bound of 2048 tasks" in done.stdout
    assert "ended: limit: memory: it reached its bound of 536870912 bytes" in done.stdout
    assert "`oms status --json`" in done.stdout
