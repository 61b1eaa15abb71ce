"""A ticket whose dispatch waits for a person's approval says so everywhere, and the wait is
bounded (ADR 0008, amendment `waits`). Real conductor ticks over a real fleet (`tests/fleet.py`:
git, tmux, bubblewrap), its role's policy asking a person (`needs_person`): `oms status` (its
reason column, its warnings and `--json`), `oms ticket show`, `oms dispatch show|list`, `oms pool
show` and the board each name the dispatch and the commands that decide it; past `[pool]
approval_wait_minutes` (the fleet's clock moved, no sleep) the conductor rejects the dispatch,
blocks its ticket and frees its slot, nothing launched; an approval after is refused in one
line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import pytest

from oms.adapters import git
from oms.domain.status_reason import awaits_approval
from oms.services.admin.status import snapshot
from oms.services.chain import dispatches
from oms.services.conductor import pool
from oms.services.web import server
from oms.services.web.board import board
from tests.board import board_in_thread
from tests.fleet import Fleet, make_fleet
from tests.helpers import OmsCommand, eventually
from tests.integration.test_notify import RECORD
from tests.integration.test_web_actions import _act

ROLE = "oms.command-executor"
WAIT = 45  # [pool] approval_wait_minutes


@pytest.fixture
def fleet(tmp_path: Path) -> Iterator[Fleet]:
    for fleet in make_fleet(tmp_path / "fleet", max_workers=1):
        policy = Path(fleet.repo, ".oms/role-policy.json")
        doc = json.loads(policy.read_text())
        doc["human_approval"] = True
        doc["roles"][ROLE]["needs_person"] = True
        policy.write_text(json.dumps(doc, indent=2) + "\n")
        config = Path(fleet.repo, ".oms/config.toml")  # (a lease is 60 minutes)
        config.write_text(
            config.read_text().replace("[pool]\n", f"[pool]\napproval_wait_minutes = {WAIT}\n")
        )
        git.commit_all(fleet.repo, "the worker's role needs a person's approval")
        yield fleet


def _where(fleet: Fleet) -> tuple[str, ...]:
    return ("--state-root", fleet.state, "--config-root", fleet.repo)


def _json(oms: OmsCommand, fleet: Fleet, *args: str) -> dict[str, Any]:
    done = oms.run(*args, "--json", *_where(fleet))
    assert done.returncode == 0, done.stdout + done.stderr
    return dict(json.loads(done.stdout))


def _text(oms: OmsCommand, fleet: Fleet, *args: str) -> str:
    done = oms.run(*args, *_where(fleet), env={"COLUMNS": "400"})
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def _waiting(fleet: Fleet) -> tuple[str, str]:
    """(ticket id, dispatch id) of the one ticket the first tick leased and proposed."""
    ticket_id = fleet.add("Asks a person")
    lines = [x for p in fleet.tick().phases for x in (*p.done, *p.skipped)]
    with fleet.workspace() as ws:
        [dispatch] = ws.store.latest("dispatch").records
    assert f"{ticket_id}: {awaits_approval(dispatch.record_id, ROLE)}" in lines, lines
    return ticket_id, dispatch.record_id


@pytest.mark.cli
def test_a_dispatch_waiting_for_a_person_says_so_in_every_view(
    fleet: Fleet, oms: OmsCommand
) -> None:
    ticket_id, dispatch_id = _waiting(fleet)
    said = awaits_approval(dispatch_id, ROLE)
    assert f"oms dispatch approve {dispatch_id}" in said
    assert f"oms dispatch reject {dispatch_id} --reason" in said
    status = _text(oms, fleet, "status")
    assert f"WARN {ticket_id}: {said}" in status  # among what waits for a person
    [row] = [x for x in status.splitlines() if x.startswith(ticket_id) and "leased" in x]
    assert row.endswith(said), row  # its reason column
    shown = _json(oms, fleet, "status")
    [dispatch] = shown["dispatches"]
    assert dispatch["waits_for_person"] == said
    assert f"{ticket_id}: {said}" in shown["warnings"]
    assert _json(oms, fleet, "ticket", "show", ticket_id)["waits_for_person"] == said
    assert f"waits             {said}" in _text(oms, fleet, "ticket", "show", ticket_id)
    assert _json(oms, fleet, "dispatch", "show", dispatch_id)["dispatch"]["waits_for_person"] == (
        said
    )
    assert said in _text(oms, fleet, "dispatch", "show", ticket_id)
    assert _json(oms, fleet, "dispatch", "list")["dispatches"][0]["waits_for_person"] == said
    assert said in _text(oms, fleet, "dispatch", "list").splitlines()
    held = _json(oms, fleet, "pool", "show")
    [slot] = held["held"]
    assert held["waits_for_person"] == {slot: said}
    assert f"{slot}: {ticket_id}: {said}" in _text(oms, fleet, "pool", "show")
    with fleet.workspace() as ws:
        queue = board(ws)["queue"]
    assert isinstance(queue, list)
    assert [(x["id"], x["reason"]) for x in queue if isinstance(x, dict)] == [(ticket_id, said)]


@pytest.mark.cli
def test_a_wait_past_its_bound_frees_the_slot_and_a_late_approval_is_refused(
    fleet: Fleet, oms: OmsCommand
) -> None:
    ticket_id, dispatch_id = _waiting(fleet)
    second = fleet.add("Queued behind it")
    fleet.shift_ms = (WAIT - 1) * 60_000  # just short of the bound: it still waits
    fleet.tick()
    assert fleet.tickets()[ticket_id][0] == "leased"
    fleet.shift_ms = WAIT * 60_000
    fleet.tick()
    with fleet.workspace() as ws:
        rejected = ws.store.records("dispatch").read(dispatch_id)
        assert ws.store.records("worker").read_if_exists(dispatch_id) is None  # nothing launched
        held = pool.occupancy(ws).held
    why = (
        f"no person approved {dispatch_id} within {WAIT} minutes (role {ROLE} needs one): the "
        f"conductor rejected it; oms ticket reopen {ticket_id} to try again"
    )
    assert (rejected.state, rejected.payload["reason"]) == ("rejected", why)
    state, payload = fleet.tickets()[ticket_id]
    assert (state, payload["reason"]) == ("blocked", why)
    assert ticket_id not in held.values()  # its slot freed: the next ticket took it
    assert list(held.values()) == [second]
    assert f"{ticket_id}  blocked" in _text(oms, fleet, "status")
    late = oms.run(
        "dispatch", "approve", dispatch_id, "--person", "Ann", "--yes", "--json", *_where(fleet)
    )
    assert late.returncode == 1, late.stdout + late.stderr
    [line] = late.stdout.splitlines()
    refused = json.loads(line)
    assert refused["error"] == "illegal-transition", refused
    assert refused["hint"] == f"it was rejected: {why}", refused
    assert "Traceback" not in late.stderr
    with fleet.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch_id).version == rejected.version


def test_an_approval_before_the_bound_is_not_overruled(fleet: Fleet) -> None:
    """A person who approved while the conductor decided is not overruled: under the end lock,
    the conductor's rejection finds the dispatch no longer waits, and writes nothing."""
    _, dispatch_id = _waiting(fleet)
    with fleet.workspace() as ws:
        dispatches.approve(ws, dispatch_id, person="Ann", rationale="fine")
        assert dispatches.waited_out(ws, dispatch_id, "too late") is None
        assert ws.store.records("dispatch").read(dispatch_id).state == "proposed"


