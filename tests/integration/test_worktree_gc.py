"""`oms worktree gc` (issue 14, ADR 0021) on real git and real files: it removes a finished ticket's
worktree and branch only when the work is merged or archived, never with uncommitted work, never
while a worker runs, never before the TTL, never a worktree oms did not make; it says why it kept
each one, and the bytes it freed."""

from __future__ import annotations

from pathlib import Path

from oms.canonical import access
from oms.services.chain import tickets
from oms.services.delivery.service import Delivery
from oms.services.finishing import finish, verify, worktree_gc
from tests.agent_side import Bound
from tests.chain import Chain
from tests.helpers import git
from tests.integration.test_finishing import _result


def _ttl(chain: Chain, days: int) -> None:
    chain.edit_config(
        lambda s: s.replace("[worktrees]\n", f"[worktrees]\ngc_after_days = {days}\n", 1),
        commit=True,
    )


def _stop(chain: Chain, bound: Bound) -> None:
    with chain.workspace() as ws:
        Delivery.open(ws).stop(bound.dispatch_id, "test over")


def _merged(chain: Chain) -> Bound:
    bound = _result(chain)
    with chain.workspace() as ws:
        verify.verify(ws, bound.dispatch_id)
        finish.merge(ws, bound.dispatch_id)
    _stop(chain, bound)
    return bound


def _gc(chain: Chain, *, dry_run: bool = False) -> worktree_gc.Report:
    with chain.workspace() as ws:
        return worktree_gc.gc(ws, dry_run=dry_run)


def test_a_merged_finished_worktree_goes_with_its_branch_dry_run_first(chain: Chain) -> None:
    _ttl(chain, 0)
    bound = _merged(chain)
    dry = _gc(chain, dry_run=True)
    assert [r["path"] for r in dry.removed] == [str(bound.worktree)]
    assert bound.worktree.is_dir()  # a dry run removes nothing
    done = _gc(chain)
    assert [r["path"] for r in done.removed] == [str(bound.worktree)]
    assert done.bytes_freed > 0
    assert not bound.worktree.exists()
    branch = str(done.removed[0]["branch"])
    assert git("branch", "--list", branch, cwd=chain.repo) == ""
    assert _gc(chain).removed == []  # idempotent


def test_a_finished_worktree_stays_until_its_ttl(chain: Chain) -> None:
    _ttl(chain, 7)
    bound = _merged(chain)
    kept = _gc(chain).kept
    assert len(kept) == 1
    assert "gc_after_days" in str(kept[0]["why"])
    chain.clock.advance(8 * 24 * 3600)
    assert [r["path"] for r in _gc(chain).removed] == [str(bound.worktree)]


def test_unmerged_work_stays_until_it_is_archived(chain: Chain) -> None:
    _ttl(chain, 0)
    bound = _result(chain)
    _stop(chain, bound)
    with chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(bound.dispatch_id)
        ticket = tickets.require(ws, access.text(dispatch.payload, "ticket_id"))
        if ticket.state == "leased":
            tickets.give_up(
                ws,
                ticket,
                session_id=bound.session_id,
                attempt=access.integer(dispatch.payload, "attempt"),
                reason="no",
            )
    kept = _gc(chain).kept
    assert "neither merged" in str(kept[0]["why"])
    assert bound.worktree.is_dir()
    head = git("rev-parse", str(kept[0]["branch"]), cwd=chain.repo).strip()
    git("update-ref", f"refs/oms/archive/{ticket.record_id}/1", head, cwd=chain.repo)
    assert [r["path"] for r in _gc(chain).removed] == [str(bound.worktree)]
    assert (
        git("rev-parse", f"refs/oms/archive/{ticket.record_id}/1", cwd=chain.repo).strip() == head
    )


def test_uncommitted_work_or_a_running_worker_keeps_a_worktree(chain: Chain) -> None:
    _ttl(chain, 0)
    bound = _result(chain)
    with chain.workspace() as ws:
        verify.verify(ws, bound.dispatch_id)
        finish.merge(ws, bound.dispatch_id)
    kept = _gc(chain).kept  # the worker was never stopped
    assert "still runs" in str(kept[0]["why"])
    _stop(chain, bound)
    (bound.worktree / "notes.txt").write_text("not committed\n")
    kept = _gc(chain).kept
    assert "uncommitted" in str(kept[0]["why"])
    assert (bound.worktree / "notes.txt").read_text() == "not committed\n"


def test_a_worktree_oms_did_not_make_is_never_touched(chain: Chain) -> None:
    _ttl(chain, 0)
    _merged(chain)
    foreign = chain.base / "oms-worktrees" / "mine"
    git("worktree", "add", "-q", "-b", "mine", str(foreign), "main", cwd=chain.repo)
    _gc(chain)
    assert foreign.is_dir()
    assert git("branch", "--list", "mine", cwd=chain.repo).strip() != ""


def test_the_cli_reports_what_it_removed_and_kept(chain: Chain, tmp_path: Path) -> None:
    from tests.helpers import oms_command

    _ttl(chain, 0)
    bound = _merged(chain)
    run = oms_command().run
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    dry = run("worktree", "gc", "--dry-run", *roots)
    assert dry.returncode == 0, dry.stderr
    assert f"would remove {bound.worktree}" in dry.stdout
    done = run("worktree", "gc", "--json", *roots)
    assert done.returncode == 0, done.stderr
    assert '"bytes_freed"' in done.stdout
    assert not bound.worktree.exists()
