"""Dispatches: propose (capture the intent), review (the advisor), approve (a person, if policy
allows), accept (create the worker and the delivery event), reject, cancel."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from oms.adapters import advisor, git
from oms.canonical import (
    JsonObject,
    access,
    check,
    digest,
    equal,
    next_after,
    sha256_hex,
    stable_id,
)
from oms.canonical.strict_json import loads_foreign
from oms.domain import dispatches as machine
from oms.domain import hosts as host_rules
from oms.domain import routing, workers
from oms.domain import tickets as ticket_machine
from oms.domain.config import Role, is_worker_role, role
from oms.domain.dispatches import ENGINES
from oms.domain.machine import Next
from oms.domain.policy import check_reviewer, needs_person, worker_capabilities
from oms.domain.status_reason import approved_waits_rest, awaits_approval, past_wait
from oms.errors import (
    AdvisorError,
    AlreadyExistsError,
    AuthorityChangedError,
    CheckoutChangedError,
    ConfigError,
    ConflictError,
    IllegalTransitionError,
    InvalidInputError,
    LeaseError,
    NoProviderError,
    OmsError,
    OtherHostError,
    RecordNotFoundError,
    one_line,
)
from oms.schemas import load_schema, validate
from oms.schemas.payloads import DispatchState, TicketState
from oms.services.chain import live, providers, tickets
from oms.services.chain.authority import (
    check_dispatch,
    check_intent,
    check_lease_of,
    role_fields,
)
from oms.services.chain.end_lock import end_lock
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.services.workspace import policy as policy_service
from oms.services.workspace.committed import uncommitted
from oms.store import Change, Record
from oms.store.payloads import (
    as_json,
    dispatch_payload,
    text_set,
    ticket_payload,
    worker_payload,
)

if TYPE_CHECKING:
    from oms.schemas.payloads import DispatchPayload

DELIVERY_EVENT = "dispatch-delivery-requested"


def get(ws: Workspace, dispatch_id: str) -> Record:
    """The latest version of a dispatch."""
    try:
        return ws.store.records("dispatch").read(check(dispatch_id, "dispatch id"))
    except RecordNotFoundError:
        raise RecordNotFoundError(
            f"no dispatch {dispatch_id}",
            hint="see `oms dispatch list`; if its ticket ended long ago it may be compacted: "
            f"`oms audit log --dispatch {dispatch_id}` shows its history",
        ) from None


def list_all(ws: Workspace) -> list[Record]:
    """Every dispatch, latest versions."""
    return ws.store.latest("dispatch").checked()


def _transition(
    ws: Workspace,
    dispatch: Record,
    nxt: Next[DispatchPayload],
    op: str,
    actor: str = SYSTEM_ACTOR,
) -> Record:
    """The dispatch's next version (`actor`: who the ledger names, a person's decision theirs)."""
    change = Change(
        nxt.state, as_json(nxt.payload), op, actor, next_after(dispatch.observed_at, ws.now())
    )
    return ws.store.records("dispatch").write_next(dispatch, change).record


# ------------------------------------------------------------------ propose
def _start_commit(ws: Workspace, ticket: Record, worktree: JsonObject) -> str:
    prior = ticket_payload(ticket).get("prior_failure_evidence")
    if isinstance(prior, str):
        body = ws.store.evidence.get(prior).body
        payload = access.obj(body, "payload")
        if (
            body["evidence_kind"] != "lease-expiry"
            or body["ticket_id"] != ticket.record_id
            or (payload["attempt"] != ticket_payload(ticket)["attempt"] - 1)
        ):
            raise AuthorityChangedError(
                "ticket's prior failure evidence is not this ticket's last expired lease"
            )
        if isinstance(payload.get("worktree_start_commit"), str):
            return access.text(payload, "worktree_start_commit")
    linked = git.linked_worktree(ws.config_root, access.text(worktree, "worktree_root"))
    head = linked.head  # as the repository records it (never asked of git inside the worktree)
    if head is None:
        raise CheckoutChangedError(f"worktree {worktree['worktree_root']} has no HEAD commit")
    return head


def _route(ws: Workspace, configured: Role, pin: str | None) -> str | None:
    """The provider a new dispatch of `configured` goes to (None: no providers, or a command
    worker)."""
    routable = (
        bool(ws.config().routing.providers) and routing.family_of(configured.transport) is not None
    )
    if not routable:
        if pin is not None:
            raise ConfigError(
                f"role {configured.role_id} is not routed to "
                f"providers: --provider {pin} cannot apply"
            )
        return None
    choice = providers.route(ws, configured, pin)
    if choice.provider_id is None:
        reasons = "; ".join(f"{p}: {why}" for p, why in sorted(choice.excluded.items()))
        wait = f" (the first cooldown ends {choice.wait_until})" if choice.wait_until else ""
        raise NoProviderError(f"no provider can serve role {configured.role_id}{wait}: {reasons}")
    return choice.provider_id


def _session_for(ws: Workspace, ticket: Record) -> Record:
    """The ticket as a new proposal of its leased attempt needs it: a dispatch of this attempt that
    ended before it was accepted (cancelled, rejected: nothing of it ran) leaves the attempt to go
    on under a fresh session, so the new proposal has a dispatch id of its own (it failed: the
    operation id was taken 'with a different change'). One that was delivered ran as the attempt:
    a new dispatch is a new attempt."""
    attempt = ticket_payload(ticket)["attempt"]
    dispatch_id = tickets.dispatch_id(ticket, attempt)
    ended = ws.store.records("dispatch").read_if_exists(dispatch_id)
    if ended is None or ended.state not in (DispatchState.CANCELLED, DispatchState.REJECTED):
        return ticket
    if dispatch_payload(ended)["delivery_event_id"] is not None:
        raise AuthorityChangedError(
            f"attempt {attempt} of {ticket.record_id} was delivered ({dispatch_id} is "
            f"{ended.state}): a new dispatch is a new attempt",
            hint=f"`oms ticket block {ticket.record_id} --reason ...` (with its lease token), then "
            f"`oms ticket reopen {ticket.record_id}` starts the next attempt",
        )
    return tickets.new_session(ws, ticket)


def _changes(ticket: Record) -> JsonObject:
    """A follow-up's requested changes (ADR 0039), which its intent carries."""
    found = ticket_payload(ticket).get("changes_requested")
    return {"changes_requested": as_json(found)} if found is not None else {}


