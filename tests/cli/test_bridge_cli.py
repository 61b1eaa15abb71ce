"""`oms worker bridge` on the wire: a real process (source or frozen), a raw line client, real
records."""

from __future__ import annotations

import os
import socket
import subprocess
from pathlib import Path

import pytest

from oms.canonical import access
from oms.limits import LIMITS
from oms.services.chain.liveness import bridge_event_id
from oms.store.verify import verify
from tests.agent_side import Bound, RawClient, bind, snapshot, structured
from tests.chain import Chain
from tests.helpers import OmsCommand, git

VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
TOOLS = ["read_dispatch", "acknowledge_dispatch", "record_dispatch_result"]


@pytest.fixture
def bound(chain: Chain) -> Bound:
    return bind(chain)


def _client(oms: OmsCommand, bound: Bound, **kw: str) -> RawClient:
    return RawClient(oms, bound.bridge_args(kw.get("session")), bound.env(kw.get("nonce")))


@pytest.mark.parametrize("version", [*VERSIONS, "1999-01-01"])
def test_handshake_and_tools_list_per_version(oms: OmsCommand, bound: Bound, version: str) -> None:
    client = _client(oms, bound)
    result = client.initialize(version)["result"]
    assert result["protocolVersion"] == (version if version in VERSIONS else "2025-11-25")
    assert result["capabilities"] == {"tools": {"listChanged": False}}
    assert result["serverInfo"]["name"] == "oms-worker-bridge"
    listed = client.request("tools/list")["result"]["tools"]
    assert [t["name"] for t in listed] == TOOLS
    modern = result["protocolVersion"] >= "2025-06-18"
    for tool in listed:
        assert tool["inputSchema"]["type"] == "object"
        assert tool["inputSchema"]["additionalProperties"] is False
        assert tool["annotations"]["openWorldHint"] is False
        assert ("outputSchema" in tool, "title" in tool) == (modern, modern)
    read = client.call("read_dispatch")
    assert read["isError"] is False
    assert ("structuredContent" in read) == modern
    assert structured(read)["dispatch_id"] == bound.dispatch_id
    assert client.close() == 0


def test_server_discover_gets_method_not_found_at_once(oms: OmsCommand, bound: Bound) -> None:
    client = _client(oms, bound)
    reply = client.request("server/discover", {})
    assert reply["error"] == {
        "code": -32601,
        "message": "Method not found",
        "data": "server/discover",
    }
    assert client.initialize()["result"]["protocolVersion"] == "2025-11-25"
    assert client.close() == 0


def test_protocol_errors_and_batches(oms: OmsCommand, bound: Bound) -> None:
    client = _client(oms, bound)
    assert client.request("tools/list")["error"]["code"] == -32600  # before initialize
    client.send_raw(b"{not json\n")
    assert client.recv() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32700, "message": "Parse error"},
    }
    client.send_raw(b'{"jsonrpc":"2.0","id":1,"method":"ping","x":"\xff\xfe"}\n')
    assert client.recv()["error"]["code"] == -32700
    client.send_raw(b'{"jsonrpc":"2.0","id":1,"id":2,"method":"ping"}\n')  # duplicate keys
    assert client.recv()["error"]["code"] == -32700
    client.initialize("2025-11-25")
    assert client.request("ping")["result"] == {}
    assert client.request("resources/list")["error"]["code"] == -32601
    assert client.request("tools/call", {"name": "delete_everything"})["error"]["code"] == -32602
    client.send_raw(b'[{"jsonrpc":"2.0","id":7,"method":"ping"}]\n')
    assert client.recv()["error"]["code"] == -32600  # batches only in 2025-03-26
    client.send_raw(b'{"jsonrpc":"2.0","id":true,"method":"ping"}\n')
    assert client.recv()["error"]["code"] == -32600
    bad = client.call("record_dispatch_result", {"status": "done", "summary": "x"})
    assert bad["isError"] is True
    assert "status" in structured(bad)["error"]
    extra = client.call("read_dispatch", {"dispatch_id": "dsp-other"})
    assert extra["isError"] is True  # the bound dispatch only: no arguments accepted
    assert client.close() == 0

    old = _client(oms, bound)
    old.initialize("2025-03-26")
    old.send_raw(
        b'[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"x"},{"jsonrpc":"2.'
        b'0","id":2,"method":"ping"}]\n'
    )
    assert old.recv_json() == [
        {"jsonrpc": "2.0", "id": 1, "result": {}},
        {"jsonrpc": "2.0", "id": 2, "result": {}},
    ]
    assert old.close() == 0