def test_an_expired_attempts_dispatch_is_not_shown_waiting(fleet: Fleet) -> None:
    """A dispatch whose ticket's lease ran out (no tick renewed it) stays proposed, but no approval
    of it is taken: no view says it waits for a person."""
    _, dispatch_id = _waiting(fleet)
    with fleet.workspace() as ws:
        assert list(snapshot(ws).awaiting) == [dispatch_id]
    fleet.shift_ms = 61 * 60_000  # past the 60-minute lease, no tick between
    with fleet.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch_id).state == "proposed"
        assert snapshot(ws).awaiting == {}


def test_a_wait_for_a_person_is_notified_once(
    fleet: Fleet, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The person's `[notify]` with `needs-a-person` hears a dispatch that waits for their
    approval, once, with the phrase every view shows (ADR 0008, amendment `waits`)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    heard = tmp_path / "heard.jsonl"
    record = tmp_path / "record.sh"
    record.write_text(RECORD)
    record.chmod(0o755)
    settings = tmp_path / "config" / "oms" / "notify.toml"  # the person's own [notify]
    settings.parent.mkdir(parents=True)
    argv = json.dumps([str(record), str(heard)])
    settings.write_text(f'[notify]\ncommands = [{argv}]\non = ["needs-a-person"]\n')
    ticket_id, dispatch_id = _waiting(fleet)
    [notified] = next(p for p in fleet.reports[-1].phases if p.name == "notify").done
    assert notified.startswith(f"needs-a-person {ticket_id}: notified"), notified
    doc = json.loads(
        str(eventually(lambda: heard.exists() and heard.read_text(), what="the notice heard"))
    )
    assert (doc["kind"], doc["ticket_id"], doc["dispatch_id"]) == (
        "needs-a-person",
        ticket_id,
        dispatch_id,
    )
    assert doc["reason"] == awaits_approval(dispatch_id, ROLE)
    again = next(p for p in fleet.tick().phases if p.name == "notify")
    assert again.done == []  # once: the same version is not notified again


def _board_of(fleet: Fleet) -> AbstractContextManager[server.Board]:
    """`oms web` on the fleet's state, its actions recorded as Ann's."""
    return board_in_thread(fleet.workspace, person="Ann")


def _queue(fleet: Fleet) -> list[tuple[object, object]]:
    """The board's queue: each ticket and the dispatch of it that waits for a person."""
    with fleet.workspace() as ws:
        rows = board(ws)["queue"]
    assert isinstance(rows, list)
    return [(r["id"], r["awaiting"]) for r in rows if isinstance(r, dict)]


def test_a_person_approves_the_waiting_dispatch_from_the_board(fleet: Fleet) -> None:
    """The board's queue row names the dispatch that waits; its `approve` is Ann's approval of
    that dispatch (the command's service, its evidence), and the next tick accepts and launches
    it. An approve of it then is refused as the command refuses it."""
    ticket_id, dispatch_id = _waiting(fleet)
    assert _queue(fleet) == [(ticket_id, dispatch_id)]
    with _board_of(fleet) as served:
        code, said = _act(served, "approve", dispatch_id, "looks right")
        assert code == 200, said
        assert isinstance(said, dict), said
        assert said["said"] == (
            f"{dispatch_id} approved by Ann: the next tick accepts and delivers it"
        ), said
    with fleet.workspace() as ws:
        ref = ws.store.records("dispatch").read(dispatch_id).payload["approval_evidence"]
        evidence = ws.store.evidence.get(str(ref))
    assert (evidence.kind, evidence.body["producer"]) == ("human-approval", "human")
    said_by = evidence.body["payload"]
    assert isinstance(said_by, dict)
    assert (said_by["dispatch_id"], said_by["person"], said_by["rationale"]) == (
        dispatch_id,
        "Ann",
        "looks right",
    )
    fleet.tick()
    with fleet.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch_id).state != "proposed"
        assert ws.store.records("worker").read_if_exists(dispatch_id) is not None  # launched
    assert _queue(fleet) == [(ticket_id, None)]
    with _board_of(fleet) as served:
        code, late = _act(served, "approve", dispatch_id)
    assert code == 409, late
    assert isinstance(late, dict), late
    assert late["error"] == "dispatch cannot approve from state accepted", late


