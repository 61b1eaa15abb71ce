"""The ticket state machine. Pure: takes a state, a payload and `now`; returns `Next`.

States and events:
- `open --lease--> leased`: binds a worker, a fresh lease token, a session id (a UUID) and an
  expiry.
- `leased --renew--> leased`: same token, lease not expired yet, later expiry.
- `leased --expire--> open`: only once the expiry has passed; `attempt` + 1, the lease is cleared
  and the `lease-expiry` evidence is referenced as `prior_failure_evidence`.
- `leased --finish(done|blocked)--> done | blocked`: with the lease token, before expiry.
- `open --block--> blocked`: a person gives up on a ticket nobody holds.
- `leased --retry--> open` (the conductor, after a failed attempt of the attempt it names):
  `attempt` + 1, the lease cleared, the failure appended to `failures` (the last 10), not before
  `retry_after`; an earlier expiry's `prior_failure_evidence` is cleared (it names the attempt
  before this one: the next attempt starts from the worktree's HEAD, as after any failure).
- `leased --give-up--> blocked` (the conductor: a result that needs a person, or a quarantine).
- `leased --complete--> done` (the conductor: the attempt recorded a completed result).
- `leased --new-session--> leased` (a dispatch of this attempt ended before it was accepted: a new
  proposal needs a dispatch id of its own): a fresh session id, same attempt, token and expiry.
- `open|leased --wait--> open` (the conductor, ADR 0031: what a launch needs is missing, a
  configuration fault, not an attempt): the reason says what a person must fix; a leased ticket
  whose attempt had not launched gives its lease back — same attempt, no failure, no backoff.
- `blocked --reopen--> open` (a person, ADR 0031): the next attempt, now; its failures are cleared
  (they are in the ledger), so a quarantine counts afresh; `open --retry-now--> open`: the
  backoff a person does not want to wait for is cleared.
- `done --request-changes--> open` (a person, ADR 0039): the done attempt's result is not merged and
  its reviewer wants changes: the next attempt, now, carrying `changes_requested` (the comments and
  what the result was), which its dispatch's intent copies. Otherwise `done` is terminal; `blocked`
  waits for a person (`reopen`).
"""

from __future__ import annotations

from oms.canonical import JsonObject, equal, parse_ts
from oms.domain.machine import Next, step, ticket_with, with_fields
from oms.errors import IntegrityError, InvalidInputError, LeaseError
from oms.limits import LIMITS
from oms.schemas.payloads import TicketPayload
from oms.schemas.payloads import TicketState as TicketState  # noqa: PLC0414 (re-exported)

TABLE: dict[str, dict[str, str]] = {
    "lease": {"open": "leased"},
    "renew": {"leased": "leased"},
    "expire": {"leased": "open"},
    "finish-done": {"leased": "done"},
    "finish-blocked": {"leased": "blocked"},
    "block": {"open": "blocked"},
    "retry": {"leased": "open"},
    "complete": {"leased": "done"},
    "give-up": {"leased": "blocked"},
    "new-session": {"leased": "leased"},
    "wait": {"open": "open", "leased": "open"},
    "reopen": {"blocked": "open"},
    "retry-now": {"open": "open"},
    "request-changes": {"done": "open"},
}


def new(
    *,
    title: str,
    source: str,
    repository: str | None,
    content_sha256: str,
    created_at: str,
    repository_root: str,
    added_by: str,
) -> Next[TicketPayload]:
    """A fresh, open ticket of the repository whose top level is `repository_root` (ADR 0032; no
    transition changes it), added by the state key whose key id is `added_by` (ADR 0043 amendment
    `repoparts`)."""
    return Next(
        TicketState.OPEN,
        ticket_with(
            {
                "title": title,
                "source": source,
                "repository": repository,
                "repository_root": repository_root,
                "added_by": added_by,
                "content_sha256": content_sha256,
                "attempt": 1,
                "lease_token": None,
                "worker_id": None,
                "session_id": None,
                "lease_expires_at": None,
                "created_at": created_at,
                "reason": None,
                "prior_failure_evidence": None,
            }
        ),
    )


def lease(
    state: str,
    payload: TicketPayload,
    *,
    worker_id: str,
    token: str,
    session_id: str,
    expires_at: str,
    now: str,
    host: str | None = None,
) -> Next[TicketPayload]:
    """Lease an open ticket to `worker_id`; `host`: the host that leased it (its pool ticket's
    chain is that host's until its worker names a host: ADR 0043 amendment `leasehost`)."""
    target = step("ticket", TABLE, state, "lease")
    if parse_ts(expires_at) <= parse_ts(now):
        raise InvalidInputError(f"lease expiry {expires_at} is not after now ({now})")
    return Next(
        target,
        ticket_with(
            payload,
            worker_id=worker_id,
            lease_host=host,
            lease_token=token,
            session_id=session_id,
            lease_expires_at=expires_at,
            reason=None,
        ),
    )