def test_a_line_over_the_cap_is_refused_and_the_session_goes_on(
    oms: OmsCommand, bound: Bound
) -> None:
    client = _client(oms, bound)
    client.initialize()
    client.send_raw(
        b'{"jsonrpc":"2.0","id":1,"method":"ping","pad":"'
        + b"x" * LIMITS.bridge_line_bytes
        + b'"}\n'
    )
    reply = client.recv()
    assert (reply["id"], reply["error"]["code"]) == (None, -32600)
    assert client.request("ping")["result"] == {}
    assert client.close() == 0


def test_start_up_and_listing_have_no_side_effects(
    oms: OmsCommand, bound: Bound, tmp_path: Path
) -> None:
    before = snapshot(bound.chain.state)
    probe = _client(oms, bound)
    assert probe.close() == 0  # a throwaway probe: spawned, stdin closed at once
    assert probe.rest_of_stdout() == b""
    lister = _client(oms, bound)
    lister.initialize()
    lister.request("tools/list")
    assert lister.close() == 0
    assert snapshot(bound.chain.state) == before

    nowhere = {**os.environ, "OMS_BROKER_SOCKET": str(tmp_path / "no-broker.sock")}
    done = subprocess.run(
        [*oms.argv, *bound.bridge_args()],
        input=b"",
        capture_output=True,
        env=nowhere,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1  # outside a sandbox there is no broker: one line, nothing touched
    assert done.stdout == b""
    assert done.stderr.count(b"\n") == 1
    assert b"cannot reach the oms broker" in done.stderr
    assert snapshot(bound.chain.state) == before


def test_tools_read_acknowledge_record(oms: OmsCommand, bound: Bound) -> None:
    client = _client(oms, bound)
    client.initialize()
    early = client.call("record_dispatch_result", {"status": "blocked", "summary": "x"})
    assert "acknowledge_dispatch" in structured(early)["error"]
    read = structured(client.call("read_dispatch"))
    assert read["ticket"]["title"] == "Fix the flaky test"
    assert read["ticket"]["body"] == "It fails one run in ten."
    assert read["worktree_path"] == str(bound.worktree)
    assert read["branch"] == git("rev-parse", "--abbrev-ref", "HEAD", cwd=bound.worktree).strip()
    assert read["start_commit"] == git("rev-parse", "HEAD", cwd=bound.worktree).strip()
    assert "record_dispatch_result" in read["result_contract"]
    first = structured(client.call("acknowledge_dispatch"))
    again = structured(client.call("acknowledge_dispatch"))
    assert (first["state"], first["already"], again["state"], again["already"]) == (
        "acknowledged",
        False,
        "acknowledged",
        True,
    )
    nothing = client.call("record_dispatch_result", {"status": "completed", "summary": "s"})
    assert "nothing to record" in structured(nothing)["error"]
    commit = bound.commit_change()
    (bound.worktree / "WORK.md").write_text("changed after the commit\n")
    dirty = client.call(
        "record_dispatch_result", {"status": "completed", "summary": "s", "result_commit": commit}
    )
    assert "uncommitted" in structured(dirty)["error"]
    git("checkout", "--", "WORK.md", cwd=bound.worktree)
    (bound.worktree / "stray.txt").write_text("untracked\n")
    untracked = client.call(
        "record_dispatch_result", {"status": "completed", "summary": "s", "result_commit": commit}
    )
    assert "uncommitted or untracked" in structured(untracked)["error"]
    (bound.worktree / "stray.txt").unlink()
    other = git(
        "commit-tree", "-m", "x", f"{commit}^{{tree}}", cwd=bound.worktree
    ).strip()  # no parent
    orphan = client.call(
        "record_dispatch_result", {"status": "completed", "summary": "s", "result_commit": other}
    )
    assert "does not descend" in structured(orphan)["error"]
    done = client.call(
        "record_dispatch_result",
        {"status": "completed", "summary": "Fixed.", "result_commit": commit},
    )
    assert done["isError"] is False
    out = structured(done)
    assert (out["state"], out["already"], out["result_commit"]) == (
        "result-received",
        False,
        commit,
    )
    replay = structured(
        client.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "Fixed.", "result_commit": commit},
        )
    )
    assert (replay["already"], replay["evidence"]) == (True, out["evidence"])
    changed = client.call(
        "record_dispatch_result", {"status": "failed", "summary": "No.", "result_commit": commit}
    )
    assert "different result" in structured(changed)["error"]
    assert client.close() == 0
    with bound.chain.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(bound.dispatch_id)
        worker = ws.store.records("worker").read(bound.dispatch_id)
        evidence = ws.store.evidence.get(out["evidence"])
        assert bridge_event_id(bound.session_id) in ws.store.events.ids()
    assert dispatch.state == "result-received"
    assert (worker.state, worker.payload["end_reason"]) == ("done", "result-recorded")
    assert access.obj(evidence.body, "payload")["result_commit"] == commit
    assert evidence.kind == "dispatch-result"
    assert verify(str(bound.chain.state)).ok


