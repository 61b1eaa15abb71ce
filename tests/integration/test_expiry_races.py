"""An expiry that races another writer of the ticket decides again on what it finds: found by the
one-hour fleet soak (`bench/fleet_chaos_bench.py`), where `oms ticket expire` lost the ticket's next
version to the conductor and stopped with "changed under us" instead of expiring it or seeing that
it no longer had to."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from oms.domain import tickets as machine
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from oms.store.payloads import ticket_payload
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


_RACER = """
import json, sys
from oms.errors import OmsError
from oms.services.chain import tickets
from oms.services.workspace import Workspace
from tests.chain import Clock

state, repo, ticket_id, token, role, base, minutes_on, rounds = sys.argv[1:]
sys.stdin.read(1)  # all start together
done = {"renewed": 0, "expired": 0, "refused": [], "skipped": []}
for i in range(int(rounds)):
    clock = Clock(int((float(minutes_on) + 2 * i) * 60_000), base)  # two minutes a round
    with Workspace.open(state, repo, clock=clock) as ws:
        try:
            if role == "renew":
                tickets.renew(ws, ticket_id, token, minutes=60)
                done["renewed"] += 1
            else:
                skipped = []
                done["expired"] += len(tickets.expire_due(ws, skipped))
                done["skipped"] += skipped
        except OmsError as exc:
            done["refused"].append(exc.message)
print(json.dumps(done))
"""


def test_renewals_racing_expiries_from_several_processes_expire_once_and_leave_nothing_stuck(
    chain: Chain,
) -> None:
    """Two processes renew the lease in a loop, two more expire due leases in a loop, the clocks of
    both moving two minutes a round: a renewer's round `i` makes the lease run out at `i` rounds
    and 60 minutes, an expirer's round `j` looks at `j` rounds and 61 minutes, so whether the lease
    has run out when an expiry looks depends on which process is ahead (each expiry under the
    attempt's end lock). The attempt is expired once (one expiry version, one process saying so),
    no expiry stops with the ticket half-judged (a line in its skipped list), and a last expiry
    well after every renewal finds nothing leased and run out left behind."""
    ticket_id, token, _dispatch_id = chain.proposed()  # a dispatch: its end lock is taken
    root = Path(__file__).resolve().parents[2]
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", _RACER, str(chain.state), str(chain.repo), ticket_id, token]
            + [role, chain.clock.base, minutes, "25"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            cwd=root,
            text=True,
        )
        for role, minutes in (("renew", "0"), ("expire", "61"), ("renew", "0"), ("expire", "61"))
    ]
    for racer in racers:
        assert racer.stdin is not None
        racer.stdin.write("x")
        racer.stdin.flush()
    said = []
    try:
        for racer in racers:
            out, _ = racer.communicate(timeout=300)
            assert racer.returncode == 0, out
            said.append(json.loads(out))
    finally:  # a failed racer leaves no other running into the next test
        for racer in racers:
            if racer.poll() is None:
                racer.kill()
            racer.communicate()
    expirers = said[1::2]
    assert not [line for s in expirers for line in s["skipped"]], said
    late = Clock(chain.clock.ms, chain.clock.base)
    late.advance(200)  # after every renewal's lease
    with Workspace.open(str(chain.state), str(chain.repo), clock=late) as ws:
        last = len(tickets.expire_due(ws))
        final = tickets.get(ws, ticket_id)
        records = ws.store.records("ticket")
        history = [records.read_version(ticket_id, v) for v in range(1, final.version + 1)]
    assert sum(s["expired"] for s in expirers) + last == 1, said
    expiries = [r for r in history if r.operation_id.startswith("tkt-expire")]
    assert [r.payload["attempt"] for r in expiries] == [2], [r.operation_id for r in history]
    assert (final.state, final.payload["attempt"]) == ("open", 2), final
    assert not machine.is_expired(final.state, ticket_payload(final), late()), final
