"""The conductor's work phases (`services/conductor/tick.py` runs them): resume due workers, deliver
pending events, resolve ended attempts into their tickets, and fill free pool slots from the queue.
Each item is on its own: a failure is one line in `skipped`, and the next item runs. Decisions are
`domain/conductor.py`'s.
"""

from __future__ import annotations

from oms.canonical import access, stable_id
from oms.domain import conductor as conductor_rules
from oms.domain import dispatches as dispatch_rules
from oms.domain import hosts as host_rules
from oms.domain import pool as pool_rules
from oms.domain import status_reason
from oms.errors import WAITS_FOR_PERSON, LockHeldError, NoProviderError, OmsError, one_line
from oms.schemas.payloads import DispatchState, PoolPayload, TicketState
from oms.services.chain import dispatches, fence, tickets, worktrees
from oms.services.chain.end_lock import end_lock
from oms.services.chain.liveness import CONSUMER
from oms.services.chain.tickets import another_repository
from oms.services.conductor import doing, pool
from oms.services.conductor import quota as conductor_providers
from oms.services.conductor.preflight import Preflight
from oms.services.conductor.resolve import decide_ticket, own_workers, theirs
from oms.services.delivery.service import Delivery
from oms.services.workspace import Workspace
from oms.store import Record
from oms.store.payloads import (
    dispatch_payload,
    session_payload,
    text_set,
    ticket_payload,
    worker_payload,
)


def resume_due(d: Delivery, done: list[str], skipped: list[str]) -> None:
    """Resume each worker parked until a time that has come (not one parked `no_result`, nor one
    whose result was recorded while it was parked: its attempt is over, `resolve` ends it). A
    worker of a slot a forced scale drains is held (no clock resumes it: said, with what a person
    does); one a forced drain parked is resumed at once when that drain is over (its slot active
    again), not at its day's end (ADR 0016, amendment `drainclock`)."""
    now = d.ws.now()
    slots: PoolPayload | None = None  # read once, and only when a worker is parked
    for worker in own_workers(d.ws):
        if worker_payload(worker)["health"] != "parked" or worker.state in fence.RESULT_RECORDED:
            continue
        try:
            session = d.session(worker_payload(worker)["session_id"])
            until = None if session is None else session_payload(session)["parked_until"]
            reason = worker_payload(worker)["health_reason"]
            slots = pool.current(d.ws) if slots is None else slots
            slot = str(dispatch_payload(d.dispatch(worker.record_id))["worker_id"])
            over = until is not None and pool_rules.drain_over(slots, slot, reason)
            due = conductor_rules.due_resume(
                session_state=None if session is None else session.state,
                parked_until=until,
                health="parked",
                reason=reason,
                now=until if over and until is not None else now,
            )
            if due and slot in pool_rules.forced(slots):
                skipped.append(pool_rules.not_resumed(worker.record_id, slot))
            elif due:
                view = d.resume(worker.record_id, early=over)
                done.append(f"{worker.record_id}: resumed ({view.get('resumed')})")
        except OmsError as exc:
            skipped.append(f"{worker.record_id}: {one_line(exc.message)}")


OPEN_EVENTS = ("accepted", "acknowledged", "result-received")  # its attempt is not decided yet


