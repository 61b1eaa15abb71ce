"""The ticket state machine: stateful property test plus the table of every illegal transition."""

from __future__ import annotations

from typing import Any, Literal

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from oms.canonical import access, add_ms
from oms.domain import tickets as t
from oms.domain.machine import Next
from oms.errors import IllegalTransitionError, InvalidInputError, LeaseError
from oms.schemas import validate
from oms.schemas.payloads import TicketFailuresItem, TicketPayload
from oms.store.payloads import as_json
from tests.helpers import SESSION, T0

TOKEN, OTHER = "a" * 64, "b" * 64
EVIDENCE = "e" * 64
OTHER_SESSION = "1" * 8 + SESSION[8:]


def fresh() -> Next[TicketPayload]:
    return t.new(
        title="x",
        source="local",
        repository=None,
        content_sha256="c" * 64,
        created_at=T0,
        repository_root="/r",
        added_by="a" * 64,
    )


class TicketMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        nxt = fresh()
        self.state, self.payload = nxt.state, nxt.payload
        self.clock = 0
        self.attempts = 1

    def now(self) -> str:
        return add_ms(T0, self.clock)

    def _apply(self, fn: object, *args: object, **kwargs: object) -> None:
        before = (self.state, dict(self.payload))
        try:
            nxt = fn(self.state, self.payload, *args, **kwargs)  # type: ignore[operator]
        except (IllegalTransitionError, LeaseError, InvalidInputError):
            assert (self.state, self.payload) == before  # a refusal changes nothing
            return
        self.state, self.payload = nxt.state, nxt.payload

    @rule(ms=st.integers(1, 120_000))
    def tick(self, ms: int) -> None:
        self.clock += ms

    @rule(minutes=st.integers(1, 3))
    def lease(self, minutes: int) -> None:
        self._apply(
            t.lease,
            worker_id="w1",
            token=TOKEN,
            session_id=SESSION,
            expires_at=add_ms(self.now(), minutes * 60_000),
            now=self.now(),
            host="host-a",
        )

    @rule(token=st.sampled_from([TOKEN, OTHER]))
    def renew(self, token: str) -> None:
        self._apply(t.renew, token=token, expires_at=add_ms(self.now(), 180_000), now=self.now())

    @rule()
    def expire(self) -> None:
        was_open_attempt = access.integer(as_json(self.payload), "attempt")
        self._apply(t.expire, now=self.now(), evidence_ref=EVIDENCE)
        if self.state == "open" and self.payload["prior_failure_evidence"] == EVIDENCE:
            assert self.payload["attempt"] in (was_open_attempt, was_open_attempt + 1)

    @rule(outcome=st.sampled_from(["done", "blocked"]), token=st.sampled_from([TOKEN, OTHER]))
    def finish(self, outcome: str, token: str) -> None:
        self._apply(t.finish, outcome=outcome, token=token, now=self.now(), reason=None)

    @rule()
    def block(self) -> None:
        self._apply(t.block, reason="gave up")

    @rule(session=st.sampled_from([SESSION, OTHER_SESSION]))
    def wait(self, session: str) -> None:
        """A configuration fault (ADR 0031): the attempt is not counted, its lease given back."""
        attempt = access.integer(as_json(self.payload), "attempt")
        failures = self.payload.get("failures")
        self._apply(t.wait, reason="needs a person: x", session_id=session, attempt=attempt)
        assert self.payload["attempt"] == attempt
        assert self.payload.get("failures") == failures

    @rule()
    def reopen(self) -> None:
        was = (self.state, access.integer(as_json(self.payload), "attempt"))
        self._apply(t.reopen, reason="reopened by a person: x")
        if was[0] == "blocked":
            now = (self.state, self.payload["attempt"], self.payload["failures"])
            assert now == ("open", was[1] + 1, [])

    @rule()
    def retry_now(self) -> None:
        self._apply(t.retry_now, reason="reopened by a person: now")

    @rule(fresh=st.sampled_from([SESSION, OTHER_SESSION]))
    def new_session(self, fresh: str) -> None:
        attempt = access.integer(as_json(self.payload), "attempt")
        self._apply(t.new_session, session_id=SESSION, attempt=attempt, fresh=fresh, now=self.now())

    @invariant()
    def legal(self) -> None:
        assert self.state in {s.value for s in t.TicketState}
        validate(
            "ticket",
            {
                "format": "oms-record-v1",
                "kind": "ticket",
                "record_id": "t1",
                "version": 0,
                "state": self.state,
                "expected_version": None,
                "operation_id": "o",
                "actor": "oms-system",
                "observed_at": T0,
                "previous_sha256": None,
                "payload": self.payload,
            },
            where="model",
        )
        leased = self.state == "leased"
        assert (self.payload["lease_token"] is not None) == leased
        assert (self.payload["worker_id"] is not None) == (
            leased or (self.state in ("done", "blocked") and self.payload["worker_id"] is not None)
        )
        assert access.integer(as_json(self.payload), "attempt") >= 1
        # the leasing host (ADR 0043 amendment `leasehost`): while leased, and never on a ticket
        # given back to the queue (another host's conductor may lease it next)
        host = self.payload.get("lease_host")
        assert host == "host-a" if leased else host in (None, "host-a")
        if self.state == "open":
            assert host is None


