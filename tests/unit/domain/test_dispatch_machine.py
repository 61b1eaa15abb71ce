"""The dispatch state machine and the intent digest."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from oms.domain import dispatches as d
from oms.domain.machine import Next, step
from oms.errors import IllegalTransitionError
from oms.schemas.payloads import DispatchPayload
from oms.store.payloads import as_json
from tests.helpers import T0, payload

EVENTS = (
    "review",
    "review-reject",
    "accept",
    "reject",
    "acknowledge",
    "record-result",
    "resolve",
    "cancel",
)


def proposed() -> Next[DispatchPayload]:
    fields = {
        k: v
        for k, v in payload("dispatch").items()
        if k in (*d.INTENT_FIELDS, "lease_token", "ticket_version")
    }
    return d.propose(fields, dispatch_id="dsp-1", created_at=T0)


class DispatchMachine(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        nxt = proposed()
        self.state, self.payload = nxt.state, nxt.payload
        self.seen = [self.state]

    @rule(event=st.sampled_from(EVENTS))
    def fire(self, event: str) -> None:
        allowed = self.state in d.TABLE[event]
        try:
            target = step("dispatch", d.TABLE, self.state, event)
        except IllegalTransitionError:
            assert not allowed
            return
        assert allowed
        self.state = target
        self.seen.append(target)

    @invariant()
    def legal(self) -> None:
        assert self.state in {s.value for s in d.DispatchState}
        for terminal in d.TERMINAL:  # nothing ever leaves a terminal state
            if terminal in self.seen:
                assert self.seen[self.seen.index(terminal) :] == [terminal] * (
                    len(self.seen) - self.seen.index(terminal)
                )
        if "accepted" in self.seen:  # accepting requires having been proposed first
            assert self.seen[0] == "proposed"


TestDispatchMachine = DispatchMachine.TestCase
TestDispatchMachine.settings = settings(max_examples=200, stateful_step_count=20, deadline=None)


def test_intent_digest_is_recomputable() -> None:
    nxt = proposed()
    assert nxt.payload["dispatch_intent_sha256"] == d.intent_digest(
        d.capture_intent("dsp-1", as_json(nxt.payload))
    )


@given(
    st.sampled_from(d.INTENT_FIELDS + ("lease_token",)), st.sampled_from(["x", 7, "f" * 64, None])
)
@settings(max_examples=200)
def test_changing_any_intent_field_changes_the_digest(field: str, value: object) -> None:
    nxt = proposed()
    changed: dict[str, object] = dict(as_json(nxt.payload))
    if changed[field] == value:
        return
    changed[field] = value
    assert (
        d.intent_digest(d.capture_intent("dsp-1", changed))  # type: ignore[arg-type]
        != nxt.payload["dispatch_intent_sha256"]
    )
    assert (
        d.intent_digest(d.capture_intent("dsp-2", as_json(nxt.payload)))
        != nxt.payload["dispatch_intent_sha256"]
    )


def test_intent_never_carries_the_lease_token() -> None:
    intent = d.capture_intent("dsp-1", as_json(proposed().payload))
    assert "lease_token" not in intent
    assert str(proposed().payload["lease_token"]) not in str(intent)


def test_reject_verdict_rejects_and_bounds_the_reason() -> None:
    nxt = d.record_review(
        "proposed",
        as_json(proposed().payload),
        evidence_ref="e" * 64,
        verdict="reject",
        rationale="no\nway " * 200,
    )
    assert nxt.state == "rejected"
    reason = str(nxt.payload["reason"])
    assert len(reason) <= 512
    assert "\n" not in reason
    with pytest.raises(IllegalTransitionError):
        d.accept(nxt.state, as_json(nxt.payload), delivery_event_id="evt-1", accepted_at=T0)
