"""Lapsed authority reaches no running worker (issue 10, case 9; SECURITY.md "The boundary, audited"
9).

Before: after `oms ticket expire` the expired attempt's worker stayed working/healthy, its
heartbeats were accepted, attempt 2 was launched into the same worktree while it ran, and its bridge
recorded a signed `completed` result a minute after expiry; `oms live revoke` left a running GitHub
worker untouched, and `oms worker resume` neither checked nor journaled the live authorisation.

Now an attempt is fenced once its lease lapses (expired, expired by `oms ticket expire`, or leased
again) or its GitHub repository's live authorisation is revoked: its hooks record nothing and deny
every tool, its bridge refuses every tool with the reason, its worker is parked (pane and worktree
kept), resume is refused, and no later attempt is launched into the worktree while it still runs.
The real-pane cases run the worker in its sandbox and its relays as real processes against the
pane's own broker.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.adapters.activation import Tui, Witness
from oms.adapters.panes import Pane
from oms.adapters.providers.base import LaunchPlan
from oms.canonical import JsonObject, add_ms
from oms.domain import fence
from oms.services.chain import dispatches, live, results, tickets, worktrees
from oms.services.chain import fence as fence_service
from oms.services.delivery.service import Delivery
from oms.services.doors import hooks
from oms.services.doors.progress import Memo
from tests.agent_side import Bound, BoundTools, RawClient, bind, snapshot
from tests.chain import Chain, WorkerOut, accepted, broker_socket, use_worker, wait_for
from tests.helpers import OmsCommand

GH_ISSUE = {
    "number": 7,
    "title": "t",
    "body": "b",
    "url": "https://github.com/acme/widgets/issues/7",
}


def _deliver(chain: Chain, event_id: str) -> JsonObject:
    with chain.workspace() as ws:
        outcome = Delivery.open(ws).deliver(event_id)["outcome"]
    assert isinstance(outcome, dict)
    return outcome


def _worker(chain: Chain, dispatch_id: str) -> tuple[str, str, object]:
    with chain.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch_id)
    return worker.state, str(worker.payload["health"]), worker.payload.get("health_reason")


def _running(chain: Chain, dispatch_id: str, event_id: str) -> Bound:
    """Deliver into a real pane (after `use_worker`); the binding once both channels have proven
    themselves."""
    out = WorkerOut(chain.state)
    assert _deliver(chain, event_id)["status"] == "created"
    wait_for(out)
    with chain.workspace() as ws:
        payload = ws.store.records("dispatch").read(dispatch_id).payload
        assert Delivery.open(ws).observe(dispatch_id)["worker_activity"] == "working"
    return Bound(
        chain,
        dispatch_id,
        event_id,
        str(payload["session_id"]),
        Path(str(payload["worktree_path"])),
    )


def _records(chain: Chain) -> dict[str, str]:
    """The state root but for the broker's log (which says why it refused)."""
    return {k: v for k, v in snapshot(chain.state).items() if not k.endswith(".log")}


def _pane_env(bound: Bound) -> dict[str, str]:
    """A relay's environment that reaches the running pane's own broker (through a short link: a
    socket path has 108 bytes, and the sandbox's own view, /oms/broker.sock, is not ours to use
    here)."""
    link = Path(tempfile.mkdtemp(prefix="omsr", dir="/tmp")) / "b.sock"
    link.symlink_to(broker_socket(bound.chain.state, bound.dispatch_id))
    LINKS.append(link.parent)
    return {**os.environ, "OMS_BROKER_SOCKET": str(link)}


LINKS: list[Path] = []


@pytest.fixture(autouse=True)
def _drop_links() -> Iterator[None]:
    yield
    while LINKS:
        shutil.rmtree(LINKS.pop(), ignore_errors=True)


def _hook(
    oms: OmsCommand, bound: Bound, event: str, extra: dict[str, object] | None = None
) -> tuple[dict[str, Any], str]:
    payload = {"hook_event_name": event, "session_id": bound.session_id, **(extra or {})}
    done = subprocess.run(
        [*oms.argv, *bound.hook_args("command", event=event)],
        input=json.dumps(payload).encode(),
        env=_pane_env(bound),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout), done.stderr.decode()