def propose(
    ws: Workspace,
    ticket_id: str,
    role_id: str | None = None,
    provider: str | None = None,
    *,
    replace: bool = False,
) -> tuple[Record, bool]:
    """Capture the intent of launching `role_id` on the leased ticket, routed to a provider when
    providers are configured (`provider`: a person's pin; `services/chain/providers.py`); returns
    (dispatch, created). `replace`: a proposal of the attempt with another intent, not yet
    accepted, is cancelled and this one proposed in its place (`_replace`); else it is refused."""
    ticket = tickets.require(ws, check(ticket_id, "ticket id"))
    if ticket.state != TicketState.LEASED:
        hint = (
            f"lease it first: oms ticket lease {ticket_id} --worker NAME"
            if ticket.state == TicketState.OPEN
            else f"`oms ticket show {ticket_id}` says why it is {ticket.state}"
        )
        raise LeaseError(
            f"ticket {ticket_id} is {ticket.state}; lease it before proposing a dispatch", hint=hint
        )
    ticket_machine.check_lease(
        ticket.state,
        ticket_payload(ticket),
        token=text_set(ticket_payload(ticket)["lease_token"], "lease_token"),
        now=ws.now(),
    )
    refuse_another_hosts_chain(ws, ticket, None)
    ticket = _session_for(ws, ticket)
    config = ws.config()
    configured = role(config, role_id or config.worker_role)
    if not is_worker_role(configured):
        raise ConfigError(
            f"role {configured.role_id} is not a worker role (transport {configured.transport}, "
            f"sandbox {configured.sandbox})"
        )
    policy = policy_service.load_tracked(ws.config_root, ws.repo, ws.head())
    capabilities = worker_capabilities(policy, configured.role_id)
    drift = uncommitted(ws.config_root, ws.repo, ws.head())
    if drift:
        raise ConfigError(
            f"uncommitted changes to {', '.join(drift)[:300]}: what runs comes from HEAD",
            hint="commit or revert them, then propose",
        )
    worktree = ws.store.worktrees.get(ticket.record_id)
    if worktree is None:
        raise AuthorityChangedError(
            f"ticket {ticket_id} has no worktree", hint=f"oms worktree create {ticket_id}"
        )
    start = _start_commit(ws, ticket, worktree)
    wt_root = access.text(worktree, "worktree_root")
    if not git.is_ancestor(ws.config_root, access.text(worktree, "base_commit"), start):
        raise CheckoutChangedError(
            f"start commit {start[:12]} does not descend from the worktree's base commit"
        )
    provider_id = _route(ws, configured, provider)
    attempt = ticket_payload(ticket)["attempt"]
    dispatch_id = tickets.dispatch_id(ticket, attempt)
    fields: JsonObject = {
        "ticket_id": ticket.record_id,
        "ticket_version": ticket.version,
        "ticket_content_sha256": ticket_payload(ticket)["content_sha256"],
        "attempt": attempt,
        "worker_id": ticket_payload(ticket)["worker_id"],
        "lease_token": ticket_payload(ticket)["lease_token"],
        "session_id": ticket_payload(ticket)["session_id"],
        "role_id": configured.role_id,
        "engine": ENGINES[configured.transport],
        "capabilities": list(capabilities),
        "policy_digest": policy.digest,
        "worktree_id": worktree["worktree_id"],
        "worktree_path": wt_root,
        "worktree_branch": worktree["branch"],
        "worktree_base_commit": worktree["base_commit"],
        "worktree_start_commit": start,
        "prior_failure_evidence": ticket_payload(ticket)["prior_failure_evidence"],
        **role_fields(ws, configured, policy, provider_id=provider_id),
        **({"provider_id": provider_id} if provider_id is not None else {}),
        **_changes(ticket),
    }
    nxt = machine.propose(fields, dispatch_id=dispatch_id, created_at=ws.now())
    proposed = ws.store.records("dispatch").read_if_exists(dispatch_id)
    if proposed is not None:  # proposed before: the same intent is that dispatch (run it twice)
        if (
            dispatch_payload(proposed)["dispatch_intent_sha256"]
            == nxt.payload["dispatch_intent_sha256"]
        ):
            return proposed, False
        if replace and proposed.state == DispatchState.PROPOSED:
            return _replace(ws, proposed, ticket.record_id, role_id, provider)
        raise ConflictError(
            f"dispatch {dispatch_id} ({proposed.state}) was proposed for attempt {attempt} of "
            f"{ticket.record_id} with another intent (another route, role, config, policy or "
            "checkout)",
            hint=f"`oms dispatch propose {ticket.record_id} ... --replace` cancels it and "
            "proposes this in its place"
            if proposed.state == DispatchState.PROPOSED
            else f"it is {proposed.state}: a new dispatch is a new attempt",
        )
    result = ws.store.records("dispatch").create(
        dispatch_id,
        state=nxt.state,
        payload=as_json(nxt.payload),
        operation_id=stable_id("dsp-propose", dispatch_id),
        actor=SYSTEM_ACTOR,
        observed_at=ws.now(),
    )
    if not result.replayed:
        _refuse_a_lapse_meanwhile(ws, ticket, result.record)
    return result.record, not result.replayed