def check_lease(
    state: str,
    payload: TicketPayload,
    *,
    token: str,
    now: str,
    worker_id: str | None = None,
    session_id: str | None = None,
    attempt: int | None = None,
) -> None:
    """Raise `LeaseError` unless the ticket is leased with exactly this token (and worker, session,
    attempt) and the lease has not expired at `now`."""
    if state != TicketState.LEASED:
        raise LeaseError(f"ticket is {state}, not leased")
    held = payload["lease_token"]
    if held is None or not equal(held, token):
        raise LeaseError("lease token does not match the ticket's lease")
    if worker_id is not None and payload.get("worker_id") != worker_id:
        raise LeaseError(f"ticket is leased to {payload.get('worker_id')} (expected {worker_id})")
    if session_id is not None and payload.get("session_id") != session_id:
        raise LeaseError("ticket lease is bound to another session")
    if attempt is not None and payload.get("attempt") != attempt:
        raise LeaseError(f"ticket is on attempt {payload.get('attempt')} (expected {attempt})")
    expires = payload["lease_expires_at"]
    if expires is None or parse_ts(expires) <= parse_ts(now):
        raise LeaseError(f"lease expired at {expires}")


def renew(
    state: str, payload: TicketPayload, *, token: str, expires_at: str, now: str
) -> Next[TicketPayload]:
    """Extend a live lease."""
    target = step("ticket", TABLE, state, "renew")
    check_lease(state, payload, token=token, now=now)
    current = payload["lease_expires_at"]  # (set: `check_lease` refuses a lease without one)
    if current is not None and parse_ts(expires_at) <= parse_ts(current):
        raise InvalidInputError(
            f"new expiry {expires_at} is not later than {payload['lease_expires_at']}"
        )
    return Next(target, ticket_with(payload, lease_expires_at=expires_at))


def is_expired(state: str, payload: TicketPayload, now: str) -> bool:
    """True for a leased ticket whose lease has run out at `now`."""
    expires = payload.get("lease_expires_at")
    return (
        state == TicketState.LEASED
        and isinstance(expires, str)
        and parse_ts(expires) <= parse_ts(now)
    )


def expire(
    state: str, payload: TicketPayload, *, now: str, evidence_ref: str
) -> Next[TicketPayload]:
    """Return an expired lease's ticket to `open` for its next attempt."""
    target = step("ticket", TABLE, state, "expire")
    if not is_expired(state, payload, now):
        raise LeaseError(
            f"lease runs until {payload.get('lease_expires_at')}; it has not expired at {now}"
        )
    return Next(
        target,
        ticket_with(
            payload,
            attempt=payload["attempt"] + 1,
            lease_token=None,
            worker_id=None,
            lease_host=None,
            session_id=None,
            lease_expires_at=None,
            reason="lease expired",
            prior_failure_evidence=evidence_ref,
        ),
    )


def finish(
    state: str, payload: TicketPayload, *, outcome: str, token: str, now: str, reason: str | None
) -> Next[TicketPayload]:
    """The lease holder ends the ticket: `done` or `blocked`."""
    if outcome not in ("done", "blocked"):
        raise InvalidInputError(f"outcome must be done or blocked (got {outcome!r})")
    target = step("ticket", TABLE, state, f"finish-{outcome}")
    check_lease(state, payload, token=token, now=now)
    return Next(target, ticket_with(payload, lease_token=None, reason=reason))


def block(state: str, payload: TicketPayload, *, reason: str) -> Next[TicketPayload]:
    """A person blocks an open ticket."""
    return Next(step("ticket", TABLE, state, "block"), ticket_with(payload, reason=reason))


def _check_attempt(payload: TicketPayload, session_id: str, attempt: int) -> None:
    if payload.get("session_id") != session_id or payload.get("attempt") != attempt:
        raise LeaseError(
            f"ticket is on attempt {payload.get('attempt')} of "
            f"another session; this one has moved on"
        )


def retry(
    state: str,
    payload: TicketPayload,
    *,
    session_id: str,
    attempt: int,
    failure: JsonObject,
    retry_after: str,
) -> Next[TicketPayload]:
    """After a failed attempt (the one bound to `session_id`), the ticket is open again for the next
    one, not before `retry_after`; `failure` ({attempt, dispatch_id, failed_at, reason}) is kept."""
    target = step("ticket", TABLE, state, "retry")
    _check_attempt(payload, session_id, attempt)
    failures = _kept(payload, failure)
    return Next(
        target,
        ticket_with(
            with_fields(payload, reason=failure["reason"], failures=failures),
            attempt=attempt + 1,
            lease_token=None,
            worker_id=None,
            lease_host=None,
            session_id=None,
            lease_expires_at=None,
            retry_after=retry_after,
            # an expired lease's evidence is about the attempt before: spent
            prior_failure_evidence=None,
        ),
    )