def deliver_pending(
    d: Delivery,
    done: list[str],
    skipped: list[str],
    checks: Preflight | None = None,
) -> None:
    """Deliver every accepted dispatch whose delivery event has no receipt (exactly once:
    `deliver`). An accepted dispatch whose worker or event a crash never wrote is accepted again
    first (`accept` on an accepted dispatch finishes what a crash left undone). A launched attempt's
    event left without its receipt (a deliverer killed between the launch and the receipt, the agent
    since acknowledged or recorded its result) is closed the same way: `deliver` recovers its
    session binding, launching nothing. No launch starts while a launch check fails (ADR 0031): the
    fill phase has a pool ticket wait for a person; a person's dispatch stays accepted, said
    here."""
    box = d.ws.store.outbox(CONSUMER)
    checks = checks if checks is not None else Preflight(d.ws)
    others = theirs(d.ws)  # another host's workers: that host delivers them (`domain/hosts.py`)
    for dispatch in d.ws.store.latest("dispatch").in_states(OPEN_EVENTS):
        event_id = dispatch_payload(dispatch).get("delivery_event_id")
        if not isinstance(event_id, str) or dispatch.record_id in others:
            continue
        try:
            if dispatch.state != DispatchState.ACCEPTED:
                if not box.has_receipt(event_id):
                    closed = access.obj(d.deliver(event_id), "outcome").get("status")
                    done.append(f"{dispatch.record_id}: its delivery event closed ({closed})")
                continue
            if not d.ws.store.events.exists(event_id):
                dispatches.accept(d.ws, dispatch.record_id)
                done.append(
                    f"{dispatch.record_id}: its acceptance finished "
                    f"(its delivery event was missing)"
                )
            if box.read_receipt(event_id) is not None:
                continue
            waits = checks.reason()
            if waits is not None:
                skipped.append(f"{dispatch.record_id}: not launched, it {waits}")
                continue
            outcome = access.obj(d.deliver(event_id), "outcome")
            done.append(f"{dispatch.record_id}: delivered ({outcome.get('status')})")
        except LockHeldError:
            skipped.append(f"{dispatch.record_id}: another deliverer holds it")
        except OmsError as exc:
            skipped.append(f"{dispatch.record_id}: {one_line(exc.message)}")


def fill(
    d: Delivery,
    done: list[str],
    skipped: list[str],
    checks: Preflight | None = None,
) -> None:
    """Free pool slots take tickets: those the pool holds already go on from where they stopped (a
    crash mid-chain), draining slots that hold nothing leave the pool, then the queue's first open
    tickets are leased, one to each free slot, never more than `max_workers` slots busy
    (`domain/pool.py`). A draining slot finishes what runs and starts nothing: its ticket whose
    attempt has not launched gives its lease back, for the next free slot (ADR 0016, amendment
    `drainfirst`). Settling and leasing happen under the pool lock (a concurrent `oms pool
    scale` decides before or after); the chains of the new leases run after it. Before any of it,
    the launch checks (ADR 0031): while one fails, nothing is leased (the tickets the free slots
    would take wait, open, for a person, the fix in their reason) and a held ticket that has not
    launched gives its lease back the same way; nothing is counted. A held ticket whose worker
    another host runs is that host's to go on with (ADR 0043, amendment `hosts`)."""
    ws = d.ws
    checks = checks if checks is not None else Preflight(ws)
    all_tickets, workers, all_dispatches = _relevant(ws)
    by_attempt = _by_attempt(all_tickets, all_dispatches)
    held = [
        t
        for t in all_tickets
        if t.state == TicketState.LEASED
        and (ticket_payload(t)["worker_id"] or "").startswith(pool_rules.PREFIX)
    ]
    occupancy = pool.Occupancy.of(all_tickets, workers, all_dispatches)
    others, this = theirs(ws), ws.host()
    workers_of = {w.record_id: worker_payload(w) for w in workers}
    slots = pool.current(ws)
    draining = set(pool_rules.names(slots, "draining"))
    for ticket, dispatch in _claimed(slots, held, by_attempt, occupancy, skipped):
        if dispatch is not None and dispatch.record_id in others:
            continue  # its worker's host's
        worker = None if dispatch is None else workers_of.get(dispatch.record_id)
        if not host_rules.chain_is_mine(ticket_payload(ticket).get("lease_host"), worker, this):
            continue  # leased by another host's conductor: its chain is that host's
        slot = str(ticket_payload(ticket)["worker_id"])
        _advance(d, ticket, dispatch, done, skipped, checks, draining=slot in draining)
    if held:  # they moved on: the queue and the slots are decided on what they are now
        all_tickets, workers, all_dispatches = _relevant(ws)
        occupancy = pool.Occupancy.of(all_tickets, workers, all_dispatches)
    ours = []
    for t in all_tickets:  # another repository's ticket is never this conductor's (ADR 0032)
        foreign = another_repository(ws, t) if t.state == TicketState.OPEN else None
        if foreign is None:
            ours.append(t)
        else:
            skipped.append(one_line(foreign.message))
    queued = conductor_rules.queue(
        (
            conductor_rules.Queued(
                t.record_id,
                t.state,
                ticket_payload(t).get("priority"),
                ticket_payload(t)["created_at"],
                ticket_payload(t).get("retry_after"),
            )
            for t in ours
            if t.state == TicketState.OPEN
        ),
        ws.now(),
    )
    grants = []
    waits = conductor_providers.queue_waits(ws) if queued else None
    if waits is not None:
        skipped.append(f"the queue waits: {waits}")
        queued = []
    free = _free(ws, occupancy) if queued else 0
    if free and _queue_waits_for_person(ws, queued[:free], checks, done, skipped):
        queued = []
    if not queued and not _settling_changes(ws, occupancy):
        return  # an idle tick takes no pool lock (on etcd: three round trips a tick)
    with pool.lock(ws):
        record, seen = pool.seen(ws, occupancy)
        decision = pool_rules.decide(seen, pool_rules.Fill(tuple(queued)))
        pool.perform_writes(ws, record, decision)
        for effect in decision.effects:
            if isinstance(effect, pool_rules.Left):
                done.append(f"{effect.slot}: drained, left the pool")
            elif isinstance(effect, pool_rules.Lease):
                grants += _lease(ws, effect, done, skipped)
    for grant in grants:
        _advance(d, grant.ticket, None, done, skipped, checks)


