"""The real Claude Code and the real Codex CLI (a `/goal` worker and a `codex exec` run) on an
etcd store (issue 28; ADR 0043, amendments `reads` and `agents`): until then only command workers
and Claude Code ran on a cluster. The scripted turns of `tests/e2e/test_real_agents.py` — read and
acknowledge the dispatch, an early stop the Stop gate blocks, a tool outside the role's allow-list
PreToolUse denies, a change, the result — with the worker's hooks and bridge writing through its
broker to the cluster: the records end at `result-received` with the commit in the cluster, no
record falls back to the state root's files, every lock is let go, and `oms worker stop` leaves no
pane and no process. The only stand-in is the remote model (the loopback mock)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from oms.adapters.etcd.client import Etcd
from oms.services.doors.hooks import CONTEXT, STOP_REASON
from tests.chain import Chain
from tests.e2e.test_codex_exec import _codex_exec
from tests.e2e.test_real_agents import (
    CHANGE,
    EARLY,
    _check_result,
    _deliver,
    _stop_and_check_nothing_left,
    _wait_for_result,
    claude_turn,
    codex_goal_turn,
    mock,
    use_claude,
    use_codex_goal,
)
from tests.etcd_cluster import Cluster, locks_let_go
from tests.integration.etcd.test_commands_cli import _use_etcd
from tests.integration.etcd.test_deliver_etcd import EtcdChain, _no_record_files
from tests.model_mock import Call, ModelMock, Say, Script

__all__ = ["mock"]

Use = Callable[[Chain, ModelMock, pytest.MonkeyPatch], None]


def _work_a_ticket_on_the_cluster(
    deliverable: Chain,
    mock: ModelMock,
    monkeypatch: pytest.MonkeyPatch,
    cluster: Cluster,
    prefix: str,
    agent: tuple[Use, Script, str],
) -> None:
    """`agent` (its set-up, its scripted turn, the tool its policy does not allow) works one
    ticket on the cluster; the checks of the module's docstring."""
    use, script, refused_tool = agent
    use(deliverable, mock, monkeypatch)
    _use_etcd(deliverable, cluster.endpoints, prefix)
    chain = EtcdChain(deliverable.base, deliverable.repo, deliverable.state, deliverable.advisor)
    chain.clock = deliverable.clock
    mock.script = script
    dispatch_id, session_id = _deliver(chain)
    _wait_for_result(chain, dispatch_id, mock)
    _check_result(chain, dispatch_id, session_id)
    texts = "\n".join(s.text for s in mock.seen)
    assert STOP_REASON in texts  # the Stop gate's answer came from the cluster's session
    denied = [
        text for name, text in (r for s in mock.seen for r in s.results) if name == refused_tool
    ]
    assert denied
    assert "not allowed" in denied[0]
    _no_record_files(chain)
    client = Etcd(cluster.endpoints)
    try:
        locks_let_go(client, prefix)
        assert client.get(f"{prefix}latest/dispatch/{dispatch_id}") is not None
    finally:
        client.close()
    _stop_and_check_nothing_left(chain, dispatch_id)
    if use is use_codex_goal:  # SessionStart's context came through the cluster's session
        assert CONTEXT in texts


def _codex_exec_turn() -> Script:
    """The scripted `codex exec` run: the `/goal` turn without the goal (the run ends by itself)."""
    return Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Say(EARLY),  # held by the Stop gate: `codex exec` goes on
            Call("spawn_agent", {"message": "help me", "agent_type": "worker"}),
            Call("exec_command", {"cmd": CHANGE}),
            Call("record_dispatch_result", {"status": "completed", "summary": "Added AGENT.md."}),
            Say("Done: the dispatch has its result."),
        ]
    )


HANDS: dict[str, tuple[Use, Callable[[], Script], str]] = {
    "claude-code": (use_claude, claude_turn, "WebFetch"),
    "codex-goal": (use_codex_goal, codex_goal_turn, "spawn_agent"),
    "codex-exec": (_codex_exec, _codex_exec_turn, "spawn_agent"),
}


@pytest.mark.parametrize("hand", HANDS)
def test_a_real_agent_works_a_ticket_on_the_cluster(
    hand: str,
    deliverable: Chain,
    mock: ModelMock,
    monkeypatch: pytest.MonkeyPatch,
    etcd_cluster: Cluster,
    etcd_prefix: str,
) -> None:
    use, turn, refused_tool = HANDS[hand]
    agent = (use, turn(), refused_tool)
    _work_a_ticket_on_the_cluster(deliverable, mock, monkeypatch, etcd_cluster, etcd_prefix, agent)
