"""Tickets: add, import from GitHub JSON, list, show, and the lease lifecycle."""

from __future__ import annotations

import re
import secrets
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from oms.canonical import (
    JsonObject,
    access,
    add_ms,
    check,
    digest,
    loads,
    loads_object,
    new_uuid,
    next_after,
    sha256_hex,
    stable_id,
)
from oms.canonical.ids import OPAQUE_ID
from oms.domain import dispatches as dispatch_machine
from oms.domain import tickets as machine
from oms.domain.github import check_repository
from oms.domain.machine import Next
from oms.errors import (
    ConflictError,
    IllegalTransitionError,
    InvalidInputError,
    OmsError,
    OtherRepositoryError,
    RecordNotFoundError,
    SignatureError,
    VersionConflictError,
    one_line,
    shown,
)
from oms.limits import LIMITS
from oms.schemas.payloads import DispatchState, TicketState
from oms.services.chain.end_lock import end_lock
from oms.services.workspace import SYSTEM_ACTOR, Workspace, launch_paths
from oms.store import Change, Record
from oms.store.payloads import as_json, dispatch_payload, text_set, ticket_payload

if TYPE_CHECKING:
    from oms.schemas.payloads import TicketPayload

_TITLE_BAD = re.compile(r"[\x00-\x1f\x7f]")
_GITHUB_URL = re.compile(
    r"https://github\.com/([^/?#\s]+)/([^/?#\s]+)/(?:issues|pull)/([1-9][0-9]{0,9})"
)
_LOCAL_ID = re.compile(r"tkt-([1-9][0-9]{0,9})")


@dataclass(frozen=True, slots=True)
class LeaseGrant:
    """What a new lease hands the worker (the token is shown once)."""

    ticket: Record
    token: str


def _title(title: str) -> str:
    title = title.strip()
    if not title or len(title) > 256 or _TITLE_BAD.search(title):
        raise InvalidInputError(
            "ticket title must be 1-256 characters on one line, without control characters"
        )
    return title


def _body(body: str) -> str:
    if len(body.encode("utf-8", "surrogatepass")) > LIMITS.ticket_body_bytes:
        raise InvalidInputError(f"ticket body is larger than {LIMITS.ticket_body_bytes} bytes")
    try:
        body.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise InvalidInputError("ticket body is not valid Unicode text") from exc
    return body


def _create(
    ws: Workspace,
    ticket_id: str,
    content: JsonObject,
    source: str,
    repository: str | None,
    priority: int | None = None,
) -> Record:
    sha = ws.store.ticket_content.put(content)
    nxt = machine.new(
        title=str(content["title"]),
        source=source,
        repository=repository,
        content_sha256=sha,
        created_at=ws.now(),
        repository_root=ws.config_root,
        added_by=ws.store.state.meta.key_id,
    )
    payload = nxt.payload if priority is None else {**nxt.payload, "priority": priority}
    result = ws.store.records("ticket").create(
        ticket_id,
        state=nxt.state,
        payload=as_json(payload),
        operation_id=stable_id("tkt-create", ticket_id, sha),
        actor=SYSTEM_ACTOR,
        observed_at=ws.now(),
    )
    return result.record


def add(ws: Workspace, title: str, body: str, priority: int | None = None) -> Record:
    """A new local ticket, `tkt-<n>` (`priority` 1-5, 1 first: the conductor's queue order; none =
    3)."""
    title, body = _title(title), _body(body)
    if priority is not None and not 1 <= priority <= 5:
        raise InvalidInputError(f"priority must be 1-5 (got {priority})")
    records = ws.store.records("ticket")
    numbers = [int(m.group(1)) for tid in records.ids() if (m := _LOCAL_ID.fullmatch(tid))]
    n = max(*numbers, ws.store.ticket_floor(), 0) + 1  # above every id ever given (ADR 0027)
    for _ in range(64):
        ticket_id = f"tkt-{n}"
        content: JsonObject = {
            "format": "oms-ticket-content-v1",
            "ticket_id": ticket_id,
            "source": "local",
            "title": title,
            "body": body,
            "repository": None,
            "url": None,
            "number": None,
        }
        try:
            return _create(ws, ticket_id, content, "local", None, priority)
        except VersionConflictError:
            n += 1  # another `ticket add` took this number
    raise ConflictError("could not allocate a ticket id; retry")


