"""A retry runs (issue 24 item 4, ADR 0029): real conductor ticks over a real fleet
(`tests/fleet.py`: real git, tmux, panes, sandboxes), the clock moved, never waited for.

Agents cannot commit, so an attempt that lapses leaves its work uncommitted. The next attempt's
launch salvages that work once (the salvage ref its worker's end made is reused, never a second one
with the same content), restores the recorded commit and launches. A worktree deleted by hand is
made again when nothing can be lost; otherwise the ticket waits for a person, blocked with a reason
that says what is wrong, and no attempt is burnt on it."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import pytest

from oms.canonical import access
from tests.fleet import Fleet, make_fleet
from tests.helpers import git


@pytest.fixture
def lone(tmp_path: Path) -> Iterator[Fleet]:
    """A pool of one; each worker waits in its pane after its result."""
    yield from make_fleet(tmp_path / "fleet", after="wait", max_workers=1)


@pytest.fixture
def quick(tmp_path: Path) -> Iterator[Fleet]:
    """A pool of one whose workers end after their results."""
    yield from make_fleet(tmp_path / "fleet", after="exit", max_workers=1)


def _dispatches(fleet: Fleet, ticket: str) -> dict[int, str]:
    """attempt -> state of each dispatch of `ticket`."""
    with fleet.workspace() as ws:
        records = ws.store.records("dispatch")
        found = [records.read(i) for i in records.ids()]
    ours = [d for d in found if d.payload["ticket_id"] == ticket]
    return {access.integer(d.payload, "attempt"): d.state for d in ours}


def _salvages(fleet: Fleet, ticket: str) -> dict[str, str]:
    """ref -> tree of every salvage of `ticket`."""
    fmt = "--format=%(refname) %(tree)"
    out = git("for-each-ref", fmt, f"refs/oms/salvage/{ticket}/", cwd=fleet.repo)
    return dict(line.split() for line in out.splitlines())


def _attempt(fleet: Fleet, ticket: str) -> int:
    return int(str(fleet.tickets()[ticket][1]["attempt"]))


def _file(fleet: Fleet, rev: str, path: str) -> str:
    return git("show", f"{rev}:{path}", cwd=fleet.repo)


def _launched(fleet: Fleet, ticket: str, attempt: int) -> bool:
    """The attempt's agent ran: its dispatch was acknowledged (the agent called the bridge) or got a
    result — not cancelled by a refused launch."""
    return _dispatches(fleet, ticket).get(attempt) in (
        "acknowledged",
        "result-received",
        "resolved",
    )


def _worktree(fleet: Fleet, ticket: str) -> Path:
    with fleet.workspace() as ws:
        record = ws.store.worktrees.get(ticket)
    assert record is not None
    return Path(str(record["worktree_root"]))


def _failed_once(fleet: Fleet, ticket: str) -> None:
    """Attempt 1 fails with a result, its CHANGELOG line left uncommitted; the backoff passes."""
    fleet.until(lambda: fleet.tickets()[ticket][1]["attempt"] == 2)
    fleet.shift_ms += 11_000


def test_a_lapsed_attempts_work_is_salvaged_once_and_the_retry_launches(lone: Fleet) -> None:
    """The lease of a hanging agent runs out (the conductor was away): it is stopped, its CHANGELOG
    line salvaged at its end; attempt 2's launch finds the same work, keeps it at the same ref,
    restores the start commit and launches. Before ADR 0029 the launch was refused ("worktree is not
    clean") at attempts 2 to 6, each leaving another identical salvage ref, until quarantine."""
    ticket = lone.add("Ticket that would hang")
    lone.until(lambda: _launched(lone, ticket, 1))
    worktree = _worktree(lone, ticket)
    lone.until(lambda: "by the oms demo worker" in (worktree / "CHANGELOG.md").read_text())
    left = (worktree / "CHANGELOG.md").read_text()
    lone.shift_ms += 61 * 60_000
    lone.until(lambda: _launched(lone, ticket, 2) or lone.tickets()[ticket][0] == "blocked")
    assert lone.tickets()[ticket][0] == "leased", lone.tickets()[ticket][1].get("reason")
    assert _dispatches(lone, ticket) == {1: "cancelled", 2: "acknowledged"}
    salvages = _salvages(lone, ticket)
    once = [f"refs/oms/salvage/{ticket}/1"]  # the end's ref, which the restore reused
    assert list(salvages) == once
    assert _file(lone, f"refs/oms/salvage/{ticket}/1", "CHANGELOG.md") == left


def test_a_failed_results_leftovers_do_not_stop_the_next_attempt(quick: Fleet) -> None:
    """A `failed` result commits nothing: its leftovers stayed, and every later launch was refused
    until the ticket was quarantined for a dirty worktree. Now each attempt runs (its result is
    recorded) and the same leftovers are kept at one ref."""
    ticket = quick.add("Please fail")
    for attempt in range(1, 4):
        quick.until(lambda a=attempt: _attempt(quick, ticket) > a)  # type: ignore[misc]
        quick.shift_ms += 301_000
    states = _dispatches(quick, ticket)
    assert [states[a] for a in (1, 2, 3)] == ["resolved", "resolved", "resolved"], states
    failures = quick.tickets()[ticket][1]["failures"]
    assert isinstance(failures, list)
    assert all("failed by the test worker" in str(f["reason"]) for f in failures), failures
    assert list(_salvages(quick, ticket)) == [f"refs/oms/salvage/{ticket}/1"]


def test_a_worktree_deleted_by_hand_is_made_again_and_the_retry_launches(quick: Fleet) -> None:
    """Before: every retry failed ("worktree ... is missing") and the ticket was quarantined."""
    ticket = quick.add("Please fail")
    _failed_once(quick, ticket)
    worktree = _worktree(quick, ticket)
    _rm_rf(worktree)
    quick.until(lambda: _launched(quick, ticket, 2) or quick.tickets()[ticket][0] == "blocked")
    assert _launched(quick, ticket, 2), quick.tickets()[ticket][1].get("reason")
    assert (worktree / ".git").is_file()
    head = git("rev-parse", f"refs/heads/oms/{ticket}", cwd=quick.repo).strip()
    listed = git("worktree", "list", "--porcelain", cwd=quick.repo)
    assert f"worktree {worktree}\nHEAD {head}\nbranch refs/heads/oms/{ticket}" in listed


def _rm_rf(path: Path) -> None:
    """A person's `rm -rf` of a worktree while the conductor may still tidy the failed attempt's
    files in it (its `.mcp.json`): a file gone meanwhile is gone, as `rm -rf` takes it (a full
    CI run beside a CPU hog failed here on `FileNotFoundError: '.mcp.json'`)."""

    def gone_already(
        _fn: Callable[..., Any],
        _path: str,
        exc: tuple[type[BaseException], BaseException, TracebackType],
    ) -> None:
        if not isinstance(exc[1], FileNotFoundError):
            raise exc[1]

    shutil.rmtree(path, onerror=gone_already)


def _blocked(fleet: Fleet, ticket: str) -> str:
    fleet.until(lambda: fleet.tickets()[ticket][0] == "blocked")
    payload = fleet.tickets()[ticket][1]
    failures = payload.get("failures")
    assert isinstance(failures, list)
    assert [f["attempt"] for f in failures] == [1], failures  # no attempt was burnt on it
    return str(payload["reason"])


def test_a_worktree_gone_with_its_branch_waits_for_a_person(quick: Fleet) -> None:
    ticket = quick.add("Please fail")
    _failed_once(quick, ticket)
    _rm_rf(_worktree(quick, ticket))
    git("worktree", "prune", cwd=quick.repo)
    git("branch", "-D", f"oms/{ticket}", cwd=quick.repo)
    reason = _blocked(quick, ticket)
    assert reason.startswith("its worktree waits for a person: worktree ")
    assert f"is gone, and so is its branch oms/{ticket}: nothing to make it from" in reason


def test_a_worktree_that_lost_its_git_but_holds_files_waits_for_a_person(quick: Fleet) -> None:
    ticket = quick.add("Please fail")
    _failed_once(quick, ticket)
    worktree = _worktree(quick, ticket)
    (worktree / ".git").unlink()
    reason = _blocked(quick, ticket)
    assert "lost its .git and holds files oms cannot tell are kept elsewhere" in reason
    assert "worktree repair" in reason
    assert (worktree / "CHANGELOG.md").exists()  # nothing was removed


def test_ignored_leftovers_wait_for_a_person_with_their_name(quick: Fleet) -> None:
    """oms does not delete what it has not kept, and ignored files are not salvaged: the ticket
    waits for a person, whose reason names the first such path (never five failed launches)."""
    ticket = quick.add("Please fail")
    _failed_once(quick, ticket)
    worktree = _worktree(quick, ticket)
    exclude = Path(quick.repo, ".git", "info", "exclude")
    exclude.parent.mkdir(exist_ok=True)
    exclude.write_text("*.pyc\n")
    (worktree / "cache.pyc").write_bytes(b"\x00stale")
    reason = _blocked(quick, ticket)
    assert "worktree carries 1 ignored path (first: cache.pyc)" in reason
    assert "clean -fdX" in reason
    assert (worktree / "cache.pyc").read_bytes() == b"\x00stale"


def test_a_setting_planted_in_the_worktrees_config_waits_for_a_person(quick: Fleet) -> None:
    """A command planted in the worktree's `config.worktree` between two attempts: attempt 1's
    work is kept (its end's salvage reads no setting), the launch into it is refused, and the ticket
    waits for a person with the setting's name. Before, each refused launch counted as a failure:
    attempts 2 to 5 burnt until quarantine, though only a person can remove the setting."""
    ticket = quick.add("Please fail")
    _failed_once(quick, ticket)
    worktree = _worktree(quick, ticket)
    marker = worktree.parent / "ran"
    git("config", "extensions.worktreeConfig", "true", cwd=quick.repo)
    gitdir = git("rev-parse", "--absolute-git-dir", cwd=worktree).strip()
    planted = f"touch {marker}"
    git("config", "--file", f"{gitdir}/config.worktree", "core.fsmonitor", planted, cwd=quick.repo)
    reason = _blocked(quick, ticket)
    assert "config sets core.fsmonitor, which would run code" in reason
    assert list(_salvages(quick, ticket)) == [f"refs/oms/salvage/{ticket}/1"]
    assert not marker.exists()
