"""Submodules run no code (issue 10, case 2). `git status --ignore-submodules=none` ran `status`
inside each submodule with that submodule's own config: a `filter.x.clean` planted in
`<worktree>/sub/.git` ran during `oms worker deliver`, which then launched. Now oms never enters a
submodule — worktree creation, checkout verification at delivery, and result verification — and
compares a submodule's checked-out commit with its gitlink at object level. Each planted filter
would write a marker; it never appears."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, cast

import pytest

from oms.errors import CheckoutChangedError
from oms.services.chain import tickets, worktrees
from oms.services.checkout import planned as checkout
from oms.services.delivery.service import Delivery
from tests.agent_side import BoundTools, bind
from tests.chain import Chain, accepted, use_worker
from tests.helpers import git

if TYPE_CHECKING:
    from oms.schemas.payloads import DispatchPayload

ID = ("-c", "user.name=t", "-c", "user.email=t@t", "-c", "protocol.file.allow=always")


def _library(base: Path) -> Path:
    lib = base / "library"
    git("init", "-q", "-b", "main", str(lib), cwd=base)
    (lib / "notes.txt").write_text("x\n")
    (lib / ".gitattributes").write_text("*.txt filter=planted\n")
    git("add", "-A", cwd=lib)
    git(*ID, "commit", "-qm", "library", cwd=lib)
    return lib


def _with_submodule(chain: Chain) -> None:
    """The repository gains a submodule `sub` (committed), as a project may have."""
    lib = _library(chain.base)
    git(*ID, "submodule", "add", "-q", str(lib), "sub", cwd=chain.repo)
    git(*ID, "commit", "-qm", "a submodule", cwd=chain.repo)


def _plant(worktree: Path, chain: Chain) -> Path:
    """A checked-out submodule in `worktree` whose own config runs a filter (as an agent could leave
    it)."""
    marker = chain.base / "ran.marker"
    sub = worktree / "sub"
    if not (sub / ".git").exists():
        git(*ID, "submodule", "update", "-q", "--init", cwd=worktree)
    script = chain.base / "planted.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat\n")
    script.chmod(0o755)
    git("config", "filter.planted.clean", str(script), cwd=sub)
    os.utime(
        sub / "notes.txt", (0, 0)
    )  # a stat mismatch: a `status` inside would refresh (and filter)
    assert not marker.exists()
    return marker


def test_submodules_run_no_code_when_a_worktree_is_created_and_verified(chain: Chain) -> None:
    _with_submodule(chain)
    with chain.workspace() as ws:
        ticket = tickets.add(ws, "t", "").record_id
        tickets.lease(ws, ticket, "w1")
        record = worktrees.create(ws, ticket)[0]
    worktree = Path(str(record["worktree_root"]))
    marker = _plant(worktree, chain)
    payload = cast(  # only the binding `verify` reads: not a whole dispatch's payload
        "DispatchPayload",
        {
            "worktree_path": str(worktree),
            "worktree_branch": record["branch"],
            "worktree_base_commit": record["base_commit"],
            "worktree_start_commit": record["base_commit"],
        },
    )
    checkout.verify(payload, str(chain.repo))  # clean: the submodule sits at its gitlink's commit
    assert not marker.exists()
    (worktree / "sub" / "notes.txt").write_text("changed by an agent\n")
    checkout.verify(
        payload, str(chain.repo)
    )  # a change inside a submodule is the submodule's, not this checkout's
    assert not marker.exists()
    moved = git(
        *ID, "commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "moved", cwd=worktree / "sub"
    ).strip()
    git(
        "update-ref", "HEAD", moved, cwd=worktree / "sub"
    )  # plumbing: the test itself runs no filter
    with pytest.raises(CheckoutChangedError, match="submodule sub is not at the commit"):
        checkout.verify(payload, str(chain.repo))
    assert not marker.exists()


def test_submodules_run_no_code_when_a_dispatch_is_delivered(deliverable: Chain) -> None:
    _with_submodule(deliverable)
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        worktree = Path(
            str(ws.store.records("dispatch").read(dispatch_id).payload["worktree_path"])
        )
    marker = _plant(worktree, deliverable)
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        outcome = delivery.deliver(event_id)["outcome"]
        assert isinstance(outcome, dict)
        assert outcome["status"] == "created", outcome
        delivery.stop(dispatch_id, "test over")
    assert not marker.exists()


def test_submodules_run_no_code_when_a_result_is_recorded(chain: Chain) -> None:
    _with_submodule(chain)
    bound = bind(chain)
    marker = _plant(bound.worktree, chain)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        (bound.worktree / "WORK.md").write_text("work\n")
        out, is_error = tools.call(
            "record_dispatch_result", {"status": "completed", "summary": "s"}
        )
    finally:
        tools.close()
    assert is_error is False, out
    assert not marker.exists()
    shown = git(
        "show", "--name-only", "--format=", str(out["result_commit"]), cwd=bound.worktree
    ).split()
    assert shown == ["WORK.md"]  # oms committed the file, not the submodule