def _refuse_a_lapse_meanwhile(ws: Workspace, ticket: Record, dispatch: Record) -> None:
    """The proposal just written, of `ticket`'s attempt: when the attempt lapsed meanwhile (an
    expiry that read the ticket after its session was written, before this proposal was, found
    no dispatch to end), it is cancelled and refused — else it stayed `proposed` for ever, a live
    attempt beside the next one (`tickets.end_late_proposal`; attack `replacegap`)."""
    attempt = ticket_payload(ticket)["attempt"]
    now = tickets.require(ws, ticket.record_id)
    if now.state == TicketState.LEASED and ticket_payload(now)["attempt"] == attempt:
        return
    tickets.end_late_proposal(ws, ticket, attempt)
    raise LeaseError(
        f"the lease of ticket {ticket.record_id} ran out (attempt {attempt}) as dispatch "
        f"{dispatch.record_id} was proposed; it was cancelled",
        hint=f"`oms ticket show {ticket.record_id}` says what comes next",
    )


def _replace(
    ws: Workspace, old: Record, ticket_id: str, role_id: str | None, provider: str | None
) -> tuple[Record, bool]:
    """A person's new proposal in place of the attempt's proposal `old` (not yet accepted): under
    `old`'s end lock, `old` is cancelled (an approval of it goes with it) and the new one proposed
    under a fresh session of the same attempt (`_session_for`). The lock is held until the new
    proposal is written: the conductor asks it before it takes an ended proposal for its
    attempt's end (`conductor/work.py`), so a tick between the two writes never counts the cancel
    as a failed attempt nor proposes a route of its own; an accept racing the cancel loses its
    compare and writes nothing."""
    with end_lock(ws, old.record_id):
        current = get(ws, old.record_id)
        if current.state != DispatchState.PROPOSED:  # accepted (or ended) since it was read
            raise IllegalTransitionError(
                "dispatch",
                current.state,
                "replace",
                hint=f"another person replaced it meanwhile (`oms dispatch list`): propose "
                f"{ticket_id} again with `--replace` to replace theirs"
                if cancelled_by_replacement(current)
                else f"it is {current.state}: a new dispatch is a new attempt",
            )
        reason = f"replaced by a person's new proposal of {ticket_id}" + (
            f" (provider {provider})" if provider is not None else ""
        )
        nxt = machine.cancel(current.state, current.payload, reason=reason)
        _transition(ws, current, nxt, _replace_op(current.record_id))
        return propose(ws, ticket_id, role_id, provider)


def _replace_op(dispatch_id: str) -> str:
    """The operation id of a replacement's cancel of `dispatch_id` (`_replace`)."""
    return stable_id("dsp-replace", dispatch_id)


