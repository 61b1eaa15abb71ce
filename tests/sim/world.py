"""An in-memory fleet driven by oms's own machines: the pool (`domain/pool.decide`), the ticket
machine (`domain/tickets`), a launch (`domain/launch`), the fence (`domain/fence`), the queue, the
lease renewal and what an attempt's end does to its ticket (`domain/conductor`,
`domain/attempt`). Nothing runs but those rules: tmux, the sandbox, the agent and the store are
a few dicts, and a random stream says what happens between two ticks — a result, a crash, a kill,
a cancel, a lease that lapses, a configuration fault, a launch step that fails — so thousands of
interleavings run in seconds and the chaos soak's questions (nothing done twice, nothing lost) are
asked of every one.

The conductor's tick is the real one's order (`services/conductor/tick.py`): expire, deadlines
(a worker waiting for a person is stopped), renew, resolve, fill (lease and launch).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from oms.canonical import JsonObject, add_ms
from oms.domain import attempt as attempt_rules
from oms.domain import conductor as rules
from oms.domain import fence, pool, tickets
from oms.domain import launch as launch_machine
from oms.schemas.payloads import PoolPayload, TicketPayload
from oms.store.payloads import as_json

T0 = "2026-12-01T00:00:00.000Z"
LEASE_MINUTES = 10
PERSON_MINUTES = 30
RESULTS = ("completed", "failed", "blocked")


@dataclass
class Attempt:
    """One dispatch: its payload (what the fence reads), its state, its worker."""

    dispatch_id: str
    ticket_id: str
    payload: JsonObject
    state: str = "accepted"  # accepted | result-received | resolved | cancelled
    health: str = "idle"  # idle | healthy | parked | stopped
    health_reason: str = ""
    parked_at: str | None = None  # when it was parked (a person's deadline runs from there)
    end_reason: str | None = None
    result: tuple[str, str] | None = None
    config_fault: bool = False
    ends: int = 0  # how many times its end decided its ticket (one attempt, one end)


@dataclass
class Ticket:
    """A ticket record: its state and payload, moved only by `domain/tickets`."""

    ticket_id: str
    state: str
    payload: TicketPayload
    completed: int = 0  # how many attempts completed it (nothing done twice)


@dataclass
class World:
    """The fleet: records, the pool, the clock, and what is seen going wrong."""

    rng: random.Random
    max_workers: int
    now: str = T0
    faults: bool = False  # a launch check fails: a configuration fault (ADR 0031)
    tickets: dict[str, Ticket] = field(default_factory=dict)
    attempts: dict[str, Attempt] = field(default_factory=dict)
    pool_payload: PoolPayload | None = None
    log: list[str] = field(default_factory=list)

    # -- what a person and the world do ------------------------------------------------------
    def add_ticket(self) -> None:
        ticket_id = f"T{len(self.tickets) + 1}"
        nxt = tickets.new(
            title=ticket_id,
            source="cli",
            repository=None,
            content_sha256="0" * 64,
            created_at=self.now,
            repository_root="/repo",
            added_by="a" * 64,
        )
        self.tickets[ticket_id] = Ticket(ticket_id, nxt.state, nxt.payload)
        self.log.append(f"add {ticket_id}")

    def live(self) -> list[Attempt]:
        """Attempts whose agent runs (a worker not stopped, its dispatch not resolved)."""
        return [a for a in self.attempts.values() if a.health in ("healthy", "parked")]

    def verdict(self, a: Attempt) -> fence.Verdict:
        """The fence's verdict on `a`, as the supervisor, the doors and the proxy ask it."""
        ticket = self.tickets[a.ticket_id]
        over = (fence.dispatch_lapse(a.state, None), fence.worker_lapse(a.health))
        fenced = (
            fence.lease_lapse(a.payload, ticket.state, as_json(ticket.payload), self.now),
            fence.parked_by_fence(a.health, a.health_reason),
        )
        return fence.judge(over, fenced, result=a.result is not None)

    def result(self, a: Attempt, status: str) -> None:
        """The agent records its result: the bridge asks the fence first (ADR 0028)."""
        if a.state != "accepted" or not self.verdict(a).live:
            self.log.append(f"result of {a.dispatch_id} refused: not live")
            return
        a.state, a.result = "result-received", (status, f"{status} by the agent")
        a.health, a.end_reason = "stopped", "done"
        self.log.append(f"result {status} {a.dispatch_id}")

    def crash(self, a: Attempt) -> None:
        a.health, a.end_reason = "stopped", self.rng.choice(("exit", "signal", "parent-gone"))
        self.log.append(f"crash {a.dispatch_id} {a.end_reason}")

    def kill(self, a: Attempt) -> None:
        """`oms worker stop`: a person's decision."""
        a.health, a.end_reason = "stopped", "stopped"
        self.log.append(f"kill {a.dispatch_id}")

    def cancel(self, a: Attempt) -> None:
        """`oms dispatch cancel`: the attempt is over; its supervisor ends the agent."""
        if a.state == "accepted":
            a.state = "cancelled"
            a.health, a.end_reason = "stopped", "stopped"
            self.log.append(f"cancel {a.dispatch_id}")

    def scale(self, to: int, force: bool) -> None:
        """`oms pool scale --to N [--force]`: the pool machine under the pool lock; a forced
        scale-down parks the workers of the slots it drains (never kills them)."""
        seen = pool.Seen(self.pool_payload, self.held(), self.max_workers, self.now)
        decision = pool.decide(seen, pool.Scale(to, force))
        self.pool_payload = decision.payload
        for effect in decision.effects:
            if isinstance(effect, pool.Park):
                for a in self.live():
                    if a.payload["worker_id"] == effect.slot and a.health == "healthy":
                        self.park(a, f"pool scaled down: {effect.slot} drains")
                        self.log.append(f"{effect.slot} drains: parked {a.dispatch_id}")
        self.log.append(f"scale to {to} force={force}: {decision.plan}")

    def advance(self, ms: int) -> None:
        self.now = add_ms(self.now, ms)

    def supervise(self) -> None:
        """Each supervisor asks the fence: an attempt over has its agent ended; a fenced one is
        parked for a person (its pane kept)."""
        for a in self.live():
            verdict = self.verdict(a)
            if verdict.standing is fence.Standing.FENCED and a.health != "parked":
                self.park(a, str(verdict.reason))
                self.log.append(f"fenced {a.dispatch_id}")

    def park(self, a: Attempt, reason: str) -> None:
        a.health, a.health_reason, a.parked_at = "parked", reason, self.now

    # -- the conductor's tick ------------------------------------------------------------------
    def tick(self) -> None:
        self.log.append(f"tick {self.now}")
        self.expire()
        self.deadlines()
        self.renew()
        self.resolve()
        self.fill()
        self.supervise()

    def expire(self) -> None:
        for t in self.tickets.values():
            if tickets.is_expired(t.state, t.payload, self.now):
                nxt = tickets.expire(t.state, t.payload, now=self.now, evidence_ref="ev-lapse")
                t.state, t.payload = nxt.state, nxt.payload
                self.log.append(f"expire {t.ticket_id}")

    def deadlines(self) -> None:
        """A worker that waits for a person past its deadline (`PERSON_MINUTES`) is stopped: until
        then it holds its slot, and its ticket may have moved on to a next attempt meanwhile."""
        for a in self.live():
            if a.parked_at is not None and rules.past_deadline(
                a.parked_at, PERSON_MINUTES, self.now
            ):
                a.health, a.end_reason = "stopped", "stopped"
                self.log.append(f"deadline stops {a.dispatch_id}")

    def renew(self) -> None:
        for a in self.live():
            t = self.tickets[a.ticket_id]
            if fence.lease_lapse(a.payload, t.state, as_json(t.payload), self.now) is not None:
                continue
            expires = t.payload.get("lease_expires_at")
            if rules.renew_due(
                expires if isinstance(expires, str) else None, LEASE_MINUTES, self.now
            ):
                nxt = tickets.renew(
                    t.state,
                    t.payload,
                    token=str(t.payload["lease_token"]),
                    expires_at=add_ms(self.now, LEASE_MINUTES * 60_000),
                    now=self.now,
                )
                t.state, t.payload = nxt.state, nxt.payload

    def ended(self, a: Attempt) -> tuple[str, str] | None:
        """`resolve.ended_attempt`, over the sim's records."""
        if a.state == "result-received":
            return a.result
        if a.state != "accepted" or a.health != "stopped":
            return None
        if a.config_fault:
            return rules.CONFIG, "bubblewrap: not usable (fix: install it)"
        return attempt_rules.ended_status(a.end_reason, "", parked_no_result=False)

    def resolve(self) -> None:
        for a in list(self.attempts.values()):
            end = self.ended(a)
            if end is None:
                continue
            status, summary = end
            t = self.tickets[a.ticket_id]
            step = attempt_rules.decide(
                t.ticket_id,
                t.state,
                as_json(t.payload),
                dispatch_id=a.dispatch_id,
                attempt=int(str(a.payload["attempt"])),
                status=status,
                summary=summary,
                now=self.now,
            )
            a.ends += 1
            self._perform(t, a, step)
            a.state = "resolved" if a.state == "result-received" else "cancelled"
            self.log.append(f"resolve {a.dispatch_id} {status}: {type(step).__name__}")

    def _perform(self, t: Ticket, a: Attempt, step: attempt_rules.Step) -> None:
        if isinstance(step, attempt_rules.MovedOn):
            return
        session = str(t.payload["session_id"])
        attempt = int(str(a.payload["attempt"]))
        if isinstance(step, attempt_rules.Complete):
            nxt = tickets.complete(
                t.state, t.payload, session_id=session, attempt=attempt, reason=step.reason
            )
            t.completed += 1
        elif isinstance(step, attempt_rules.Wait):
            nxt = tickets.wait(
                t.state, t.payload, reason=step.reason, session_id=session, attempt=attempt
            )
        elif isinstance(step, attempt_rules.Retry):
            nxt = tickets.retry(
                t.state,
                t.payload,
                session_id=session,
                attempt=attempt,
                failure=step.failure,
                retry_after=step.retry_after,
            )
        else:
            nxt = tickets.give_up(
                t.state,
                t.payload,
                session_id=session,
                attempt=attempt,
                reason=step.reason,
                failure=step.failure,
            )
        t.state, t.payload = nxt.state, nxt.payload

    def held(self) -> dict[str, str]:
        """`conductor/pool.Occupancy`: slot -> ticket, leased to it or whose worker runs there."""
        held = {
            str(t.payload["worker_id"]): t.ticket_id
            for t in self.tickets.values()
            if t.state == "leased"
        }
        for a in self.attempts.values():
            if a.health != "stopped":
                held.setdefault(str(a.payload["worker_id"]), a.ticket_id)
        return held

    def fill(self) -> None:
        queued = rules.queue(
            (
                rules.Queued(
                    t.ticket_id,
                    t.state,
                    None,
                    t.payload["created_at"],
                    t.payload.get("retry_after"),
                )
                for t in self.tickets.values()
            ),
            self.now,
        )
        seen = pool.Seen(self.pool_payload, self.held(), self.max_workers, self.now)
        decision = pool.decide(seen, pool.Fill(tuple(queued)))
        self.pool_payload = decision.payload
        for effect in decision.effects:
            if isinstance(effect, pool.Lease):
                for ticket_id, slot in zip(effect.queue, effect.slots, strict=False):
                    self.lease_and_launch(self.tickets[ticket_id], slot)

    def lease_and_launch(self, t: Ticket, slot: str) -> None:
        n = sum(1 for a in self.attempts.values() if a.ticket_id == t.ticket_id)
        nxt = tickets.lease(
            t.state,
            t.payload,
            worker_id=slot,
            token=f"tok-{t.ticket_id}-{n}",
            session_id=f"ses-{t.ticket_id}-{n}",
            expires_at=add_ms(self.now, LEASE_MINUTES * 60_000),
            now=self.now,
        )
        t.state, t.payload = nxt.state, nxt.payload
        a = Attempt(
            f"dsp-{t.ticket_id}-{n}",
            t.ticket_id,
            {
                "attempt": t.payload["attempt"],
                "lease_token": t.payload["lease_token"],
                "session_id": t.payload["session_id"],
                "worker_id": slot,
            },
        )
        self.attempts[a.dispatch_id] = a
        self.log.append(f"lease {t.ticket_id} to {slot}: {a.dispatch_id}")
        self.launch(a)

    def launch(self, a: Attempt) -> None:
        """The launch machine, each step's outcome drawn (a configuration fault fails the
        authority or prepare step)."""
        state, effects = launch_machine.start(a.dispatch_id, a.state)
        while True:
            for effect in effects:
                if isinstance(effect, launch_machine.Run):
                    event = self._outcome(a, effect.step)
                elif self._launched(a, effect):
                    return
            state, effects = launch_machine.decide(state, event)

    def _outcome(self, a: Attempt, step: launch_machine.Step) -> launch_machine.Event:
        S = launch_machine.Step  # noqa: N806 — the machine's steps, as the tests name them
        fails = self.rng.random() < 0.03
        if step is S.RESERVATION:
            return launch_machine.Reservation("idle", a.health if a.health != "idle" else "healthy")
        if step in (S.AUTHORITY, S.PREPARE) and self.faults:
            a.config_fault = True
            return launch_machine.Failed(step, "bubblewrap: not usable")
        if step is S.PANE and not fails:
            return launch_machine.PaneStarted("created")
        if step is S.STOP_CHECK:
            return launch_machine.StopSeen(None)
        if step is S.ACTIVATE and fails:
            return launch_machine.ActivationFailed("not taken", None)
        if step is S.FENCE:
            t = self.tickets[a.ticket_id]
            lapse = fence.lease_lapse(a.payload, t.state, as_json(t.payload), self.now)
            return launch_machine.FenceSeen(None if lapse is None else fence.reason((lapse,)))
        if fails and step in launch_machine.DECIDES_FAILURE:
            return launch_machine.Failed(step, "refused")
        return launch_machine.Done(step, prompted=step is S.PREPARE)

    def _launched(self, a: Attempt, effect: launch_machine.Effect) -> bool:
        if isinstance(effect, launch_machine.Launched):
            a.health = "healthy"
        elif isinstance(effect, launch_machine.Park):
            self.park(a, effect.reason or "launch refused")
            if a.config_fault:  # the conductor ends it at once: the ticket waits (ADR 0031)
                a.health, a.end_reason = "stopped", "stopped"
        elif isinstance(effect, launch_machine.EndAttempt):
            a.health, a.end_reason = "stopped", "exit"
        elif isinstance(effect, launch_machine.FenceParked):
            self.park(a, effect.reason)
        else:
            assert not isinstance(effect, launch_machine.Refuse), f"an idle one refused: {effect}"
            return False  # EndPane, StopPane: nothing in memory to end
        self.log.append(f"launch {a.dispatch_id}: {type(effect).__name__}")
        return True

    # -- what must hold --------------------------------------------------------------------------
    def check(self) -> None:
        """Every invariant, after every step."""
        live_per_ticket: dict[str, list[str]] = {}
        for a in self.attempts.values():
            assert a.ends <= 1, f"{a.dispatch_id} ended {a.ends} times"
            if a.health == "stopped":
                continue  # its agent has ended: it acts no more
            live = self.verdict(a).live
            if live:
                live_per_ticket.setdefault(a.ticket_id, []).append(a.dispatch_id)
            t = self.tickets[a.ticket_id]
            if fence.lease_lapse(a.payload, t.state, as_json(t.payload), self.now) is not None:
                assert not live, f"{a.dispatch_id}'s lease lapsed, not fenced"
        for ticket_id, both in live_per_ticket.items():
            assert len(both) <= 1, f"{ticket_id} has two live attempts: {both}"
        for t in self.tickets.values():
            assert t.completed <= 1, f"{t.ticket_id} done {t.completed} times"
            for f in t.payload.get("failures", []):
                reason = f["reason"]
                assert not reason.startswith(rules.CONFIG), f"{t.ticket_id} counted a fault"
        held = self.held()
        assert len(held) <= self.max_workers, f"the pool runs {len(held)}: {held}"
        if self.pool_payload is not None:
            slots = pool.names(self.pool_payload)
            assert len(slots) <= self.max_workers, f"the pool has {slots}"
            assert set(held) <= set(slots), f"work held outside the pool: {held} {slots}"

    def settled(self) -> bool:
        """Nothing is lost: every ticket done or blocked (a person's), none open or leased."""
        return all(t.state in ("done", "blocked") for t in self.tickets.values())

    def pending(self) -> list[str]:
        return [
            f"{t.ticket_id} {t.state}"
            for t in self.tickets.values()
            if t.state not in ("done", "blocked")
        ]
