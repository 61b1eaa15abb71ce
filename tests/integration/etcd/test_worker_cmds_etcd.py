"""A person's commands on a running worker whose store is an etcd cluster (ADR 0043, amendment
`cmds2`), on the real 3-member cluster with real git, tmux and bubblewrap: `oms worker
park|resume` write the session's and the worker's next versions in the cluster (compare-and-set,
as on files) and act on this host's pane; a command run as another host against the worker
refuses in one line naming the host and touches neither its pane nor its records. A ticket's own
commands, an import (one issue or a list) and a result sent back (amendment `cmds3`) write the
ticket's next versions compare-and-set in the cluster. Each command was refused on etcd before
("is served only by")."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from typing import Any

import pytest

from oms.adapters.etcd.client import Etcd
from oms.canonical import add_ms, now
from oms.errors import LeaseError
from oms.services.finishing import verify
from tests.chain import Chain, accepted, use_demo_worker, use_worker, wait_for
from tests.cli.test_worker_log import _append
from tests.etcd_cluster import Cluster, locks_let_go
from tests.helpers import OmsCommand, eventually
from tests.integration.etcd import test_deliver_etcd as delivered
from tests.integration.etcd.test_deliver_etcd import (
    TIMEOUT,
    EtcdChain,
    _a_result,
    _clean,
    _deliver,
    _no_record_files,
)
from tests.integration.test_worker_send import _heard, _until

on_etcd, client = delivered.on_etcd, delivered.client  # its fixtures: a chain on the cluster


def _where(chain: Chain) -> tuple[str, ...]:
    return ("--state-root", str(chain.state), "--config-root", str(chain.repo))


def _running(chain: EtcdChain, oms: OmsCommand, mode: str = "silent") -> str:
    """A command worker delivered on the cluster and running in its pane: its dispatch id."""
    out = use_worker(chain, mode)
    dispatch_id, event_id = accepted(chain)
    done = _deliver(oms, chain, event_id)
    assert done.returncode == 0, done.stdout + done.stderr
    wait_for(out, timeout=TIMEOUT)
    return dispatch_id


def _json(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    assert done.returncode == 0, done.stdout + done.stderr
    view = json.loads(done.stdout)
    assert isinstance(view, dict)
    return view


def _states(chain: EtcdChain, dispatch_id: str) -> tuple[object, str | None]:
    """(the worker's health, its session's state) as the cluster holds them."""
    with chain.workspace() as ws:
        worker = ws.store.records("worker").read(dispatch_id)
        session_id = str(ws.store.records("dispatch").read(dispatch_id).payload["session_id"])
        session = ws.store.records("session").read_if_exists(session_id)
    return worker.payload["health"], None if session is None else session.state


@pytest.mark.cli
def test_send_park_and_resume_run_on_the_cluster(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """`oms worker send` records the person's message as a `worker-message` event in the cluster,
    under the dispatch's typing lock and end lock (leases), then types it into this host's pane.
    `oms worker park` parks the running worker and its session in the cluster; once due, `oms
    worker resume` resumes it by keys in its live pane. No lock is left, no record or event file
    written, both verifies clean."""
    dispatch_id = _running(on_etcd, oms, "listen")
    heard = _heard(on_etcd, dispatch_id)
    eventually(heard.exists, timeout=TIMEOUT, what="the listening worker starting")
    done = oms.run(
        "worker", "send", dispatch_id, "the tests live in tests/unit", "--person", "A Person",
        "--json", *_where(on_etcd),
    )  # fmt: skip
    view = _json(done)
    assert (view["typed"], view["person"]) == ("typed", "A Person"), view
    assert _until(heard, b"\r") == b"the tests live in tests/unit\r"
    event = client.get(f"{etcd_prefix}events/{view['event_id']}.json")
    assert event is not None
    said = json.loads(event.value)
    assert (said["event_type"], said["payload"]["text"]) == (
        "worker-message",
        "the tests live in tests/unit",
    )
    assert not (on_etcd.state / "events").exists() or not list((on_etcd.state / "events").iterdir())
    until = add_ms(now(), 4_000)
    parked = _json(
        oms.run("worker", "park", dispatch_id, "--until", until, "--json", *_where(on_etcd))
    )
    assert (parked["session_state"], parked["worker_health"]) == ("parked", "parked"), parked
    assert _states(on_etcd, dispatch_id) == ("parked", "parked")

    def resumed() -> dict[str, Any] | None:
        done = oms.run("worker", "resume", dispatch_id, "--json", *_where(on_etcd))
        if done.returncode != 0:  # not due yet: one line, nothing written
            assert "not due" in done.stdout + done.stderr, done.stdout + done.stderr
            return None
        return _json(done)

    view = eventually(resumed, timeout=TIMEOUT, what="the parked worker resumes once due")
    assert (view["session_state"], view["worker_health"], view["pane_live"]) == (
        "running",
        "healthy",
        True,
    ), view
    assert view["resumed"] == "keys", view
    assert _states(on_etcd, dispatch_id) == ("healthy", "running")
    locks_let_go(client, etcd_prefix)
    _no_record_files(on_etcd)
    _clean(oms, on_etcd)


_B = {"OMS_HOST": "host-b"}  # another host, on this state root


def _host_files(chain: EtcdChain) -> dict[str, tuple[int, int]]:
    """The host-local pane files (registry, kill marker, exit record, begun mark): each one's
    (modification time, size)."""
    panes = chain.state / "panes"
    return {p.name: (p.stat().st_mtime_ns, p.stat().st_size) for p in sorted(panes.iterdir())}


@pytest.mark.cli
def test_a_command_run_as_another_host_leaves_the_hosts_worker_alone(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The attack: host B runs `oms worker park|resume|stop|send` against host A's worker (one
    cluster; here even one tmux server B could reach). Each is refused in one line naming host A
    (`--json`: `other-host`), no key in the cluster moves, A's pane files are untouched and its
    pane still runs; `oms worker observe` as B shows the cluster's records, says whose worker it
    is, and looks at no pane; `oms worker log` as B says the log is A's. As A, `oms worker
    observe` shows the cluster's worker and session and A's live pane, and `oms worker log` A's
    pane log."""
    monkeypatch.setenv("OMS_HOST", "host-a")  # its worker is accepted on host A
    out = use_worker(on_etcd, "silent")
    dispatch_id, event_id = accepted(on_etcd)
    a, b = {"OMS_HOST": "host-a"}, {"OMS_HOST": "host-b"}
    where = _where(on_etcd)
    done = oms.run("worker", "deliver", "--event-id", event_id, *where, env=a, timeout=TIMEOUT)
    assert done.returncode == 0, done.stdout + done.stderr
    wait_for(out, timeout=TIMEOUT)
    # B has acted on this state root before: its name is bound to the key (amendment `hostname`)
    _json(oms.run("worker", "observe", dispatch_id, "--json", *where, env=b))
    keys = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
    files = _host_files(on_etcd)
    refusal = f"oms: error: worker {dispatch_id} runs on host host-a; run this there"
    for verb in (("park", "--until", "1h"), ("resume",), ("stop",), ("send", "hello")):
        done = oms.run("worker", verb[0], dispatch_id, *verb[1:], *where, env=b)
        assert done.returncode == 1, done.stdout + done.stderr
        assert done.stderr.splitlines()[0] == refusal, done.stderr
        assert "Traceback" not in done.stderr
        as_json = oms.run("worker", verb[0], dispatch_id, *verb[1:], *where, "--json", env=b)
        assert as_json.returncode == 1, as_json.stdout + as_json.stderr
        assert json.loads(as_json.stdout)["error"] == "other-host", as_json.stdout
    seen = _json(oms.run("worker", "observe", dispatch_id, "--json", *where, env=b))
    assert (seen["other_host"], seen["pane_live"], seen["worker_health"]) == (
        "host-a",
        False,
        "healthy",
    ), seen
    logged = oms.run("worker", "log", dispatch_id, *where, env=b)  # A's file, not here
    assert logged.returncode == 1, logged.stdout + logged.stderr
    assert logged.stderr.splitlines()[0] == (
        f"oms: error: worker {dispatch_id} runs on host host-a; its pane log is there"
    ), logged.stderr
    assert {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)} == keys
    assert _host_files(on_etcd) == files
    # on host A: its pane still runs, observed; its log read here (a line its supervisor would
    # write, appended); neither moves a key (a running worker's observe records nothing)
    own = _json(oms.run("worker", "observe", dispatch_id, "--json", *where, env=a))
    assert (own["session_state"], own["worker_health"], own["pane_live"]) == (
        "running",
        "healthy",
        True,
    ), own
    assert "other_host" not in own
    _append(on_etcd, dispatch_id, b"2026-12-04T10:00:00Z attempt fenced: its lease ran out\n")
    logged = oms.run("worker", "log", dispatch_id, "--json", *where, env=a)
    assert logged.returncode == 0, logged.stdout + logged.stderr
    lines = [json.loads(line) for line in logged.stdout.splitlines()]
    assert lines[-1] == {
        "dispatch_id": dispatch_id,
        "at": "2026-12-04T10:00:00Z",
        "line": "attempt fenced: its lease ran out",
    }, lines
    assert {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)} == keys
    _no_record_files(on_etcd)


