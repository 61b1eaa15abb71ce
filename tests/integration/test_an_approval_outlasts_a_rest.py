"""A person's approval is kept while its provider rests (ADR 0043, amendment `restapproved`). A
dispatch is routed when it is proposed; its accept asks again whether the provider was put to rest
since (amendment `cross5`) and refuses it then, so the conductor cancelled it and the attempt was
proposed anew, routed elsewhere, and a role that needs a person asked the person again: their
approval was lost to a rest they never saw. Now a dispatch a person approved waits for the rest
to end, its lease kept as under a person's wait and bounded the same way (`[pool]
approval_wait_minutes`); the rest over, it is accepted as approved. A dispatch approved by the
advisor alone is still cancelled and routed again."""

from __future__ import annotations

import functools
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from oms.canonical import add_ms
from oms.domain import dispatches as dispatch_machine
from oms.domain.routing import Cooldown
from oms.errors import ConflictError
from oms.services.admin.status import snapshot
from oms.services.chain import dispatches, providers, tickets
from oms.services.chain.end_lock import end_lock
from oms.services.conductor import work
from oms.services.conductor.tick import tick
from oms.services.workspace import Workspace
from tests.chain import Chain
from tests.helpers import OmsCommand
from tests.integration.test_routing import PROVIDERS, ROLE


def _needs_person(chain: Chain) -> None:
    def change(doc: dict[str, Any]) -> None:
        doc["human_approval"] = True
        doc["roles"][ROLE]["needs_person"] = True

    chain.edit_policy(change)
    chain.edit_config(
        lambda s: s.replace('role = "oms.command-executor"', f'role = "{ROLE}"') + PROVIDERS,
        commit=True,
    )


def _tick(chain: Chain) -> list[str]:
    with chain.workspace() as ws:
        report = tick(ws)
    return [x for p in report.phases for x in (*p.done, *p.skipped)]


def _approved(chain: Chain, title: str) -> tuple[str, str]:
    """A ticket whose proposed dispatch a person approved: (ticket id, dispatch id)."""
    _needs_person(chain)
    with chain.workspace() as ws:
        ticket_id = tickets.add(ws, title, "do it").record_id
    _tick(chain)
    with chain.workspace() as ws:
        [dispatch] = ws.store.latest("dispatch").records
        dispatches.approve(ws, dispatch.record_id, person="Ann", rationale="this route")
    return ticket_id, dispatch.record_id