def _bridge_call(
    oms: OmsCommand, bound: Bound, name: str, arguments: dict[str, object]
) -> dict[str, object]:
    client = RawClient(oms, bound.bridge_args(), _pane_env(bound))
    try:
        client.initialize()
        result = client.call(name, arguments)
    finally:
        client.close()
    return result


def _next_attempt(chain: Chain, ticket_id: str) -> tuple[str, str]:
    with chain.workspace() as ws:
        tickets.lease(ws, ticket_id, "w2")
        second, _ = dispatches.propose(ws, ticket_id)
        dispatches.review(ws, second.record_id)
        _, event_id = dispatches.accept(ws, second.record_id)
    return second.record_id, event_id


def test_an_expired_attempt_is_fenced_at_both_doors_and_parked(
    deliverable: Chain, oms: OmsCommand
) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    bound = _running(deliverable, dispatch_id, event_id)
    deliverable.clock.advance(61)
    with deliverable.workspace() as ws:
        [expired], parked = fence_service.expire_leases(ws)  # what `oms ticket expire` runs
        assert parked == [dispatch_id]
        session_before = ws.store.records("session").read(bound.session_id).version
    ticket_id = str(expired.record_id)
    activity, health, why = _worker(deliverable, dispatch_id)
    assert (activity, health) == (
        "working",
        "parked",
    )  # parked by `expire` itself, before any door is used
    assert (
        why
        == "attempt fenced: attempt 1's lease has ended: the ticket is on attempt 2 (lease expired)"
    )
    before = _records(deliverable)
    result = _bridge_call(
        oms, bound, "record_dispatch_result", {"status": "completed", "summary": "late"}
    )
    assert result["isError"] is True
    assert "attempt fenced: attempt 1's lease has ended" in json.dumps(result)
    denied, _ = _hook(oms, bound, "PreToolUse", {"tool_name": "mcp__oms_worker__read_dispatch"})
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "attempt fenced" in denied["hookSpecificOutput"]["permissionDecisionReason"]
    for event in ("UserPromptSubmit", "SessionStart", "Stop"):
        answer, note = _hook(
            oms, bound, event, {"stop_hook_active": False} if event == "Stop" else None
        )
        assert answer == {}  # no context, no Stop held back
        assert "attempt fenced" in note
    assert _records(deliverable) == before  # nothing recorded: no heartbeat, no result, no evidence
    with deliverable.workspace() as ws:
        assert ws.store.records("session").read(bound.session_id).version == session_before
        assert ws.store.records("dispatch").read(dispatch_id).state == "acknowledged"
        assert Delivery.open(ws).observe(dispatch_id)["pane_live"] is True  # parked, not killed
    del ticket_id


def test_no_new_attempt_is_launched_into_a_worktree_while_the_old_one_runs(
    deliverable: Chain, oms: OmsCommand
) -> None:
    use_worker(deliverable)
    first, event_id = accepted(deliverable)
    bound = _running(deliverable, first, event_id)
    (bound.worktree / "attempt-1.txt").write_text(
        "work of attempt 1\n"
    )  # left by the running attempt
    deliverable.clock.advance(61)
    with deliverable.workspace() as ws:
        [expired], _ = fence_service.expire_leases(ws)
    second, event_2 = _next_attempt(deliverable, expired.record_id)
    outcome = _deliver(deliverable, event_2)
    assert outcome["status"] == "parked"
    assert f"{first} (attempt 1) still runs in this worktree" in str(outcome["reason"])
    assert (
        bound.worktree / "attempt-1.txt"
    ).read_text() == "work of attempt 1\n"  # its work is kept
    with deliverable.workspace() as ws:
        assert ws.store.records("session").read_if_exists(bound.session_id) is not None
        assert [p.dispatch_id for p in Delivery.open(ws).panes.list()] == [first]
        Delivery.open(ws).stop(first, "attempt 1 is over")
    (bound.worktree / "attempt-1.txt").unlink()  # the person keeps or drops it; oms never does
    with deliverable.workspace() as ws:
        view = Delivery.open(ws).resume(second)
    assert view["pane_live"] is True, view
    assert second in [p.dispatch_id for p in _panes(deliverable)]
    del oms


