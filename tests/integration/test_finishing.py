"""Finishing a result (issue 14, ADR 0021) on real git, real bubblewrap, real files: `oms result
verify` runs the committed checks in a sandbox against the tree a merge would make and signs the
outcome; `merge` takes only that tree, on that base; `discard` archives before it removes
anything."""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
from pathlib import Path

import pytest

from oms.canonical import access
from oms.errors import ConfigError, ConflictError, GitIdentityError
from oms.services.finishing import finish, verify
from oms.store.stateroot import KEY
from tests.agent_side import Bound, BoundTools, bind
from tests.chain import Chain
from tests.helpers import GIT_IDENTITY_ENV, OmsCommand, git

CHECKS = """
[verify]
commands = [["sh", "-c", "grep -q work WORK.md && echo checked > made-by-the-check"], ["true"]]
timeout_seconds = 20
max_output_bytes = 4096
"""


def _result(chain: Chain, checks: str = CHECKS, text: str = "work\n") -> Bound:
    """A dispatch with a completed result (one commit), the checks committed before it was
    proposed."""
    chain.edit_config(lambda s: s + checks, commit=True)
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        commit = bound.commit_change(text)
        result, is_error = tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "Done.", "result_commit": commit},
        )
        assert is_error is False, result
    finally:
        tools.close()
    return bound


def test_a_verified_result_merges_as_the_tree_that_was_checked(chain: Chain) -> None:
    bound = _result(chain)
    with chain.workspace() as ws:
        done = verify.verify(ws, bound.dispatch_id)
        assert done.passed, [r.output for r in done.ran]
        payload = access.obj(ws.store.evidence.get(done.ref).body, "payload")
        assert ws.store.evidence.get(done.ref).body["evidence_kind"] == "verification"
        checks = access.array(payload, "checks")
        assert [
            access.integer(access.obj_at(checks, i), "exit_code") for i in range(len(checks))
        ] == [0, 0]
        assert not (
            chain.repo / "made-by-the-check"
        ).exists()  # the check ran in a fresh checkout, not here
        merged = finish.merge(ws, bound.dispatch_id)
        ticket_id = access.text(
            ws.store.records("dispatch").read(bound.dispatch_id).payload, "ticket_id"
        )
        ticket = ws.store.records("ticket").read(ticket_id)
    assert git("rev-parse", "main", cwd=chain.repo).strip() == merged.merged
    assert git("rev-parse", f"{merged.merged}^{{tree}}", cwd=chain.repo).strip() == done.tree
    assert (
        chain.repo / "WORK.md"
    ).read_text() == "work\n"  # the checked-out branch moved with its files
    assert git("status", "--porcelain", cwd=chain.repo) == ""
    assert ticket.state == "done"


