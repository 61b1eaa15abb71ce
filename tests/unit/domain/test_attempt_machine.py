"""What an attempt's end does to its ticket (`domain/attempt.decide`), driven over one ticket
through the ticket machine (`domain/tickets`): leases, lapses, and ends arriving in any order,
late ones included. One attempt decides its ticket at most once and only while the ticket is on
it; a configuration fault, a rest, a stop, a block and a completion are never counted as failed
attempts; a failed one always is, and five within the hour quarantine the ticket."""

from __future__ import annotations

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from oms.canonical import add_ms
from oms.domain import attempt, tickets
from oms.domain import conductor as rules
from oms.domain.machine import Next
from oms.schemas.payloads import TicketFailuresItem, TicketPayload
from oms.store.payloads import as_json

T0 = "2026-12-01T00:00:00.000Z"
STATUSES = (
    "completed",
    "failed",
    "blocked",
    "ended",
    "stopped",
    rules.CONFIG,
    rules.REST,
    "worktree",
)


class AttemptMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        nxt = tickets.new(
            title="t",
            source="cli",
            repository=None,
            content_sha256="0" * 64,
            created_at=T0,
            repository_root="/repo",
            added_by="a" * 64,
        )
        self.state, self.payload = nxt.state, nxt.payload
        self.now = T0
        self.attempts: dict[int, str] = {}  # attempt number -> its session
        self.decided: list[str] = []  # the sessions whose end decided
        self.counted = 0
        self.leases = 0

    def _set(self, nxt: Next[TicketPayload]) -> None:
        self.state, self.payload = nxt.state, nxt.payload

    @precondition(lambda self: self.state == "open")
    @rule()
    def lease(self) -> None:
        self.leases += 1
        session = f"ses-{self.leases}"
        self._set(
            tickets.lease(
                self.state,
                self.payload,
                worker_id="worker-1",
                token=f"tok-{self.leases}",
                session_id=session,
                expires_at=add_ms(self.now, 600_000),
                now=self.now,
            )
        )
        self.attempts[int(str(self.payload["attempt"]))] = session

    @rule(minutes=st.integers(1, 30))
    def time_passes(self, minutes: int) -> None:
        self.now = add_ms(self.now, minutes * 60_000)
        if tickets.is_expired(self.state, self.payload, self.now):
            self._set(tickets.expire(self.state, self.payload, now=self.now, evidence_ref="ev"))

    @precondition(lambda self: bool(self.attempts))
    @rule(data=st.data(), status=st.sampled_from(STATUSES))
    def an_end_arrives(self, data: st.DataObject, status: str) -> None:
        number = data.draw(st.sampled_from(sorted(self.attempts)))
        current = (
            self.state == "leased"
            and self.payload.get("attempt") == number
            and self.payload.get("session_id") == self.attempts[number]
        )
        before = self._failures()
        step = attempt.decide(
            "T1",
            self.state,
            as_json(self.payload),
            dispatch_id=f"dsp-{number}",
            attempt=number,
            status=status,
            summary="s",
            now=self.now,
        )
        if not current:
            assert isinstance(step, attempt.MovedOn)  # a late end changes nothing
            return
        assert not isinstance(step, attempt.MovedOn)
        session = self.attempts[number]
        assert session not in self.decided  # one attempt, one end
        self.decided.append(session)
        if isinstance(step, attempt.Complete):
            assert status == "completed"
            nxt = tickets.complete(
                self.state,
                self.payload,
                session_id=session,
                attempt=number,
                reason=step.reason,
            )
        elif isinstance(step, attempt.Wait):
            assert status in (rules.CONFIG, rules.REST)
            nxt = tickets.wait(
                self.state,
                self.payload,
                reason=step.reason,
                session_id=session,
                attempt=number,
            )
            # its worker is ended with it (the conductor's), and the same attempt number is
            # leased again to a new session: no end of this one arrives any more
            del self.attempts[number]
        elif isinstance(step, attempt.Retry):
            assert attempt.counted(status)
            nxt = tickets.retry(
                self.state,
                self.payload,
                session_id=session,
                attempt=number,
                failure=step.failure,
                retry_after=step.retry_after,
            )
        else:
            nxt = tickets.give_up(
                self.state,
                self.payload,
                session_id=session,
                attempt=number,
                reason=step.reason,
                failure=step.failure,
            )
        self._set(nxt)
        after = self._failures()
        if attempt.counted(status):  # a failed attempt is kept among the failures, last
            assert after[-1]["dispatch_id"] == f"dsp-{number}"
        else:
            assert after == before

    def _failures(self) -> list[TicketFailuresItem]:
        return list(self.payload.get("failures", []))

    @invariant()
    def a_fault_is_never_counted(self) -> None:
        for failure in self._failures():
            reason = str(failure["reason"])
            assert attempt.counted(reason.split(":", 1)[0]), reason


AttemptMachine.TestCase.settings = settings(max_examples=300, stateful_step_count=30, deadline=None)
TestAttemptMachine = AttemptMachine.TestCase