def cancelled_by_replacement(dispatch: Record) -> bool:
    """Was `dispatch`'s last write a person's replacement's cancel (`_replace`)? Its attempt goes
    on: a replacement killed before it wrote the ticket's fresh session left the cancel alone on
    the attempt's session, and that cancel is no end of the attempt (`conductor/work.py`)."""
    return dispatch.state == DispatchState.CANCELLED and dispatch.operation_id == _replace_op(
        dispatch.record_id
    )


def refuse_another_hosts_chain(ws: Workspace, ticket: Record, dispatch_id: str | None) -> None:
    """On a cluster (ADR 0043, amendment `hand`): refuse, in one line naming the host, a step of a
    chain another host goes on with — its worker's host once it has one, before that the host
    that leased its ticket (`domain/hosts.chain_is_mine`): its worktree, whose path and start
    the intent binds, is that host's, and a worker accepted here would be launched here, in a
    worktree this host does not have. Asked before any lock or write. On files every host shares
    the state root's worktrees: nothing is refused."""
    if ws.store.backend is None:
        return
    worker = None if dispatch_id is None else ws.store.records("worker").read_if_exists(dispatch_id)
    payload = None if worker is None else worker_payload(worker)
    this, leased_by = ws.host(), ticket_payload(ticket).get("lease_host")
    if host_rules.chain_is_mine(leased_by, payload, this):
        return
    host = host_rules.host_of(payload, this) if payload is not None else str(leased_by)
    raise OtherHostError(
        f"ticket {ticket.record_id} is in the chain of host {host}, whose worktree its dispatch "
        "runs in; run this there",
        hint=f"run it on host {host} (OMS_HOST={host})",
    )


@contextlib.contextmanager
def _stale_hint(dispatch: Record) -> Iterator[None]:
    """An intent the records no longer authorise says how to go on: cancel it and propose again
    (a new proposal of the same attempt gets a dispatch of its own: `_session_for`)."""
    try:
        yield
    except AuthorityChangedError as exc:
        if exc.remedy != AuthorityChangedError.hint:
            raise
        ticket = dispatch_payload(dispatch)["ticket_id"]
        how = (
            f"`oms dispatch cancel {dispatch.record_id} --reason stale`, then "
            f"`oms dispatch propose {ticket}` and review it"
        )
        raise AuthorityChangedError(exc.message, hint=how) from exc


# ------------------------------------------------------------------ review
def _advisor_request(ws: Workspace, dispatch: Record, intent_sha: str) -> JsonObject:
    ticket = ws.store.records("ticket").read(dispatch_payload(dispatch)["ticket_id"])
    content = ws.store.ticket_content.get(
        ticket.record_id, dispatch_payload(dispatch)["ticket_content_sha256"]
    )
    return {
        "format": "oms-advisor-request-v1",
        "dispatch_intent_sha256": intent_sha,
        "intent": machine.capture_intent(dispatch.record_id, dispatch.payload),
        "ticket": {k: content[k] for k in ("title", "body", "source", "repository", "url")},
        "instructions": advisor.INSTRUCTIONS,
    }


def _verdict_schema_file(ws: Workspace, dispatch_id: str) -> str:
    rel_dir = f"tmp/advisor-{dispatch_id}"
    ws.store.state.root.mkdirs(rel_dir)
    data = (advisor_schema_text() + "\n").encode("utf-8")
    try:
        ws.store.state.root.publish(f"{rel_dir}/verdict.schema.json", data)
    except AlreadyExistsError:
        if ws.store.state.root.read_bytes(f"{rel_dir}/verdict.schema.json", len(data) + 1) != data:
            raise AdvisorError(f"{rel_dir}/verdict.schema.json was altered") from None
    return os.path.join(ws.store.path, rel_dir, "verdict.schema.json")


def advisor_schema_text() -> str:
    """The verdict schema handed to headless agents (`--output-schema` / `--json-schema`)."""
    schema = {
        k: v
        for k, v in load_schema("advisor-verdict").items()
        if k not in ("$id", "$schema", "title")
    }
    schema["properties"]["dispatch_intent_sha256"] = {"type": "string", "pattern": "^[0-9a-f]{64}$"}
    return json.dumps(schema, sort_keys=True)