def test_a_merge_is_made_as_the_person_and_never_as_a_made_up_one(
    chain: Chain, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The merge commit names the person who merges (git's identity, as `git merge` would: ADR
    0032), never `oms`; where git knows no one, nothing is merged and the error says what to set."""
    bound = _result(chain)
    with chain.workspace() as ws:
        assert verify.verify(ws, bound.dispatch_id).passed
    for var in GIT_IDENTITY_ENV:
        monkeypatch.delenv(var, raising=False)
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    (tmp_path / "fresh-home").mkdir()
    monkeypatch.setenv("HOME", str(tmp_path / "fresh-home"))  # (no ~/.gitconfig there)
    argv = ["git", "var", "GIT_AUTHOR_IDENT"]
    guessed = subprocess.run(argv, cwd=chain.repo, capture_output=True, check=False)
    before = git("rev-parse", "main", cwd=chain.repo).strip()
    with chain.workspace() as ws:
        if guessed.returncode != 0:  # (a host name with a domain lets git make one up: not here)
            with pytest.raises(GitIdentityError, match="git does not know who you are") as refused:
                finish.merge(ws, bound.dispatch_id)
            assert "git config --global user.name" in refused.value.remedy
            assert git("rev-parse", "main", cwd=chain.repo).strip() == before
        git("config", "user.name", "Ada Lovelace", cwd=chain.repo)
        git("config", "user.email", "ada@example.com", cwd=chain.repo)
        merged = finish.merge(ws, bound.dispatch_id)
    who = git("log", "-1", "--format=%an <%ae>|%cn <%ce>", merged.merged, cwd=chain.repo).strip()
    assert who == "Ada Lovelace <ada@example.com>|Ada Lovelace <ada@example.com>"


def test_a_failed_check_is_signed_and_never_merged(chain: Chain) -> None:
    bound = _result(chain, CHECKS.replace("grep -q work", "grep -q nothing-like-this"))
    with chain.workspace() as ws:
        done = verify.verify(ws, bound.dispatch_id)
        assert not done.passed
        assert done.ran[0].exit_code == 1
        with pytest.raises(ConflictError, match="its verification failed"):
            finish.merge(ws, bound.dispatch_id)
    assert "WORK.md" not in git("ls-tree", "--name-only", "main", cwd=chain.repo)


def test_a_base_that_moved_needs_a_new_verification(chain: Chain) -> None:
    bound = _result(chain)
    with chain.workspace() as ws:
        first = verify.verify(ws, bound.dispatch_id)
    (chain.repo / "OTHER.md").write_text("someone else's work\n")
    chain.commit("other work")
    with chain.workspace() as ws:
        with pytest.raises(ConflictError, match="the base moved"):
            finish.merge(ws, bound.dispatch_id)
        again = verify.verify(ws, bound.dispatch_id)
        assert again.tree != first.tree
        merged = finish.merge(ws, bound.dispatch_id)
    files = git("ls-tree", "--name-only", merged.merged, cwd=chain.repo).split()
    assert {"OTHER.md", "WORK.md"} <= set(files)


def test_the_checks_come_from_the_config_root_never_from_the_result(chain: Chain) -> None:
    """The result commit rewrites `.oms/config.toml` to make every check `true`: the committed
    checks of the config root's HEAD still run (and fail)."""
    strict = CHECKS.replace("grep -q work", "grep -q nothing-like-this")
    chain.edit_config(lambda s: s + strict, commit=True)
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        config = bound.worktree / ".oms" / "config.toml"
        config.write_text(config.read_text().replace("grep -q nothing-like-this", "true ||"))
        (bound.worktree / "WORK.md").write_text("work\n")
        git("add", "-A", cwd=bound.worktree)
        git(
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "-m",
            "work",
            cwd=bound.worktree,
        )
        commit = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
        tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "Done.", "result_commit": commit},
        )
    finally:
        tools.close()
    with chain.workspace() as ws:
        done = verify.verify(ws, bound.dispatch_id)
    assert not done.passed
    assert done.ran[0].argv[-1].startswith("grep -q nothing-like-this")


HOSTILE = """
[verify]
commands = [
  ["sh", "-c", "{background} & echo started"],
  ["sh", "-c", "cat {key}"],
  ["sh", "-c", "touch {outside}/planted"],
  ["python3", "-c", "import socket; socket.create_connection(('1.1.1.1', 53), 2)"],
  ["python3", "-c", "import socket; socket.create_connection(('127.0.0.1', {port}), 2)"],
  ["head", "-c", "5000000", "/dev/zero"],
  ["sleep", "60"],
]
timeout_seconds = 3
max_output_bytes = 2048
"""