def import_github(ws: Workspace, data: bytes, repository: str | None = None) -> tuple[Record, bool]:
    """A ticket from `gh issue view --json number,title,body,url`; re-importing the same issue is a
    no-op."""
    if len(data) > LIMITS.github_import_bytes:
        raise InvalidInputError(f"GitHub JSON is larger than {LIMITS.github_import_bytes} bytes")
    return _import_one(ws, *_issue(loads_object(data), repository, ""))


def import_github_list(
    ws: Workspace, data: bytes, repository: str | None = None
) -> list[tuple[Record, bool]]:
    """The tickets of a list of issues, `gh issue list --json number,title,body,url`, in its
    order: at most `LIMITS.github_import_issues` a run, every one checked before the first is
    written (one bad entry: nothing imported). Each ticket is written whole or not at all (its
    content, then its first version), one after another: an import cut off leaves the tickets
    before it whole and none half, and its re-run imports the rest (an issue imported before is a
    no-op, as with one issue)."""
    if len(data) > LIMITS.github_import_bytes:
        raise InvalidInputError(f"GitHub JSON is larger than {LIMITS.github_import_bytes} bytes")
    found = loads(data)
    if not isinstance(found, list):
        raise InvalidInputError(f"expected a JSON list of issues (got {type(found).__name__})")
    most = LIMITS.github_import_issues
    if len(found) > most:
        raise InvalidInputError(
            f"{len(found)} issues in one import (at most {most}): nothing was imported",
            hint=f"import them in parts, e.g. `gh issue list --limit {most} --search ...`",
        )
    issues: dict[str, tuple[str, str, JsonObject]] = {}
    for n, doc in enumerate(found):
        if not isinstance(doc, dict):
            raise InvalidInputError(f"issue {n + 1} of the list is not a JSON object")
        ticket_id, slug, content = _issue(doc, repository, f"issue {n + 1} of the list: ")
        if issues.setdefault(ticket_id, (ticket_id, slug, content))[2] != content:
            raise InvalidInputError(f"issue {n + 1} of the list: #{content['number']} twice")
    return [_import_one(ws, *one) for one in issues.values()]


def _issue(doc: JsonObject, repository: str | None, where: str) -> tuple[str, str, JsonObject]:
    """An issue's ticket id, repository and ticket content, checked (`where`: which issue, for a
    list); nothing is written."""
    try:
        return _checked_issue(doc, repository)
    except InvalidInputError as exc:
        raise InvalidInputError(f"{where}{exc.message}", hint=exc.remedy or None) from None


def _checked_issue(doc: JsonObject, repository: str | None) -> tuple[str, str, JsonObject]:
    unknown = sorted(set(doc) - {"number", "title", "body", "url"})
    if unknown:
        raise InvalidInputError(
            f"GitHub JSON has unexpected fields {unknown} (expected number, title, body, url)"
        )
    for name, kind in (("number", int), ("title", str), ("body", str), ("url", str)):
        if not isinstance(doc.get(name), kind) or isinstance(doc.get(name), bool):
            raise InvalidInputError(f"GitHub JSON field {name} is missing or not {kind.__name__}")
    match = _GITHUB_URL.fullmatch(access.text(doc, "url"))
    if match is None:
        raise InvalidInputError(
            f"url {str(doc['url'])[:80]!r} is not a github.com issue or pull request URL"
        )
    slug, number = (
        check_repository(f"{match.group(1)}/{match.group(2)}"),
        access.integer(doc, "number"),
    )
    if int(match.group(3)) != number:
        raise InvalidInputError(f"url names #{match.group(3)} (expected #{number})")
    if repository is not None and check_repository(repository).lower() != slug.lower():
        raise InvalidInputError(f"issue belongs to {slug} (expected {repository})")
    ticket_id = f"gh-{number}-{digest('github-repository', slug.lower())[:8]}"
    content: JsonObject = {
        "format": "oms-ticket-content-v1",
        "ticket_id": ticket_id,
        "source": "github",
        "title": _title(access.text(doc, "title")),
        "body": _body(access.text(doc, "body")),
        "repository": slug,
        "url": access.text(doc, "url"),
        "number": number,
    }
    return ticket_id, slug, content


