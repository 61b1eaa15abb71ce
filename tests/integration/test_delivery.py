"""`oms worker deliver` with real git, a real tmux server and a real command worker (ADR 0009
"Delivery")."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from oms.adapters.activation import ActivationError, Witness
from oms.adapters.panes import Pane
from oms.adapters.providers.base import LaunchPlan
from oms.canonical import JsonObject, access, add_ms, operation_nonce
from oms.errors import (
    AuthorityChangedError,
    InvalidInputError,
    OmsError,
    ProcessError,
    StateRootError,
)
from oms.fsio.procinfo import group_alive
from oms.services.chain import dispatches, live, tickets
from oms.services.chain.liveness import CONSUMER
from oms.services.checkout import salvage
from oms.services.delivery.interface import Panes
from oms.services.delivery.service import Delivery
from oms.services.workspace import Workspace
from oms.store import panefiles
from oms.store.verify import verify
from tests.chain import Chain, WorkerOut, accepted, use_worker
from tests.helpers import eventually, git


def _wait_for(path: Path | WorkerOut, timeout: float = 20.0) -> str:
    eventually(path.exists, timeout=timeout, what=f"{path} appears")
    return path.read_text()


def _pane_over(panes: Panes, dispatch_id: str) -> Pane | None:
    """The worker's pane once it is dead (None: gone)."""

    def over() -> tuple[Pane | None] | None:
        pane = panes.observe(dispatch_id)
        return (pane,) if pane is None or pane.dead else None

    return eventually(over, timeout=20, what=f"the pane of {dispatch_id} ends")[0]


def _deliver(chain: Chain, event_id: str) -> JsonObject:
    with chain.workspace() as ws:
        return Delivery.open(ws).deliver(event_id)


def _running(chain: Chain, mode: str = "wait") -> str:
    """The dispatch id of a worker delivered into a real pane and running (its script has
    started)."""
    out = use_worker(chain, mode)
    dispatch_id, event_id = accepted(chain)
    _deliver(chain, event_id)
    _wait_for(out)
    return dispatch_id


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:  # gone, also while its /proc entry is read (ESRCH)
        return False
    return stat.split(")")[-1].split()[0] not in ("Z", "X")


def test_deliver_launches_once_in_a_real_pane(deliverable: Chain) -> None:
    out = use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    result = _deliver(deliverable, event_id)
    outcome = result["outcome"]
    assert isinstance(outcome, dict)
    assert (result["status"], outcome["status"]) == ("processed", "created")
    assert outcome["operation_nonce"] == operation_nonce(event_id, CONSUMER)
    seen = dict(line.split("=", 1) for line in _wait_for(out).splitlines())
    with deliverable.workspace() as ws:
        dispatch = ws.store.records("dispatch").read(dispatch_id)
        worker = ws.store.records("worker").read(dispatch_id)
        session = ws.store.records("session").read(str(dispatch.payload["session_id"]))
        registry = json.loads((deliverable.state / "panes" / f"{dispatch_id}.json").read_text())
    assert seen["cwd"] == os.path.realpath(str(dispatch.payload["worktree_path"]))
    assert (seen["dispatch"], seen["session"]) == (dispatch_id, dispatch.payload["session_id"])
    assert seen["home"] == "/oms/home"  # its private home; the delivery nonce stays with the broker
    assert (worker.state, worker.payload["health"]) == ("working", "healthy")
    assert (session.state, session.payload["tmux_pane_id"]) == ("running", outcome["pane_id"])
    assert registry["pane_id"] == outcome["pane_id"]
    replay = _deliver(deliverable, event_id)
    assert replay == {"status": "replayed", "outcome": outcome}
    assert verify(str(deliverable.state)).ok


