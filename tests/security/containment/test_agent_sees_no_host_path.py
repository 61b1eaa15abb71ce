"""What an agent is told when oms cannot record its result never names a host path but its own
worktree's, and never repeats what git or bubblewrap said (issue 24 item 4, ADR 0029; SECURITY.md
"Salvage"). Before ADR 0029 an agent whose worktree was deleted or broken by hand was shown
`bwrap: Can't find source path /home/.../wt/T: No such file or directory`, or `worktree ... is not
one git lists for /home/.../repo`, or the repository's path with its config's dangerous keys.

The whole reason still reaches a person: the broker's log (`Tools.log`)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable

import pytest

from oms.errors import (
    CheckoutChangedError,
    InvalidInputError,
    OmsError,
    ProcessFailedError,
    TreeJobError,
    UnsafeRepositoryError,
)
from oms.services.doors.bridge import HOST_SIDE, for_agent
from tests.agent_side import Bound, BoundTools, bind
from tests.chain import Chain
from tests.helpers import git

RAW = re.compile(r"fatal:|error:|bwrap:|No such file|usage:")


def _gone(bound: Bound) -> None:
    shutil.rmtree(bound.worktree)


def _pruned(bound: Bound) -> None:
    shutil.rmtree(bound.worktree)
    git("worktree", "prune", cwd=bound.chain.repo)


def _no_dotgit(bound: Bound) -> None:
    (bound.worktree / ".git").unlink()


def _unsafe(bound: Bound) -> None:
    git("config", "core.fsmonitor", "touch /tmp/oms-never", cwd=bound.chain.repo)


def _elsewhere(bound: Bound) -> None:
    (bound.worktree / ".git").write_text(f"gitdir: {bound.chain.repo}/.git\n")


BREAKS: dict[str, Callable[[Bound], None]] = {
    "deleted": _gone,
    "deleted and pruned": _pruned,
    "its .git removed": _no_dotgit,
    "an unsafe repository config": _unsafe,
    "its .git pointed elsewhere": _elsewhere,
}


@pytest.mark.parametrize("how", sorted(BREAKS))
def test_a_result_refused_for_a_broken_worktree_names_no_host_path(chain: Chain, how: str) -> None:
    bound = bind(chain)
    tools = BoundTools(bound)
    logs: list[str] = []
    tools.log = logs.append
    try:
        tools.call("acknowledge_dispatch", {})
        (bound.worktree / "x.txt").write_text("x\n")
        BREAKS[how](bound)
        result = {"status": "completed", "summary": "x"}
        answer, failed = tools.call("record_dispatch_result", result)
    finally:
        tools.close()
    assert failed, answer
    said = str(answer["error"])
    paths = re.findall(r"(?<![\w./~-])/[^\s'\"(),;:]+", said)
    assert [p for p in paths if not p.startswith(str(bound.worktree))] == [], said
    assert str(chain.repo) not in said, said
    assert str(chain.state) not in said, said
    assert RAW.search(said) is None, said
    logged = " ".join(logs)  # the whole reason, for a person
    assert str(chain.repo) in logged or str(bound.worktree) in logged, logs


@pytest.mark.parametrize(
    ("error", "told"),
    [
        (
            ProcessFailedError(("git", "status"), 128, b"fatal: not a git repo: /u/r/.git"),
            HOST_SIDE,
        ),
        (
            TreeJobError("the commit job on /w/t exited 1: bwrap: Can't find source path /w/t"),
            HOST_SIDE,
        ),
        (UnsafeRepositoryError("repository /home/u/r config sets core.fsmonitor"), HOST_SIDE),
        (
            CheckoutChangedError("worktree /w/t is not one git lists for /home/u/r"),
            "worktree /w/t is not one git lists for <host path>",
        ),
        (CheckoutChangedError("x/y is a FIFO, in /w/t/x/y"), "x/y is a FIFO, in /w/t/x/y"),
        (CheckoutChangedError("/w/tt and '/etc/passwd'"), "<host path> and '<host path>'"),
        (
            InvalidInputError("result_commit 'x' is not a full commit id (got 1/2 of refs/x)"),
            "result_commit 'x' is not a full commit id (got 1/2 of refs/x)",
        ),
    ],
)
def test_what_an_agent_is_told(error: OmsError, told: str) -> None:
    assert for_agent(error, "/w/t") == told