def _import_one(
    ws: Workspace, ticket_id: str, slug: str, content: JsonObject
) -> tuple[Record, bool]:
    """The ticket of one checked issue: created (its content, then its first version), or the one
    imported before with the same content — also when another import of it (another host's, another
    terminal's) created it between this one's read and its create (ADR 0043 amendment `names2`:
    that was an `operation-conflict`, and a list's import stopped there)."""
    existing = ws.store.records("ticket").read_if_exists(ticket_id)
    if existing is None:
        try:
            return _create(ws, ticket_id, content, "github", slug), True
        except VersionConflictError:  # its first version is there now: whose, and what?
            existing = ws.store.records("ticket").read_if_exists(ticket_id)
            if existing is None:
                raise
    if ws.store.ticket_content.address(content) != ticket_payload(existing)["content_sha256"]:
        raise ConflictError(f"ticket {ticket_id} was imported before with different content")
    return existing, False


def get(ws: Workspace, ticket_id: str) -> Record:
    """The latest version of a ticket of the repository `ws` works for; `OtherRepositoryError` for
    another's (ADR 0032: a ticket made before oms recorded its repository is the state root's)."""
    ticket = ws.store.records("ticket").read(check(ticket_id, "ticket id"))
    foreign = another_repository(ws, ticket)
    if foreign is not None:
        raise foreign
    return ticket


def another_repository(ws: Workspace, ticket: Record) -> OtherRepositoryError | None:
    """Why `ticket` is not for the repository `ws` works for, or None when it is (ADR 0032). On a
    store the repository's committed `[store]` names by its own `prefix` (hosts sharing one etcd
    cluster, each with its clone at its own path: ADR 0043 amendment `repoid`), a ticket added by
    this state root's key or by a key the person pinned for another host of theirs is the
    repository's, wherever that host's clone is (amendment `repoparts`: a committed prefix is
    the repository's word, which another repository can copy; the pins are the person's);
    otherwise, and under the default prefix, which is the state root's, the clone's path still
    decides, as on files."""
    owner = ticket_payload(ticket).get("repository_root")
    if owner is None or owner == ws.config_root or _named_by_us(ws, ticket):
        return None
    theirs, ours = shown(str(owner)), shown(ws.config_root)
    why = f"ticket {ticket.record_id} belongs to the repository {theirs} (this is {ours})"
    return OtherRepositoryError(why, hint=f"run oms in {theirs}")


def _named_by_us(ws: Workspace, ticket: Record) -> bool:
    """Is the store one the repository's committed configuration names for itself (an etcd store
    under an explicit `prefix`), and `ticket` added there by a key of this person's hosts (this
    state root's, or one pinned: `Workspace.ticket_keys`; None: a launched worker's own process,
    whose deliverer judged its ticket)?"""
    store = ws.config().store
    if store.backend != "etcd" or store.prefix is None:
        return False
    return ws.ticket_keys is None or ticket_payload(ticket).get("added_by") in ws.ticket_keys


def content(ws: Workspace, ticket: Record) -> JsonObject:
    """The ticket's verified content."""
    return ws.store.ticket_content.get(ticket.record_id, ticket_payload(ticket)["content_sha256"])


def list_all(ws: Workspace) -> list[Record]:
    """Every ticket, latest versions."""
    return ws.store.latest("ticket").checked()


def _transition(ws: Workspace, ticket: Record, nxt: Next[TicketPayload], op: str) -> Record:
    change = Change(nxt.state, as_json(nxt.payload), op, SYSTEM_ACTOR, _after(ws, ticket))
    return ws.store.records("ticket").write_next(ticket, change).record