def give_up(
    state: str,
    payload: TicketPayload,
    *,
    session_id: str,
    attempt: int,
    reason: str,
    failure: JsonObject | None = None,
) -> Next[TicketPayload]:
    """The attempt bound to `session_id` ends the ticket `blocked` for a person, with `reason` (and
    the attempt's `failure` kept, for a quarantine)."""
    target = step("ticket", TABLE, state, "give-up")
    _check_attempt(payload, session_id, attempt)
    if failure is None:
        return Next(target, ticket_with(payload, lease_token=None, reason=reason))
    return Next(
        target,
        ticket_with(
            with_fields(payload, failures=_kept(payload, failure)), lease_token=None, reason=reason
        ),
    )


def _kept(payload: TicketPayload, failure: JsonObject) -> list[object]:
    failures: list[object] = [*payload.get("failures", []), failure]
    return failures[-LIMITS.ticket_failures_kept :]


def complete(
    state: str, payload: TicketPayload, *, session_id: str, attempt: int, reason: str
) -> Next[TicketPayload]:
    """The attempt bound to `session_id` recorded a completed result: the ticket is done."""
    target = step("ticket", TABLE, state, "complete")
    _check_attempt(payload, session_id, attempt)
    return Next(target, ticket_with(payload, lease_token=None, reason=reason))


def new_session(
    state: str,
    payload: TicketPayload,
    *,
    session_id: str,
    attempt: int,
    fresh: str,
    now: str,
) -> Next[TicketPayload]:
    """The attempt bound to `session_id` goes on under the session `fresh` (its lease live at
    `now`)."""
    target = step("ticket", TABLE, state, "new-session")
    _check_attempt(payload, session_id, attempt)
    token = payload["lease_token"]
    if token is None:
        raise IntegrityError("field 'lease_token' is not text")
    check_lease(state, payload, token=token, now=now)
    if fresh == session_id:
        raise InvalidInputError("a new session needs a new session id")
    return Next(target, ticket_with(payload, session_id=fresh))


def wait(
    state: str,
    payload: TicketPayload,
    *,
    reason: str,
    session_id: str | None,
    attempt: int,
) -> Next[TicketPayload]:
    """The ticket waits for a person with `reason` (ADR 0031): an open one keeps its place in the
    queue; a leased one (its attempt bound to `session_id`, never launched) is open again, its lease
    given back — its attempt, failures and backoff as they were."""
    target = step("ticket", TABLE, state, "wait")
    if state == TicketState.OPEN:
        return Next(target, ticket_with(payload, reason=reason))
    if session_id is None:
        raise InvalidInputError("a leased ticket waits only for the attempt it names")
    _check_attempt(payload, session_id, attempt)
    return Next(
        target,
        ticket_with(
            payload,
            lease_token=None,
            worker_id=None,
            lease_host=None,
            session_id=None,
            lease_expires_at=None,
            reason=reason,
        ),
    )


def reopen(state: str, payload: TicketPayload, *, reason: str) -> Next[TicketPayload]:
    """A person sends a blocked ticket back to the queue for its next attempt, now (ADR 0031)."""
    target = step("ticket", TABLE, state, "reopen")
    return Next(
        target,
        ticket_with(
            payload,
            attempt=payload["attempt"] + 1,
            lease_token=None,
            worker_id=None,
            lease_host=None,
            session_id=None,
            lease_expires_at=None,
            reason=reason,
            retry_after=None,
            failures=[],
            prior_failure_evidence=None,  # about an attempt before the block: spent
        ),
    )


def retry_now(state: str, payload: TicketPayload, *, reason: str) -> Next[TicketPayload]:
    """A person starts an open ticket's next attempt without waiting for its backoff."""
    target = step("ticket", TABLE, state, "retry-now")
    return Next(target, ticket_with(payload, reason=reason, retry_after=None))


def request_changes(
    state: str, payload: TicketPayload, *, attempt: int, carried: JsonObject, reason: str
) -> Next[TicketPayload]:
    """A person asks for changes to the done attempt `attempt`'s result (ADR 0039): its next attempt
    is open now, a follow-up carrying `carried` (its dispatch's intent copies it)."""
    target = step("ticket", TABLE, state, "request-changes")
    if payload.get("attempt") != attempt:
        raise InvalidInputError(
            f"changes may be requested only of the latest attempt ({payload.get('attempt')})"
        )
    return Next(
        target,
        ticket_with(
            with_fields(payload, changes_requested=carried),  # the schema checks what it carries
            attempt=attempt + 1,
            lease_token=None,
            worker_id=None,
            lease_host=None,
            session_id=None,
            lease_expires_at=None,
            reason=reason,
            retry_after=None,
            failures=[],
            prior_failure_evidence=None,
        ),
    )