def _settling_changes(ws: Workspace, occupancy: pool.Occupancy) -> bool:
    """Would settling the pool, with nothing to offer it, change anything (a drained slot leaving,
    a first record)? Decided on a look without the lock, which writes nothing: when it shows
    something to do, the lock is taken and the pool read and decided again under it."""
    _, seen = pool.seen(ws, occupancy)
    return bool(pool_rules.decide(seen, pool_rules.Fill(())).effects)


def _lease(
    ws: Workspace, effect: pool_rules.Lease, done: list[str], skipped: list[str]
) -> list[tickets.LeaseGrant]:
    """The machine's `Lease`: the queue's tickets into the free slots, in order (a refused ticket
    leaves its slot to the next)."""
    slots, grants = list(effect.slots), list[tickets.LeaseGrant]()
    for ticket_id in effect.queue:
        if not slots:
            break
        try:
            grants.append(tickets.lease(ws, ticket_id, slots[0]))
        except OmsError as exc:
            skipped.append(f"{ticket_id}: {one_line(exc.message)}")
            continue
        done.append(f"{ticket_id}: leased to {slots.pop(0)}")
    return grants


def _free(ws: Workspace, occupancy: pool.Occupancy) -> int:
    """How many tickets the pool could take now (before it is settled: an estimate that only
    decides whether the launch checks are worth asking)."""
    return len(pool_rules.offer(pool.current(ws), occupancy.held, ws.config().max_workers))


def _queue_waits_for_person(
    ws: Workspace,
    first: list[str],
    checks: Preflight,
    done: list[str],
    skipped: list[str],
) -> bool:
    """Does the queue wait for a person's fix (a launch check fails: ADR 0031)? The `first` tickets,
    those the free slots would take, say so in their reason (written once, not every tick)."""
    reason = checks.reason()
    if reason is None:
        return False
    skipped.append(f"the queue waits: {reason}")
    records = ws.store.records("ticket")
    for ticket_id in first:
        try:
            ticket = records.read(ticket_id)
            if ticket_payload(ticket).get("reason") != reason:
                tickets.wait_for_person(ws, ticket, reason)
                done.append(f"{ticket_id}: waits, open: {reason}")
        except OmsError as exc:
            skipped.append(f"{ticket_id}: {one_line(exc.message)}")
    return True