def _verdicts(fleet: Fleet, dispatch_id: str) -> list[tuple[str, object, object, object]]:
    """Every person's verdict on `dispatch_id` kept as evidence: (verdict, person, rationale,
    its producer)."""
    with fleet.workspace() as ws:
        bodies = [ws.store.evidence.get(ref).body for ref in ws.store.evidence.refs()]
    found: list[tuple[str, object, object, object]] = []
    for body in bodies:
        said = body["payload"]
        kind = body["evidence_kind"]
        if (
            kind == "human-approval"
            and isinstance(said, dict)
            and said["dispatch_id"] == dispatch_id
        ):
            found.append(
                (str(said["verdict"]), said["person"], said["rationale"], body["producer"])
            )
    return found


@pytest.mark.parametrize(
    ("words", "reason"),
    [("", "rejected by Ann: declined on oms web"), ("wrong role", "rejected by Ann: wrong role")],
)
def test_a_person_rejects_the_waiting_dispatch_from_the_board(
    fleet: Fleet, words: str, reason: str
) -> None:
    """`reject` from the board ends that dispatch, naming Ann with her words (or the board's
    default) in its reason, and keeps her verdict as signed evidence that no accept takes for an
    approval; nothing launches, and the next tick leaves it rejected."""
    _, dispatch_id = _waiting(fleet)
    with _board_of(fleet) as served:
        code, said = _act(served, "reject", dispatch_id, words)
        assert code == 200, said
    with fleet.workspace() as ws:
        rejected = ws.store.records("dispatch").read(dispatch_id)
        assert ws.store.records("worker").read_if_exists(dispatch_id) is None
    assert (rejected.state, rejected.payload["reason"]) == ("rejected", reason)
    assert rejected.payload["approval_evidence"] is None
    assert _verdicts(fleet, dispatch_id) == [
        ("reject", "Ann", words or "declined on oms web", "human")
    ]
    fleet.tick()
    with fleet.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch_id).version == rejected.version
        assert ws.store.records("worker").read_if_exists(dispatch_id) is None


@pytest.mark.cli
def test_a_person_rejects_from_the_command_line_and_is_named(fleet: Fleet, oms: OmsCommand) -> None:
    """`oms dispatch reject --person` keeps who declined it, as the board does; a second reject,
    or one of a dispatch no longer proposed, is refused in one line and writes no evidence."""
    _, dispatch_id = _waiting(fleet)
    shown = _json(
        oms, fleet, "dispatch", "reject", dispatch_id, "--reason", "wrong role", "--person", "bob"
    )
    assert (shown["dispatch"]["state"], shown["dispatch"]["reason"]) == (
        "rejected",
        "rejected by bob: wrong role",
    )
    assert _verdicts(fleet, dispatch_id) == [("reject", "bob", "wrong role", "human")]
    log = _text(oms, fleet, "audit", "log", "--dispatch", dispatch_id)
    assert "-> rejected by person:bob" in log, log  # the ledger names the person
    again = oms.run(
        "dispatch", "reject", dispatch_id, "--reason", "again", "--person", "eve", *_where(fleet)
    )
    assert again.returncode != 0, again.stdout
    assert "dispatch cannot reject from state rejected" in again.stderr, again.stderr
    assert len(again.stderr.strip().splitlines()) <= 2, again.stderr
    assert "Traceback" not in again.stderr
    assert _verdicts(fleet, dispatch_id) == [("reject", "bob", "wrong role", "human")]