def _after(ws: Workspace, record: Record) -> str:
    return next_after(record.observed_at, ws.now())


def _not_open(ticket: Record) -> str:
    """What to do about a ticket that is not open to a lease."""
    tid = ticket.record_id
    if ticket.state == TicketState.LEASED:
        holder = text_set(ticket_payload(ticket)["worker_id"], "worker_id")
        until = text_set(ticket_payload(ticket)["lease_expires_at"], "lease_expires_at")
        return (
            f"it is leased to {holder} until {until}: that worker goes on with its token "
            f"($OMS_LEASE_TOKEN), or `oms ticket expire` returns it to open once the lease lapses"
        )
    if ticket.state == TicketState.BLOCKED:
        return f"oms ticket reopen {tid} --person NAME sends it back to the queue"
    return f"{tid} is {ticket.state}: add a new ticket (`oms ticket add`) for more work"


def lease(ws: Workspace, ticket_id: str, worker_id: str, minutes: int | None = None) -> LeaseGrant:
    """Lease an open ticket to `worker_id` with a fresh token and session id."""
    check(worker_id, "worker id", OPAQUE_ID)
    ticket = get(ws, ticket_id)
    if ticket.state != TicketState.OPEN:
        raise IllegalTransitionError(
            f"ticket {ticket_id}", ticket.state, "lease", hint=_not_open(ticket)
        )
    launch_paths.refuse(ws.store.path, ws.config_root, ws.config())  # before any attempt (ADR 0031)
    duration = minutes if minutes is not None else ws.config().lease_minutes
    if not 1 <= duration <= 10080:
        raise InvalidInputError(f"lease minutes must be 1-10080 (got {duration})")
    token = secrets.token_hex(32)
    now = ws.now()
    nxt = machine.lease(
        ticket.state,
        ticket_payload(ticket),
        worker_id=worker_id,
        token=token,
        session_id=new_uuid(),
        expires_at=add_ms(now, duration * 60_000),
        now=now,
        host=ws.host(),
    )
    op = stable_id("tkt-lease", ticket.record_id, ticket.version)
    return LeaseGrant(_transition(ws, ticket, nxt, op), token)


def renew(ws: Workspace, ticket_id: str, token: str, minutes: int | None = None) -> Record:
    """Extend a live lease (the token proves the holder)."""
    ticket = get(ws, ticket_id)
    duration = minutes if minutes is not None else ws.config().lease_minutes
    now = ws.now()
    nxt = machine.renew(
        ticket.state,
        ticket_payload(ticket),
        token=token,
        expires_at=add_ms(now, duration * 60_000),
        now=now,
    )
    return _transition(ws, ticket, nxt, stable_id("tkt-renew", ticket.record_id, ticket.version))


def finish(ws: Workspace, ticket_id: str, token: str, outcome: str, reason: str | None) -> Record:
    """The lease holder ends the ticket (`done` or `blocked`)."""
    ticket = get(ws, ticket_id)
    nxt = machine.finish(
        ticket.state,
        ticket_payload(ticket),
        outcome=outcome,
        token=token,
        now=ws.now(),
        reason=_reason(reason) if reason else None,
    )
    return _transition(ws, ticket, nxt, stable_id("tkt-finish", ticket.record_id, ticket.version))


def block(ws: Workspace, ticket_id: str, reason: str) -> Record:
    """A person blocks an open ticket."""
    ticket = get(ws, ticket_id)
    nxt = machine.block(ticket.state, ticket_payload(ticket), reason=_reason(reason))
    return _transition(ws, ticket, nxt, stable_id("tkt-block", ticket.record_id, ticket.version))