def _relevant(ws: Workspace) -> tuple[list[Record], list[Record], list[Record]]:
    """What filling the pool decides on: the open and leased tickets and those of workers still
    running (a finished ticket's record is not read: its worker, if it runs, names it), the workers,
    and the dispatches of workers still running and of leased tickets' attempts."""
    workers = ws.store.latest("worker").records
    alive = [w for w in workers if worker_payload(w)["health"] != "stopped"]
    tickets_now = ws.store.live("ticket").in_states(("open", "leased"))  # (store/live.py)
    listed = {t.record_id for t in tickets_now}
    records = ws.store.records("ticket")
    for ticket_id in sorted({worker_payload(w)["ticket_id"] for w in alive} - listed):
        try:
            tickets_now.append(records.read(ticket_id))  # finished, its worker not yet closed
        except OmsError:
            continue
    wanted = {w.record_id for w in alive} | {
        stable_id(
            "dsp", t.record_id, ticket_payload(t)["attempt"], str(ticket_payload(t)["session_id"])
        )
        for t in tickets_now
        if t.state == TicketState.LEASED
    }
    active = {
        r.record_id: r for r in ws.store.latest("dispatch").in_states(dispatch_rules.NON_TERMINAL)
    }
    dispatches_now = []
    for dispatch_id in sorted(wanted):
        found = active.get(dispatch_id)
        try:  # an ended attempt's (rejected, cancelled, resolved): read by its id
            found = found or ws.store.records("dispatch").read_if_exists(dispatch_id)
        except OmsError:
            continue
        if found is not None:
            dispatches_now.append(found)
    return tickets_now, workers, dispatches_now


def _by_attempt(
    all_tickets: list[Record], all_dispatches: list[Record]
) -> dict[tuple[str, int], Record]:
    """Each attempt's dispatch the chain goes on with: the one of its ticket's current session;
    else one of the attempt's (an ended proposal whose replacement under a fresh session is being
    written, or was not: `_replaced` decides which)."""
    sessions = {t.record_id: ticket_payload(t).get("session_id") for t in all_tickets}
    found: dict[tuple[str, int], Record] = {}
    for record in all_dispatches:
        payload = dispatch_payload(record)
        key = (payload["ticket_id"], payload["attempt"])
        if key not in found or payload["session_id"] == sessions.get(key[0]):
            found[key] = record
    return found


def _claimed(
    slots: PoolPayload,
    held: list[Record],
    by_attempt: dict[tuple[str, int], Record],
    occupancy: pool.Occupancy,
    skipped: list[str],
) -> list[tuple[Record, Record | None]]:
    """The held tickets the conductor goes on with, and their dispatches: one whose chain has begun
    (its attempt has a dispatch) goes on; one not begun only in a slot of the pool that nothing else
    holds — a ticket a person leased to a slot that is busy, or to no slot of the pool, is left
    alone (else that slot would run two agents, or the pool one more than it has). `slots`: the
    pool as read once for the tick's held tickets."""
    names = set(pool_rules.names(slots))
    out: list[tuple[Record, Record | None]] = []
    taken: dict[str, str] = {}
    begun = [(t, by_attempt.get((t.record_id, ticket_payload(t)["attempt"]))) for t in held]
    for ticket, dispatch in sorted(begun, key=lambda pair: (pair[1] is None, pair[0].record_id)):
        slot = str(ticket_payload(ticket)["worker_id"])
        others = {taken.get(slot, ticket.record_id), *occupancy.running.get(slot, {}).values()}
        if dispatch is None and (slot not in names or others - {ticket.record_id}):
            skipped.append(
                f"{ticket.record_id}: leased to {slot}, which is not "
                f"a free slot of the pool: left alone "
                "(another ticket or agent holds it, or the pool has no such slot)"
            )
            continue
        taken.setdefault(slot, ticket.record_id)
        out.append((ticket, dispatch))
    return out