TestTicketMachine = TicketMachine.TestCase
TestTicketMachine.settings = settings(max_examples=150, stateful_step_count=40, deadline=None)


LEASED = t.lease(
    "open",
    fresh().payload,
    worker_id="w1",
    token=TOKEN,
    session_id=SESSION,
    expires_at=add_ms(T0, 60_000),
    now=T0,
)


@pytest.mark.parametrize(
    ("state", "call"),
    [
        (
            "leased",
            lambda s, p: t.lease(
                s,
                p,
                worker_id="w",
                token=TOKEN,
                session_id=SESSION,
                expires_at=add_ms(T0, 1),
                now=T0,
            ),
        ),
        ("open", lambda s, p: t.renew(s, p, token=TOKEN, expires_at=add_ms(T0, 1), now=T0)),
        ("open", lambda s, p: t.expire(s, p, now=T0, evidence_ref=EVIDENCE)),
        ("open", lambda s, p: t.finish(s, p, outcome="done", token=TOKEN, now=T0, reason=None)),
        ("leased", lambda s, p: t.block(s, p, reason="r")),
        ("done", lambda s, p: t.block(s, p, reason="r")),
        (
            "blocked",
            lambda s, p: t.lease(
                s,
                p,
                worker_id="w",
                token=TOKEN,
                session_id=SESSION,
                expires_at=add_ms(T0, 1),
                now=T0,
            ),
        ),
        ("done", lambda s, p: t.expire(s, p, now=T0, evidence_ref=EVIDENCE)),
    ],
)
def test_illegal_transitions_raise_their_named_error(state: str, call: object) -> None:
    with pytest.raises(IllegalTransitionError, match=f"ticket cannot .* from state {state}"):
        call(state, LEASED.payload)  # type: ignore[operator]


def test_wrong_or_expired_token_is_a_lease_error() -> None:
    with pytest.raises(LeaseError, match="token"):
        t.renew(
            LEASED.state,
            LEASED.payload,
            token=OTHER,
            expires_at=add_ms(T0, 120_000),
            now=T0,
        )
    with pytest.raises(LeaseError, match="expired"):
        t.finish(
            LEASED.state,
            LEASED.payload,
            outcome="done",
            token=TOKEN,
            now=add_ms(T0, 60_000),
            reason=None,
        )
    with pytest.raises(LeaseError, match="has not expired"):
        t.expire(LEASED.state, LEASED.payload, now=add_ms(T0, 59_999), evidence_ref=EVIDENCE)
    reopened = t.expire(LEASED.state, LEASED.payload, now=add_ms(T0, 60_000), evidence_ref=EVIDENCE)
    assert (reopened.state, reopened.payload["attempt"], reopened.payload["lease_token"]) == (
        "open",
        2,
        None,
    )


