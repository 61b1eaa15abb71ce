"""`oms worker deliver` on an etcd store (ADR 0043, amendment `etcddeliver`), on the real
3-member cluster with real git, tmux and bubblewrap: the outbox's processing lock is
`locks/outbox/<consumer>/<event>` under a lease, and every write made under it — the worker's
versions, the session, the events, the receipt — carries its fence. A command worker runs end to
end on the cluster; two deliverers of one event start one agent; a deliverer paused past its lease
writes nothing; an unreachable cluster is one line with nothing written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.adapters.etcd.client import Etcd
from oms.canonical import JsonObject, stable_id
from oms.domain import workers as worker_machine
from oms.errors import LeaseError, LockHeldError
from oms.services.chain.liveness import CONSUMER
from oms.services.proxy import tokens as proxy_tokens
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store.payloads import as_json, dispatch_payload
from tests.chain import Chain, accepted, use_demo_worker, use_worker, wait_for
from tests.etcd_cluster import Cluster, locks_let_go
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd.test_commands_cli import _use_etcd

TIMEOUT = 90.0  # a loaded machine: a pane, a sandbox and a cluster's commits per step


class EtcdChain(Chain):
    """A chain whose workspaces open on the cluster its committed `[store]` names."""

    def workspace(self) -> Workspace:
        return Workspace.open(str(self.state), str(self.repo), clock=self.clock, etcd=True)


@pytest.fixture
def on_etcd(deliverable: Chain, etcd_cluster: Cluster, etcd_prefix: str) -> EtcdChain:
    _use_etcd(deliverable, etcd_cluster.endpoints, etcd_prefix)
    chain = EtcdChain(deliverable.base, deliverable.repo, deliverable.state, deliverable.advisor)
    chain.clock = deliverable.clock
    return chain


@pytest.fixture
def client(etcd_cluster: Cluster) -> Iterator[Etcd]:
    etcd = Etcd(etcd_cluster.endpoints)
    yield etcd
    etcd.close()


def _deliver(oms: OmsCommand, chain: Chain, event_id: str) -> subprocess.CompletedProcess[str]:
    return oms.run(
        "worker", "deliver", "--event-id", event_id,
        "--state-root", str(chain.state), "--config-root", str(chain.repo), timeout=TIMEOUT,
    )  # fmt: skip


def _a_result(oms: OmsCommand, chain: EtcdChain) -> str:
    """The demo worker delivered on the cluster, once its result is recorded and it ended: the
    dispatch id."""
    use_demo_worker(chain)
    dispatch_id, event_id = accepted(chain)
    assert _deliver(oms, chain, event_id).returncode == 0
    eventually(
        lambda: (
            (_state(chain, "dispatch", dispatch_id), _state(chain, "worker", dispatch_id))
            == ("result-received", "done")
        ),
        timeout=TIMEOUT,
        what="the result recorded, the worker ended",
    )
    return dispatch_id


def _state(chain: EtcdChain, kind: str, record_id: str) -> str | None:
    with chain.workspace() as ws:
        found = ws.store.records(kind).read_if_exists(record_id)
    return None if found is None else found.state


def _no_record_files(chain: Chain) -> None:
    """Nothing of the store fell back to the state root's files."""
    for kind in ("dispatch", "worker", "session"):
        assert not (chain.state / "records" / kind).exists(), kind
    assert not (chain.state / "outbox" / CONSUMER).exists()


def _clean(oms: OmsCommand, chain: Chain) -> None:
    for verb in (("store", "verify"), ("audit", "verify")):
        done = oms.run(*verb, "--state-root", str(chain.state), "--config-root", str(chain.repo))
        assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.cli