def _advance(
    d: Delivery,
    ticket: Record,
    dispatch: Record | None,
    done: list[str],
    skipped: list[str],
    checks: Preflight,
    *,
    draining: bool = False,
) -> None:
    """The chain of a ticket the pool holds, from wherever it is: worktree, propose, review, accept,
    deliver — unless its slot is `draining` and its attempt has not launched: it gives its lease
    back (`_give_back`), nothing counted. An advisor's rejection blocks the ticket for a person;
    any other refusal on the way — a launch refused before its pane included — is a failed
    attempt (its dispatch cancelled, its worker ended; retried after a backoff, or quarantined),
    so a step that keeps failing is not asked again every tick — unless a launch check fails
    (asked before the chain goes on, and again after a refusal): a configuration fault, not an
    attempt (ADR 0031); the ticket waits for a person."""
    ws = d.ws
    ticket_id = ticket.record_id
    attempt = ticket_payload(ticket)["attempt"]
    try:
        if dispatch is not None and _ended_unlaunched(dispatch):
            moved = _replaced(d, ticket, dispatch)
            if moved is not None:
                ticket, dispatch = moved
        if draining and _before_launch(d, dispatch):  # a person's wait and a rest's too
            why = conductor_rules.drained(str(ticket_payload(ticket)["worker_id"]))
            _give_back(d, ticket, dispatch, why, done, skipped, status=conductor_rules.DRAINED)
            return
        if dispatch is not None and dispatches.awaits_person(ws, dispatch):  # spends nothing
            _await_person(d, ticket, dispatch, done, skipped)
            return
        if (  # nor does an approved route's wait for its rest: no launch check is asked of it
            dispatch is not None
            and dispatch.state == DispatchState.PROPOSED
            and _approved_rests(d, ticket, dispatch, done, skipped)
        ):
            return
        if _before_launch(d, dispatch):
            waits = checks.reason()
            if waits is not None:
                _give_back(d, ticket, dispatch, waits, done, skipped)
                return
        if dispatch is None:
            doing.step(f"{ticket_id}: its worktree and dispatch")
            worktrees.create(ws, ticket_id)
            dispatch, _ = dispatches.propose(ws, ticket_id)
        if dispatches.awaits_person(ws, dispatch):  # proposed now: its approval is a person's
            _await_person(d, ticket, dispatch, done, skipped)
            return
        if (
            dispatch.state == DispatchState.PROPOSED
            and dispatch_payload(dispatch).get("advisor_verdict") is None
            and dispatch_payload(dispatch).get("approval_evidence") is None  # a person approved
        ):
            doing.step(f"{ticket_id}: the advisor reviews {dispatch.record_id} (a model call)")
            dispatch, _ = dispatches.review(ws, dispatch.record_id)
        if dispatch.state == DispatchState.REJECTED:
            reason = one_line(
                str(dispatch_payload(dispatch).get("reason") or "the dispatch was rejected"), 512
            )
            session_id = text_set(ticket_payload(ticket)["session_id"], "session_id")
            tickets.give_up(ws, ticket, session_id=session_id, attempt=attempt, reason=reason)
            done.append(f"{ticket_id}: blocked ({reason})")
            return
        if dispatch.state == DispatchState.PROPOSED:
            doing.step(f"{ticket_id}: delivering {dispatch.record_id}")
            dispatch, event_id = dispatches.accept(ws, dispatch.record_id)
            if _drains_now(ws, ticket):  # scaled down since the tick began: it launches nothing
                why = conductor_rules.drained(str(ticket_payload(ticket)["worker_id"]))
                _give_back(d, ticket, dispatch, why, done, skipped, status=conductor_rules.DRAINED)
                return
            outcome = access.obj(d.deliver(event_id), "outcome")
            done.append(f"{ticket_id}: {dispatch.record_id} delivered ({outcome.get('status')})")
        refused = _launch_refused(d, dispatch) if dispatch.state == DispatchState.ACCEPTED else None
        if refused is not None:
            why, person = refused
            waits = None if person else checks.reason(again=True)
            dispatch = dispatches.cancel(ws, dispatch.record_id, f"launch refused: {why}")
            status = (
                conductor_rules.PERSON
                if person
                else conductor_rules.CONFIG
                if waits is not None
                else "failed"
            )
            _end_cancelled(d, ticket, dispatch, done, status=status, said=waits)
        elif dispatch.state == DispatchState.CANCELLED:  # a give-back's, when one was cut short
            said = str(dispatch_payload(dispatch).get("reason") or "")
            status = conductor_rules.given_back(said)
            _end_cancelled(d, ticket, dispatch, done, status=status)
    except LockHeldError:
        skipped.append(f"{ticket_id}: another process holds its delivery")
    except WAITS_FOR_PERSON as exc:  # re-made it could not be, broken by hand, a setting planted
        why = one_line(f"{exc.message} ({exc.remedy})" if exc.remedy else exc.message)
        _failed_step(
            ws, ticket_id, dispatch, attempt, why, done, skipped, status=conductor_rules.PERSON
        )
    except NoProviderError as exc:  # every provider rests since the queue was asked: it waits
        why = one_line(exc.message)
        _failed_step(
            ws, ticket_id, dispatch, attempt, why, done, skipped, status=conductor_rules.REST
        )
    except OmsError as exc:  # a check failing now explains it: not the attempt's (ADR 0031)
        waits = checks.reason(again=True)
        why = one_line(exc.message) if waits is None else waits
        status = "failed" if waits is None else conductor_rules.CONFIG
        _failed_step(ws, ticket_id, dispatch, attempt, why, done, skipped, status=status)