def test_work_left_uncommitted_is_committed_by_oms(oms: OmsCommand, bound: Bound) -> None:
    """Codex's sandbox keeps git metadata read-only: the agent leaves its work, oms commits it."""
    client = _client(oms, bound)
    client.initialize()
    client.call("acknowledge_dispatch")
    start = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
    (bound.worktree / "NEW.md").write_text("left by the agent\n")
    (bound.worktree / "README.md").write_text("# changed\n")
    done = structured(
        client.call(
            "record_dispatch_result", {"status": "completed", "summary": "Did it.\nDetails."}
        )
    )
    head = git("rev-parse", "HEAD", cwd=bound.worktree).strip()
    assert (done["state"], done["result_commit"]) == ("result-received", head)
    assert git("rev-parse", "HEAD^", cwd=bound.worktree).strip() == start
    assert git("status", "--porcelain", cwd=bound.worktree) == ""
    assert (
        git("log", "-1", "--format=%an <%ae>|%s", cwd=bound.worktree).strip()
        == "oms worker <worker@oms.invalid>|Did it."
    )
    again = structured(
        client.call(
            "record_dispatch_result", {"status": "completed", "summary": "Did it.\nDetails."}
        )
    )
    assert (again["already"], again["result_commit"]) == (True, head)
    assert client.close() == 0


def test_a_blocked_result_needs_no_commit(oms: OmsCommand, bound: Bound) -> None:
    client = _client(oms, bound)
    client.initialize()
    client.call("acknowledge_dispatch")
    (bound.worktree / "HALF.md").write_text("half done\n")
    out = structured(
        client.call("record_dispatch_result", {"status": "blocked", "summary": "Need access."})
    )
    assert (out["state"], out["result_commit"]) == ("result-received", None)
    assert (bound.worktree / "HALF.md").exists()  # nothing committed, nothing lost
    assert client.close() == 0
    with bound.chain.workspace() as ws:
        worker = ws.store.records("worker").read(bound.dispatch_id)
    assert (worker.state, worker.payload["end_reason"]) == ("blocked", "result-recorded")


def test_a_bridge_bound_to_another_session_is_refused(oms: OmsCommand, bound: Bound) -> None:
    before = snapshot(bound.chain.state)
    client = _client(oms, bound, session="11111111-2222-4333-8444-555555555555")
    client.send(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"protocolVersion": "2025-11-25"},
        }
    )
    refused = client.recv()
    assert refused["id"] is None
    assert "not this worker's binding" in refused["error"]["message"]
    assert client.close() == 0  # the broker closed the session; the relay ends
    assert snapshot(bound.chain.state) == before


def test_a_wrong_nonce_does_not_acknowledge(oms: OmsCommand, bound: Bound) -> None:
    client = _client(oms, bound, nonce="0" * 64)
    client.initialize()
    refused = client.call("acknowledge_dispatch")
    assert refused["isError"] is True
    assert "nonce" in structured(refused)["error"]
    assert client.close() == 0
    with bound.chain.workspace() as ws:
        assert ws.store.records("dispatch").read(bound.dispatch_id).state == "accepted"
        assert bridge_event_id(bound.session_id) not in ws.store.events.ids()


def test_bad_arguments_exit_2_with_one_line(oms: OmsCommand) -> None:
    done = oms.run("worker", "bridge", "--dispatch-id", "dsp-1", stdin=b"")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.count("\n") == 1
    assert "usage" in done.stderr


def test_a_broker_that_ends_the_session_before_reading_all_of_it_is_an_end_not_a_failure(
    oms: OmsCommand, tmp_path: Path
) -> None:
    """A broker that refuses a session answers and closes while the bridge's request is still
    unread on its side: the kernel resets the connection (ECONNRESET after the answer), which is
    the session's end, as an orderly close is (exit 0), whatever the two processes' timing."""
    path = tmp_path / "broker.sock"
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(str(path))
    server.listen(1)
    server.settimeout(60)  # a bridge that never connects fails the test, not the run
    env = {**os.environ, "OMS_BROKER_SOCKET": str(path)}
    session = "11111111-2222-4333-8444-555555555555"
    args = ["worker", "bridge", "--dispatch-id", "dsp-1", "--session-id", session]
    client = RawClient(oms, args, env)
    try:
        conn, _ = server.accept()
        with conn:
            conn.recv(1)  # the rest of the bridge's header stays unread: a reset, not an EOF
            conn.sendall(b'{"jsonrpc": "2.0", "id": null, "error": {"code": -32600}}\n')
        assert client.recv()["error"]["code"] == -32600
        assert client.close() == 0, client.stderr
    finally:
        server.close()