def test_lease_binding_checks_every_field() -> None:
    p = LEASED.payload
    t.check_lease("leased", p, token=TOKEN, now=T0, worker_id="w1", session_id=SESSION, attempt=1)
    bad: list[dict[str, Any]] = [
        {"worker_id": "w2"},
        {"session_id": "1" * 8 + SESSION[8:]},
        {"attempt": 2},
    ]
    for kwargs in bad:
        with pytest.raises(LeaseError):
            t.check_lease("leased", p, token=TOKEN, now=T0, **kwargs)


def test_a_configuration_fault_gives_the_lease_back_and_counts_nothing() -> None:
    failed: TicketFailuresItem = {"attempt": 1, "dispatch_id": None, "failed_at": T0, "reason": "r"}
    leased: TicketPayload = {**LEASED.payload, "failures": [failed], "retry_after": T0}
    nxt = t.wait("leased", leased, reason="needs a person: login", session_id=SESSION, attempt=1)
    assert (nxt.state, nxt.payload["attempt"], nxt.payload["failures"]) == ("open", 1, [failed])
    lease: tuple[Literal["lease_token", "session_id", "worker_id"], ...] = (
        "lease_token",
        "session_id",
        "worker_id",
    )
    assert [nxt.payload[k] for k in lease] == [None, None, None]
    with pytest.raises(LeaseError):  # only the attempt it names
        t.wait("leased", leased, reason="r", session_id=OTHER_SESSION, attempt=1)
    with pytest.raises(IllegalTransitionError):
        t.wait("blocked", leased, reason="r", session_id=SESSION, attempt=1)


def test_reopen_is_for_a_blocked_ticket_and_counts_afresh() -> None:
    failed: TicketFailuresItem = {"attempt": 1, "dispatch_id": None, "failed_at": T0, "reason": "r"}
    blocked: TicketPayload = {**LEASED.payload, "lease_token": None, "failures": [failed] * 5}
    blocked["retry_after"] = T0
    nxt = t.reopen("blocked", blocked, reason="reopened by ann: fixed")
    assert (nxt.state, nxt.payload["attempt"], nxt.payload["failures"]) == ("open", 2, [])
    assert (nxt.payload["retry_after"], nxt.payload["worker_id"]) == (None, None)
    for state in ("open", "leased", "done"):
        with pytest.raises(IllegalTransitionError):
            t.reopen(state, blocked, reason="r")
    assert t.retry_now("open", blocked, reason="now").payload["retry_after"] is None


def test_the_leasing_host_goes_with_the_lease() -> None:
    """ADR 0043 amendment `leasehost`: a lease names the host that leased it, and every way the
    lease is given back (an expiry, a failed attempt's retry, a wait for a person) forgets it."""
    leased = t.lease(
        "open",
        fresh().payload,
        worker_id="w1",
        token=TOKEN,
        session_id=SESSION,
        expires_at=add_ms(T0, 60_000),
        now=T0,
        host="host-a",
    )
    assert leased.payload.get("lease_host") == "host-a"
    after = add_ms(T0, 60_000)
    back = [
        t.expire(leased.state, leased.payload, now=after, evidence_ref=EVIDENCE),
        t.retry(
            leased.state,
            leased.payload,
            session_id=SESSION,
            attempt=1,
            failure={"attempt": 1, "dispatch_id": None, "failed_at": T0, "reason": "r"},
            retry_after=after,
        ),
        t.wait(
            leased.state, leased.payload, reason="needs a person: x", session_id=SESSION, attempt=1
        ),
    ]
    assert [(n.state, n.payload.get("lease_host")) for n in back] == [("open", None)] * 3