def _drains_now(ws: Workspace, ticket: Record) -> bool:
    """Does the slot that holds `ticket` drain, the pool read now? Asked again just before a
    launch: a `oms pool scale` while the chain went on (the advisor's review, the accept) made it
    drain after the tick read the pool, and found no worker of it to park (attack `drainrace`)."""
    slot = str(ticket_payload(ticket)["worker_id"])
    return slot in pool_rules.names(pool.current(ws), "draining")


def _ended_unlaunched(dispatch: Record) -> bool:
    """Did `dispatch` end before it was accepted (cancelled or rejected with no delivery event:
    nothing of it ran), so its attempt may go on under a fresh session?"""
    return (
        dispatch.state in (DispatchState.CANCELLED, DispatchState.REJECTED)
        and dispatch_payload(dispatch)["delivery_event_id"] is None
    )


def _replaced(d: Delivery, ticket: Record, dispatch: Record) -> tuple[Record, Record | None] | None:
    """The ticket and its current session's dispatch when the attempt went on under a fresh
    session after `dispatch` ended unlaunched (a person's `oms dispatch propose --replace`, or a
    proposal after a cancel); None when it did not (the end is the attempt's, as before). Asked
    after the ended dispatch's end lock is free: a replacement holds it from its cancel until its
    new proposal is written (`dispatches.propose`), so its cancel is never taken for the
    attempt's end (`LockHeldError` while it writes: the ticket is skipped this tick). A
    replacement killed after its cancel, before the fresh session (its lock given up with it),
    is finished here as far as the session: the attempt goes on under a fresh session and the
    conductor proposes, as after a kill past the session's write."""
    with end_lock(d.ws, dispatch.record_id):
        now = d.ws.store.records("ticket").read(ticket.record_id)
        session = ticket_payload(now).get("session_id")
        if (
            now.state == TicketState.LEASED
            and session == dispatch_payload(dispatch)["session_id"]
            and dispatches.cancelled_by_replacement(dispatch)
        ):
            now = tickets.new_session(d.ws, now)
            session = ticket_payload(now).get("session_id")
    if now.state != TicketState.LEASED or session == dispatch_payload(dispatch)["session_id"]:
        return None
    return now, tickets.dispatch_of(d.ws, now, ticket_payload(now)["attempt"])


