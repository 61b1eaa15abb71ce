"""An expiry that races another writer of the ticket decides again on what it finds: found by the
one-hour fleet soak (`bench/fleet_chaos_bench.py`), where `oms ticket expire` lost the ticket's next
version to the conductor and stopped with "changed under us" instead of expiring it or seeing that
it no longer had to."""

from __future__ import annotations

from collections.abc import Callable

from oms.services.chain import tickets
from oms.services.workspace import Workspace
from tests.chain import Chain, Clock


def _racing(chain: Chain, meanwhile: Callable[[Workspace, str, str], object]) -> list[str]:
    """Expire the chain's lapsed ticket while `meanwhile` writes it between the read and the write
    (another process would: the conductor, a person's command), with a clock of its own: the
    expiry's, 61 minutes on, or the lease's holder's, still within the lease."""
    ticket_id, token, _dispatch_id = chain.proposed()
    holder = Clock(chain.clock.ms, chain.clock.base)
    chain.clock.advance(61)  # the configured lease is 60 minutes
    with chain.workspace() as ws:
        put = ws.store.put_evidence
        raced: list[bool] = []

        def put_then_race(body: dict[str, object]) -> object:
            if not raced:
                raced.append(True)
                with Workspace.open(str(chain.state), str(chain.repo), clock=holder) as other:
                    meanwhile(other, ticket_id, token)
            return put(body)  # type: ignore[arg-type]

        ws.store.put_evidence = put_then_race  # type: ignore[method-assign,assignment]
        expired = tickets.expire_due(ws)
        assert raced
    with chain.workspace() as ws:
        assert tickets.expire_due(ws) == []
    return [f"{t.record_id}:{t.state}" for t in expired]


def test_an_expiry_that_lost_to_a_renewal_does_not_expire_the_renewed_lease(chain: Chain) -> None:
    def renew(ws: Workspace, ticket_id: str, token: str) -> object:
        return tickets.renew(ws, ticket_id, token, minutes=120)

    assert _racing(chain, renew) == []
    with chain.workspace() as ws:
        assert tickets.get(ws, "tkt-1").state == "leased"


def test_an_expiry_that_lost_to_a_write_that_left_the_lease_lapsed_still_expires(
    chain: Chain,
) -> None:
    def session(ws: Workspace, ticket_id: str, _token: str) -> object:
        return tickets.new_session(ws, tickets.get(ws, ticket_id))

    assert _racing(chain, session) == ["tkt-1:open"]
    with chain.workspace() as ws:
        assert tickets.get(ws, "tkt-1").payload["attempt"] == 2


def test_an_expiry_that_lost_to_a_wait_for_a_person_leaves_the_ticket_to_them(
    chain: Chain,
) -> None:
    def person(ws: Workspace, ticket_id: str, _token: str) -> object:
        return tickets.wait_for_person(ws, tickets.get(ws, ticket_id), "a person looks")

    assert _racing(chain, person) == []
    with chain.workspace() as ws:
        ticket = tickets.get(ws, "tkt-1")
    assert (ticket.state, ticket.payload["reason"]) == ("open", "a person looks")