def _paths_fault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real `paths` fault: the oms executable under a path a command line cannot hold."""
    folder = tmp_path / "bin-\u00e9"
    folder.mkdir()
    shutil.copy2(Path(sys.executable).parent / "oms", folder / "oms")
    monkeypatch.setenv("OMS_EXECUTABLE", str(folder / "oms"))


def _rest(ws: Workspace, minutes: int) -> None:
    until = add_ms(ws.now(), minutes * 60_000)
    assert providers.rest(ws, "anthropic-a", Cooldown(until, "quota", "weekly limit"), "test")


def test_a_persons_approval_waits_out_its_providers_rest(chain: Chain) -> None:
    _needs_person(chain)
    with chain.workspace() as ws:
        ticket_id = tickets.add(ws, "Approved, then rested", "do it").record_id
    _tick(chain)  # leased, proposed, routed to anthropic-a: it waits for a person
    with chain.workspace() as ws:
        [dispatch] = ws.store.latest("dispatch").records
        assert dispatch.payload["provider_id"] == "anthropic-a", dispatch.payload
        dispatches.approve(ws, dispatch.record_id, person="Ann", rationale="this route")
    chain.clock.advance(1)  # the rest comes after the routing
    with chain.workspace() as ws:
        _rest(ws, 30)
    lines = _tick(chain)
    waits = f"{ticket_id}: {dispatch.record_id}, approved by a person, waits: provider anthropic-a"
    assert any(x.startswith(waits) for x in lines), lines
    with chain.workspace() as ws:  # what `oms status` (and the board) say of the ticket
        said = snapshot(ws).reasons(ws.now())[ticket_id]
        assert f"{ticket_id}: {said}".startswith(waits), said
        assert "rests until" in said, said
    with chain.workspace() as ws:
        kept = ws.store.records("dispatch").read(dispatch.record_id)
        assert kept.state == "proposed"
        assert kept.payload["approval_evidence"] is not None
        assert ws.store.records("ticket").read(ticket_id).state == "leased"
        assert len(ws.store.latest("dispatch").records) == 1  # no new proposal to approve
        assert providers.clear(ws, "anthropic-a")
        accepted, _ = dispatches.accept(ws, dispatch.record_id)
    assert accepted.state == "accepted"


def test_an_approved_dispatch_waits_no_longer_than_a_persons_wait(chain: Chain) -> None:
    """Past `[pool] approval_wait_minutes` from its proposal the approved dispatch waits no more:
    the accept refuses it (the rest since its routing), it is cancelled and the ticket waits for
    the routing to be decided again, as before this amendment."""
    _needs_person(chain)
    chain.edit_config(
        lambda s: s.replace("[pool]\n", "[pool]\napproval_wait_minutes = 45\n", 1), commit=True
    )
    with chain.workspace() as ws:
        ticket_id = tickets.add(ws, "Approved, then rested long", "do it").record_id
    _tick(chain)
    with chain.workspace() as ws:
        [dispatch] = ws.store.latest("dispatch").records
        dispatches.approve(ws, dispatch.record_id, person="Ann", rationale="this route")
    chain.clock.advance(1)
    with chain.workspace() as ws:
        _rest(ws, 600)
    assert any("approved by a person, waits" in x for x in _tick(chain))
    chain.clock.advance(45)
    lines = _tick(chain)
    assert not any("approved by a person, waits" in x for x in lines), lines
    with chain.workspace() as ws:
        assert ws.store.records("dispatch").read(dispatch.record_id).state == "cancelled"
    assert any(x.startswith(f"{ticket_id}: ticket {ticket_id} waits") for x in lines), lines


def test_an_approved_dispatch_waiting_out_a_rest_outlasts_a_configuration_fault(
    chain: Chain, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """While the approved dispatch waits for its provider's rest, a launch check fails (here the
    oms executable under a path a command line cannot hold: `paths`). The wait asks nothing and
    spends nothing, as a person's wait does: the approval is kept, not cancelled as a
    configuration fault of a launch that is not being made (ADR 0043, amendment `cross7`; failing
    before: the dispatch cancelled, "needs a person: paths: …", the person's approval lost)."""
    ticket_id, dispatch_id = _approved(chain, "Approved, rested, then a fault")
    chain.clock.advance(1)
    with chain.workspace() as ws:
        _rest(ws, 30)
    _paths_fault(tmp_path, monkeypatch)
    lines = _tick(chain)
    waits = f"{ticket_id}: {dispatch_id}, approved by a person, waits: provider anthropic-a"
    assert any(x.startswith(waits) for x in lines), lines
    with chain.workspace() as ws:
        kept = ws.store.records("dispatch").read(dispatch_id)
        assert kept.state == "proposed", kept.payload["reason"]
        assert kept.payload["approval_evidence"] is not None
        assert ws.store.records("ticket").read(ticket_id).state == "leased"


def _waiting_out_a_rest(chain: Chain) -> tuple[str, str]:
    """(ticket, dispatch): a person approved its route to anthropic-a, then anthropic-a was put
    to rest, and the tick left it waiting for the rest."""
    _needs_person(chain)
    with chain.workspace() as ws:
        ticket_id = tickets.add(ws, "Approved, rested, then pinned", "do it").record_id
    _tick(chain)
    with chain.workspace() as ws:
        [dispatch] = ws.store.latest("dispatch").records
        dispatches.approve(ws, dispatch.record_id, person="Ann", rationale="this route")
    chain.clock.advance(1)
    with chain.workspace() as ws:
        _rest(ws, 600)
    assert any("approved by a person, waits" in x for x in _tick(chain))
    return ticket_id, dispatch.record_id


def _states(chain: Chain) -> dict[str, tuple[str, object]]:
    with chain.workspace() as ws:
        return {
            d.record_id: (d.state, d.payload.get("provider_id"))
            for d in ws.store.latest("dispatch").records
        }


def test_a_person_pins_another_provider_in_place_of_the_waiting_route(chain: Chain) -> None:
    """Ann stops waiting for anthropic-a: `propose --provider anthropic-b` alone is refused (the
    attempt has a proposal), its hint naming `--replace`; with it, the approved route is
    cancelled and her pin proposed under a fresh session of the same attempt (no attempt
    counted). It waits for her approval as any of this role's does, then it is the one the tick
    accepts; the cancelled route never launches."""
    ticket_id, first = _waiting_out_a_rest(chain)
    with chain.workspace() as ws, pytest.raises(ConflictError) as refused:
        dispatches.propose(ws, ticket_id, ROLE, "anthropic-b")
    assert "--replace" in str(refused.value.remedy), refused.value.remedy
    with chain.workspace() as ws:
        attempt = ws.store.records("ticket").read(ticket_id).payload["attempt"]
        pinned, created = dispatches.propose(ws, ticket_id, ROLE, "anthropic-b", replace=True)
    assert created
    assert pinned.record_id != first
    assert _states(chain) == {
        first: ("cancelled", "anthropic-a"),
        pinned.record_id: ("proposed", "anthropic-b"),
    }
    with chain.workspace() as ws:
        said = ws.store.records("dispatch").read(first).payload["reason"]
        assert said == f"replaced by a person's new proposal of {ticket_id} (provider anthropic-b)"
        assert ws.store.records("ticket").read(ticket_id).payload["attempt"] == attempt
    lines = _tick(chain)
    waits = f"{ticket_id}: {pinned.record_id} waits for a person's approval"
    assert any(x.startswith(waits) for x in lines), lines
    with chain.workspace() as ws:
        dispatches.approve(ws, pinned.record_id, person="Ann", rationale="pinned route")
    lines = _tick(chain)
    assert any(x.startswith(f"{ticket_id}: {pinned.record_id} delivered") for x in lines), lines
    with chain.workspace() as ws:
        assert ws.store.records("worker").read_if_exists(first) is None


def test_a_tick_during_the_replacement_never_ends_the_attempt(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A tick that comes while the replacement is being written (the old route cancelled, the new
    one not yet proposed) finds the old route's end lock held and leaves the ticket alone; before,
    it took the cancel for the attempt's end and retried the ticket ("failed: replaced …"), and
    Ann's proposal was refused ("ticket is open"). The next tick goes on with her proposal."""
    ticket_id, first = _waiting_out_a_rest(chain)
    monkeypatch.setattr(work, "end_lock", functools.partial(end_lock, wait_s=0.0))
    with chain.workspace() as ws, end_lock(ws, first):  # what `_replace` holds
        current = ws.store.records("dispatch").read(first)
        nxt = dispatch_machine.cancel(current.state, current.payload, reason="replaced")
        dispatches._transition(ws, current, nxt, "op-replace-test")
        lines = _tick(chain)  # between the cancel and the new proposal
        assert f"{ticket_id}: another process holds its delivery" in lines, lines
        assert ws.store.records("ticket").read(ticket_id).state == "leased"
        pinned, created = dispatches.propose(ws, ticket_id, ROLE, "anthropic-b")
    assert created
    lines = _tick(chain)
    waits = f"{ticket_id}: {pinned.record_id} waits for a person's approval"
    assert any(x.startswith(waits) for x in lines), lines
    with chain.workspace() as ws:
        assert ws.store.records("ticket").read(ticket_id).state == "leased"
        assert ws.store.records("dispatch").read(pinned.record_id).state == "proposed"


@pytest.mark.cli
def test_the_command_replaces_the_route_in_one_line(chain: Chain, oms: OmsCommand) -> None:
    """The same from the command line: without `--replace` one line naming it, exit non-zero;
    with it, the new dispatch shown, the old one cancelled."""
    ticket_id, first = _waiting_out_a_rest(chain)
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    pin = ("dispatch", "propose", ticket_id, "--role", ROLE, "--provider", "anthropic-b")
    refused = oms.run(*pin, *roots)
    assert refused.returncode != 0, refused.stdout
    assert "Traceback" not in refused.stderr
    assert "--replace" in refused.stderr, refused.stderr
    done = oms.run(*pin, "--replace", "--json", *roots)
    assert done.returncode == 0, done.stdout + done.stderr
    shown = json.loads(done.stdout)
    assert shown["created"] is True
    assert shown["dispatch"]["id"] != first
    assert _states(chain)[first][0] == "cancelled"
    assert _states(chain)[shown["dispatch"]["id"]] == ("proposed", "anthropic-b")