def _await_person(
    d: Delivery, ticket: Record, dispatch: Record, done: list[str], skipped: list[str]
) -> None:
    """A proposed dispatch whose role needs a person's approval: no advisor is asked, nothing is
    accepted; the pool keeps its ticket (its lease renewed once less than half is left, as under
    a running worker) until a person approves (the next tick accepts and delivers it) or rejects
    it (the ticket is blocked), or its wait passes `[pool] approval_wait_minutes` (the conductor
    rejects it, under its end lock, and blocks the ticket: its slot is free, nothing launched).
    Said each tick, naming the commands (`status_reason.awaits_approval`; ADR 0043, amendment
    `hand`; ADR 0008, amendment `waits`); the launch checks are not asked while it waits (they
    are before it is accepted)."""
    ws, payload = d.ws, dispatch_payload(dispatch)
    wait = ws.config().approval_wait_minutes
    if status_reason.past_wait(payload["created_at"], wait, ws.now()):
        reason = status_reason.waited_out(
            dispatch.record_id, ticket.record_id, payload["role_id"], wait
        )
        if dispatches.waited_out(ws, dispatch.record_id, reason) is None:
            return  # a person decided first: the next tick goes on from there
        session_id = text_set(ticket_payload(ticket)["session_id"], "session_id")
        attempt = ticket_payload(ticket)["attempt"]
        tickets.give_up(ws, ticket, session_id=session_id, attempt=attempt, reason=reason)
        done.append(f"{ticket.record_id}: blocked ({reason})")
        return
    _keep_lease(ws, ticket, "it waits for a person", done)
    why = status_reason.awaits_approval(dispatch.record_id, payload["role_id"])
    skipped.append(f"{ticket.record_id}: {why}")


def _keep_lease(ws: Workspace, ticket: Record, why: str, done: list[str]) -> None:
    """Renew the lease of a ticket whose dispatch waits (once less than half of it is left)."""
    expires = ticket_payload(ticket)["lease_expires_at"]
    if conductor_rules.renew_due(expires, ws.config().lease_minutes, ws.now()):
        token = text_set(ticket_payload(ticket)["lease_token"], "lease_token")
        renewed = tickets.renew(ws, ticket.record_id, token)
        done.append(
            f"{ticket.record_id}: lease renewed until "
            f"{ticket_payload(renewed)['lease_expires_at']} ({why})"
        )


def _approved_rests(
    d: Delivery, ticket: Record, dispatch: Record, done: list[str], skipped: list[str]
) -> bool:
    """A dispatch a person approved whose provider was put to rest since its routing waits for
    the rest to end, its approval kept (`dispatches.approved_rest`; ADR 0043, amendment
    `restapproved`): the person approved this route, and a new proposal would ask them again. Its
    lease is kept as under a person's wait, and as that wait it asks no launch check (a fault
    meanwhile cancelled it as a launch's, the approval lost: amendment `cross7`). True: it waits
    (said in `skipped`)."""
    why = dispatches.approved_rest(d.ws, dispatch)
    if why is None:
        return False
    _keep_lease(d.ws, ticket, "its approved dispatch waits for its provider's rest", done)
    skipped.append(f"{ticket.record_id}: {why}")
    return True


def _before_launch(d: Delivery, dispatch: Record | None) -> bool:
    """Is every step to the attempt's launch still to take (no dispatch, one proposed, or one
    accepted whose delivery event has no receipt)? Each of them may spend."""
    if dispatch is None or dispatch.state == DispatchState.PROPOSED:
        return True
    event_id = dispatch_payload(dispatch).get("delivery_event_id")
    if dispatch.state != DispatchState.ACCEPTED or not isinstance(event_id, str):
        return False
    return not d.ws.store.outbox(CONSUMER).has_receipt(event_id)


def _give_back(
    d: Delivery,
    ticket: Record,
    dispatch: Record | None,
    reason: str,
    done: list[str],
    skipped: list[str],
    *,
    status: str = conductor_rules.CONFIG,
) -> None:
    """A held ticket whose attempt has not launched gives its lease back, nothing counted: its
    dispatch (if any) is cancelled with `reason`. `CONFIG`: a launch check fails, and the ticket
    waits for a person's fix (ADR 0031); `DRAINED`: its slot drains, and it waits for the next
    free slot (ADR 0016, amendment `drainfirst`)."""
    if dispatch is not None and dispatch.state in (DispatchState.PROPOSED, DispatchState.ACCEPTED):
        dispatch = dispatches.cancel(d.ws, dispatch.record_id, reason)
    if dispatch is not None and dispatch.state == DispatchState.CANCELLED:
        _end_cancelled(d, ticket, dispatch, done, status=status, said=reason)
        return
    attempt = ticket_payload(ticket)["attempt"]
    _failed_step(d.ws, ticket.record_id, None, attempt, reason, done, skipped, status=status)


