"""What the tree jobs (docs/adr/0024) promise besides the race (`tests/security/tree_race/`): a
result and its commit are one unit (a refused result leaves the worktree and its branch as they
were: before, the commit of the leftovers stayed on the branch); a refusal names the path and what
it was, the agent is told why through the bridge's answer, and its work stays in the worktree; the
advisor never starts where an agent wrote (before, its cwd was the worktree a previous attempt
left). Each failed before."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest

from oms.canonical import next_after
from oms.services.chain import dispatches, results
from oms.store.records import Change
from tests.agent_side import BoundTools, bind
from tests.chain import Chain
from tests.helpers import git

RESULT = {"status": "completed", "summary": "Done."}


def _state(chain: Chain, dispatch_id: str, worktree: Path) -> tuple[str, str, str, str]:
    """The dispatch's state, its branch's head, the worktree's index as git lists it, and its
    status."""
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
    branch = str(dispatch.payload["worktree_branch"])
    return (
        dispatch.state,
        git("rev-parse", f"refs/heads/{branch}", cwd=chain.repo).strip(),
        git("ls-files", "-s", cwd=worktree),
        git("status", "--porcelain=v2", "--untracked-files=all", cwd=worktree),
    )


def test_a_refused_result_leaves_the_worktree_and_its_branch_as_they_were(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The leftovers are committed, verified, and only once the result is recorded does the branch
    move: a result refused after its commit was built (here another writer moves the dispatch's
    record while git verifies) moves nothing. (A cancel meanwhile is refused by the fence under
    the end lock: `tests/security/doors/test_an_agents_result_holds_no_end_while_git_checks_it.py`.)
    """
    bound = bind(chain)
    verify = results.verify_commit

    def verify_then_write(*args: Any, **kwargs: Any) -> None:
        verify(*args, **kwargs)
        with chain.workspace() as ws:  # a version of the dispatch written meanwhile, elsewhere
            records = ws.store.records("dispatch")
            seen = records.read(bound.dispatch_id)
            when = next_after(seen.observed_at, ws.now())
            meanwhile = Change(seen.state, seen.payload, "op-meanwhile", "oms-system", when)
            records.write_next(seen, meanwhile)

    monkeypatch.setattr(results, "verify_commit", verify_then_write)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        (bound.worktree / "WORK.md").write_text("the agent's work, left uncommitted\n")
        before = _state(chain, bound.dispatch_id, bound.worktree)
        out, is_error = tools.call("record_dispatch_result", RESULT)
    finally:
        tools.close()
    assert is_error is True, out
    assert "changed under us" in str(out["error"])  # the record's compare-and-swap refused it
    after = _state(chain, bound.dispatch_id, bound.worktree)
    assert after[1:] == before[1:]  # the branch, the index, the files
    assert (bound.worktree / "WORK.md").read_text() == "the agent's work, left uncommitted\n"


def test_a_refusal_names_the_path_and_what_it_was_and_keeps_the_work(chain: Chain) -> None:
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        (bound.worktree / "WORK.md").write_text("the agent's work\n")
        (bound.worktree / "README.md").unlink()
        os.mkfifo(bound.worktree / "README.md")  # a tracked file the agent turned into a FIFO
        before = _state(chain, bound.dispatch_id, bound.worktree)
        out, is_error = tools.call("record_dispatch_result", RESULT)
    finally:
        tools.close()
    assert is_error is True, out
    assert "README.md is a FIFO, which git cannot keep" in str(out["error"])  # the agent is told
    assert _state(chain, bound.dispatch_id, bound.worktree) == before
    assert (bound.worktree / "WORK.md").read_text() == "the agent's work\n"
    assert (bound.worktree / "README.md").is_fifo()


ADVISOR = """
import json, os, sys
with open(sys.argv[1], "w") as f:
    f.write(os.getcwd())
digest = json.load(sys.stdin)["dispatch_intent_sha256"]
print(json.dumps({"verdict": "approve", "rationale": "ok", "dispatch_intent_sha256": digest}))
"""


def test_the_advisor_never_starts_in_a_worktree_an_agent_wrote(
    chain: Chain,
    tmp_path: Path,
) -> None:
    """An agent CLI loads what it finds where it starts (instructions, settings, skills): a retry's
    worktree holds the previous agent's files."""
    advisor = tmp_path / "where_advisor.py"
    advisor.write_text(ADVISOR)
    marker = tmp_path / "advisor-cwd"

    def change(text: str) -> str:
        head, section, tail = text.partition('[roles."oms.exec-advisor"]')
        end = tail.find("\n[")
        body, rest = (tail, "") if end < 0 else (tail[:end], tail[end:])
        lines = [line for line in body.splitlines() if not line.startswith(("argv", "transport"))]
        argv = f'argv = ["{sys.executable}", "{advisor}", "{marker}"]'
        return head + section + "\n".join([*lines, 'transport = "command"', argv]) + "\n" + rest

    chain.edit_config(change, commit=True)
    _, _, dispatch_id = chain.proposed()
    with chain.workspace() as ws:
        dispatches.review(ws, dispatch_id)
    assert marker.read_text() == "/"
