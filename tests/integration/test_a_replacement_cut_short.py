"""A person's `oms dispatch propose --replace` killed between its writes (ADR 0043, amendment
`replace`). The replacement writes three things in turn: the old proposal's cancel, the ticket's
fresh session, the new proposal. Its end lock keeps a tick out while it writes; a process killed
after the cancel gives that lock up (a file lock dies with its holder) and leaves the cancel
alone on the attempt's session. The tick must not take that cancel for the attempt's end: the
attempt goes on under a fresh session with a proposal of the conductor's (as after a kill past
the session's write), and the person's replacement, run again, replaces that one."""

from __future__ import annotations

import threading

import pytest

from oms.errors import IllegalTransitionError
from oms.services.chain import dispatches, tickets
from oms.services.chain.end_lock import end_lock
from oms.services.workspace import Workspace
from oms.store.payloads import ticket_payload
from oms.store.records import Record, RecordStore
from tests.chain import Chain, Clock
from tests.integration.test_an_approval_outlasts_a_rest import _states, _tick, _waiting_out_a_rest
from tests.integration.test_routing import ROLE


class _Killed(BaseException):
    """The replacing process dies here (nothing after it runs; its file lock is given up)."""


def _die(*_args: object, **_kwargs: object) -> object:
    raise _Killed


def expiry_past_the_lease(chain: Chain) -> tuple[threading.Thread, list[str]]:
    """A thread (not started) that runs `oms ticket expire` two hours on, past the lease; the
    list it fills with the tickets it lapsed."""
    later = Clock(chain.clock.ms + 120 * 60_000, chain.clock.base)
    lapsed: list[str] = []

    def expire() -> None:
        with Workspace.open(str(chain.state), str(chain.repo), clock=later) as ws:
            lapsed.extend(t.record_id for t in tickets.expire_due(ws))

    return threading.Thread(target=expire), lapsed


@pytest.mark.parametrize("killed_at", ["new_session", "create"])
def test_a_replacement_killed_between_its_writes_never_ends_the_attempt(
    chain: Chain, monkeypatch: pytest.MonkeyPatch, killed_at: str
) -> None:
    """Killed at the session's write (the cancel written) or at the new proposal's (the cancel and
    the session written): the next tick counts no attempt — the ticket stays leased at the same
    attempt with one proposal, under a fresh session — and Ann's `--replace` run again replaces
    it with her pin. Failing before at `new_session`: the tick ended the attempt ("failed:
    replaced by a person's new proposal …"), the ticket was open for a retry."""
    ticket_id, first = _waiting_out_a_rest(chain)
    with chain.workspace() as ws:
        attempt = ws.store.records("ticket").read(ticket_id).payload["attempt"]
    with monkeypatch.context() as m:
        if killed_at == "new_session":
            m.setattr(tickets, "new_session", _die)
        else:
            m.setattr(RecordStore, "create", _die)
        with chain.workspace() as ws, pytest.raises(_Killed):
            dispatches.propose(ws, ticket_id, ROLE, "anthropic-b", replace=True)
    assert _states(chain)[first][0] == "cancelled"
    lines = _tick(chain)
    assert not any("failed" in x for x in lines), lines
    with chain.workspace() as ws:
        ticket = ws.store.records("ticket").read(ticket_id)
        assert ticket.state == "leased", (ticket.state, ticket.payload.get("reason"), lines)
        assert ticket.payload["attempt"] == attempt
        current = tickets.dispatch_of(ws, ticket, ticket_payload(ticket)["attempt"])
        assert current is not None, lines
        assert current.state == "proposed", lines
        pinned, _ = dispatches.propose(ws, ticket_id, ROLE, "anthropic-b", replace=True)
    assert _states(chain)[pinned.record_id] == ("proposed", "anthropic-b")
    with chain.workspace() as ws:
        assert ws.store.records("ticket").read(ticket_id).payload["attempt"] == attempt


def test_two_persons_replacing_at_once_are_told_who_won(chain: Chain) -> None:
    """Ann and Bob each replace the waiting route; Bob read it before Ann's replacement was
    written, and his replacement takes its end lock after hers. He is told, in one line, that
    it was replaced meanwhile and how to replace hers (before: "it is cancelled: a new dispatch
    is a new attempt", which is not so: the attempt goes on with Ann's proposal)."""
    ticket_id, first = _waiting_out_a_rest(chain)
    with chain.workspace() as ws:
        seen = ws.store.records("dispatch").read(first)  # what Bob's propose read
        ann, created = dispatches.propose(ws, ticket_id, ROLE, "anthropic-b", replace=True)
    assert created
    with chain.workspace() as ws, pytest.raises(IllegalTransitionError) as refused:
        dispatches._replace(ws, seen, ticket_id, ROLE, "anthropic-b")
    assert "another person replaced it meanwhile" in str(refused.value.remedy), refused.value
    assert f"propose {ticket_id} again with `--replace`" in str(refused.value.remedy)
    assert _states(chain)[ann.record_id] == ("proposed", "anthropic-b")


def test_a_replacement_beside_its_attempts_lapse_leaves_no_proposal_live(
    chain: Chain, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The attempt's lease runs out while Ann replaces its route: the expiry (`oms ticket expire`,
    or another host's tick) read the ticket under its old session and waits for the old
    proposal's end lock, which the replacement holds until its new proposal is written. The
    expiry must then end the attempt's proposal as it is now, Ann's. Before, it decided on the
    proposal it had read (cancelled by then): the ticket opened for its next attempt with Ann's
    proposal left `proposed` for ever (a second live attempt; the ticket never compacted)."""
    ticket_id, first = _waiting_out_a_rest(chain)
    expiry, lapsed = expiry_past_the_lease(chain)
    waiting = threading.Event()
    take_end_lock = end_lock

    def expiry_takes(ws: Workspace, dispatch_id: str) -> object:
        waiting.set()  # it read the ticket; the replacement holds this lock
        return take_end_lock(ws, dispatch_id)

    write_session = tickets.new_session

    def meanwhile(ws: Workspace, ticket: Record) -> Record:
        expiry.start()
        assert waiting.wait(timeout=30), "the expiry never asked the end lock"
        return write_session(ws, ticket)

    monkeypatch.setattr(tickets, "end_lock", expiry_takes)
    monkeypatch.setattr(tickets, "new_session", meanwhile)
    with chain.workspace() as ws:
        pinned, created = dispatches.propose(ws, ticket_id, ROLE, "anthropic-b", replace=True)
    expiry.join(timeout=60)
    assert created
    assert lapsed == [ticket_id]
    states = _states(chain)
    assert states[first][0] == "cancelled"
    assert states[pinned.record_id][0] == "cancelled", states  # before: "proposed"
    with chain.workspace() as ws:
        ticket = ws.store.records("ticket").read(ticket_id)
        assert (ticket.state, ticket.payload["attempt"]) == ("open", 2)