@pytest.mark.cli
def test_result_show_and_diff_read_the_clusters_result(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """A command worker's result recorded in the cluster: `oms result show` shows it (its commit,
    the files it changes) and `oms result diff --stat` its change, from git objects and the
    cluster's records; neither moves a key."""
    use_demo_worker(on_etcd)
    dispatch_id, event_id = accepted(on_etcd)
    done = _deliver(oms, on_etcd, event_id)
    assert done.returncode == 0, done.stdout + done.stderr

    def settled() -> bool:  # its result recorded, its worker ended
        with on_etcd.workspace() as ws:
            dispatch = ws.store.records("dispatch").read(dispatch_id)
            worker = ws.store.records("worker").read(dispatch_id)
        return (dispatch.state, worker.state) == ("result-received", "done")

    def keys() -> dict[str, int]:
        """Every key's revision but the session's and its ledger entries: its agent's end may
        still move it meanwhile (not these commands)."""
        found = client.range_prefix(etcd_prefix)
        moved = ("/session/", b"session/")  # its keys; its ledger entries' paths
        return {
            kv.key: kv.mod_revision
            for kv in found
            if moved[0] not in kv.key and not (b'"path":' in kv.value and moved[1] in kv.value)
        }

    eventually(settled, timeout=TIMEOUT, what="the result recorded, the worker ended")
    # host B has acted on this state root before: its name is bound (amendment `hostname`)
    _json(oms.run("worker", "observe", dispatch_id, "--json", *_where(on_etcd), env=_B))
    before = keys()
    shown = _json(oms.run("result", "show", dispatch_id, "--json", *_where(on_etcd)))
    assert (shown["dispatch_id"], shown["dispatch_state"]) == (dispatch_id, "result-received")
    assert shown["result_commit"], shown
    assert shown["files_total"] != 0, shown
    diff = oms.run("result", "diff", dispatch_id, "--stat", "--no-pager", *_where(on_etcd))
    assert diff.returncode == 0, diff.stdout + diff.stderr
    files = shown["files"]
    assert isinstance(files, list)
    assert all(str(f["path"]) in diff.stdout for f in files), diff.stdout
    assert keys() == before
    _no_record_files(on_etcd)
    # `oms result request-changes`: refused in one line as another host (the result's branch is
    # in this host's clone), no key moved; here, under the ticket's finishing lock (a lease), the
    # ticket's next versions compare-and-set and a `changes-requested` event, no lock left
    asked = (
        *("result", "request-changes", dispatch_id, "--comment", "also an empty list"),
        *("--person", "Ann", "--yes", "--json", *_where(on_etcd)),
    )
    elsewhere = oms.run(*asked, env=_B)
    assert elsewhere.returncode == 1, elsewhere.stdout + elsewhere.stderr
    said = json.loads(elsewhere.stdout)
    assert said["error"] == "other-host", said
    assert said["message"].startswith(f"the result of {dispatch_id} is on host "), said
    assert keys() == before
    view = _json(oms.run(*asked))
    assert (view["dispatch_id"], view["attempt"]) == (dispatch_id, 2), view
    with on_etcd.workspace() as ws:
        ticket = ws.store.records("ticket").read(str(view["ticket_id"]))
        event = ws.store.events.read(str(view["event_id"]))
    assert (ticket.state, ticket.payload["attempt"]) == ("open", 2), ticket.payload
    assert event.payload["person"] == "Ann", event.payload
    locks_let_go(client, etcd_prefix)
    _no_record_files(on_etcd)
    _clean(oms, on_etcd)


@pytest.mark.cli
def test_result_verify_merge_and_discard_run_on_the_cluster(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """`oms result verify` and `oms result merge` on the cluster (amendment `results`): as another
    host each is refused in one line naming the result's host, no key moved; a merge before any
    verify is refused; the verify's evidence and its pointer (a `verification-recorded` event) are
    keys, its check output the host's file, no `verify/…/latest` file; `oms result show` reads
    that verification from the cluster; the merge moves the target, records its evidence as a
    key and completes the ticket in the cluster; no lock is left, both verifies are clean."""
    on_etcd.edit_config(lambda text: text + '\n[verify]\ncommands = [["true"]]\n', commit=True)
    dispatch_id = _a_result(oms, on_etcd)
    where = _where(on_etcd)
    b = _B  # its name bound to the key first (amendment `hostname`)
    _json(oms.run("worker", "observe", dispatch_id, "--json", *where, env=b))
    # the session's end may still move its keys meanwhile: every other key is compared

    def stable() -> dict[str, int]:
        return {
            kv.key: kv.mod_revision
            for kv in client.range_prefix(etcd_prefix)
            if "/session/" not in kv.key
            and not (b'"path":' in kv.value and b"session/" in kv.value)
        }

    before = stable()
    for verb in ("verify", "merge"):
        elsewhere = oms.run("result", verb, dispatch_id, "--json", *where, env=b)
        assert elsewhere.returncode == 1, elsewhere.stdout + elsewhere.stderr
        said = json.loads(elsewhere.stdout)
        assert said["error"] == "other-host", said
        assert said["message"].startswith(f"the result of {dispatch_id} is on host "), said
    assert stable() == before
    early = oms.run("result", "merge", dispatch_id, *where)
    assert early.returncode == 1, early.stdout + early.stderr
    assert early.stderr.startswith(f"oms: error: {dispatch_id} is not merged: "), early.stderr
    assert stable() == before

    def lapse() -> None:  # what is checked is decided, the lock held: its lease revoked
        held = client.get(f"{etcd_prefix}locks/outbox/{verify.VERIFYING}/{dispatch_id}")
        assert held is not None
        client.revoke(held.lease)

    with on_etcd.workspace() as ws, pytest.raises(LeaseError):
        verify.verify(ws, dispatch_id, started=lapse)  # its checks run; no write lands
    assert stable() == before
    assert not (on_etcd.state / "verify").exists()
    done = _json(oms.run("result", "verify", dispatch_id, "--json", *where))
    assert done["passed"] is True, done
    ref = str(done["evidence"])
    assert client.get(f"{etcd_prefix}evidence/{ref}.json") is not None
    pointers = [
        json.loads(kv.value)
        for kv in client.range_prefix(f"{etcd_prefix}events/")
        if b'"verification-recorded"' in kv.value
    ]
    assert [p["payload"]["evidence"] for p in pointers] == [ref], pointers
    assert not (on_etcd.state / "verify" / dispatch_id / "latest").exists()
    assert (on_etcd.state / "verify" / dispatch_id / f"{ref}-1.log").exists()  # the host's
    shown = _json(oms.run("result", "show", dispatch_id, "--json", *where))
    verification = shown["verification"]
    assert (verification["evidence"], verification["current"]) == (ref, True), verification
    merged = _json(oms.run("result", "merge", dispatch_id, "--json", *where))
    assert (merged["already_merged"], merged["target"]) == (False, "main"), merged
    assert client.get(f"{etcd_prefix}evidence/{merged['evidence']}.json") is not None
    with on_etcd.workspace() as ws:
        ticket_id = str(ws.store.records("dispatch").read(dispatch_id).payload["ticket_id"])
        assert ws.store.records("ticket").read(ticket_id).state == "done"
    # `oms result discard` of the merged result: its branch and worktree are this host's
    before = stable()
    elsewhere = oms.run("result", "discard", dispatch_id, "--json", *where, env=b)
    assert json.loads(elsewhere.stdout)["error"] == "other-host", elsewhere.stdout
    assert stable() == before
    _json(oms.run("worker", "stop", dispatch_id, "--json", *where))  # (its worktree is free)
    discarded = _json(oms.run("result", "discard", dispatch_id, "--json", *where))
    assert discarded["archive_ref"] == f"refs/oms/archive/{ticket_id}/1", discarded
    assert [line.split()[0] for line in discarded["removed"]] == ["worktree", "branch"], discarded
    assert client.get(f"{etcd_prefix}evidence/{discarded['evidence']}.json") is not None
    locks_let_go(client, etcd_prefix)
    _no_record_files(on_etcd)
    _clean(oms, on_etcd)


@pytest.mark.cli
def test_ticket_lease_and_expire_run_on_the_cluster(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """`oms ticket lease` leases a cluster's open ticket (its token shown once); `oms ticket
    expire` returns a cluster's ticket whose lease ran out to open, attempt 2, with lease-expiry
    evidence as a key. Nothing lands in the state root's files; both verifies clean."""
    from oms.services.chain import tickets

    added = _json(
        oms.run("ticket", "add", "--title", "Leased", "--no-body", "--json", *_where(on_etcd))
    )
    leased_id = str(added["ticket"]["id"])
    grant = _json(
        oms.run("ticket", "lease", leased_id, "--worker", "w1", "--json", *_where(on_etcd))
    )
    assert str(grant["lease_token"]), grant
    on_etcd.clock.advance(-3)  # a lease of one minute taken three minutes ago
    with on_etcd.workspace() as ws:
        lapsed_id = tickets.add(ws, "Lapsed", "").record_id
        tickets.lease(ws, lapsed_id, "w2", 1)
    on_etcd.clock.advance(3)
    expired = _json(oms.run("ticket", "expire", "--json", *_where(on_etcd)))
    assert [(t["id"], t["state"]) for t in expired["expired"]] == [(lapsed_id, "open")], expired
    with on_etcd.workspace() as ws:
        lapsed = ws.store.records("ticket").read(lapsed_id)
        leased = ws.store.records("ticket").read(leased_id)
    assert (lapsed.state, lapsed.payload["attempt"]) == ("open", 2)
    assert leased.state == "leased"  # its lease runs
    assert list(client.range_prefix(f"{etcd_prefix}evidence/")) != []  # the expiry's evidence
    assert not (on_etcd.state / "records" / "ticket").exists()
    locks_let_go(client, etcd_prefix)
    _clean(oms, on_etcd)


def _ticket_cmd(chain: EtcdChain, oms: OmsCommand, *args: str, token: str = "") -> dict[str, Any]:
    env = {"OMS_LEASE_TOKEN": token} if token else None
    return _json(oms.run("ticket", *args, "--json", *_where(chain), env=env))


def _leased(chain: EtcdChain, title: str) -> tuple[str, str]:
    """A cluster's ticket added and leased (the CLI's lease has its own test): (its id, its lease
    token)."""
    from oms.services.chain import tickets

    with chain.workspace() as ws:
        ticket_id = tickets.add(ws, title, "").record_id
        return ticket_id, tickets.lease(ws, ticket_id, "w1").token


@pytest.mark.cli
def test_ticket_renew_done_block_reopen_and_retry_run_on_the_cluster(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """The lease holder's `oms ticket renew|done|block --token` and a person's `oms ticket
    block|reopen|retry` write the ticket's next version in the cluster (compare-and-set, no lock,
    as on files); a reopen's `ticket-reopened` event is a key naming the person. A wrong token is
    refused in one line and moves no key. Nothing lands in the state root's files; no lock is
    left; both verifies clean."""
    from oms.services.chain import tickets

    done_id, token = _leased(on_etcd, "Done")
    with on_etcd.workspace() as ws:
        before = ws.store.records("ticket").read(done_id).payload["lease_expires_at"]
    renewed = _ticket_cmd(on_etcd, oms, "renew", done_id, "--minutes", "600", token=token)
    assert str(renewed["ticket"]["lease_expires_at"]) > str(before), renewed
    keys = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
    wrong = oms.run("ticket", "done", done_id, "--token", "0" * 64, *_where(on_etcd))
    assert wrong.returncode == 1, wrong.stdout + wrong.stderr
    assert wrong.stderr.splitlines()[0] == (
        "oms: error: lease token does not match the ticket's lease"
    ), wrong.stderr
    assert {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)} == keys
    finished = _ticket_cmd(on_etcd, oms, "done", done_id, "--reason", "merged", token=token)
    assert finished["ticket"]["state"] == "done", finished
    held_id, held_token = _leased(on_etcd, "Blocked by its holder")
    blocked = _ticket_cmd(on_etcd, oms, "block", held_id, "--reason", "asks", token=held_token)
    assert blocked["ticket"]["state"] == "blocked", blocked
    reopened = _ticket_cmd(on_etcd, oms, "reopen", held_id, "--person", "Ann", "--yes")
    assert (reopened["ticket"]["state"], reopened["ticket"]["attempt"]) == ("open", 2), reopened
    said = [
        json.loads(kv.value)
        for kv in client.range_prefix(f"{etcd_prefix}events/")
        if b'"ticket-reopened"' in kv.value
    ]
    assert [(e["payload"]["ticket_id"], e["payload"]["person"]) for e in said] == [
        (held_id, "Ann")
    ], said
    with on_etcd.workspace() as ws:
        person_id = tickets.add(ws, "Blocked by a person", "").record_id
    blocked = _ticket_cmd(on_etcd, oms, "block", person_id, "--reason", "not yet")
    assert blocked["ticket"]["state"] == "blocked", blocked
    retried = _ticket_cmd(on_etcd, oms, "retry", person_id, "--person", "Ann", "--yes")
    assert (retried["ticket"]["state"], retried["ticket"]["attempt"]) == ("open", 2), retried
    with on_etcd.workspace() as ws:
        states = {t.record_id: t.state for t in ws.store.latest("ticket").checked()}
    assert states == {done_id: "done", held_id: "open", person_id: "open"}, states
    assert not (on_etcd.state / "records" / "ticket").exists()
    assert not (on_etcd.state / "events").exists() or not list((on_etcd.state / "events").iterdir())
    locks_let_go(client, etcd_prefix)
    _clean(oms, on_etcd)


@pytest.mark.cli
def test_a_retry_after_a_lapse_says_what_runs_and_it_runs_on_the_cluster(
    on_etcd: EtcdChain, oms: OmsCommand, client: Etcd, etcd_prefix: str
) -> None:
    """`oms ticket retry` of a ticket whose lease ran out (its holder gone): it is still leased,
    so refused in one line, and the hint names what runs: its lease holder's `block --token` no
    longer can (the lease ran out), `oms ticket expire` can. Each command the hint names runs on
    the cluster, as printed, and the ticket is open for its next attempt."""
    from oms.services.chain import tickets

    on_etcd.clock.advance(-3)  # a lease of one minute taken three minutes ago
    with on_etcd.workspace() as ws:
        lapsed_id = tickets.add(ws, "Lapsed", "").record_id
        token = tickets.lease(ws, lapsed_id, "w2", 1).token
    on_etcd.clock.advance(3)
    where = _where(on_etcd)
    refused = oms.run("ticket", "retry", lapsed_id, "--person", "Ann", "--yes", *where)
    assert refused.returncode == 1, refused.stdout + refused.stderr
    lines = refused.stderr.splitlines()
    assert len(lines) == 2, refused.stderr
    held = oms.run("ticket", "block", lapsed_id, "--reason", "r", "--token", token, *where)
    assert held.returncode == 1, held.stdout + held.stderr  # what the old hint named
    assert held.stderr.startswith("oms: error: lease expired at"), held.stderr
    commands = re.findall(r"`(oms [^`]+)`", lines[1])
    assert commands, lines[1]
    for command in commands:
        words = shlex.split(command)[1:]
        if words[:2] == ["ticket", "retry"]:
            words += ["--person", "Ann", "--yes"]
        done = oms.run(*words, *where)
        assert done.returncode == 0, (command, done.stdout + done.stderr)
    with on_etcd.workspace() as ws:
        ticket = ws.store.records("ticket").read(lapsed_id)
    assert (ticket.state, ticket.payload["attempt"]) == ("open", 2), ticket.payload
    assert str(ticket.payload["reason"]).startswith("reopened by Ann"), ticket.payload
    locks_let_go(client, etcd_prefix)
    _clean(oms, on_etcd)


ISSUE = {"number": 7, "title": "Docs typo", "body": "teh", "url": "https://github.com/o/r/issues/7"}


@pytest.mark.cli
def test_an_interrupted_ticket_import_leaves_no_ticket_and_its_rerun_finishes_it(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`oms ticket import` on the cluster: its two writes (the content, created once; the ticket's
    first version, compare-and-set on its absence) each whole or not at all. An import that dies
    between them leaves no ticket (its content, addressed by its bytes, no list shows); the re-run
    writes the ticket whole, and a third run imports nothing and moves no key. Both verifies
    clean between and after."""
    from oms.domain import tickets as machine
    from oms.services.chain import tickets

    def died(**_: object) -> object:  # the process ends between the content and the ticket
        raise KeyboardInterrupt

    with on_etcd.workspace() as ws, monkeypatch.context() as patched:
        patched.setattr(machine, "new", died)
        with pytest.raises(KeyboardInterrupt):
            tickets.import_github(ws, json.dumps(ISSUE).encode())
    assert list(client.range_prefix(f"{etcd_prefix}tickets/")) != []  # its content
    assert _ticket_cmd(on_etcd, oms, "list")["tickets"] == []
    _clean(oms, on_etcd)
    issue = on_etcd.base / "issue.json"
    issue.write_text(json.dumps(ISSUE))
    first = _ticket_cmd(on_etcd, oms, "import", str(issue), "--repository", "o/r")
    assert (first["created"], first["ticket"]["source"]) == (True, "github"), first
    ticket_id = str(first["ticket"]["id"])
    keys = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
    again = _ticket_cmd(on_etcd, oms, "import", str(issue))
    assert (again["created"], again["ticket"]["id"]) == (False, ticket_id), again
    assert {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)} == keys
    shown = _ticket_cmd(on_etcd, oms, "show", ticket_id)
    assert (shown["content"]["title"], shown["content"]["url"]) == ("Docs typo", ISSUE["url"])
    assert not (on_etcd.state / "records" / "ticket").exists()
    assert not list((on_etcd.state / "tickets").iterdir())  # (the state root's empty directory)
    locks_let_go(client, etcd_prefix)
    _clean(oms, on_etcd)


def _issues(*numbers: int) -> list[dict[str, object]]:
    return [
        {
            "number": n,
            "title": f"Issue {n}",
            "body": "b",
            "url": f"https://github.com/o/r/issues/{n}",
        }
        for n in numbers
    ]


@pytest.mark.cli
def test_a_list_import_cut_off_leaves_whole_tickets_and_its_rerun_imports_the_rest(
    on_etcd: EtcdChain,
    oms: OmsCommand,
    client: Etcd,
    etcd_prefix: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`oms ticket import` of `gh issue list --json number,title,body,url` on the cluster: a list
    over `LIMITS.github_import_issues`, or with one bad issue, is refused in one line before any
    key is written. An import that dies after its first ticket, within the second's writes,
    leaves the first ticket whole and no second; its re-run imports the second and third, the
    first `already imported`. Both verifies clean."""
    from oms.domain import tickets as machine
    from oms.limits import LIMITS
    from oms.services.chain import tickets

    listed = on_etcd.base / "issues.json"
    keys = {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)}
    bad = [*_issues(21, 22), {"number": 23, "title": "t", "body": "b", "url": "https://x/23"}]
    for refused, why in (
        (_issues(*range(1, LIMITS.github_import_issues + 2)), "issues in one import (at most"),
        (bad, "issue 3 of the list: url 'https://x/23' is not a github.com issue"),
    ):
        listed.write_text(json.dumps(refused))
        done = oms.run("ticket", "import", str(listed), *_where(on_etcd))
        assert done.returncode == 1, done.stdout + done.stderr
        assert why in done.stderr.splitlines()[0], done.stderr
        assert len(done.stderr.splitlines()) <= 2, done.stderr
    assert {kv.key: kv.mod_revision for kv in client.range_prefix(etcd_prefix)} == keys
    made = machine.new
    calls: list[str] = []

    def dies_second(**fields: Any) -> Any:  # the process ends within the second ticket's writes
        calls.append(str(fields["title"]))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return made(**fields)

    data = json.dumps(_issues(31, 32, 33)).encode()
    with on_etcd.workspace() as ws, monkeypatch.context() as patched:
        patched.setattr(machine, "new", dies_second)
        with pytest.raises(KeyboardInterrupt):
            tickets.import_github_list(ws, data)
    shown = _ticket_cmd(on_etcd, oms, "list")["tickets"]
    assert [(t["title"], t["state"]) for t in shown] == [("Issue 31", "open")], shown
    listed.write_bytes(data)
    again = _ticket_cmd(on_etcd, oms, "import", str(listed), "--repository", "o/r")
    assert [(i["created"], i["ticket"]["title"]) for i in again["imported"]] == [
        (False, "Issue 31"),
        (True, "Issue 32"),
        (True, "Issue 33"),
    ], again
    with on_etcd.workspace() as ws:
        states = [(t.payload["title"], t.state) for t in ws.store.latest("ticket").checked()]
    assert states == [("Issue 31", "open"), ("Issue 32", "open"), ("Issue 33", "open")], states
    locks_let_go(client, etcd_prefix)
    _clean(oms, on_etcd)


@pytest.mark.cli
def test_each_command_on_an_unreachable_cluster_is_one_line_and_writes_nothing(
    on_etcd: EtcdChain, oms: OmsCommand, etcd_cluster: Cluster
) -> None:
    """Every member down: each command now served ends in one line (`--json`: one object) within
    its timeout, with the unreachable cluster's exit code, and writes nothing to the state root's
    files in the cluster's place."""
    issue = on_etcd.base / "issue.json"
    issue.write_text(json.dumps(ISSUE))
    for member in etcd_cluster.members:
        etcd_cluster.kill(member)
    commands = (
        ("worker", "park", "dsp-1", "--until", "1h"), ("worker", "resume", "dsp-1"),
        ("worker", "send", "dsp-1", "hello"), ("worker", "observe", "dsp-1"),
        ("worker", "log", "dsp-1"), ("result", "show", "dsp-1"), ("result", "diff", "dsp-1"),
        ("ticket", "lease", "tkt-1", "--worker", "w1"), ("ticket", "expire"),
        ("ticket", "renew", "tkt-1", "--token", "t"), ("ticket", "done", "tkt-1", "--token", "t"),
        ("ticket", "block", "tkt-1", "--reason", "r"),
        ("ticket", "reopen", "tkt-1", "--person", "Ann", "--yes"),
        ("ticket", "retry", "tkt-1", "--person", "Ann", "--yes"),
        ("ticket", "import", str(issue)),
        ("result", "request-changes", "dsp-1", "--comment", "c", "--person", "Ann", "--yes"),
        ("result", "verify", "dsp-1"), ("result", "merge", "dsp-1"),
        ("result", "discard", "dsp-1"),
        ("result", "publish", "dsp-1", "--github-repo", "o/r", "--person", "Ann"),
        ("result", "sync", "dsp-1", "--github-repo", "o/r"),
        ("live", "authorize", "--repository", "o/r", "--person", "Ann", "--yes"),
        ("live", "revoke", "--repository", "o/r"), ("live", "status"),
        ("dispatch", "propose", "tkt-1"), ("dispatch", "review", "dsp-1"),
        ("dispatch", "approve", "dsp-1", "--person", "Ann", "--yes"),
        ("dispatch", "accept", "dsp-1"), ("dispatch", "reject", "dsp-1", "--reason", "r"),
        ("provider", "show"), ("provider", "rest", "oms-openai", "--minutes", "5"),
        ("provider", "clear", "oms-openai"), ("route", "explain"), ("pool", "scale", "--to", "1"),
        ("store", "compact"), ("store", "sweep"), ("worktree", "create", "tkt-1"),
        ("worktree", "show", "tkt-1"), ("worktree", "gc"),
    )  # fmt: skip
    codes = set()
    for args in commands:
        done = oms.run(*args, "--json", *_where(on_etcd), timeout=TIMEOUT)
        assert done.returncode != 0, done.stdout + done.stderr
        codes.add(done.returncode)
        [line] = done.stdout.splitlines()
        said = json.loads(line)
        assert said["error"] == "etcd-unavailable", said
        assert said["message"].startswith("etcd unreachable: no endpoint answered"), said
        assert "Traceback" not in done.stderr
    plain = oms.run("worker", "park", "dsp-1", "--until", "1h", *_where(on_etcd))
    lines = plain.stderr.strip().splitlines()
    assert len(lines) <= 2, plain.stderr  # the line and its hint
    assert lines[0].startswith("oms: error: etcd unreachable: no endpoint answered"), lines
    assert codes == {plain.returncode}
    _no_record_files(on_etcd)
    assert not (on_etcd.state / "panes").exists() or not list((on_etcd.state / "panes").iterdir())