def test_a_command_worker_is_delivered_started_and_its_result_recorded_in_the_cluster(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    use_demo_worker(on_etcd)
    dispatch_id, event_id = accepted(on_etcd)
    done = _deliver(oms, on_etcd, event_id)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("processed: created"), done.stdout
    eventually(
        lambda: _state(on_etcd, "dispatch", dispatch_id) == "result-received",
        timeout=TIMEOUT,
        what="the worker's result is recorded in the cluster",
    )
    eventually(
        lambda: _state(on_etcd, "worker", dispatch_id) == "done",
        timeout=TIMEOUT,
        what="the worker ends done",
    )
    receipt = client.get(f"{etcd_prefix}outbox/{CONSUMER}/{event_id}.receipt.json")
    assert receipt is not None
    locks_let_go(client, etcd_prefix)
    _no_record_files(on_etcd)
    again = _deliver(oms, on_etcd, event_id)  # the receipt is replayed: nothing launched
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("replayed"), again.stdout
    _clean(oms, on_etcd)


@pytest.mark.cli
def test_two_deliverers_of_one_event_start_one_agent(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    out = use_worker(on_etcd)
    dispatch_id, event_id = accepted(on_etcd)
    argv = [
        *oms.argv, "worker", "deliver", "--event-id", event_id,
        "--state-root", str(on_etcd.state), "--config-root", str(on_etcd.repo),
    ]  # fmt: skip
    procs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    answers = [p.communicate(timeout=TIMEOUT) for p in procs]
    codes = sorted(p.returncode for p in procs)
    lines = [a[0] + a[1] for a in answers]
    assert codes[0] == 0, lines
    for p, (stdout, stderr) in zip(procs, answers, strict=True):
        if p.returncode != 0:  # refused in one line naming the lock's holder
            assert len(stderr.strip().splitlines()) <= 2, stderr
            assert "is held by" in stderr, stderr
            assert "Traceback" not in stderr
        else:
            assert stdout.startswith(("processed: created", "replayed")), stdout
    wait_for(out, timeout=TIMEOUT)
    assert len(out._found()) == 1  # one agent started
    assert _state(on_etcd, "worker", dispatch_id) in ("idle", "working")
    locks_let_go(client, etcd_prefix)  # both deliverers


_STALE = r"""
import os, signal, sys
from oms.services.delivery import once
from oms.services.delivery.service import Delivery
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store.payloads import as_json, dispatch_payload
from oms.errors import OmsError

checked = once._check_binding

def pause(*args, **kwargs):  # its guard passed: stopped here, past its lease
    checked(*args, **kwargs)
    print("guarded", flush=True)
    os.kill(os.getpid(), signal.SIGSTOP)

once._check_binding = pause
with Workspace.open(sys.argv[1], sys.argv[2], etcd=True) as ws:
    try:
        print(Delivery.open(ws).deliver(sys.argv[3]), flush=True)
    except OmsError as exc:
        print(f"refused: {type(exc).__name__}: {exc.message}", flush=True)
"""


def _stale(chain: Chain, event_id: str) -> subprocess.Popen[str]:
    """A deliverer of `event_id` stopped (SIGSTOP) just past its guard, holding the lock."""
    stale = subprocess.Popen(
        [sys.executable, "-c", _STALE, str(chain.state), str(chain.repo), event_id],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert stale.stdout is not None
    assert stale.stdout.readline().strip() == "guarded"
    eventually(
        lambda: Path(f"/proc/{stale.pid}/stat").read_text().split(")")[-1].split()[0] == "T",
        timeout=TIMEOUT,
        what="the first deliverer is stopped past its guard",
    )
    return stale


def _resumed(stale: subprocess.Popen[str]) -> tuple[str, str]:
    os.kill(stale.pid, signal.SIGCONT)
    return stale.communicate(timeout=TIMEOUT)


@pytest.mark.cli
def test_a_deliverer_paused_past_its_lease_writes_nothing_and_the_next_launches_once(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    out = use_worker(on_etcd)
    dispatch_id, event_id = accepted(on_etcd)
    stale = _stale(on_etcd, event_id)
    try:
        held = client.get(f"{etcd_prefix}locks/outbox/{CONSUMER}/{event_id}")
        assert held is not None
        client.revoke(held.lease)  # its lease lapses while it is stopped
        done = _deliver(oms, on_etcd, event_id)  # the next deliverer takes the lock and launches
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.startswith("processed: created"), done.stdout
        wait_for(out, timeout=TIMEOUT)
        before = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
        stdout, stderr = _resumed(stale)
        after = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
    finally:
        if stale.poll() is None:
            stale.kill()
            stale.wait()
    assert stdout.startswith("refused: "), stdout + stderr  # one line, no traceback
    assert "Traceback" not in stderr, stderr
    assert after == before  # the stale deliverer wrote nothing
    assert len(out._found()) == 1  # one agent start
    assert _state(on_etcd, "worker", dispatch_id) in ("idle", "working")


@pytest.mark.cli
def test_a_paused_deliverer_whose_lock_was_taken_again_has_every_write_refused_by_its_fence(
    on_etcd: EtcdChain, client: Etcd, etcd_prefix: str
) -> None:
    use_worker(on_etcd)
    dispatch_id, event_id = accepted(on_etcd)
    stale = _stale(on_etcd, event_id)
    try:
        held = client.get(f"{etcd_prefix}locks/outbox/{CONSUMER}/{event_id}")
        assert held is not None
        client.revoke(held.lease)  # its lease lapses while it is stopped
        # the next deliverer takes the lock afresh (a higher token) and has written nothing yet:
        # only the fence tells the stale deliverer's writes from this one's
        with on_etcd.workspace() as ws, ws.store.outbox(CONSUMER).lock(event_id) as lock:
            assert lock.fence is not None
            assert lock.fence.token > held.create_revision
            before = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
            stdout, stderr = _resumed(stale)
            after = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
    finally:
        if stale.poll() is None:
            stale.kill()
            stale.wait()
    assert stdout.startswith("refused: LeaseError"), stdout + stderr
    assert "Traceback" not in stderr, stderr
    assert after == before  # its worker versions and session refused: nothing landed
    assert _state(on_etcd, "worker", dispatch_id) == "idle"
    with on_etcd.workspace() as ws:
        session = dispatch_payload(ws.store.records("dispatch").read(dispatch_id))["session_id"]
    assert _state(on_etcd, "session", session) is None  # no session: its pane starts nothing


DISPATCH = f"dsp-{1:032x}"


def _worker(ws: Workspace) -> None:
    dispatch_id = DISPATCH
    dispatch: JsonObject = {
        "ticket_id": "tkt-1",
        "session_id": "11111111-2222-4333-8444-555555555555",
        "role_id": "oms.command-executor",
        "provider_mode": "command",
        "worktree_id": "wt-x",
    }
    payload = worker_machine.new(dispatch_id, dispatch, updated_at=ws.now(), host="h").payload
    ws.store.records("worker").create(
        dispatch_id,
        state="working",
        payload=as_json(payload),
        operation_id=stable_id("deliver-etcd", 1),
        actor=SYSTEM_ACTOR,
        observed_at=ws.now(),
    )


def test_a_deliverer_past_its_lease_issues_no_proxy_token_over_the_live_one(
    on_etcd: EtcdChain, client: Etcd, etcd_prefix: str
) -> None:
    """A proxy token is a host's file, not a record the fence guards: a deliverer whose lock lapsed
    (paused past its lease, the lock perhaps taken again by the next deliverer) would have issued a
    token over the live attempt's, whose agent the proxy then refused. It asks its lock first."""
    with on_etcd.workspace() as ws, ws.store.outbox(CONSUMER).lock("evt-t") as held:
        assert held.fence is not None
        live = proxy_tokens.issue_token(ws, DISPATCH, "oms-anthropic")  # under a held lock
        path = on_etcd.state / proxy_tokens.token_path(DISPATCH)
        issued = path.read_bytes()
        found = client.get(f"{etcd_prefix}locks/outbox/{CONSUMER}/evt-t")
        assert found is not None
        client.revoke(found.lease)
        with pytest.raises(LeaseError, match="no proxy token issued"):
            proxy_tokens.issue_token(ws, DISPATCH, "oms-anthropic")
        assert path.read_bytes() == issued  # the live token stands
    assert live.startswith("oms.")


def test_the_processing_lock_is_a_lease_and_a_write_after_it_lapsed_lands_nowhere(
    on_etcd: EtcdChain, client: Etcd, etcd_prefix: str
) -> None:
    with on_etcd.workspace() as ws, ws.store.outbox(CONSUMER).lock("evt-a") as held:
        assert held.fence is not None
        assert ws.store.fence == held.fence  # the store under the lock is fenced by construction
        ws.host()  # its host learnt (its name claimed) as a deliverer's is (ADR 0043 `cross6`)
        found = client.get(f"{etcd_prefix}locks/outbox/{CONSUMER}/evt-a")
        assert found is not None
        assert found.lease != 0
        assert found.create_revision == held.fence.token
        with pytest.raises(LockHeldError, match=r"is held by host .* pid"):
            with on_etcd.workspace() as other:
                other.store.outbox(CONSUMER).lock("evt-a")
        client.revoke(found.lease)
        keys = {kv.key for kv in client.range_prefix(etcd_prefix)}
        with pytest.raises(LeaseError):
            _worker(ws)
        with pytest.raises(LeaseError):
            ws.store.outbox(CONSUMER).commit_receipt("evt-a", ws.now(), {"status": "refused"})
        assert {kv.key for kv in client.range_prefix(etcd_prefix)} == keys
    assert ws.store.fence is None  # released: the fence left the store


def test_an_unreachable_cluster_is_one_line_and_nothing_is_written(
    on_etcd: EtcdChain, oms: OmsCommand, etcd_cluster: Cluster
) -> None:
    _, event_id = accepted(on_etcd)
    for member in etcd_cluster.members:
        etcd_cluster.kill(member)
    done = _deliver(oms, on_etcd, event_id)
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) <= 2, done.stderr  # the line and its hint
    assert lines[0].startswith("oms: error: etcd unreachable: no endpoint answered"), lines
    assert "Traceback" not in done.stderr
    assert not (on_etcd.state / "panes").exists() or not list((on_etcd.state / "panes").iterdir())
    _no_record_files(on_etcd)


def test_nested_processing_locks_let_go_in_any_order_leave_the_innermost_held_fence(
    on_etcd: EtcdChain,
) -> None:
    with on_etcd.workspace() as ws:
        outer = ws.store.outbox(CONSUMER).lock("evt-outer")
        inner = ws.store.outbox("oms-end-locks").lock("dsp-1")
        assert ws.store.fence == inner.fence
        outer.release()  # the outer one first: the inner one's fence stays
        assert ws.store.fence == inner.fence
        inner.release()
        assert ws.store.fence is None
        first = ws.store.outbox(CONSUMER).lock("evt-outer")
        second = ws.store.outbox("oms-end-locks").lock("dsp-1")
        second.release()  # in order: the outer one's fence comes back
        assert ws.store.fence == first.fence
        first.release()
        assert ws.store.fence is None


@pytest.mark.cli
def test_a_deliverer_whose_cluster_goes_away_mid_delivery_ends_in_one_line_half_writing_nothing(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str, etcd_cluster: Cluster
) -> None:
    out = use_worker(on_etcd)
    dispatch_id, event_id = accepted(on_etcd)
    stale = _stale(on_etcd, event_id)  # past its guard, about to write
    try:
        before = {
            kv.key: kv.mod_revision
            for kv in client.range_prefix(etcd_prefix)
            if "/locks/" not in kv.key
        }
        for member in etcd_cluster.members:
            etcd_cluster.kill(member)
        stdout, stderr = _resumed(stale)
    finally:
        if stale.poll() is None:
            stale.kill()
            stale.wait()
        for member in etcd_cluster.members:
            if member.proc is None:
                etcd_cluster.restart(member)
        etcd_cluster.wait_healthy()
    assert stdout.startswith("refused: EtcdUnavailableError: etcd unreachable"), stdout + stderr
    assert "Traceback" not in stderr, stderr
    after = {
        kv.key: kv.mod_revision
        for kv in client.range_prefix(etcd_prefix)
        if "/locks/" not in kv.key
    }
    assert after == before  # nothing of it landed: a write commits whole or not at all
    for held in client.range_prefix(f"{etcd_prefix}locks/"):
        client.revoke(held.lease)  # its lease lapses (it could not revoke it)
    assert _state(on_etcd, "worker", dispatch_id) == "idle"
    _clean(oms, on_etcd)
    done = _deliver(oms, on_etcd, event_id)  # the next deliverer launches, once
    assert done.stdout.startswith("processed: created"), done.stdout + done.stderr
    wait_for(out, timeout=TIMEOUT)
    assert len(out._found()) == 1


@pytest.mark.cli
def test_oms_worker_stop_ends_a_running_worker_on_the_cluster(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """`oms worker stop` on an etcd store: the pane and its processes end, the worker and its
    session are stopped in the cluster, nothing falls back to the state root's files, and both
    verifies are clean. A second stop says it had ended already."""
    out = use_worker(on_etcd, "silent")
    dispatch_id, event_id = accepted(on_etcd)
    done = _deliver(oms, on_etcd, event_id)
    assert done.returncode == 0, done.stdout + done.stderr
    wait_for(out)  # the agent runs in its pane
    where = ("--state-root", str(on_etcd.state), "--config-root", str(on_etcd.repo))
    stopped = oms.run("worker", "stop", dispatch_id, "--reason", "not needed", "--json", *where)
    assert stopped.returncode == 0, stopped.stdout + stopped.stderr
    view = json.loads(stopped.stdout)
    assert (view["pane_live"], view["worker_health"]) == (False, "stopped"), view
    with on_etcd.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch_id)
        session_id = str(ws.store.records("dispatch").read(dispatch_id).payload["session_id"])
        session = ws.store.records("session").read(session_id)
    assert worker.payload["health"] == "stopped"
    assert session.state == "stopped"
    locks_let_go(client, etcd_prefix)
    _no_record_files(on_etcd)
    again = oms.run("worker", "stop", dispatch_id, "--json", *where)
    assert again.returncode == 0, again.stdout + again.stderr
    assert json.loads(again.stdout)["end_detail"] == "not needed (by oms-cli)"  # the first end
    _clean(oms, on_etcd)
