"""Attacks through the agent's two doors (SECURITY.md: hooks and the MCP bridge are untrusted
input).

Each planted command would write a marker if git ran it while oms verified or committed a result."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from oms.services.chain.liveness import bridge_event_id
from oms.services.doors import bridge
from tests.agent_side import Bound, BoundTools, bind, snapshot
from tests.chain import Chain
from tests.helpers import git


@pytest.fixture
def bound(chain: Chain) -> Bound:
    return bind(chain)


def _tools(bound: Bound, session: str | None = None, nonce: str | None = None) -> BoundTools:
    return BoundTools(bound, session, nonce)


def _call(
    tools: bridge.Tools, name: str, arguments: dict[str, object] | None = None
) -> dict[str, object]:
    out, is_error = tools.call(name, arguments or {})
    return out | {"is_error": is_error}


def _marker_script(base: Path) -> tuple[Path, Path]:
    """A command that leaves a marker, usable as an fsmonitor hook, a clean filter, a textconv
    driver and a git hook (a directory of hooks for `core.hooksPath`, which names a directory)."""
    marker = base / "ran.marker"
    script = base / "evil.sh"
    script.write_text(
        f"#!/bin/sh\ntouch '{marker}'\n"
        'if [ "$#" -eq 1 ] && [ -f "$1" ]; then exec cat "$1"; fi\n'
        'if [ "$#" -eq 0 ]; then exec cat; fi\n'
        "exit 0\n"
    )
    script.chmod(0o755)
    hooks = base / "evil-hooks"
    hooks.mkdir()
    for name in (
        "pre-commit",
        "prepare-commit-msg",
        "commit-msg",
        "post-commit",
        "post-checkout",
        "post-index-change",
    ):
        (hooks / name).write_text(f"#!/bin/sh\ntouch '{marker}'\n")
        (hooks / name).chmod(0o755)
    return script, marker


# The plain git command that runs each planted setting: each control must leave the marker, so that
# its absence after oms's own git is evidence (a planted value git would never run proves nothing).
CONTROLS = {
    "core.fsmonitor": ("status", "--porcelain"),
    "filter.evil.clean": ("hash-object", "--path=WORK.md", "WORK.md"),
    "core.hooksPath": ("hook", "run", "pre-commit"),
    "diff.evil.textconv": ("cat-file", "--textconv", "HEAD:README.md"),
}


@pytest.mark.parametrize("setting", sorted(CONTROLS))
@pytest.mark.parametrize("committed", [True, False], ids=["agent-commit", "oms-commit"])
def test_result_verification_runs_no_repository_code(
    bound: Bound, setting: str, committed: bool
) -> None:
    """Fails on a build without the config refusal (no "would run code" in the broker's log: the
    agent is told only that oms could not check its worktree, ADR 0029); for fsmonitor, filters and
    hooks also on one without oms's git flags (the marker). A textconv runs only for a diff, which
    oms never makes: its marker guards that oms never starts to."""
    tools = _tools(bound)
    logs: list[str] = []
    tools.log = logs.append
    assert _call(tools, "acknowledge_dispatch")["is_error"] is False
    script, marker = _marker_script(bound.chain.base)
    (bound.worktree / ".gitattributes").write_text("* filter=evil diff=evil\n")
    commit = bound.commit_change() if committed else None
    if not committed:
        (bound.worktree / "WORK.md").write_text("work\n")
    value = str(script.parent / "evil-hooks") if setting == "core.hooksPath" else str(script)
    git(
        "config", setting, value, cwd=bound.chain.repo
    )  # planted in the shared config, as an agent could
    git(*CONTROLS[setting], cwd=bound.worktree)  # the control: plain git runs it
    assert marker.exists(), f"the planted {setting} never runs: this test could not fail"
    marker.unlink()
    arguments: dict[str, object] = {"status": "completed", "summary": "s"}
    if commit:
        arguments["result_commit"] = commit
    refused = _call(tools, "record_dispatch_result", arguments)
    tools.close()
    assert refused["is_error"] is True
    assert str(refused["error"]) == bridge.HOST_SIDE
    assert "would run code" in " ".join(logs)  # the whole reason, for a person
    assert not marker.exists()
    with bound.chain.workspace() as ws:
        assert ws.store.records("dispatch").read(bound.dispatch_id).state == "acknowledged"


def test_a_result_commit_from_another_branch_or_unrelated_history_is_refused(bound: Bound) -> None:
    tools = _tools(bound)
    _call(tools, "acknowledge_dispatch")
    main_commit = git("rev-parse", "main", cwd=bound.chain.repo).strip()
    (bound.chain.repo / "X.md").write_text("x\n")
    git("add", "X.md", cwd=bound.chain.repo)
    git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "main moves",
        cwd=bound.chain.repo,
    )
    moved = git("rev-parse", "main", cwd=bound.chain.repo).strip()
    orphan = git("commit-tree", "-m", "unrelated", "main^{tree}", cwd=bound.chain.repo).strip()
    cases = (
        (main_commit, "start commit"),
        (moved, "not HEAD"),
        (orphan, "descend"),
        ("f" * 40, "does not exist"),
    )
    for commit, why in cases:
        out = _call(
            tools,
            "record_dispatch_result",
            {"status": "completed", "summary": "s", "result_commit": commit},
        )
        assert out["is_error"] is True
        assert why in str(out["error"])
    tools.close()


def test_the_bridge_only_serves_its_bound_dispatch(bound: Bound, chain: Chain) -> None:
    other = bind(chain, "Another ticket")
    tools = _tools(bound, other.session_id)  # our dispatch id, the other dispatch's session
    before = snapshot(chain.state)
    for name in ("read_dispatch", "acknowledge_dispatch"):
        out = _call(tools, name)
        assert out["is_error"] is True
        assert "not bound" in str(out["error"])
    tools.close()
    assert snapshot(chain.state) == before


def test_another_deliverys_nonce_proves_nothing(bound: Bound, chain: Chain) -> None:
    other = bind(chain, "Another ticket")
    tools = _tools(bound, nonce=other.nonce)  # a broker left from another delivery
    out = _call(tools, "acknowledge_dispatch")
    tools.close()
    assert out["is_error"] is True
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(bound.dispatch_id).state == "accepted"
        assert bridge_event_id(bound.session_id) not in ws.store.events.ids()


def test_a_summary_cannot_smuggle_control_characters_into_records(bound: Bound) -> None:
    tools = _tools(bound)
    _call(tools, "acknowledge_dispatch")
    commit = bound.commit_change()
    summary = "done\n\x1b[31mred\x1b[0m\r\nend\u2028"
    out = _call(
        tools,
        "record_dispatch_result",
        {"status": "completed", "summary": summary, "result_commit": commit},
    )
    tools.close()
    assert out["is_error"] is False
    with bound.chain.workspace() as ws:
        worker = ws.store.records("worker").read(bound.dispatch_id)
        evidence = ws.store.evidence.get(str(out["evidence"]))
    detail = str(worker.payload["end_detail"])
    assert worker.state == "done"
    assert all(0x20 <= ord(c) < 0x7F for c in detail)
    assert (
        json.dumps(evidence.body["payload"]).count(r"\u001b") == 2
    )  # kept exactly, as JSON, in the evidence


def _nested_repository(worktree: Path, marker: Path) -> None:
    """What an agent can leave in its worktree: a repository of its own whose config runs a clean
    filter."""
    nested = worktree / "vendored"
    git("init", "-q", str(nested), cwd=worktree)
    (nested / ".gitattributes").write_text("*.txt filter=vendored\n")
    (nested / "notes.txt").write_text("x\n")
    git("add", ".", cwd=nested)
    git("-c", "user.name=x", "-c", "user.email=x@x", "commit", "-qm", "v", cwd=nested)
    script = (
        nested / "clean.sh"
    )  # planted after the commit, so only a later `status` inside would run it
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat\n")
    script.chmod(0o755)
    git("config", "filter.vendored.clean", str(script), cwd=nested)
    os.utime(
        nested / "notes.txt", (0, 0)
    )  # a stat mismatch, as the sandbox's uid mapping makes anyway
    assert not marker.exists()


def test_a_repository_nested_in_the_worktree_runs_no_code_on_the_host(bound: Bound) -> None:
    """Found by the escape suite: `status --ignore-submodules=none` entered a repository the agent
    nested in its worktree (once oms had staged it as a gitlink) and ran its clean filter as the
    user, outside the sandbox — which could read the state key. Now oms never enters a submodule and
    refuses to commit one."""
    tools = _tools(bound)
    _call(tools, "acknowledge_dispatch")
    marker = bound.chain.base / "ran.marker"
    _nested_repository(bound.worktree, marker)
    (bound.worktree / "WORK.md").write_text("work\n")
    refused = _call(tools, "record_dispatch_result", {"status": "completed", "summary": "s"})
    tools.close()
    assert refused["is_error"] is True
    assert "holds a git repository at vendored/" in str(refused["error"])
    assert not marker.exists()
    with bound.chain.workspace() as ws:
        assert ws.store.records("dispatch").read(bound.dispatch_id).state == "acknowledged"
    assert (
        git("rev-parse", "HEAD", cwd=bound.worktree).strip()
        == git("rev-parse", "main", cwd=bound.chain.repo).strip()
    )


def test_a_committed_submodule_is_never_entered_by_verification(bound: Bound) -> None:
    """A gitlink in the history (however it got there): verification and status never run its
    config."""
    from oms.adapters import git as git_adapter
    from oms.adapters import tree_job

    marker = bound.chain.base / "ran.marker"
    _nested_repository(bound.worktree, marker)
    git("add", "vendored", cwd=bound.worktree)  # as a user could commit one (outside any sandbox)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "gitlink", cwd=bound.worktree)
    (bound.worktree / "vendored" / "notes.txt").write_text("changed\n")
    linked = git_adapter.linked_worktree(str(bound.chain.repo), str(bound.worktree))
    status = ("status", "--porcelain=v2", "-z", "--untracked-files=all", "--ignore-submodules=all")
    done = tree_job.run_git(str(bound.chain.repo), linked, *status, max_output=1 << 20)  # as oms
    assert (done.returncode, done.stdout) == (0, b"")  # the submodule is not entered
    assert not marker.exists()
