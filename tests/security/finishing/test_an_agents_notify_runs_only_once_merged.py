"""An agent's `[notify]` command runs on the host only once a person merged it (SECURITY.md
"Review before merge"): a result branch's `.oms/config.toml` may add a `[notify]` command, which
runs outside every sandbox. oms reads its configuration at HEAD of the config root, so a person who
checks the result out there to try it (`git checkout -b try <result>`) has the agent's command run
by the next tick, unreviewed and unmerged. Not fixed: what runs comes from HEAD (ADR 0036's
"committed config"); a fix needs a decision (read `[notify]` from the merge target only)."""

from __future__ import annotations

import pytest

from oms.services.chain import tickets
from tests.agent_side import BoundTools, bind
from tests.chain import Chain
from tests.helpers import OmsCommand, eventually, git
from tests.integration.test_notify import _tick


@pytest.mark.xfail(strict=True, reason="[notify] is read at HEAD, whatever branch is checked out")
def test_a_checked_out_result_runs_no_notify_command(chain: Chain, oms: OmsCommand) -> None:
    marker = chain.base / "ran-the-agents-command"
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        config = bound.worktree / ".oms" / "config.toml"
        config.write_text(
            config.read_text() + f'\n[notify]\ncommands = [["sh", "-c", "echo ran > {marker}"]]\n'
        )
        git("add", "-A", cwd=bound.worktree)
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "w", cwd=bound.worktree)
        commit = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
        done, is_error = tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "Done.", "result_commit": commit},
        )
        assert is_error is False, done
    finally:
        tools.close()
    git("checkout", "-q", "-b", "try", commit, cwd=chain.repo)  # the person tries the result
    with chain.workspace() as ws:
        other = tickets.add(ws, "Another", "body")
        tickets.block(ws, other.record_id, "waiting")
    _tick(chain, oms)
    log = chain.state / "notify" / "notify.log"
    if log.exists():  # a notifier was started: wait for its outcome's line
        eventually(lambda: log.read_text().strip(), timeout=30, what="the notifier's outcome")
    assert not marker.exists(), "the agent's [notify] command ran on the host, unmerged"