def _panes(chain: Chain) -> list[Pane]:
    with chain.workspace() as ws:
        return list(Delivery.open(ws).panes.list())


def test_a_lapsed_lease_fences_the_bridge_before_anyone_expires_it(chain: Chain) -> None:
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        commit = bound.commit_change()
        chain.clock.advance(61)  # the lease has run out; nobody ran `oms ticket expire`
        out, is_error = tools.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "s", "result_commit": commit},
        )
        assert is_error is True
        assert out["error"] == "attempt fenced: attempt 1's lease expired at " + str(
            _expiry(chain, bound)
        )
        before = snapshot(chain.state)
        for name in ("read_dispatch", "acknowledge_dispatch", "record_dispatch_result"):
            arguments = (
                {"status": "completed", "summary": "s"} if name == "record_dispatch_result" else {}
            )
            out, is_error = tools.call(name, arguments)
            assert is_error is True
            assert str(out["error"]).startswith("attempt fenced: ")
        assert snapshot(chain.state) == before  # parked once; each later refusal changes nothing
    finally:
        tools.close()
    state, health, why = _worker(chain, bound.dispatch_id)
    assert (state, health) == ("idle", "parked")
    assert str(why).startswith("attempt fenced: attempt 1's lease expired at ")
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(bound.dispatch_id).state == "acknowledged"
        kinds = [
            ws.store.evidence.get(ref).body["evidence_kind"] for ref in ws.store.evidence.refs()
        ]
        assert "dispatch-result" not in kinds


def _expiry(chain: Chain, bound: Bound) -> object:
    with chain.workspace() as ws:
        ticket_id = ws.store.records("dispatch").read(bound.dispatch_id).payload["ticket_id"]
        return ws.store.records("ticket").read(str(ticket_id)).payload["lease_expires_at"]


def test_a_dispatch_of_a_ticket_leased_again_cannot_record_a_result(chain: Chain) -> None:
    """The old attempt's bridge recorded `completed` with the new attempt's commit: now refused."""
    bound = bind(chain)
    old = BoundTools(bound)
    try:
        assert old.call("acknowledge_dispatch", {})[1] is False
        chain.clock.advance(61)
        with chain.workspace() as ws:
            [expired] = tickets.expire_due(ws)
        _next_attempt(chain, expired.record_id)
        commit = bound.commit_change("attempt 2's work\n")
        out, is_error = old.call(
            "record_dispatch_result",
            {"status": "completed", "summary": "s", "result_commit": commit},
        )
    finally:
        old.close()
    assert is_error is True
    assert out["error"] == (
        "attempt fenced: attempt 1's lease is no longer held: "
        "the ticket was leased again (attempt 2)"
    )


def _github_dispatch(chain: Chain) -> tuple[str, str]:
    with chain.workspace() as ws:
        live.authorize(ws, "acme/widgets", person="Alice", confirmed_by="flag")
        rec, _ = tickets.import_github(ws, json.dumps(GH_ISSUE).encode())
        tickets.lease(ws, rec.record_id, "w1")
        worktrees.create(ws, rec.record_id)
        dispatch, _ = dispatches.propose(ws, rec.record_id)
        dispatches.review(ws, dispatch.record_id)
        _, event_id = dispatches.accept(ws, dispatch.record_id)
    return dispatch.record_id, event_id


def _contacts(chain: Chain) -> list[str]:
    with chain.workspace() as ws:
        entries = [e["entry"] for e in ws.store.journal("live-contact").entries()]
        return [str(e["operation"]) for e in entries if isinstance(e, dict)]


