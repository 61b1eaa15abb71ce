"""Attack on `oms result merge` (issue 14, ADR 0021): the branch checked out in the config root
moves by `git merge --ff-only`, which by default silently overwrites (and, for a directory in the
way, deletes) the user's *ignored* files. A result that un-ignores a path and commits a file there
destroys the user's local `secrets.env` and ignored `data/` directory on merge — uncommitted files
of the user's checkout that are in no commit anywhere. ADR 0021 says git refuses when local changes
would be overwritten.

Found from outside (issue 14, round 1); it failed before its fix."""

from __future__ import annotations

import pytest

from oms.errors import OmsError
from oms.services.finishing import finish, verify
from tests.agent_side import BoundTools, bind
from tests.chain import Chain
from tests.helpers import git

CHECKS = """
[verify]
commands = [["true"]]
timeout_seconds = 20
"""


def test_a_merge_never_overwrites_the_users_ignored_files(chain: Chain) -> None:
    chain.edit_config(lambda s: s + CHECKS, commit=True)
    (chain.repo / ".gitignore").write_text("secrets.env\ndata/\n")
    chain.commit("ignore local files")
    (chain.repo / "secrets.env").write_text(
        "TOKEN=the-users-own-token\n"
    )  # the user's, never committed
    (chain.repo / "data").mkdir()
    (chain.repo / "data" / "results.csv").write_text("weeks,of,work\n")
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        tools.call("acknowledge_dispatch", {})
        (bound.worktree / ".gitignore").write_text("")  # un-ignore both
        (bound.worktree / "secrets.env").write_text("TOKEN=attacker\n")
        (bound.worktree / "data").write_text("a file where the user's directory is\n")
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
        assert verify.verify(ws, bound.dispatch_id).passed
        with pytest.raises(
            OmsError, match=r"ignored|untracked|overwritten"
        ):  # git's own refusal, one line
            finish.merge(ws, bound.dispatch_id)
    assert (chain.repo / "secrets.env").read_text() == "TOKEN=the-users-own-token\n"
    assert (chain.repo / "data" / "results.csv").read_text() == "weeks,of,work\n"