def retry(
    ws: Workspace, ticket: Record, *, session_id: str, failure: JsonObject, retry_after: str
) -> Record:
    """The attempt bound to `session_id` failed: the ticket is open for the next one after
    `retry_after`."""
    nxt = machine.retry(
        ticket.state,
        ticket_payload(ticket),
        session_id=session_id,
        attempt=access.integer(failure, "attempt"),
        failure=failure,
        retry_after=retry_after,
    )
    return _transition(
        ws,
        ticket,
        nxt,
        stable_id("tkt-retry", ticket.record_id, access.integer(failure, "attempt")),
    )


def give_up(
    ws: Workspace,
    ticket: Record,
    *,
    session_id: str,
    attempt: int,
    reason: str,
    failure: JsonObject | None = None,
) -> Record:
    """The attempt bound to `session_id` ends the ticket `blocked` for a person (a quarantine keeps
    the attempt's `failure` with the others)."""
    nxt = machine.give_up(
        ticket.state,
        ticket_payload(ticket),
        session_id=session_id,
        attempt=attempt,
        reason=_reason(reason),
        failure=failure,
    )
    return _transition(ws, ticket, nxt, stable_id("tkt-give-up", ticket.record_id, attempt))


def complete(
    ws: Workspace, ticket: Record, *, session_id: str, attempt: int, reason: str
) -> Record:
    """The attempt bound to `session_id` recorded a completed result: the ticket is done."""
    nxt = machine.complete(
        ticket.state,
        ticket_payload(ticket),
        session_id=session_id,
        attempt=attempt,
        reason=_reason(reason),
    )
    return _transition(ws, ticket, nxt, stable_id("tkt-complete", ticket.record_id, attempt))


def new_session(ws: Workspace, ticket: Record) -> Record:
    """The leased attempt goes on under a fresh session id: its dispatch ended before it was
    accepted (cancelled, rejected), and a new proposal needs a dispatch id of its own."""
    nxt = machine.new_session(
        ticket.state,
        ticket_payload(ticket),
        session_id=text_set(ticket_payload(ticket)["session_id"], "session_id"),
        attempt=ticket_payload(ticket)["attempt"],
        fresh=new_uuid(),
        now=ws.now(),
    )
    op = stable_id("tkt-new-session", ticket.record_id, ticket.version)
    return _transition(ws, ticket, nxt, op)


def wait_for_person(ws: Workspace, ticket: Record, reason: str) -> Record:
    """The ticket waits for a person (ADR 0031): `reason` says what to fix; a leased one (its
    attempt never launched) gives its lease back. Nothing is written when it waits for this
    already."""
    if ticket.state == TicketState.OPEN and ticket_payload(ticket)["reason"] == _reason(reason):
        return ticket
    session_id = ticket_payload(ticket).get("session_id")
    nxt = machine.wait(
        ticket.state,
        ticket_payload(ticket),
        reason=_reason(reason),
        session_id=session_id if isinstance(session_id, str) else None,
        attempt=ticket_payload(ticket)["attempt"],
    )
    return _transition(ws, ticket, nxt, stable_id("tkt-wait", ticket.record_id, ticket.version))


REOPENED = "ticket-reopened"  # the event a person's reopen or retry leaves (with their name)


def reopen(
    ws: Workspace,
    ticket_id: str,
    *,
    person: str,
    reason: str,
    now_only: bool = False,
) -> Record:
    """A person's decision (ADR 0031): a blocked ticket (a quarantine too) is open for its next
    attempt, now; with `now_only` (`oms ticket retry`) an open ticket waiting for its backoff is
    taken without waiting too. Journaled: the record's version names the person as its actor, and
    a `ticket-reopened` event keeps their name and reason. One-line refusals otherwise."""
    ticket = require(ws, check(ticket_id, "ticket id"))
    why = _reason(reason)
    said = f"reopened by {one_line(person, 80)}: {why}"
    if ticket.state == machine.TicketState.BLOCKED:
        nxt = machine.reopen(ticket.state, ticket_payload(ticket), reason=said)
    elif ticket.state == machine.TicketState.OPEN and now_only:
        nxt = machine.retry_now(ticket.state, ticket_payload(ticket), reason=said)
    else:
        hint = _reopen_hint(ws, ticket)
        raise IllegalTransitionError("ticket", ticket.state, "reopen", hint=hint)
    op = stable_id("tkt-reopen", ticket.record_id, ticket.version)
    change = Change(nxt.state, as_json(nxt.payload), op, person_actor(person), _after(ws, ticket))
    done = ws.store.records("ticket").write_next(ticket, change).record
    ws.store.events.create(
        stable_id("evt-reopen", ticket.record_id, done.version),
        REOPENED,
        done.observed_at,
        {
            "ticket_id": ticket.record_id,
            "ticket_version": done.version,
            "from_state": ticket.state,
            "attempt": ticket_payload(done)["attempt"],
            "person": one_line(person, 128),
            "reason": why,
        },
    )
    return done


