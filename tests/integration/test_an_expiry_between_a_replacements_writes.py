"""An expiry that reads the ticket between a person's `--replace` writes (ADR 0043, amendment
`replacelapse`, attack `replacegap`). The replacement writes the old proposal's cancel, the
ticket's fresh session, then the new proposal, holding the OLD proposal's end lock. An expiry
(`oms ticket expire`, another host's tick) that reads the ticket after the fresh session is
written, before the new proposal is, finds no dispatch for the session: it takes no lock and
opens the ticket for its next attempt — then the replacement writes its proposal, of a lapsed
attempt, left `proposed` for ever (a second live attempt; the ticket never compacted)."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from oms.errors import OmsError
from oms.services.chain import dispatches, tickets
from oms.services.workspace import Workspace
from oms.store.records import Record
from tests.chain import Chain
from tests.integration.test_a_replacement_cut_short import expiry_past_the_lease
from tests.integration.test_an_approval_outlasts_a_rest import _states, _waiting_out_a_rest
from tests.integration.test_routing import ROLE


@pytest.mark.parametrize("written_first", ["lapse", "proposal"])
def test_an_expiry_between_the_session_and_the_new_proposal_leaves_no_proposal_live(
    chain: Chain, monkeypatch: pytest.MonkeyPatch, written_first: str
) -> None:
    """The expiry reads the fresh session (no dispatch for it yet); then either its lapse is
    written before the new proposal, or the proposal is written (and the replacement done) before
    the lapse. Either way nothing of attempt 1 stays `proposed`."""
    ticket_id, first = _waiting_out_a_rest(chain)
    expiry, lapsed = expiry_past_the_lease(chain)
    proposed = threading.Event()
    expire_locked = tickets._expire_locked

    def held_back(*args: Any) -> Any:  # the expiry found no dispatch: it writes the lapse now
        if written_first == "proposal":
            assert proposed.wait(timeout=60), "the replacement never finished"
        return expire_locked(*args)

    write_session = tickets.new_session

    def then_the_expiry(ws: Workspace, ticket: Record) -> Record:
        written = write_session(ws, ticket)
        expiry.start()  # it reads the fresh session: no dispatch for it yet
        if written_first == "lapse":
            expiry.join(timeout=60)
            assert not expiry.is_alive(), "the expiry waited on the replacement"
        return written

    monkeypatch.setattr(tickets, "_expire_locked", held_back)
    monkeypatch.setattr(tickets, "new_session", then_the_expiry)
    refused: OmsError | None = None
    with chain.workspace() as ws:
        try:
            dispatches.propose(ws, ticket_id, ROLE, "anthropic-b", replace=True)
        except OmsError as exc:  # the attempt lapsed as it proposed: its proposal cancelled
            refused = exc
    proposed.set()
    expiry.join(timeout=60)
    assert lapsed == [ticket_id]
    assert (refused is not None) == (written_first == "lapse"), refused
    states = _states(chain)
    assert states[first][0] == "cancelled"
    live = [d for d, (state, _) in states.items() if state == "proposed"]
    assert live == [], states  # before: the replacement's proposal, of attempt 1
    assert len(states) == 2, states
    with chain.workspace() as ws:
        ticket = ws.store.records("ticket").read(ticket_id)
        assert (ticket.state, ticket.payload["attempt"]) == ("open", 2)