def test_hostile_checks_are_contained_and_reported(chain: Chain, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    listener = __import__("socket").create_server(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    key = chain.state / KEY
    assert key.is_file()  # there on the host, for the check to try
    # what it leaves behind is found by its arguments alone: a duration no other process has
    leftover = f"sleep 300.{secrets.randbelow(10**9):09d}"
    checks = HOSTILE.format(key=key, outside=outside, port=port, background=leftover)
    try:
        bound = _result(chain, checks)
        with chain.workspace() as ws:
            done = verify.verify(ws, bound.dispatch_id)
    finally:
        listener.close()
    background, reads_key, writes_out, net, loopback, flood, hang = done.ran
    assert b"No such file" in reads_key.output  # not denied: not there at all
    assert background.exit_code == 0  # it ran; and what it left behind ended with its sandbox:
    left = subprocess.run(["pgrep", "-f", re.escape(leftover)], capture_output=True, check=False)
    assert not left.stdout
    assert reads_key.exit_code != 0  # the state root is not there
    assert writes_out.exit_code != 0
    assert not (outside / "planted").exists()
    assert net.exit_code != 0  # no network
    assert b"Network is unreachable" in net.output  # python3 ran, and found no route out
    assert loopback.exit_code != 0  # not even the host's loopback (its own is empty)
    assert b"Connection refused" in loopback.output
    assert b"Read-only file system" in writes_out.output or b"No such file" in writes_out.output
    assert flood.exit_code == 0
    assert flood.truncated
    assert len(flood.output) == 2048
    assert hang.exit_code is None  # killed at its time limit
    assert 2500 <= hang.duration_ms < 10_000
    assert not done.passed


def test_a_result_that_conflicts_with_the_base_is_not_verified(chain: Chain) -> None:
    bound = _result(chain)
    (chain.repo / "WORK.md").write_text("the base's own, different\n")
    chain.commit("conflicting")
    with chain.workspace() as ws, pytest.raises(ConflictError, match="conflicts with main"):
        verify.verify(ws, bound.dispatch_id)


def test_no_checks_configured_is_no_verification(chain: Chain) -> None:
    bound = _result(chain, checks="")
    with chain.workspace() as ws, pytest.raises(ConfigError, match="no checks are configured"):
        verify.verify(ws, bound.dispatch_id)


def test_discard_archives_before_it_removes_anything(chain: Chain) -> None:
    bound = _result(chain)
    with chain.workspace() as ws:
        payload = ws.store.records("dispatch").read(bound.dispatch_id).payload
        with pytest.raises(ConflictError, match="still runs"):  # its worker has not ended yet
            finish.discard(ws, bound.dispatch_id, "not wanted")
    _end_worker(chain, bound)
    head = git("rev-parse", str(payload["worktree_branch"]), cwd=chain.repo).strip()
    (bound.worktree / "late.txt").write_text("uncommitted\n")
    with chain.workspace() as ws:
        kept = finish.discard(ws, bound.dispatch_id, "not wanted")
    assert kept.archive_ref == f"refs/oms/archive/{payload['ticket_id']}/{payload['attempt']}"
    assert git("rev-parse", kept.archive_ref, cwd=chain.repo).strip() == head
    assert bound.worktree.is_dir()  # uncommitted work: the worktree (and branch) stay
    assert any("uncommitted" in line for line in kept.kept)
    (bound.worktree / "late.txt").unlink()
    with chain.workspace() as ws:
        gone = finish.discard(ws, bound.dispatch_id, "not wanted")
    assert not bound.worktree.exists()
    assert git("branch", "--list", str(payload["worktree_branch"]), cwd=chain.repo) == ""
    assert (
        git("rev-parse", gone.archive_ref, cwd=chain.repo).strip() == head
    )  # the work is still there


def _end_worker(chain: Chain, bound: Bound) -> None:
    """The worker of an undelivered dispatch, ended as a stop would."""
    with chain.workspace() as ws:
        from oms.services.delivery.service import Delivery

        Delivery.open(ws).stop(bound.dispatch_id, "test over")


def test_the_cli_verifies_merges_and_says_why_not(chain: Chain, oms: OmsCommand) -> None:
    bound = _result(chain)

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return oms.run(
            "result",
            *args,
            bound.dispatch_id,
            "--state-root",
            str(chain.state),
            "--config-root",
            str(chain.repo),
        )

    too_early = run("merge", "--json")
    assert too_early.returncode == 1
    assert "no verification evidence" in json.loads(too_early.stdout)["message"]
    plain = run("merge")
    assert plain.returncode == 1
    assert plain.stderr.count("\n") <= 2  # one line, and its hint
    assert "no verification evidence" in plain.stderr
    assert "Traceback" not in plain.stderr
    verified = run("verify", "--json")
    assert verified.returncode == 0, verified.stderr
    assert json.loads(verified.stdout)["passed"] is True
    assert "check: sh -c" in verified.stderr  # progress, one line a check
    merged = run("merge", "--json")
    assert merged.returncode == 0, merged.stderr
    assert json.loads(merged.stdout)["merged"] == git("rev-parse", "main", cwd=chain.repo).strip()
    assert os.path.exists(chain.repo / "WORK.md")


def test_a_second_merge_says_already_merged(chain: Chain, oms: OmsCommand) -> None:
    """`oms result merge` twice, following its own hint (verify again), made a second, empty merge
    commit (issue 26)."""
    bound = _result(chain)
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return oms.run("result", *args, bound.dispatch_id, *roots)

    assert run("verify").returncode == 0
    first = run("merge")
    assert first.returncode == 0, first.stderr
    head = git("rev-parse", "main", cwd=chain.repo).strip()
    for step in ("merge", "verify", "merge"):  # again, and as the old hint said: verify, merge
        again = run(step, "--json") if step == "merge" else run(step)
        assert again.returncode == 0, again.stderr
        if step == "merge":
            shown = json.loads(again.stdout)
            seen = (shown["already_merged"], shown["merged"], shown["evidence"])
            assert seen == (True, head, None)
    said = run("merge")
    assert said.stdout == f"already merged: {bound.dispatch_id}'s result is in main ({head[:12]})\n"
    assert git("rev-parse", "main", cwd=chain.repo).strip() == head  # no second merge commit