def test_pane_environment_is_allow_listed(
    deliverable: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OMS_TEST_SECRET", "do-not-leak")
    out = use_worker(deliverable)
    _, event_id = accepted(deliverable)
    _deliver(deliverable, event_id)
    assert "secret=absent" in _wait_for(out)


def test_stop_leaves_no_pane_and_no_process(deliverable: Chain) -> None:
    dispatch_id = _running(deliverable)
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        pane = delivery.panes.observe(dispatch_id)
        assert pane is not None
        assert _pid_alive(pane.pane_pid)
        view = delivery.stop(dispatch_id, "test is over")
        assert delivery.panes.list() == []
    assert not _pid_alive(pane.pane_pid)
    assert (view["worker_health"], view["worker_activity"], view["session_state"]) == (
        "stopped",
        "blocked",
        "stopped",
    )
    assert view["end_reason"] == "stopped"
    assert "test is over" in str(view["end_detail"])
    assert not (deliverable.state / "panes" / f"{dispatch_id}.json").exists()
    assert (
        not (deliverable.state / "tmux.sock").exists()
        or subprocess.run(
            ["tmux", "-S", str(deliverable.state / "tmux.sock"), "ls"],
            capture_output=True,
            check=False,
        ).returncode
        != 0
    )
    assert verify(str(deliverable.state)).ok


@pytest.mark.parametrize(
    ("mode", "reason", "detail"), [("exit0", "exit", "status 0"), ("exit3", "exit", "status 3")]
)
def test_end_reason_when_the_worker_exits(
    deliverable: Chain, mode: str, reason: str, detail: str
) -> None:
    out = use_worker(deliverable, mode)
    dispatch_id, event_id = accepted(deliverable)
    _deliver(deliverable, event_id)
    _wait_for(out)
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        pane = _pane_over(delivery.panes, dispatch_id)
        view = delivery.observe(dispatch_id)
        recorded = panefiles.read_exit(ws.store.state.root, dispatch_id)
        registry = panefiles.read_registry(ws.store.state.root, dispatch_id)
    assert (view["end_reason"], view["worker_health"]) == (reason, "stopped")
    assert detail in str(view["end_detail"])
    assert recorded is not None
    assert registry is not None
    assert pane is not None
    assert (
        recorded["pane_pid"] == registry["pane_pid"] == pane.pane_pid
    )  # the record names its own pane


def test_a_launch_that_found_a_live_pane_never_makes_one_for_a_spec_it_did_not_write(
    deliverable: Chain,
) -> None:
    """GAP_STALE_EXIT (ADR 0014): a launch that decided on a live pane (it wrote no spec) and finds
    it gone at `ensure` raises instead of creating a pane that would run whatever spec is left."""
    dispatch_id = _running(deliverable)
    sock = str(deliverable.state / "tmux.sock")
    with deliverable.workspace() as ws:
        panes = Delivery.open(ws).panes
        subprocess.run(["tmux", "-S", sock, "kill-session", "-t", f"={dispatch_id}"], check=True)
        with pytest.raises(ProcessError, match="ended before this launch could reuse it") as raised:
            panes.ensure(dispatch_id, argv=("sleep", "60"), cwd=str(deliverable.repo), create=False)
        assert (
            f"`oms worker resume {dispatch_id}`" in raised.value.message
        )  # the park's reason says what to do
        assert panes.observe(dispatch_id) is None


def test_end_reason_when_killed_by_a_signal(deliverable: Chain) -> None:
    dispatch_id = _running(deliverable)
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        pane = delivery.panes.observe(dispatch_id)
        assert pane is not None
        os.killpg(pane.pane_pid, 15)  # someone else's signal to the worker's process group
        assert _pane_over(delivery.panes, dispatch_id) is not None  # dead, not gone
        view = delivery.observe(dispatch_id)
        delivery.stop(dispatch_id, "cleanup")
    assert view["end_reason"] == "signal"
    assert "signal 15" in str(view["end_detail"])


def _processes_of(dispatch_id: str) -> list[int]:
    """Live processes whose command line or environment names `dispatch_id` (the pane's whole
    tree)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            seen = (entry / "cmdline").read_bytes() + (entry / "environ").read_bytes()
        except OSError:
            continue  # gone meanwhile, or not ours to read
        if dispatch_id.encode() in seen and _pid_alive(int(entry.name)):
            found.append(int(entry.name))
    return found


@pytest.mark.parametrize(("mode", "signum"), [("silent", 1), ("stubborn", 1)])
def test_no_process_outlives_a_killed_tmux_server(
    deliverable: Chain, mode: str, signum: int
) -> None:
    """The kernel sends a hang-up only to the pane's session leader (`oms worker supervise`): it
    must take the agent down and record it. It passes SIGHUP to its group, where bubblewrap dies of
    it and takes the sandbox's whole PID namespace along: an agent that ignores SIGHUP and SIGTERM
    goes too."""
    out = use_worker(deliverable, mode)
    dispatch_id, event_id = accepted(deliverable)
    _deliver(deliverable, event_id)
    _wait_for(out)
    assert len(_processes_of(dispatch_id)) >= 2  # the supervisor and the agent
    subprocess.run(["tmux", "-S", str(deliverable.state / "tmux.sock"), "kill-server"], check=True)
    eventually(
        lambda: not _processes_of(dispatch_id),
        timeout=20,
        what="every process ends with the tmux server",
    )
    ended = json.loads((deliverable.state / "panes" / f"{dispatch_id}.exit.json").read_text())
    assert (ended["status"], ended["signal"]) == (None, signum)
    with deliverable.workspace() as ws:
        view = Delivery.open(ws).observe(
            dispatch_id
        )  # no pane and no server left: the record tells
    assert (view["end_reason"], view["worker_health"], view["pane_live"]) == (
        "signal",
        "stopped",
        False,
    )
    assert f"signal {signum}" in str(view["end_detail"])


def test_a_pane_killed_with_its_server_and_no_record_ends_unrecorded(deliverable: Chain) -> None:
    dispatch_id = _running(deliverable, "silent")
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        pane = delivery.panes.observe(dispatch_id)
        assert pane is not None
        os.killpg(pane.pane_pid, 9)  # the supervisor too: nobody records this end
        subprocess.run(
            ["tmux", "-S", str(deliverable.state / "tmux.sock"), "kill-server"], check=True
        )
        pane_pid = pane.pane_pid
        eventually(  # (a dying process may hide its environ: the group too)
            lambda: not _processes_of(dispatch_id) and not group_alive(pane_pid),
            timeout=20,
            what="the pane's processes end",
        )
        view = delivery.observe(dispatch_id)
    assert not (deliverable.state / "panes" / f"{dispatch_id}.exit.json").exists()
    assert (view["end_reason"], view["worker_health"]) == ("parent-gone", "stopped")
    assert "the end was not recorded" in str(view["end_detail"])


def test_a_pane_that_cannot_be_seen_while_its_processes_live_ends_nothing(
    deliverable: Chain,
) -> None:
    dispatch_id = _running(deliverable, "silent")
    socket = deliverable.state / "tmux.sock"
    hidden = deliverable.state / "tmux.sock.hidden"
    socket.rename(hidden)  # the server lives on, but no client can reach it: a tmux hiccup
    try:
        with deliverable.workspace() as ws:
            delivery = Delivery.open(ws)
            assert delivery.panes.observe(dispatch_id) is None
            view = delivery.observe(dispatch_id)
    finally:
        hidden.rename(socket)
    assert (view["end_reason"], view["worker_health"]) == (None, "healthy")
    assert len(_processes_of(dispatch_id)) >= 2


# ----------------------------------------------------------- every authority check parks the worker
def _edit_policy(chain: Chain) -> None:
    chain.edit_policy(lambda d: d["roles"]["oms.command-executor"]["tools"].pop(), commit=True)


def _edit_model(chain: Chain) -> None:
    chain.edit_config(lambda s: s.replace('model = "script"', 'model = "other"'), commit=True)


def _edit_transport(chain: Chain) -> None:
    def change(text: str) -> str:
        head, _, tail = text.partition('[roles."oms.command-executor"]')
        body = "\n".join(line for line in tail.splitlines() if not line.startswith("argv"))
        return (
            head
            + '[roles."oms.command-executor"]'
            + body.replace('transport = "command"', 'transport = "codex_goal"', 1)
            + "\n"
        )

    chain.edit_config(change, commit=True)


def _expire_lease(chain: Chain) -> None:
    chain.clock.advance(61)


def _dirty(chain: Chain) -> None:
    (next((chain.base / "oms-worktrees").iterdir()) / "stray.txt").write_text("untracked\n")


def _moved_head(chain: Chain) -> None:
    wt = next((chain.base / "oms-worktrees").iterdir())
    git("commit", "-q", "--allow-empty", "-m", "sneaky", cwd=wt)


def _other_branch(chain: Chain) -> None:
    wt = next((chain.base / "oms-worktrees").iterdir())
    git("checkout", "-q", "-b", "elsewhere", cwd=wt)


def _smuggled_codex(chain: Chain) -> None:
    wt = next((chain.base / "oms-worktrees").iterdir())
    (wt / ".codex").mkdir()
    (wt / ".codex" / "hooks.json").write_text('{"hooks": {}}')
    git("add", "-A", cwd=wt)
    git("commit", "-q", "-m", "x", cwd=wt)


def _broken_signature(chain: Chain) -> None:
    path = next((chain.state / "evidence").iterdir())
    env = json.loads(path.read_bytes())
    env["signatures"][0]["sig"] = "A" * 86 + "=="
    os.unlink(path)
    path.write_bytes(json.dumps(env, sort_keys=True, separators=(",", ":")).encode())
    os.chmod(path, 0o600)


def _worktree_record(chain: Chain) -> None:
    path = next((chain.state / "worktree-records").iterdir())
    data = path.read_bytes().replace(b'"created_at":"', b'"created_at":"1')
    doc = json.loads(path.read_bytes())
    doc["base_commit"] = "0" * 40
    os.unlink(path)
    path.write_bytes(json.dumps(doc, sort_keys=True, separators=(",", ":")).encode())
    os.chmod(path, 0o600)
    del data


MUTATIONS: dict[str, tuple[Callable[[Chain], None], str]] = {
    "policy committed after accept": (_edit_policy, "role policy changed"),
    "model changed": (_edit_model, "changed since it was approved: model_id"),
    "transport changed": (_edit_transport, "changed since it was approved: provider_mode"),
    "lease expired": (_expire_lease, "lease expired"),
    "untracked file": (_dirty, "not clean"),
    "HEAD moved": (_moved_head, "HEAD"),
    "other branch": (_other_branch, "expected oms/"),
    "smuggled .codex": (_smuggled_codex, ".codex"),
    "evidence signature": (_broken_signature, "signature"),
    "worktree record": (_worktree_record, "worktree record no longer matches"),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_each_authority_check_parks_with_a_bounded_reason(deliverable: Chain, name: str) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    mutate, why = MUTATIONS[name]
    mutate(deliverable)
    result = _deliver(deliverable, event_id)
    outcome = result["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "parked", outcome
    reason = str(outcome["reason"])
    assert why in reason
    assert "\n" not in reason
    assert len(reason) <= 512
    with deliverable.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch_id)
        assert (worker.state, worker.payload["health"]) == ("idle", "parked")
        assert Delivery.open(ws).panes.list() == []
        assert ws.store.records("session").ids() == []
    assert _deliver(deliverable, event_id)["status"] == "replayed"


def test_repository_code_never_runs_during_checkout_verification(deliverable: Chain) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    marker = deliverable.base / "ran.marker"
    script = deliverable.base / "evil.sh"
    script.write_text(f"#!/bin/sh\ntouch '{marker}'\ncat\n")
    script.chmod(0o755)
    wt = next((deliverable.base / "oms-worktrees").iterdir())
    (wt / ".gitattributes").write_text("* filter=evil\n")
    git("add", "-A", cwd=wt)
    git("commit", "-q", "-m", "attrs", cwd=wt)
    git("config", "core.fsmonitor", str(script), cwd=wt)
    git("config", "filter.evil.clean", str(script), cwd=wt)
    (wt / "touched.txt").write_text("a change status would have to clean-filter\n")
    outcome = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "parked"
    assert "would run code" in str(outcome["reason"])
    assert not marker.exists()
    del dispatch_id


def test_github_ticket_delivery_needs_live_authorization_and_journals_first(
    deliverable: Chain,
) -> None:
    use_worker(deliverable)
    issue = {"number": 3, "title": "t", "body": "b", "url": "https://github.com/o/r/issues/3"}
    with deliverable.workspace() as ws:
        live.authorize(ws, "o/r", person="Alice", confirmed_by="flag")
        rec, _ = tickets.import_github(ws, json.dumps(issue).encode())
        tickets.lease(ws, rec.record_id, "w1")
        from oms.services.chain import worktrees

        worktrees.create(ws, rec.record_id)
        dispatch, _ = dispatches.propose(ws, rec.record_id)
        dispatches.review(ws, dispatch.record_id)
        _, event_id = dispatches.accept(ws, dispatch.record_id)
        live.revoke(ws, "o/r", "no more")
    parked = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(parked, dict)
    assert parked["status"] == "parked"
    assert "live authorisation" in str(parked["reason"])
    with deliverable.workspace() as ws:
        contacts = [e["entry"] for e in ws.store.journal("live-contact").entries()]
    assert [c["operation"] for c in contacts if isinstance(c, dict)] == ["advisor-review"]


def test_event_binding_mismatch_refuses_without_a_receipt(deliverable: Chain) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        event = ws.store.events.read(event_id)
        forged = {**event.payload, "attempt": 2}
        ws.store.events.create(
            "evt-forged", "dispatch-delivery-requested", event.created_at, forged
        )
    with pytest.raises(AuthorityChangedError, match="binding"):
        _deliver(deliverable, "evt-forged")
    assert not (deliverable.state / "outbox" / CONSUMER / "evt-forged.receipt.json").exists()
    assert not (deliverable.state / "outbox" / CONSUMER / "evt-forged.lock").exists()
    del dispatch_id


def test_advanced_dispatch_is_recovered_not_relaunched(deliverable: Chain) -> None:
    out = use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    first = _deliver(deliverable, event_id)["outcome"]
    _wait_for(out)
    assert isinstance(first, dict)
    with deliverable.workspace() as ws:
        records = ws.store.records("dispatch")
        rec = records.read(dispatch_id)
        records.transition(
            dispatch_id,
            expected_version=rec.version,
            state="acknowledged",
            payload=rec.payload,
            operation_id="op-ack",
            actor="oms-system",
            observed_at=add_ms(rec.observed_at, 1),
        )
    os.unlink(
        deliverable.state / "outbox" / CONSUMER / f"{event_id}.receipt.json"
    )  # as if we crashed before it
    again = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(again, dict)
    assert (again["status"], again["dispatch_state"], again["pane_id"]) == (
        "recovered",
        "acknowledged",
        first["pane_id"],
    )
    with deliverable.workspace() as ws:
        assert len(Delivery.open(ws).panes.list()) == 1


def test_expired_attempt_checkout_is_restored_keeping_its_work(deliverable: Chain) -> None:
    out = use_worker(deliverable)
    ticket_id, _, first = deliverable.proposed()
    with deliverable.workspace() as ws:
        start = str(ws.store.records("dispatch").read(first).payload["worktree_start_commit"])
    wt = deliverable.base / "oms-worktrees" / ticket_id
    (wt / "partial.txt").write_text("half done\n")
    git("add", "-A", cwd=wt)
    git("commit", "-q", "-m", "partial work of attempt 1", cwd=wt)
    partial = git("rev-parse", "HEAD", cwd=wt).strip()
    deliverable.clock.advance(61)
    with deliverable.workspace() as ws:
        tickets.expire_due(ws)
        tickets.lease(ws, ticket_id, "w2")
        second, _ = dispatches.propose(ws, ticket_id)
        dispatches.review(ws, second.record_id)
        _, event_id = dispatches.accept(ws, second.record_id)
    outcome = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "created", outcome
    assert git("rev-parse", "HEAD", cwd=wt).strip() == start
    assert (
        git("rev-parse", f"refs/oms/expired/{ticket_id}-1", cwd=wt).strip() == partial
    )  # nothing lost
    _wait_for(out)


def _expire_and_redeliver(deliverable: Chain, ticket_id: str) -> JsonObject:
    deliverable.clock.advance(61)
    with deliverable.workspace() as ws:
        tickets.expire_due(ws)
        tickets.lease(ws, ticket_id, "w2")
        second, _ = dispatches.propose(ws, ticket_id)
        dispatches.review(ws, second.record_id)
        _, event_id = dispatches.accept(ws, second.record_id)
    outcome = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(outcome, dict)
    return outcome


def test_expired_attempt_with_uncommitted_work_is_salvaged_then_restored(
    deliverable: Chain,
) -> None:
    """Issue 14: the expired attempt's uncommitted and untracked work is committed by oms to
    `refs/oms/salvage/<ticket>/<attempt>` before the reset (it used to park the retry); the new
    attempt starts clean at its start commit; ignored files stay where they were (oms deletes
    nothing unkept)."""
    out = use_worker(deliverable)
    ticket_id, _, first = deliverable.proposed()
    with deliverable.workspace() as ws:
        start = str(ws.store.records("dispatch").read(first).payload["worktree_start_commit"])
    wt = deliverable.base / "oms-worktrees" / ticket_id
    git("commit", "-q", "--allow-empty", "-m", "partial", cwd=wt)
    (wt / "notes.txt").write_text("uncommitted thoughts\n")
    (wt / "README.md").write_text("edited, not committed\n")
    (wt / "deep" / "er").mkdir(parents=True)
    (wt / "deep" / "er" / "new.bin").write_bytes(bytes(range(256)))
    outcome = _expire_and_redeliver(deliverable, ticket_id)
    assert outcome["status"] == "created", outcome
    assert git("rev-parse", "HEAD", cwd=wt).strip() == start
    assert git("status", "--porcelain", "--untracked-files=all", cwd=wt) == ""
    ref = f"refs/oms/salvage/{ticket_id}/1"
    assert git("show", f"{ref}:notes.txt", cwd=wt) == "uncommitted thoughts\n"
    assert git("show", f"{ref}:README.md", cwd=wt) == "edited, not committed\n"
    kept = subprocess.run(
        ["git", "-C", str(wt), "show", f"{ref}:deep/er/new.bin"], capture_output=True, check=True
    )
    assert kept.stdout == bytes(range(256))
    assert (
        git("rev-parse", f"{ref}^", cwd=wt).strip()
        == git("rev-parse", f"refs/oms/expired/{ticket_id}-1", cwd=wt).strip()
    )
    assert [row["ref"] for row in salvage.listed(str(deliverable.repo), ticket_id)] == [
        ref
    ]  # `oms ticket show`
    _wait_for(out)


def test_expired_attempt_whose_work_cannot_be_salvaged_is_parked_not_wiped(
    deliverable: Chain,
) -> None:
    use_worker(deliverable)
    ticket_id, _, _ = deliverable.proposed()
    wt = deliverable.base / "oms-worktrees" / ticket_id
    git("commit", "-q", "--allow-empty", "-m", "partial", cwd=wt)
    (wt / "notes.txt").write_text("uncommitted thoughts\n")
    git(
        "update-ref", f"refs/oms/salvage/{ticket_id}", "HEAD", cwd=wt
    )  # a ref where the salvage refs' folder goes
    outcome = _expire_and_redeliver(deliverable, ticket_id)
    assert outcome["status"] == "parked"
    assert "salvage ref" in str(outcome["reason"])
    assert (wt / "notes.txt").read_text() == "uncommitted thoughts\n"
    assert git("log", "-1", "--format=%s", cwd=wt).strip() == "partial"  # nothing reset


class _Keys:
    """An `Activator` whose activation runs `then` (the real CLIs cannot be made to fail on
    demand)."""

    def __init__(self, then: Callable[[str], None]) -> None:
        self.then = then
        self.activated: list[str] = []
        self.interrupted: list[str] = []

    def activate(self, plan: LaunchPlan, dispatch_id: str, witness: Witness) -> None:
        self.activated.append(dispatch_id)
        self.then(dispatch_id)

    def interrupt(self, plan: LaunchPlan, dispatch_id: str) -> bool:
        self.interrupted.append(dispatch_id)
        return True  # as if a turn ran (the real CLIs: tests/e2e)

    def nudge(self, plan: LaunchPlan, dispatch_id: str, pressing: object = None) -> None:
        pass

    def say(self, plan: LaunchPlan, dispatch_id: str, text: str, witness: Witness) -> str:
        return "typed"


def _never_ready(dispatch_id: str) -> None:
    raise ActivationError("the agent did not become ready within 30s")


def test_failed_activation_with_a_live_pane_parks_pending_then_resumes(deliverable: Chain) -> None:
    out = use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        base = Delivery.open(ws)
        result = Delivery.open(ws, activator=_Keys(_never_ready)).deliver(event_id)["outcome"]
        assert isinstance(result, dict)
        assert (result["status"], result["activation_pending"]) == ("parked", True)
        _wait_for(out)
        view = base.resume(
            dispatch_id
        )  # the real activation (a command worker needs none) now succeeds
    assert (view["worker_health"], view["worker_activity"], view["pane_live"]) == (
        "healthy",
        "working",
        True,
    )


def test_failed_activation_with_a_dead_pane_stops(deliverable: Chain) -> None:
    out = use_worker(deliverable, "exit0")
    dispatch_id, event_id = accepted(deliverable)

    with deliverable.workspace() as ws:
        base = Delivery.open(ws)

        def dies_first(dispatch_id: str) -> None:
            _wait_for(out)
            _pane_over(base.panes, dispatch_id)
            raise ActivationError("the agent exited before it became ready")

        result = Delivery.open(ws, activator=_Keys(dies_first)).deliver(event_id)["outcome"]
        view = base.observe(dispatch_id)
    assert isinstance(result, dict)
    assert result["status"] == "stopped"
    assert (view["worker_health"], view["session_state"]) == ("stopped", "stopped")


def test_park_and_resume_semantics(deliverable: Chain) -> None:
    dispatch_id = _running(deliverable)
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        with pytest.raises(InvalidInputError, match="future"):
            delivery.park(dispatch_id, "lunch", ws.now())
        until = add_ms(ws.now(), 10 * 60_000)
        parked = delivery.park(dispatch_id, "lunch", until)
        assert (parked["session_state"], parked["worker_health"]) == ("parked", "parked")
        assert delivery.park(dispatch_id, "lunch", until)["session_state"] == "parked"  # idempotent
        with pytest.raises(InvalidInputError, match="different"):
            delivery.park(dispatch_id, "lunch", add_ms(until, 1))
        with pytest.raises(InvalidInputError, match="not due"):
            delivery.resume(dispatch_id)
    deliverable.clock.advance(11)
    with deliverable.workspace() as ws:
        resumed = Delivery.open(ws).resume(dispatch_id)
    assert (resumed["session_state"], resumed["worker_health"], resumed["worker_activity"]) == (
        "running",
        "healthy",
        "working",
    )


def test_park_says_whether_it_interrupted_a_turn(deliverable: Chain) -> None:
    dispatch_id = _running(deliverable)
    keys = _Keys(lambda _dispatch_id: None)
    with deliverable.workspace() as ws:
        until = add_ms(ws.now(), 10 * 60_000)
        parked = Delivery.open(ws, activator=keys).park(dispatch_id, "lunch", until)
        again = Delivery.open(ws, activator=keys).park(dispatch_id, "lunch", until)
        Delivery.open(ws).stop(dispatch_id, "test is over")
    assert (parked["parked"], again["parked"], keys.interrupted) == (
        "interrupted",
        "already",
        [dispatch_id],
    )


def test_foreign_tmux_servers_are_never_touched(deliverable: Chain, tmp_path: Path) -> None:
    out = use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    foreign = tmp_path / "foreign.sock"
    env = {**os.environ, "TMUX_TMPDIR": str(tmp_path)}
    subprocess.run(
        ["tmux", "-S", str(foreign), "new-session", "-d", "-s", dispatch_id, "sleep 600"],
        env=env,
        check=True,
    )
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", dispatch_id, "sleep 600"], env=env, check=True
    )  # default
    try:
        _deliver(deliverable, event_id)
        _wait_for(out)
        with deliverable.workspace() as ws:
            Delivery.open(ws).stop(dispatch_id, "done")
        for args in (["-S", str(foreign)], []):
            listed = subprocess.run(
                ["tmux", *args, "list-sessions", "-F", "#{session_name}"],
                env=env,
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            assert listed == [dispatch_id]
    finally:
        subprocess.run(["tmux", "-S", str(foreign), "kill-server"], env=env, check=False)
        subprocess.run(["tmux", "kill-server"], env=env, check=False)


def test_worktree_path_with_spaces_quotes_and_dollar(deliverable: Chain) -> None:
    deliverable.edit_config(
        lambda s: s.replace(
            'directory = "../oms-worktrees"', 'directory = "../oms wt\'s $HOME `x`"'
        ),
        commit=True,
    )
    out = use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    outcome = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "created"
    assert "cwd=" + str(deliverable.base / "oms wt's $HOME `x`" / "tkt-1") in _wait_for(out)
    del dispatch_id


def test_non_ascii_worktree_path_is_refused_before_any_attempt(deliverable: Chain) -> None:
    """A path delivery would refuse is refused at the lease, before an advisor is paid for and
    before an attempt exists (ADR 0031; tests/cli/test_paths_a_launch_writes.py)."""
    deliverable.edit_config(
        lambda s: s.replace('directory = "../oms-worktrees"', 'directory = "../wt-\u00e9"'),
        commit=True,
    )
    use_worker(deliverable)
    with pytest.raises(StateRootError, match="not printable ASCII"):
        accepted(deliverable)


def test_unknown_event_is_an_error(deliverable: Chain) -> None:
    with deliverable.workspace() as ws, pytest.raises(OmsError):
        Delivery.open(ws).deliver("evt-nope")


def _ws(chain: Chain) -> Workspace:
    return chain.workspace()


def test_receipt_nonce_and_outcome_are_verified_by_store_verify(deliverable: Chain) -> None:
    use_worker(deliverable, "exit0")
    _, event_id = accepted(deliverable)
    _deliver(deliverable, event_id)
    report = verify(str(deliverable.state))
    assert report.ok, report.findings
    assert report.counts["receipts"] == 1
    with _ws(deliverable) as ws:
        receipt = ws.store.outbox(CONSUMER).read_receipt(event_id)
    assert receipt is not None
    assert access.text(receipt.result, "operation_nonce") == operation_nonce(event_id, CONSUMER)


def _path_without_bwrap(base: Path, fake: str | None = None) -> str:
    """A PATH with every tool delivery uses but bubblewrap (or a stand-in `bwrap` that prints
    `fake`)."""
    tools = base / "tools-bin"
    tools.mkdir()
    for name in ("git", "tmux", "sh", "codex", "claude"):
        found = shutil.which(name)
        if found:
            os.symlink(found, tools / name)
    if (
        fake is not None
    ):  # a failure the real bubblewrap cannot be made to produce here (we are root)
        stand_in = tools / "bwrap"
        stand_in.write_text(f"#!/bin/sh\necho '{fake}' >&2\nexit 1\n")
        stand_in.chmod(0o755)
    return str(tools)


@pytest.mark.parametrize(
    ("fake", "why"),
    [
        (None, "bubblewrap (bwrap) is not installed"),
        ("bwrap: setting up uid map: Permission denied", "bubblewrap cannot make a sandbox here"),
    ],
)
def test_no_working_bubblewrap_parks_before_any_pane(
    deliverable: Chain, monkeypatch: pytest.MonkeyPatch, fake: str | None, why: str
) -> None:
    use_worker(deliverable)
    dispatch_id, event_id = accepted(deliverable)
    monkeypatch.setenv("PATH", _path_without_bwrap(deliverable.base, fake))
    outcome = _deliver(deliverable, event_id)["outcome"]
    assert isinstance(outcome, dict)
    assert outcome["status"] == "parked", outcome
    assert why in str(outcome["reason"])
    assert "\n" not in str(outcome["reason"])
    with deliverable.workspace() as ws:
        assert Delivery.open(ws).panes.list() == []
        worker = ws.store.records("worker").read(dispatch_id)
    assert worker.payload["health"] == "parked"
    assert list(deliverable.state.glob("panes/*.launch.json")) == []


def test_an_end_is_recorded_only_when_no_launch_is_under_way(deliverable: Chain) -> None:
    """GAP_RECONCILE_AGAIN (ADR 0014): `reconcile` records an end only under the deliverer's lock of
    the worker's launch, on the pane as it is then; while a launch holds that lock (a resume making
    a new pane while the registry still names the old one) it records nothing."""
    dispatch_id = _running(deliverable, "exit3")
    with deliverable.workspace() as ws:
        delivery = Delivery.open(ws)
        _pane_over(delivery.panes, dispatch_id)
        event_id = str(delivery.dispatch(dispatch_id).payload["delivery_event_id"])
        with ws.store.outbox(CONSUMER).lock(event_id):  # a launch is under way
            delivery.reconcile(dispatch_id)
            assert delivery.worker(dispatch_id).payload["health"] != "stopped"
        delivery.reconcile(dispatch_id)
        ended = delivery.worker(dispatch_id)
    assert (ended.payload["health"], ended.payload["end_reason"]) == ("stopped", "exit")
