"""Live authorisation for GitHub tickets and the contact journal (`disclose` before any contact)."""

from __future__ import annotations

import re

from oms.canonical import JsonObject, next_after, stable_id
from oms.domain import live as machine
from oms.domain.github import check_repository
from oms.errors import AuthorityChangedError, InvalidInputError, one_line
from oms.schemas.payloads import AuthorizationState
from oms.services.workspace import SYSTEM_ACTOR, Workspace
from oms.store import Change, Record
from oms.store.payloads import as_json, dispatch_payload, text_set, ticket_payload

_PERSON_BAD = re.compile(r"[\x00-\x1f\x7f]")


def authorization_id(repository: str) -> str:
    """The record id of a repository's authorisation (case-insensitive, as GitHub is)."""
    return stable_id("live", repository.lower())


def _check(repository: str) -> str:
    return check_repository(repository)


def current(ws: Workspace, repository: str) -> Record | None:
    """The authorisation of `repository`, if one exists and is in force."""
    rec = ws.store.records("authorization").read_if_exists(authorization_id(_check(repository)))
    return rec if rec is not None and rec.state == AuthorizationState.AUTHORIZED else None


def required(ws: Workspace, repository: str) -> Record:
    """The authorisation of `repository` in force, or refused: no person authorised it."""
    auth = current(ws, repository)
    if auth is None:
        raise AuthorityChangedError(
            f"no human-started live authorisation for {repository}",
            hint=f"a person runs `oms live authorize --repository {repository}`",
        )
    return auth


def authorize(ws: Workspace, repository: str, *, person: str, confirmed_by: str) -> Record:
    """Record a person's authorisation (the CLI has confirmed it was a person)."""
    _check(repository)
    person = person.strip()
    if not person or len(person) > 128 or _PERSON_BAD.search(person):
        raise InvalidInputError("person must be 1-128 characters without control characters")
    records = ws.store.records("authorization")
    rid = authorization_id(repository)
    existing = records.read_if_exists(rid)
    now = ws.now()
    if existing is None:
        nxt = machine.new(repository, person=person, confirmed_by=confirmed_by, now=now)
        return records.create(
            rid,
            state=nxt.state,
            payload=as_json(nxt.payload),
            operation_id=stable_id("live-new", rid),
            actor=SYSTEM_ACTOR,
            observed_at=now,
        ).record
    if existing.state == AuthorizationState.AUTHORIZED:
        return existing
    nxt = machine.reauthorize(
        existing.state, existing.payload, person=person, confirmed_by=confirmed_by, now=now
    )
    op = stable_id("live-auth", rid, existing.version)
    change = Change(
        nxt.state, as_json(nxt.payload), op, SYSTEM_ACTOR, next_after(existing.observed_at, now)
    )
    return records.write_next(existing, change).record


def revoke(ws: Workspace, repository: str, reason: str) -> Record:
    """Withdraw the authorisation (refused when none is in force)."""
    existing = current(ws, repository)
    if existing is None:
        raise AuthorityChangedError(
            f"no live authorisation in force for {repository}",
            hint="`oms live status` lists the authorisations",
        )
    now = ws.now()
    nxt = machine.revoke(
        existing.state, existing.payload, now=now, reason=one_line(reason, default="revoked")
    )
    op = stable_id("live-revoke", existing.record_id, existing.version)
    change = Change(
        nxt.state, as_json(nxt.payload), op, SYSTEM_ACTOR, next_after(existing.observed_at, now)
    )
    return ws.store.records("authorization").write_next(existing, change).record


def dispatch_request(dispatch: Record) -> JsonObject:
    """What the contact journal records of a dispatch whose agent contacts a repository."""
    fields = ("ticket_id", "role_id", "model_id", "provider_mode", "worktree_id")
    return {k: dispatch.payload[k] for k in fields} | {"dispatch_id": dispatch.record_id}


def disclose_worker(
    ws: Workspace, ticket: Record, dispatch: Record, *, operation: str, surface: str
) -> None:
    """A worker's launch or resumption is contact for a GitHub ticket: journaled first (`disclose`),
    refused unless a person authorised the repository; nothing for a local ticket."""
    if ticket_payload(ticket)["source"] != "github":
        return
    disclose(
        ws,
        text_set(ticket_payload(ticket)["repository"], "repository"),
        operation=operation,
        surface=surface,
        subject_id=dispatch_payload(dispatch)["session_id"],
        request=dispatch_request(dispatch),
    )


def disclose(
    ws: Workspace,
    repository: str,
    *,
    operation: str,
    surface: str,
    subject_id: str,
    request: JsonObject,
) -> int:
    """Journal a contact *before* it happens; refused unless a person authorised the repository."""
    auth = required(ws, repository)
    return ws.store.journal("live-contact").append(
        {
            "authorization_id": auth.record_id,
            "authorization_version": auth.version,
            "repository": repository,
            "operation": operation,
            "contact_surface": surface,
            "subject_id": subject_id,
            "request": request,
            "disclosed_at": ws.now(),
        },
        ws.now(),
    )


def list_all(ws: Workspace) -> list[Record]:
    """Every authorisation record."""
    return ws.store.latest("authorization").checked()