def _reopen_hint(ws: Workspace, ticket: Record) -> str:
    if ticket.state == machine.TicketState.OPEN:
        return f"it is open already: `oms ticket retry {ticket.record_id}` takes it without waiting"
    if machine.is_expired(ticket.state, ticket_payload(ticket), ws.now()):
        # its holder's token can end it no more (`check_lease`): the expiry returns it (and parks
        # its worker, if one runs), as a tick would; then the retry, with the person's name
        until = ticket_payload(ticket)["lease_expires_at"]
        return (
            f"its lease ran out at {until}: `oms ticket expire` returns it to open, then "
            f"`oms ticket retry {ticket.record_id}`"
        )
    if ticket.state == machine.TicketState.LEASED:
        attempt = ticket_payload(ticket)["attempt"]
        held = f"its attempt {attempt} holds it (leased to {ticket_payload(ticket)['worker_id']})"
        dispatch = dispatch_of(ws, ticket, attempt)
        if dispatch is not None and dispatch_payload(dispatch).get("delivery_event_id") is not None:
            return f"{held}: `oms worker stop {dispatch.record_id}` ends it for a person first"
        return f"{held}, not launched: the lease holder ends it (`oms ticket block --token`)"
    return "a done ticket stays done: add a new ticket for more work"


def check_person(person: str) -> str:
    """`person`, a name a person's signed verdict can keep (1 to `Limits.person_name_chars`
    characters, none a control character: the evidence schema's bound); else refused in one
    line, before any lock or write."""
    if 0 < len(person) <= LIMITS.person_name_chars and not _CONTROL.search(person):
        return person
    raise InvalidInputError(
        f"a person's name is 1 to {LIMITS.person_name_chars} characters, none a control "
        f"character (got {len(person)} characters: {shown(person, 40)})",
        hint="name the person with --person NAME",
    )


_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def person_actor(person: str) -> str:
    """The ledger's actor for a person's decision: `person:<name>`, lowercased, accents taken
    off, runs of anything but ASCII letters and digits one hyphen (the name as typed is kept in
    the event). A name that loses more — a letter outside ASCII, its end past 60 characters, all
    of it — ends in a digest of the name as typed, so two people are never one actor."""
    folded = unicodedata.normalize("NFKD", person)
    lost = any(not c.isascii() and not unicodedata.combining(c) for c in folded)
    name = re.sub(r"[^a-z0-9]+", "-", folded.encode("ascii", "ignore").decode().lower())
    name = name.strip("-")
    if lost or not name or len(name) > _ACTOR_NAME:
        tag = sha256_hex(unicodedata.normalize("NFC", person).casefold().encode())[:8]
        name = "-".join(filter(None, (name[: _ACTOR_NAME - 10].strip("-"), tag)))
    return f"person:{name}"


_ACTOR_NAME = 60  # the longest name a person's actor keeps as typed


def dispatch_id(ticket: Record, attempt: int) -> str:
    """The id of the dispatch of the ticket's leased `attempt` under its current session: the one
    home of the rule (`dispatches.propose` gives it; a reader asks it)."""
    session_id = text_set(ticket_payload(ticket)["session_id"], "session_id")
    return stable_id("dsp", ticket.record_id, attempt, session_id)


