"""Act, then validate (issue 11): a second attempt's launch reset the expired first attempt's
checkout (`refs/oms/expired/...` kept, `reset --hard` to the start commit) and only then found that
the agent CLI was the wrong version, and parked. The worktree was rewritten for a launch that never
happened.

Now `prepare` asks the cheap refusals (the agent CLI's version, bubblewrap) before the expired-lease
restore: a launch they refuse leaves the worktree exactly as the expired attempt left it (its HEAD,
no `refs/oms/expired/...` ref) and parks the worker with their reason. The expired attempt here
committed its work and left the tree clean: the one case the restore resets (uncommitted changes it
refuses, untouched)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.services.chain import dispatches, tickets
from oms.services.delivery.service import Delivery
from tests.chain import Chain
from tests.helpers import git

CODEX_ROLE = "oms.goal-long-executor"
# Stand-ins first on PATH: a codex that prints `version` (oms was verified against 0.171.x:
# plans.COMPATIBLE) and, unless None, a bwrap that fails with that message (the real one cannot be
# made to fail here).
REFUSALS = {
    "agent CLI version": ("0.99.0", None, "codex 0.99.0 is not compatible (expected 0.171.x)"),
    "bubblewrap unusable": (
        "0.171.0",
        "bwrap: setting up uid map: Permission denied",
        "bubblewrap cannot make a sandbox here",
    ),
}


def _stand_ins(bin_dir: Path, version: str, bwrap_error: str | None) -> None:
    bin_dir.mkdir()
    scripts = {"codex": f"#!/bin/sh\necho 'codex-cli {version}'\n"}
    if bwrap_error is not None:
        scripts["bwrap"] = f"#!/bin/sh\necho '{bwrap_error}' >&2\nexit 1\n"
    for name, text in scripts.items():
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)


@pytest.mark.parametrize("case", sorted(REFUSALS))
def test_a_cheap_refusal_parks_before_the_expired_checkout_is_reset(
    deliverable: Chain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, case: str
) -> None:
    version, bwrap_error, why = REFUSALS[case]
    _stand_ins(tmp_path / "fake-bin", version, bwrap_error)
    monkeypatch.setenv("PATH", f"{tmp_path / 'fake-bin'}:{os.environ['PATH']}")
    ticket_id, _ = deliverable.leased_ticket()
    with deliverable.workspace() as ws:
        first, _ = dispatches.propose(ws, ticket_id, CODEX_ROLE)
        start = str(first.payload["worktree_start_commit"])
    wt = deliverable.base / "oms-worktrees" / ticket_id
    (wt / "partial.txt").write_text("half done\n")
    git("add", "-A", cwd=wt)
    git("commit", "-q", "-m", "partial work of attempt 1", cwd=wt)
    partial = git("rev-parse", "HEAD", cwd=wt).strip()
    assert partial != start  # what the restore would reset, the tree clean: nothing refuses it
    deliverable.clock.advance(61)
    with deliverable.workspace() as ws:
        [expired] = tickets.expire_due(ws)
        assert expired.payload["attempt"] == 2
        tickets.lease(ws, ticket_id, "w2")
        second, _ = dispatches.propose(ws, ticket_id, CODEX_ROLE)
        dispatches.review(ws, second.record_id)
        _, event_id = dispatches.accept(ws, second.record_id)
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "parked", outcome
    assert why in str(outcome["reason"]), outcome
    assert git("rev-parse", "HEAD", cwd=wt).strip() == partial, (
        "the refused launch reset the expired checkout"
    )
    assert git("for-each-ref", "refs/oms/", cwd=wt) == "", "the refused launch kept an expired ref"
    assert (wt / "partial.txt").read_text() == "half done\n"
    assert git("status", "--porcelain", cwd=wt) == ""
    with deliverable.workspace() as ws:
        worker = ws.store.records("worker").read(second.record_id)
        assert Delivery.open(ws).panes.list() == []
    assert (worker.state, worker.payload["health"]) == ("idle", "parked")
    assert why in str(worker.payload["health_reason"])
    assert list(deliverable.state.glob("panes/*.launch.json")) == []