def test_revoking_the_live_authorisation_fences_a_running_github_worker(
    deliverable: Chain, oms: OmsCommand
) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = _github_dispatch(deliverable)
    bound = _running(deliverable, dispatch_id, event_id)
    done = oms.run(
        "live", "revoke", "--repository", "acme/widgets", "--reason", "stop now",
        "--state-root", str(deliverable.state), "--config-root", str(deliverable.repo), "--json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["parked_workers"] == [dispatch_id]
    state, health, why = _worker(deliverable, dispatch_id)
    assert health == "parked"
    assert str(why).startswith(
        "attempt fenced: the live authorisation of acme/widgets was revoked at "
    )
    assert str(why).endswith("(stop now)")
    contacts = _contacts(deliverable)
    for name in ("read_dispatch", "record_dispatch_result"):
        arguments: dict[str, object] = (
            {"status": "failed", "summary": "s"} if name != "read_dispatch" else {}
        )
        result = _bridge_call(oms, bound, name, arguments)
        assert result["isError"] is True
        assert "the live authorisation of acme/widgets was revoked" in json.dumps(result)
    resumed = oms.run(
        "worker",
        "resume",
        dispatch_id,
        "--state-root",
        str(deliverable.state),
        "--config-root",
        str(deliverable.repo),
    )
    assert resumed.returncode == 1
    assert resumed.stderr.count("\n") <= 2
    assert "attempt fenced: the live authorisation" in resumed.stderr
    assert _contacts(deliverable) == contacts  # nothing was disclosed after the revocation
    assert _worker(deliverable, dispatch_id)[1] == "parked"
    del state


def test_resume_checks_and_journals_the_live_authorisation(deliverable: Chain) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = _github_dispatch(deliverable)
    _running(deliverable, dispatch_id, event_id)
    with deliverable.workspace() as ws:
        Delivery.open(ws).park(dispatch_id, "a pause", add_ms(deliverable.clock(), 60_000))
    deliverable.clock.advance(2)
    with deliverable.workspace() as ws:
        view = Delivery.open(ws).resume(dispatch_id)
    assert view["worker_health"] == "healthy"
    assert _contacts(deliverable)[-1] == "worker-resume"  # journaled before the pane is touched
    with deliverable.workspace() as ws:
        entry = ws.store.journal("live-contact").entries()[-1]["entry"]
        assert isinstance(entry, dict)
        session_id = ws.store.records("dispatch").read(dispatch_id).payload["session_id"]
        assert (entry["repository"], entry["operation"], entry["subject_id"]) == (
            "acme/widgets",
            "worker-resume",
            session_id,
        )


# ----------------------------------------------------------------------------------------- the rule
TS = st.integers(min_value=0, max_value=10_000).map(
    lambda ms: add_ms("2026-12-01T00:00:00.000Z", ms)
)


@given(
    state=st.sampled_from(["open", "leased", "done", "blocked"]),
    same_token=st.booleans(),
    same_session=st.booleans(),
    same_worker=st.booleans(),
    attempts=st.tuples(st.integers(1, 4), st.integers(1, 4)),
    expires=TS,
    now=TS,
)
def test_an_attempt_is_authorised_only_by_its_own_live_lease(
    state: str,
    same_token: bool,
    same_session: bool,
    same_worker: bool,
    attempts: tuple[int, int],
    expires: str,
    now: str,
) -> None:
    dispatch: JsonObject = {
        "attempt": attempts[0],
        "lease_token": "t" * 43,
        "session_id": "s1",
        "worker_id": "w1",
    }
    ticket: JsonObject = {
        "attempt": attempts[1],
        "lease_token": "t" * 43 if same_token else "u" * 43,
        "session_id": "s1" if same_session else "s2",
        "worker_id": "w1" if same_worker else "w2",
        "lease_expires_at": expires,
        "reason": None,
    }
    authorised = (
        state == "leased"
        and same_token
        and same_session
        and same_worker
        and attempts[0] == attempts[1]
        and expires > now  # fixed-width timestamps of one format order as text
    )
    lapse = fence.lease_lapse(dispatch, state, ticket, now)
    assert (lapse is None) == authorised
    if lapse is not None:
        assert "\n" not in lapse
        assert lapse.startswith(f"attempt {attempts[0]}'s lease ")


@given(
    state=st.sampled_from([None, "authorized", "revoked"]),
    why=st.one_of(st.none(), st.text(max_size=20)),
)
def test_only_an_authorisation_in_force_lets_a_github_attempt_go_on(
    state: str | None, why: str | None
) -> None:
    payload: JsonObject | None = (
        None if state is None else {"revoked_at": "2026-12-01T00:00:00.000Z", "reason": why}
    )
    lapse = fence.authorization_lapse("acme/widgets", state, payload)
    assert (lapse is None) == (state == "authorized")
    reason = fence.reason((None, lapse))
    assert (reason is None) == (state == "authorized")
    assert reason is None or reason.startswith("attempt fenced: ")


# ----------------------------------------------------------------- found by the attack on this case
def _hook_in_process(
    bound: Bound, event: str, extra: dict[str, object] | None = None
) -> dict[str, Any]:
    """A hook as the broker answers it for a worker whose role grants `Bash`."""
    argv = tuple(bound.hook_args("command", "Bash", event=event)[2:])
    body = json.dumps(
        {"hook_event_name": event, "session_id": bound.session_id, **(extra or {})}
    ).encode()
    with bound.chain.workspace() as ws:
        out, _ = hooks.answer(
            bound.binding("command", "Bash"), argv, body, lambda: ws, bound.nonce, Memo()
        )
    answer = json.loads(out)
    assert isinstance(answer, dict)
    return answer


def _github_bound(chain: Chain) -> Bound:
    dispatch_id, event_id = _github_dispatch(chain)
    with chain.workspace() as ws:
        payload = ws.store.records("dispatch").read(dispatch_id).payload
    return Bound(
        chain,
        dispatch_id,
        event_id,
        str(payload["session_id"]),
        Path(str(payload["worktree_path"])),
    )


def test_a_worker_its_supervisor_parked_first_is_reported_by_the_revocation(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The running pane's supervisor may see the revocation and park its worker before the CLI's
    sweep reaches it (a full run saw `parked_workers: []`): the worker is still reported, since it
    is parked for the lapse."""
    bound = _github_bound(chain)  # its worker is written when the dispatch is accepted
    revoke = live.revoke

    def revoke_then_the_supervisor_parks(ws: Any, repository: str, why: str) -> Any:
        rec = revoke(ws, repository, why)
        dispatch = ws.store.records("dispatch").read(bound.dispatch_id)
        lapse = fence_service.reason(ws, dispatch)
        assert lapse is not None
        assert fence_service.park(ws, bound.dispatch_id, lapse, "oms-supervisor")
        return rec

    monkeypatch.setattr(live, "revoke", revoke_then_the_supervisor_parks)
    with chain.workspace() as ws:
        _, parked = fence_service.revoke(ws, "acme/widgets", "stop now")
    assert parked == [bound.dispatch_id]
    assert _worker(chain, bound.dispatch_id)[1] == "parked"


def test_a_cancelled_dispatch_is_fenced(chain: Chain) -> None:
    """`oms dispatch cancel` leaves the lease held: the dispatch's own state fences it."""
    bound = bind(chain)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        assert (
            _hook_in_process(bound, "PreToolUse", {"tool_name": "Bash"}) == {}
        )  # the control: allowed
        with chain.workspace() as ws:
            dispatches.cancel(ws, bound.dispatch_id, "not wanted any more")
        answer = _hook_in_process(bound, "PreToolUse", {"tool_name": "Bash"})
    finally:
        tools.close()
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "attempt fenced: the dispatch is cancelled (not wanted any more)" in str(answer)
    assert _worker(chain, bound.dispatch_id)[1] == "parked"


def test_authorising_again_does_not_unfence_a_parked_worker(deliverable: Chain) -> None:
    """Only `oms worker resume` lifts a fence-park, and it journals the contact first."""
    use_worker(deliverable)
    dispatch_id, event_id = _github_dispatch(deliverable)
    bound = _running(deliverable, dispatch_id, event_id)
    with deliverable.workspace() as ws:
        _, parked = fence_service.revoke(ws, "acme/widgets", "stop")
        assert parked == [dispatch_id]
        live.authorize(ws, "acme/widgets", person="Alice", confirmed_by="flag")
    contacts = _contacts(deliverable)
    answer = _hook_in_process(bound, "PreToolUse", {"tool_name": "Bash"})
    assert answer["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "parked until `oms worker resume`" in str(answer)
    tools = BoundTools(bound)
    try:
        out, is_error = tools.call("record_dispatch_result", {"status": "failed", "summary": "s"})
        assert is_error is True
        assert "parked until `oms worker resume`" in str(out["error"])
        assert _contacts(deliverable) == contacts
        with deliverable.workspace() as ws:
            assert Delivery.open(ws).resume(dispatch_id)["worker_health"] == "healthy"
        assert _contacts(deliverable) == [*contacts, "worker-resume"]
        assert _hook_in_process(bound, "PreToolUse", {"tool_name": "Bash"}) == {}
        assert (
            tools.call("record_dispatch_result", {"status": "failed", "summary": "s"})[1] is False
        )
    finally:
        tools.close()


def test_a_lapse_while_a_result_is_verified_records_no_result(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The fence is asked again just before the evidence and the transition are written."""
    bound = _github_bound(chain)
    verify = results.verify_commit

    def verify_then_revoke(*args: Any, **kwargs: Any) -> None:
        verify(*args, **kwargs)
        with chain.workspace() as ws:  # `oms live revoke` from another terminal, while git verifies
            fence_service.revoke(ws, "acme/widgets", "stop now")

    monkeypatch.setattr(results, "verify_commit", verify_then_revoke)
    tools = BoundTools(bound)
    try:
        assert tools.call("acknowledge_dispatch", {})[1] is False
        commit = bound.commit_change()
        arguments = {"status": "completed", "summary": "s", "result_commit": commit}
        out, is_error = tools.call("record_dispatch_result", arguments)
    finally:
        tools.close()
    assert is_error is True
    assert "the live authorisation of acme/widgets was revoked" in str(out["error"])
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(bound.dispatch_id).state == "acknowledged"


def test_a_lapse_while_the_agent_is_activated_leaves_it_parked(deliverable: Chain) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = _github_dispatch(deliverable)

    class ActivateThenRevoke(Tui):
        def activate(self, plan: LaunchPlan, dispatch_id: str, witness: Witness) -> None:
            super().activate(plan, dispatch_id, witness)
            with deliverable.workspace() as ws:
                fence_service.revoke(ws, "acme/widgets", "stop now")

    with deliverable.workspace() as ws:
        panes = Delivery.open(ws).panes
        result = Delivery.open(ws, activator=ActivateThenRevoke(panes)).deliver(event_id)
    outcome = result["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "parked"
    assert "the live authorisation of acme/widgets was revoked" in str(outcome["reason"])
    assert _worker(deliverable, dispatch_id)[1] == "parked"


def test_resume_of_a_fenced_worker_is_one_line_and_changes_nothing(
    deliverable: Chain, oms: OmsCommand
) -> None:
    use_worker(deliverable)
    dispatch_id, _ = _github_dispatch(
        deliverable
    )  # accepted, never delivered: resume would launch it
    with deliverable.workspace() as ws:
        fence_service.revoke(ws, "acme/widgets", "stop")
    roots = ("--state-root", str(deliverable.state), "--config-root", str(deliverable.repo))
    for target in (dispatch_id, "dsp-" + "0" * 32):
        before = snapshot(deliverable.state)
        done = oms.run("worker", "resume", target, *roots)
        assert done.returncode == 1, done.stdout
        first = done.stderr.splitlines()[0]
        assert ("worker cannot resume: attempt fenced: the live authorisation" in first) == (
            target == dispatch_id
        )
        assert snapshot(deliverable.state) == before  # not even tmux.conf


def test_a_worker_already_parked_is_marked_fenced(deliverable: Chain) -> None:
    """Parked by `oms worker park` (or as silent) when the authorisation is revoked: it is marked as
    parked for the lapse, so authorising again does not reopen its doors either."""
    use_worker(deliverable)
    dispatch_id, event_id = _github_dispatch(deliverable)
    bound = _running(deliverable, dispatch_id, event_id)
    with deliverable.workspace() as ws:
        Delivery.open(ws).park(dispatch_id, "a pause", add_ms(deliverable.clock(), 3_600_000))
        _, parked = fence_service.revoke(ws, "acme/widgets", "stop")
        live.authorize(ws, "acme/widgets", person="Alice", confirmed_by="flag")
    assert parked == [dispatch_id]
    assert str(_worker(deliverable, dispatch_id)[2]).startswith(
        "attempt fenced: the live authorisation"
    )
    answer = _hook_in_process(bound, "PreToolUse", {"tool_name": "Bash"})
    assert "parked until `oms worker resume`" in str(answer)
