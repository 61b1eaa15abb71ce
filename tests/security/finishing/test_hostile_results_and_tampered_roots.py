"""Attacks on finishing work (issue 14, ADR 0021), as a hostile result or a tampered state root
would make them: a verification pointer aimed at another dispatch's passing evidence, a branch moved
after the verification, a result that links to the state key, checks that reach for the repository,
a `show` that would expose the state root. Each must change nothing it should not."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from oms.errors import ConfigError, ConflictError
from oms.services.finishing import finish, verify
from oms.store.stateroot import KEY
from tests.agent_side import BoundTools, bind
from tests.chain import Chain
from tests.helpers import git
from tests.integration.test_finishing import CHECKS, _result


def test_a_pointer_to_another_dispatchs_passing_verification_merges_nothing(chain: Chain) -> None:
    good = _result(chain)
    with chain.workspace() as ws:
        passed = verify.verify(ws, good.dispatch_id)
    bad = bind(chain, "Another ticket")
    tools = BoundTools(bad)
    try:
        tools.call("acknowledge_dispatch", {})
        commit = bad.commit_change("evil\n")
        tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "x", "result_commit": commit},
        )
    finally:
        tools.close()
    pointer = chain.state / "verify" / bad.dispatch_id / "latest"
    pointer.parent.mkdir(parents=True)
    pointer.write_text(
        passed.ref
    )  # the state root edited by hand: the evidence is genuine, but not this one's
    pointer.chmod(0o600)
    before = git("rev-parse", "main", cwd=chain.repo)
    with chain.workspace() as ws, pytest.raises(ConflictError, match="no verification evidence"):
        finish.merge(ws, bad.dispatch_id)
    assert git("rev-parse", "main", cwd=chain.repo) == before


def test_a_commit_added_to_the_branch_after_verification_is_never_merged(chain: Chain) -> None:
    bound = _result(chain)
    with chain.workspace() as ws:
        verify.verify(ws, bound.dispatch_id)
    (bound.worktree / "LATER.md").write_text("not verified\n")
    git("add", "LATER.md", cwd=bound.worktree)
    git(
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "-m",
        "later",
        cwd=bound.worktree,
    )
    with chain.workspace() as ws:
        merged = finish.merge(ws, bound.dispatch_id)
    files = git("ls-tree", "--name-only", merged.merged, cwd=chain.repo).split()
    assert "WORK.md" in files
    assert "LATER.md" not in files  # the recorded result commit, verified, and nothing after it


LINKS = """
[verify]
commands = [["sh", "-c", "cat key-link"], ["sh", "-c", "git status; test ! -e .git"], ["sh", "-c", \
"ls {repo}"]]
timeout_seconds = 20
"""


def test_a_result_that_links_to_the_state_key_or_reaches_for_the_repository_finds_nothing(
    chain: Chain,
) -> None:
    chain.edit_config(lambda s: s + LINKS.format(repo=chain.repo), commit=True)
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        os.symlink(chain.state / KEY, bound.worktree / "key-link")
        git("add", "key-link", cwd=bound.worktree)
        git(
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "-m",
            "link",
            cwd=bound.worktree,
        )
        commit = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
        tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "x", "result_commit": commit},
        )
    finally:
        tools.close()
    with chain.workspace() as ws:
        done = verify.verify(ws, bound.dispatch_id)
    cat, git_status, ls = done.ran
    assert cat.exit_code != 0
    assert b"PRIVATE" not in cat.output  # (the key file's contents never reach the output)
    assert git_status.exit_code == 0  # no repository in the checkout: `test ! -e .git` holds
    assert ls.exit_code != 0  # the config root is not in the sandbox


@pytest.mark.parametrize("private", ["state root", "config root", "home"])
def test_a_show_that_would_expose_a_private_place_is_refused(chain: Chain, private: str) -> None:
    place = {
        "state root": chain.state,
        "config root": chain.repo / ".git",
        "home": Path.home() / ".ssh",
    }[private]
    checks = CHECKS.replace(
        "max_output_bytes = 4096", f'max_output_bytes = 4096\nshow = ["{place}"]'
    )
    bound = _result(chain, checks)
    with chain.workspace() as ws, pytest.raises(ConfigError, match="would show"):
        verify.verify(ws, bound.dispatch_id)