def review(ws: Workspace, dispatch_id: str) -> tuple[Record, str]:
    """Run the advisor on a proposed dispatch and record its signed verdict; returns (dispatch,
    evidence ref)."""
    dispatch = get(ws, dispatch_id)
    if dispatch.state != DispatchState.PROPOSED:
        raise IllegalTransitionError("dispatch", dispatch.state, "review")
    refuse_another_hosts_chain(
        ws, ws.store.records("ticket").read(dispatch_payload(dispatch)["ticket_id"]), dispatch_id
    )
    intent_sha = check_intent(dispatch)
    with _stale_hint(dispatch):  # an intent already stale is never paid for, nor approved
        policy = check_dispatch(ws, dispatch, approved=False).policy
    config = ws.config()
    reviewer = role(config, config.advisor_role)
    check_reviewer(policy, reviewer.role_id)
    ticket = ws.store.records("ticket").read(dispatch_payload(dispatch)["ticket_id"])
    if ticket_payload(ticket)["source"] == "github":
        live.disclose(
            ws,
            text_set(ticket_payload(ticket)["repository"], "repository"),
            operation="advisor-review",
            surface=reviewer.transport.replace("_", "-"),
            subject_id=dispatch.record_id,
            request=live.dispatch_request(dispatch),
        )
    request = _advisor_request(ws, dispatch, intent_sha)
    validate("advisor-request", request, where="advisor request")
    schema_path = (
        _verdict_schema_file(ws, dispatch.record_id) if reviewer.transport == "codex_exec" else ""
    )
    plan = advisor.plan(
        reviewer,
        request,
        schema_path,
        loads_foreign(
            advisor_schema_text()
        ),  # as `--output-schema` gets it: refs resolved, no draft named
        openai_key=bool(os.environ.get("OPENAI_API_KEY")),
    )
    run = advisor.execute(plan, clock=ws.clock)
    verdict = advisor.verdict(plan, run)
    try:
        validate("advisor-verdict", verdict, where="advisor verdict")
    except InvalidInputError as exc:
        raise AdvisorError(exc.message) from exc
    if not equal(access.text(verdict, "dispatch_intent_sha256"), intent_sha):
        raise AdvisorError("advisor judged another intent digest than the one it was given")
    evidence = ws.store.put_evidence(
        {
            "format": "oms-evidence-v1",
            "evidence_kind": "advisor-output",
            "ticket_id": ticket.record_id,
            "producer": "advisor",
            "producer_role": reviewer.role_id,
            "created_at": run.finished_at,
            "payload": {
                "dispatch_id": dispatch.record_id,
                "dispatch_intent_sha256": intent_sha,
                "verdict": verdict["verdict"],
                "rationale": verdict["rationale"],
                "provenance": {
                    "argv_sha256": digest("advisor-argv", list(run.argv)),
                    "exit_code": run.exit_code,
                    "output_sha256": sha256_hex(run.stdout),
                    "started_at": run.started_at,
                    "finished_at": run.finished_at,
                },
            },
        }
    )
    nxt = machine.record_review(
        dispatch.state,
        dispatch.payload,
        evidence_ref=evidence.ref,
        verdict=access.text(verdict, "verdict"),
        rationale=access.text(verdict, "rationale"),
    )
    return _transition(
        ws, dispatch, nxt, stable_id("dsp-review", dispatch.record_id, evidence.ref)
    ), evidence.ref


# ------------------------------------------------------------------ approve (a person)
def approve(ws: Workspace, dispatch_id: str, *, person: str, rationale: str) -> tuple[Record, str]:
    """Record a person's approval, where the role policy allows it (its own producer, never the
    advisor): refused before any lock or write when the dispatch is not proposed, is another
    repository's, its attempt's lease no longer matches (lapsed, expired: no accept could take
    it), or the policy allows no person's approval; then, under the dispatch's end lock
    (`chain/end_lock.py`: a lease on a cluster whose fence guards both writes, ADR 0043 amendment
    `hand`), decided again on the dispatch as it is, its evidence and its next version written. Any
    host may approve: the evidence is signed by its state key, which the accepting host vouches
    for by its pin."""
    tickets.check_person(person)
    _approvable(ws, get(ws, dispatch_id))
    with end_lock(ws, dispatch_id):  # an approval and an attempt's end are written in turn
        dispatch = get(ws, dispatch_id)
        intent_sha = _approvable(ws, dispatch)
        ref = _persons_verdict(ws, dispatch, intent_sha, "approve", person, rationale)
        nxt = machine.record_human_approval(dispatch.state, dispatch.payload, evidence_ref=ref)
        op = stable_id("dsp-approve", dispatch.record_id, ref)
        return _transition(ws, dispatch, nxt, op, tickets.person_actor(person)), ref


def _persons_verdict(
    ws: Workspace, dispatch: Record, intent_sha: str, verdict: str, person: str, rationale: str
) -> str:
    """A person's verdict on `dispatch`'s intent, kept as signed `human-approval` evidence (its
    ref): `approve` is what an accept takes; `reject` records who declined it and why, and is
    never taken as an approval (`domain/approval.py` asks for the verdict)."""
    return ws.store.put_evidence(
        {
            "format": "oms-evidence-v1",
            "evidence_kind": "human-approval",
            "ticket_id": dispatch_payload(dispatch)["ticket_id"],
            "producer": "human",
            "producer_role": None,
            "created_at": ws.now(),
            "payload": {
                "dispatch_id": dispatch.record_id,
                "dispatch_intent_sha256": intent_sha,
                "verdict": verdict,
                "person": person,
                "rationale": rationale[:8192],
            },
        }
    ).ref


