"""A proposed dispatch whose attempt's lease ran out ends with it (ADR 0043, amendment `cross7`;
ADR 0008 amendment `waits`). A dispatch waiting for a person's approval keeps its lease only while
a conductor ticks; one that did not tick for a lease (stopped for the night) left the lease to
run out, and the expiry (`oms ticket expire`, or the next tick's) opened the ticket for its next
attempt but left the dispatch `proposed` for ever: no approval or accept could take it (its lease
token was gone), yet it was a live attempt — `oms dispatch approve <ticket>` (the form the guide
shows) was refused "ticket … has 2 live attempts" once the next attempt was proposed, and the
ticket, ended, could never be compacted ("dispatch … is proposed"). The expiry now cancels it,
under the dispatch's end lock it already holds."""

from __future__ import annotations

from oms.services.chain import dispatches, handles, tickets
from tests.chain import Chain
from tests.integration.test_an_approval_outlasts_a_rest import _needs_person, _tick


def test_a_proposal_whose_lease_ran_out_while_it_waited_for_a_person_is_cancelled(
    chain: Chain,
) -> None:
    _needs_person(chain)
    with chain.workspace() as ws:
        ticket_id = tickets.add(ws, "Waits, then lapses", "do it").record_id
    _tick(chain)  # leased, proposed: it waits for a person
    with chain.workspace() as ws:
        [first] = ws.store.latest("dispatch").records
    chain.clock.advance(61)  # no tick for a lease (60 minutes): nothing renewed it
    with chain.workspace() as ws:
        assert [t.record_id for t in tickets.expire_due(ws)] == [ticket_id]
        lapsed = dispatches.get(ws, first.record_id)
        assert lapsed.state == "cancelled", lapsed.state
        assert "lease ran out" in str(lapsed.payload["reason"]), lapsed.payload["reason"]
    _tick(chain)  # its next attempt, proposed: it waits for a person
    with chain.workspace() as ws:
        [second] = [d for d in ws.store.latest("dispatch").records if d.state == "proposed"]
        assert second.payload["attempt"] == 2
        assert handles.dispatch(ws, ticket_id) == second.record_id  # the one live attempt
        dispatches.approve(ws, second.record_id, person="Ann", rationale="ok")
