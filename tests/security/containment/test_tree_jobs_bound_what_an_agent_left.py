"""Issue 23, attacked from outside: a tree job (docs/adr/0024) works on what an agent left, so what
the agent left must not make it take the host's memory. A `.gitignore` is read whole by git and
each of its lines kept as a pattern: 79 MB of short patterns made `git status` hold 433 MB (about
five and a half times the file), and `file_bytes` allows a file of 4 GiB, several of them nested.
The tree jobs ran in no cgroup, outside the worker's memory bound: the host paid. Each job now runs
in a cgroup of its own (`oms-j-...`, beneath oms's own, ADR 0025), and one that reaches its bound
is ended and says so. This test failed before (the result was recorded: nothing bounded the job).
"""

from __future__ import annotations

import pytest

from oms.adapters import tree_job
from oms.limits import LIMITS
from oms.services.doors import bridge
from tests.agent_side import BoundTools, bind
from tests.chain import Chain
from tests.helpers import git

RESULT = {"status": "completed", "summary": "Done."}
MIB = 1024 * 1024


def _bound_tree_jobs(monkeypatch: pytest.MonkeyPatch, memory_bytes: int) -> None:
    """Tree jobs with a small memory bound (only the bound this version of oms has)."""
    bound = {
        k: v for k, v in {"tree_job_memory_bytes": memory_bytes}.items() if k in LIMITS._fields
    }
    monkeypatch.setattr(tree_job, "LIMITS", LIMITS._replace(**bound))


def _hungry_gitignore(size: int) -> bytes:
    """Short distinct patterns: git keeps each line as a pattern of its own."""
    lines, total, n = [], 0, 0
    while total < size:
        line = f"a{n}/**/b*c\n".encode()
        lines.append(line)
        total += len(line)
        n += 1
    return b"".join(lines)


def test_what_an_agent_left_cannot_make_a_tree_job_take_the_hosts_memory(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    _bound_tree_jobs(monkeypatch, 256 * MIB)
    bound = bind(chain)
    branch_before = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
    tools = BoundTools(bound)
    logs: list[str] = []
    tools.log = logs.append
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        (bound.worktree / "WORK.md").write_text("the agent's work\n")
        # ~100 MB: git status would hold ~550 MB for it, twice the bound
        (bound.worktree / ".gitignore").write_bytes(_hungry_gitignore(100 * MIB))
        out, is_error = tools.call("record_dispatch_result", RESULT)
    finally:
        tools.close()
    assert is_error is True, out  # before: recorded, the host's memory spent
    assert str(out["error"]) == bridge.HOST_SIDE  # the agent hears no host-side detail (ADR 0029)
    assert "limit: memory" in " ".join(logs)  # the whole reason, for a person
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(bound.dispatch_id).state != "result-received"
    assert git("rev-parse", "HEAD", cwd=bound.worktree).strip() == branch_before
    assert (bound.worktree / "WORK.md").read_text() == "the agent's work\n"  # the work is kept