def awaits_person(ws: Workspace, dispatch: Record) -> bool:
    """Does a proposed dispatch wait for a person's approval: its role needs one (`needs_person`)
    under the policy it was proposed under, still the one at HEAD, and none is recorded? (One
    proposed under another policy is stale: its accept says so.)"""
    return dispatch.record_id in _needing_person(ws, [dispatch])


def _needing_person(ws: Workspace, records: Iterable[Record]) -> dict[str, str]:
    """`awaits_person` of each of `records`, the policy at HEAD read once, and only when a dispatch
    is proposed without an approval; each with what it waits for (`awaits_approval`)."""
    candidates = [
        d
        for d in records
        if d.state == DispatchState.PROPOSED
        and dispatch_payload(d).get("approval_evidence") is None
    ]
    if not candidates:
        return {}
    policy = policy_service.load_tracked(ws.config_root, ws.repo, ws.head())
    return {
        d.record_id: awaits_approval(d.record_id, dispatch_payload(d)["role_id"])
        for d in candidates
        if needs_person(policy, dispatch_payload(d)["role_id"])
        and equal(policy.digest, dispatch_payload(d)["policy_digest"])
    }


def approved_rest(ws: Workspace, dispatch: Record) -> str | None:
    """Why a proposed dispatch a person approved waits instead of being accepted: its provider
    rests by a rest begun since its routing, and its wait is within `[pool]
    approval_wait_minutes` of its proposal (ADR 0043, amendment `restapproved`); None: it does
    not (accepted, or past its bound, refused by the accept and routed again)."""
    payload = dispatch_payload(dispatch)
    provider_id = payload.get("provider_id")
    if (
        dispatch.state != DispatchState.PROPOSED
        or payload.get("approval_evidence") is None
        or not isinstance(provider_id, str)
    ):
        return None
    if past_wait(payload["created_at"], ws.config().approval_wait_minutes, ws.now()):
        return None
    rest = providers.rest_since_routed(ws, provider_id, payload["created_at"])
    return None if rest is None else approved_waits_rest(dispatch.record_id, rest)


def awaiting_person(ws: Workspace, records: Iterable[Record]) -> dict[str, str]:
    """Of `records`, the dispatches a view shows waiting for a person's approval, each with what it
    waits for (`status_reason.awaits_approval`, the one phrase every view shows): those that
    `awaits_person`, of their ticket's current attempt under a live lease (a lapsed attempt's
    dispatch is proposed until its expiry cancels it, and no approval of it is taken), of this
    repository's ticket (another repository's on a cluster's shared prefix is not this person's
    to approve: ADR 0043, amendment `cross7`)."""
    listed = list(records)
    found = _needing_person(ws, listed)
    now, kept = ws.now(), {}
    for dispatch in listed:
        if dispatch.record_id not in found:
            continue
        payload = dispatch_payload(dispatch)
        ticket = ws.store.records("ticket").read_if_exists(payload["ticket_id"])
        if (
            ticket is not None
            and ticket.state == TicketState.LEASED
            and ticket_payload(ticket)["attempt"] == payload["attempt"]
            and ticket_payload(ticket)["session_id"] == payload["session_id"]
            and not ticket_machine.is_expired(ticket.state, ticket_payload(ticket), now)
            and tickets.another_repository(ws, ticket) is None
        ):
            kept[dispatch.record_id] = found[dispatch.record_id]
    return kept


def shown_waits(ws: Workspace, records: Iterable[Record]) -> dict[str, str]:
    """`awaiting_person` for a view of `records`: none said when the committed policy cannot be
    read (`oms policy show` and `oms doctor` say why)."""
    try:
        return awaiting_person(ws, records)
    except OmsError:
        return {}


def ticket_waits(ws: Workspace, ticket: Record) -> str | None:
    """What a leased ticket's attempt's dispatch waits for (a person's approval), or None."""
    if ticket.state != TicketState.LEASED:
        return None
    dispatch = tickets.dispatch_of(ws, ticket, ticket_payload(ticket)["attempt"])
    return None if dispatch is None else shown_waits(ws, [dispatch]).get(dispatch.record_id)


