"""`oms result verify`'s checks and the providers' quota probes run in cgroups of their own (issue
23, ADR 0025), beneath the caller's, with the committed `[limits]`: a check or a probe that reaches
a bound fails and says which; nothing of their cgroups is left afterwards."""

from __future__ import annotations

import contextlib
import os
import threading
from pathlib import Path

import pytest

from oms.adapters import cgroups
from oms.domain.sandbox_limits import SandboxLimits
from oms.errors import ProcessError
from oms.services.chain import providers
from oms.services.finishing import verify
from tests.chain import Chain
from tests.helpers import eventually
from tests.integration.test_finishing import _result

MIB = 1024 * 1024


def _checks(command: str, limits: str = "") -> str:
    return f"""
[verify]
commands = [["sh", "-c", "{command}"]]
timeout_seconds = 60
{limits}"""


def _ours(kind: str) -> list[Path]:
    """This process's sandbox cgroups of `kind` (c: checks, p: probes) that exist now."""
    prefix = f"oms-{kind}-{os.getpid()}-"
    return [p for place in cgroups.where() for p in Path(place.base).glob(prefix + "*")]


def test_a_check_runs_in_a_cgroup_of_its_own_beneath_the_callers(chain: Chain) -> None:
    bound = _result(chain, _checks("sleep 3"))
    seen: list[tuple[str, list[str], str]] = []

    def look() -> bool:
        for node in _ours("c"):
            procs = (node / "cgroup.procs").read_text().split()
            if procs:
                named = ("pids.max", "memory.limit_in_bytes")
                files = [f for f in named if (node / f).exists()]
                limit = (node / files[0]).read_text().strip() if files else ""
                seen.append((str(node), procs, limit))
        return bool(seen)

    def watch() -> None:
        with contextlib.suppress(AssertionError):  # (the test's assertions say what was not seen)
            eventually(look, timeout=30, max_poll=0.02)

    looker = threading.Thread(target=watch)
    looker.start()
    with chain.workspace() as ws:
        done = verify.verify(ws, bound.dispatch_id)
    looker.join()
    assert done.passed, [r.output for r in done.ran]
    assert seen, "no cgroup of this check held a process while it ran"
    node, _procs, limit = seen[0]
    bases = [place.base for place in cgroups.where()]
    assert os.path.dirname(node) in bases  # beneath this process's own cgroup
    assert limit in (str(SandboxLimits().pids), str(SandboxLimits().memory_bytes))
    assert _ours("c") == []  # removed once the check ended


@pytest.mark.parametrize(
    ("command", "limits", "reached"),
    [
        (
            "i=0; while [ $i -lt 100 ]; do sleep 30 & i=$((i+1)); done; wait",
            "[limits]\npids = 32\n",
            "pids",
        ),
        (
            "python3 -c 'b = bytearray(1 << 30)'",
            f"[limits]\nmemory_bytes = {64 * MIB}\n",
            "memory",
        ),
    ],
)
def test_a_check_that_reaches_a_bound_fails_and_names_it(
    chain: Chain,
    command: str,
    limits: str,
    reached: str,
) -> None:
    bound = _result(chain, _checks(command, limits))
    with chain.workspace() as ws:
        done = verify.verify(ws, bound.dispatch_id)
    (ran,) = done.ran
    assert not done.passed
    assert ran.limit == reached, (ran.exit_code, ran.output)
    assert ran.evidence()["limit"] == reached
    assert _ours("c") == []


def test_a_quota_probe_runs_in_a_cgroup_of_its_own_beneath_the_callers(chain: Chain) -> None:
    with chain.workspace() as ws:
        argv = providers.sandboxed(ws, ("cat", "/proc/self/cgroup"), None)
        out = providers.run_probe(argv, SandboxLimits()).decode()
    inside = dict(line.split(":", 2)[1:] for line in out.splitlines())
    lines = Path("/proc/self/cgroup").read_text().splitlines()
    mine = dict(line.split(":", 2)[1:] for line in lines)
    for place in cgroups.where():
        for controller in place.controllers:
            parent, name = os.path.split(inside[controller])
            assert parent in (mine[controller], mine[controller].rstrip("/"))  # the caller's
            assert name.startswith(f"oms-p-{os.getpid()}-")
    assert _ours("p") == []


def test_a_quota_probe_that_reaches_a_bound_fails_and_names_it(chain: Chain) -> None:
    bomb = "i=0; while [ $i -lt 100 ]; do sleep 30 & i=$((i+1)); done; wait"
    with chain.workspace() as ws:
        argv = providers.sandboxed(ws, ("sh", "-c", bomb), None)
        with pytest.raises(ProcessError, match=r"limit: pids"):
            providers.run_probe(argv, SandboxLimits(pids=32))
    assert _ours("p") == []