def dispatch_of(ws: Workspace, ticket: Record, attempt: int) -> Record | None:
    """The dispatch of the ticket's leased attempt: its id is the one `dispatches.propose` gives it
    (read alone, so that another dispatch's damaged record never decides this ticket)."""
    if not isinstance(ticket_payload(ticket).get("session_id"), str):
        return None
    return ws.store.records("dispatch").read_if_exists(dispatch_id(ticket, attempt))


def expire_due(
    ws: Workspace,
    skipped: list[str] | None = None,
    keep: Callable[[Record], str | None] | None = None,
) -> list[Record]:
    """Return every ticket whose lease has run out to `open` (attempt + 1), with `lease-expiry`
    evidence — but not one whose attempt recorded a result: the conductor resolves it (the result is
    never lost). A ticket that cannot be read, or whose attempt's dispatch cannot, is left as it is
    (a line in `skipped`, if given): one damaged record never stops the others' expiry; so is one
    for which `keep` names a reason (the conductor's: its worker waits for a person)."""
    now = ws.now()
    expired = []
    latest = ws.store.live("ticket")  # the open and leased ones only (`store/live.py`)
    if latest.errors and skipped is None:
        latest.checked()
    for ticket_id, exc in sorted(latest.errors.items()):
        if skipped is not None:
            skipped.append(f"{ticket_id}: {one_line(exc.message)}")
    for ticket in latest.in_states((machine.TicketState.LEASED,)):
        ticket_id = ticket.record_id
        try:
            if not machine.is_expired(ticket.state, ticket_payload(ticket), now):
                continue
            kept = None if keep is None else keep(ticket)
            if kept is not None:
                if skipped is not None:
                    skipped.append(f"{ticket_id}: its lease ran out; kept leased ({kept})")
                continue
            done = _expire(ws, ticket, now)
            if done is not None:
                expired.append(done)
        except OmsError as exc:
            if skipped is None:
                raise
            skipped.append(f"{ticket_id}: {one_line(exc.message)}")
    return expired


def _expire(ws: Workspace, ticket: Record, now: str) -> Record | None:
    """Expire one ticket whose lease ran out (None: its attempt recorded a result, left to the
    conductor; or another writer moved it on meanwhile and it no longer needs expiring).

    Another process may write the ticket between the read and the expiry (the conductor, a
    person's command): the expiry then decides again on what it finds, as `RecordStore.update`
    does, rather than stop with the ticket half-judged. Another host's expiry of the same lapse
    (ADR 0043 amendment `names2`) first shows as its lease-expiry evidence, addressed by content
    as this one's and signed by its key (`SignatureError` here): the ticket read again says
    whether it was expired meanwhile; if not, the evidence is not vouched for: that is raised."""
    for _ in range(LIMITS.record_race_rounds):
        try:
            return _expire_once(ws, ticket, now)
        except (VersionConflictError, SignatureError) as exc:
            ticket = ws.store.records("ticket").read(ticket.record_id)
            if ticket.state != machine.TicketState.LEASED or not machine.is_expired(
                ticket.state, ticket_payload(ticket), now
            ):
                return None
            if isinstance(exc, SignatureError):
                raise
    return _expire_once(ws, ticket, now)


def _expire_once(ws: Workspace, ticket: Record, now: str) -> Record | None:
    """One try, under its attempt's end lock (`chain/end_lock.py`) if it has a dispatch: a message
    being typed into its pane is typed before the lapse is written. The ticket read again under
    the lock may name another dispatch of the attempt (a person's `--replace` held the lock while
    it proposed under a fresh session): the expiry is decided again, under that one's lock —
    else it ended the replaced proposal and left the new one live for ever."""
    attempt, seen = ticket_payload(ticket)["attempt"], ticket.version
    dispatch = dispatch_of(ws, ticket, attempt)
    if dispatch is None:  # none yet: one proposed as the lapse is written is ended after it
        expired = _expire_locked(ws, ticket, now, None)
        if expired is not None:
            end_late_proposal(ws, ticket, attempt)
        return expired
    with end_lock(ws, dispatch.record_id):  # read again under it: a renewal may have come first
        ticket = ws.store.records("ticket").read(ticket.record_id)
        if ticket_payload(ticket)["attempt"] != attempt or not machine.is_expired(
            ticket.state, ticket_payload(ticket), now
        ):
            return None
        if dispatch_id(ticket, attempt) != dispatch.record_id:
            raise VersionConflictError("ticket", ticket.record_id, seen, ticket.version)
        dispatch = ws.store.records("dispatch").read(dispatch.record_id)
        return _expire_locked(ws, ticket, now, dispatch)