def waited_out(ws: Workspace, dispatch_id: str, reason: str) -> Record | None:
    """The conductor's rejection of a dispatch whose person's approval never came (its wait past
    `[pool] approval_wait_minutes`), under the dispatch's end lock, as an approval is written: the
    rejected dispatch, or None when it no longer waits (a person approved or decided first)."""
    with end_lock(ws, dispatch_id):
        dispatch = get(ws, dispatch_id)
        if not awaits_person(ws, dispatch):
            return None
        nxt = machine.reject(dispatch.state, dispatch.payload, reason=reason)
        return _transition(ws, dispatch, nxt, stable_id("dsp-reject", dispatch.record_id))


def _persons_to_decide(ws: Workspace, dispatch: Record, verb: str) -> Record:
    """`dispatch`'s ticket, when a person may `verb` it from here: it is proposed, and of this
    repository (another's policy and worktree are not this person's to decide); else raised."""
    if dispatch.state != DispatchState.PROPOSED:
        said = dispatch_payload(dispatch).get("reason")
        raise IllegalTransitionError(
            "dispatch",
            dispatch.state,
            verb,
            hint=one_line(f"it was {dispatch.state}: {said}", 400) if said else None,
        )
    ticket = ws.store.records("ticket").read(dispatch_payload(dispatch)["ticket_id"])
    foreign = tickets.another_repository(ws, ticket)
    if foreign is not None:
        raise foreign
    return ticket


def _approvable(ws: Workspace, dispatch: Record) -> str:
    """Why a person may not approve `dispatch` now (raised), else its intent digest."""
    ticket = _persons_to_decide(ws, dispatch, "approve")
    intent_sha = check_intent(dispatch)
    check_lease_of(ws, ticket, dispatch_payload(dispatch))  # a lapsed attempt's is never accepted
    policy = policy_service.load_tracked(ws.config_root, ws.repo, ws.head())
    if not policy.human_approval:
        raise AuthorityChangedError("the role policy does not allow human approval")
    if not equal(policy.digest, dispatch_payload(dispatch)["policy_digest"]):
        raise AuthorityChangedError("role policy changed since the dispatch was proposed")
    return intent_sha


# ------------------------------------------------------------------ accept
def delivery_event_id(dispatch_id: str) -> str:
    """The id of a dispatch's delivery event."""
    return stable_id("evt-delivery", dispatch_id)


def accept(ws: Workspace, dispatch_id: str) -> tuple[Record, str]:
    """Accept a reviewed dispatch: every authority check, then `accepted`, the idle healthy worker,
    and the delivery event. Re-running it on an accepted dispatch finishes whatever a crash left
    undone."""
    dispatch = get(ws, dispatch_id)
    ws.host()  # the host its worker will name, checked before anything is written
    refuse_another_hosts_chain(
        ws, ws.store.records("ticket").read(dispatch_payload(dispatch)["ticket_id"]), dispatch_id
    )
    if dispatch.state == DispatchState.PROPOSED:
        dispatch = _accept_proposed(ws, dispatch)
    if dispatch_payload(dispatch).get("delivery_event_id") is None:
        raise IllegalTransitionError("dispatch", dispatch.state, "accept")
    return dispatch, _ensure_delivery(ws, dispatch)


def _accept_proposed(ws: Workspace, dispatch: Record) -> Record:
    """`accepted` written after every check of the version it is written after. An approval takes
    the end lock and an accept none: a person's second approval (another host's at once) between
    the check and the write wins the compare, and the dispatch is read again and decided again on
    it, every check asked again (ADR 0043, amendment `cross3`); one no longer proposed is
    returned as it is (another accept wrote it, or a cancel: the caller says which)."""

    def decide(current: Record) -> Change | None:
        if current.state != DispatchState.PROPOSED:
            return None
        with _stale_hint(current):
            check_dispatch(ws, current)
        _refuse_rested(ws, current)
        nxt = machine.accept(
            current.state,
            current.payload,
            delivery_event_id=delivery_event_id(current.record_id),
            accepted_at=ws.now(),
        )
        return Change(
            nxt.state,
            as_json(nxt.payload),
            stable_id("dsp-accept", current.record_id),
            SYSTEM_ACTOR,
            next_after(current.observed_at, ws.now()),
        )

    written = ws.store.records("dispatch").update(dispatch.record_id, decide, first=dispatch)
    return get(ws, dispatch.record_id) if written is None else written.record


def _refuse_rested(ws: Workspace, dispatch: Record) -> None:
    """A dispatch whose provider was put to rest after it was routed there (`oms provider rest`,
    another attempt's quota report, between the routing and this accept: an advisor's review, a
    person's wait) is not accepted: the routing is decided again, by a new proposal (ADR 0043,
    amendment `cross5`). The conductor's fill cancels it and the ticket waits, nothing counted
    (`NoProviderError`: `conductor.REST`)."""
    payload = dispatch_payload(dispatch)
    provider_id = payload.get("provider_id")
    if not isinstance(provider_id, str):
        return
    why = providers.rest_since_routed(ws, provider_id, payload["created_at"])
    if why is not None:
        raise NoProviderError(
            f"{why}, since dispatch {dispatch.record_id} was routed to it: not accepted",
            hint=f"`oms dispatch cancel {dispatch.record_id} --reason rested`, then `oms dispatch "
            f"propose {payload['ticket_id']}` routes it again (`oms route explain` says where)",
        )