def _launch_refused(d: Delivery, dispatch: Record) -> tuple[str, bool] | None:
    """Why the delivery of an accepted dispatch parked its worker before any agent ran (its receipt
    says parked, and there is no session and no pane), and whether only a person can put it right
    (its worktree: `waits_for_person`); None when it was not refused."""
    event_id = dispatch_payload(dispatch).get("delivery_event_id")
    receipt = (
        d.ws.store.outbox(CONSUMER).read_receipt(event_id) if isinstance(event_id, str) else None
    )
    if receipt is None or receipt.result.get("status") != "parked":
        return None
    if d.session(dispatch_payload(dispatch)["session_id"]) is not None or d.panes.observe(
        dispatch.record_id
    ):
        return None
    why = one_line(str(receipt.result.get("reason") or "the launch was refused"), 400)
    return why, receipt.result.get("waits_for_person") is True


def end_drained(d: Delivery, ticket: Record, dispatch: Record, done: list[str]) -> None:
    """An attempt a forced drain held parked until its role's wall-clock limit (`deadlines`):
    its dispatch cancelled as a drain's, its worker ended, its ticket open for the next free
    slot, nothing counted (ADR 0016, amendment `drainclock`)."""
    why = conductor_rules.drained_parked(str(dispatch_payload(dispatch)["worker_id"]))
    cancelled = dispatches.cancel(d.ws, dispatch.record_id, why)
    _end_cancelled(d, ticket, cancelled, done, status=conductor_rules.DRAINED, said=why)


def _end_cancelled(
    d: Delivery,
    ticket: Record,
    dispatch: Record,
    done: list[str],
    *,
    status: str = "failed",
    said: str | None = None,
) -> None:
    """A cancelled attempt of a ticket the pool holds: its delivery event closed, its worker ended
    (nothing of it runs: a cancelled dispatch never launches), its ticket retried or quarantined —
    or, `PERSON`, blocked for a person (its worktree needs one: ADR 0029), or, `CONFIG`, open and
    waiting for a person's fix, `said` (ADR 0031), or, `DRAINED`, open for the next free slot."""
    worker = d.ws.store.records("worker").read_if_exists(dispatch.record_id)
    why = said or one_line(
        str(dispatch_payload(dispatch).get("reason") or "the dispatch was cancelled"), 400
    )
    event_id = dispatch_payload(dispatch).get("delivery_event_id")
    if isinstance(event_id, str) and not d.ws.store.outbox(CONSUMER).has_receipt(event_id):
        d.deliver(event_id)  # closed: recovered (it was launched) or refused (it never was)
    if worker is not None and worker_payload(worker)["health"] != "stopped":
        d.stop(dispatch.record_id, why, by="oms-conductor")
    attempt = dispatch_payload(dispatch)["attempt"]
    line = decide_ticket(d.ws, ticket, dispatch.record_id, attempt, status, why, d.ws.now())
    done.append(f"{ticket.record_id}: {line}")


def _failed_step(
    ws: Workspace,
    ticket_id: str,
    dispatch: Record | None,
    attempt: int,
    why: str,
    done: list[str],
    skipped: list[str],
    *,
    status: str = "failed",
) -> None:
    try:
        if dispatch is not None:
            dispatch = ws.store.records("dispatch").read(dispatch.record_id)
            if (
                dispatch.state
                not in (
                    DispatchState.PROPOSED,
                    DispatchState.ACCEPTED,
                )
                or dispatch_payload(dispatch)["delivery_event_id"]
            ):
                skipped.append(
                    f"{ticket_id}: {why}"
                )  # delivered (or on its way): the worker's end decides
                return
            dispatches.cancel(ws, dispatch.record_id, why)
        ticket = ws.store.records("ticket").read(ticket_id)
        dispatch_id = None if dispatch is None else dispatch.record_id
        line = decide_ticket(ws, ticket, dispatch_id, attempt, status, why, ws.now())
        done.append(f"{ticket_id}: {line}")
    except OmsError as exc:
        skipped.append(f"{ticket_id}: {why}; then: {one_line(exc.message)}")