def _expire_locked(
    ws: Workspace, ticket: Record, now: str, dispatch: Record | None
) -> Record | None:
    attempt = ticket_payload(ticket)["attempt"]
    if dispatch is not None and dispatch.state in (
        DispatchState.RESULT_RECEIVED,
        DispatchState.RESOLVED,
    ):
        return None
    expired_at = text_set(ticket_payload(ticket)["lease_expires_at"], "lease_expires_at")
    evidence = ws.store.put_evidence(
        {
            "format": "oms-evidence-v1",
            "evidence_kind": "lease-expiry",
            "ticket_id": ticket.record_id,
            "producer": "oms",
            "producer_role": None,
            "created_at": expired_at,
            "payload": {
                "attempt": attempt,
                "lease_expired_at": expired_at,
                "worktree_start_commit": None
                if dispatch is None
                else dispatch_payload(dispatch)["worktree_start_commit"],
            },
        }
    )
    nxt = machine.expire(ticket.state, ticket_payload(ticket), now=now, evidence_ref=evidence.ref)
    expired = _transition(ws, ticket, nxt, stable_id("tkt-expire", ticket.record_id, attempt))
    if dispatch is not None and dispatch.state == DispatchState.PROPOSED:
        _end_lapsed(ws, dispatch, attempt)
    return expired


def end_late_proposal(ws: Workspace, ticket: Record, attempt: int) -> None:
    """Cancel the proposal of the session `ticket` names, written as its attempt lapsed (attack
    `replacegap`). An expiry that found no dispatch writes the lapse and then looks for one; a
    proposal (`dispatches.propose`: a person's `--replace` between its session and its proposal,
    or any proposal racing the lapse) is written and then looks at the ticket: whichever writes
    second sees the other's write, so a proposal of a lapsed attempt never stays `proposed`."""
    late = dispatch_of(ws, ticket, attempt)
    if late is None or late.state != DispatchState.PROPOSED:
        return
    with end_lock(ws, late.record_id):
        late = ws.store.records("dispatch").read(late.record_id)
        if late.state == DispatchState.PROPOSED:
            _end_lapsed(ws, late, attempt)


def _end_lapsed(ws: Workspace, dispatch: Record, attempt: int) -> None:
    """Cancel the proposed dispatch of an attempt whose lease just ran out (under its end lock,
    which the expiry holds): no approval or accept can take it now (its lease token is gone), and
    left `proposed` it was a live attempt for ever — a second beside the next attempt's, and an
    ended ticket never compacted (ADR 0043, amendment `cross7`)."""
    nxt = dispatch_machine.cancel(
        dispatch.state,
        dispatch.payload,
        reason=f"its attempt's lease ran out (attempt {attempt}): it can no longer be accepted",
    )
    change = Change(
        nxt.state,
        as_json(nxt.payload),
        stable_id("dsp-cancel", dispatch.record_id, dispatch.state),
        SYSTEM_ACTOR,
        _after(ws, dispatch),
    )
    ws.store.records("dispatch").write_next(dispatch, change)


def _reason(text: str) -> str:
    flat = one_line(text)
    if not flat:
        raise InvalidInputError("a reason is required")
    return flat


def require(ws: Workspace, ticket_id: str) -> Record:
    """A ticket that must exist (for other services)."""
    try:
        return get(ws, ticket_id)
    except RecordNotFoundError:
        raise RecordNotFoundError(f"no ticket {ticket_id}", hint="see `oms ticket list`") from None