def _ensure_delivery(ws: Workspace, dispatch: Record) -> str:
    accepted = next(
        r
        for r in ws.store.records("dispatch").history(dispatch.record_id)
        if r.state == DispatchState.ACCEPTED
    )
    at = text_set(dispatch_payload(accepted)["accepted_at"], "accepted_at")
    nxt = workers.new(dispatch.record_id, accepted.payload, updated_at=at, host=ws.host())
    ws.store.records("worker").create(
        dispatch.record_id,
        state=nxt.state,
        payload=as_json(nxt.payload),
        operation_id=stable_id("wkr-create", dispatch.record_id),
        actor=SYSTEM_ACTOR,
        observed_at=at,
    )
    event_id = text_set(dispatch_payload(accepted)["delivery_event_id"], "delivery_event_id")
    ws.store.events.create(
        event_id,
        DELIVERY_EVENT,
        at,
        {
            "dispatch_id": dispatch.record_id,
            "dispatch_version": accepted.version,
            "worker_record_id": dispatch_payload(accepted)["worker_record_id"],
            "ticket_id": dispatch_payload(accepted)["ticket_id"],
            "attempt": dispatch_payload(accepted)["attempt"],
            "lease_token": dispatch_payload(accepted)["lease_token"],
        },
    )
    return event_id


# ------------------------------------------------------------------ reject / cancel
def reject(ws: Workspace, dispatch_id: str, reason: str, *, person: str | None = None) -> Record:
    """Decline a proposed dispatch: the conductor's (past its wait for a person), or a person's.
    A person's is refused before any write when the dispatch is not proposed or is another
    repository's; then, under its end lock, the reason names them (`rejected by <person>:
    <reason>`) and, once that is written, their verdict is kept as signed evidence (verdict
    `reject`, never taken for an approval), so who declined it is on the record whichever door
    they used."""
    if person is None:
        dispatch = get(ws, dispatch_id)
        nxt = machine.reject(dispatch.state, dispatch.payload, reason=reason)
        return _transition(ws, dispatch, nxt, stable_id("dsp-reject", dispatch.record_id))
    tickets.check_person(person)
    _rejectable(ws, get(ws, dispatch_id))
    with end_lock(ws, dispatch_id):  # a rejection and an accept's launch are decided in turn
        dispatch = get(ws, dispatch_id)
        intent_sha = _rejectable(ws, dispatch)
        said = one_line(f"rejected by {person}: {one_line(reason, default='no reason given')}")
        nxt = machine.reject(dispatch.state, dispatch.payload, reason=said)
        op = stable_id("dsp-reject", dispatch.record_id)
        rejected = _transition(ws, dispatch, nxt, op, tickets.person_actor(person))
        # after the write it is the verdict of: an accept that won its compare first (it takes
        # no end lock) leaves no signed `reject` of a dispatch that launched
        _persons_verdict(ws, dispatch, intent_sha, "reject", person, reason)
        return rejected


def _rejectable(ws: Workspace, dispatch: Record) -> str:
    """Why a person may not reject `dispatch` now (raised), else the intent digest it records. Not
    checked against its fields: a dispatch whose intent no longer matches them (changed by hand)
    is one a person must be able to decline."""
    _persons_to_decide(ws, dispatch, "reject")
    return dispatch_payload(dispatch)["dispatch_intent_sha256"]


def cancel(ws: Workspace, dispatch_id: str, reason: str) -> Record:
    """Cancel a dispatch that has not ended: under its end lock (`chain/end_lock.py`), so a message
    being typed into its pane is typed before the cancel is written."""
    get(ws, dispatch_id)  # a dispatch that is not there is said so before any lock is taken
    with end_lock(ws, dispatch_id):
        dispatch = get(ws, dispatch_id)
        nxt = machine.cancel(dispatch.state, dispatch.payload, reason=reason)
        return _transition(
            ws, dispatch, nxt, stable_id("dsp-cancel", dispatch.record_id, dispatch.state)
        )


def resolve(ws: Workspace, dispatch_id: str, reason: str) -> Record:
    """A result the conductor acted on: `result-received` → `resolved` (a resolved one is left as it
    is)."""
    dispatch = get(ws, dispatch_id)
    if dispatch.state == DispatchState.RESOLVED:
        return dispatch
    nxt = machine.resolve(dispatch.state, dispatch.payload, reason=reason)
    return _transition(ws, dispatch, nxt, stable_id("dsp-resolve", dispatch.record_id))
