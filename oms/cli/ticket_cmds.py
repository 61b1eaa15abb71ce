"""`oms ticket …` and `oms worktree …`."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from oms.cli.common import (
    ConfigRootOpt,
    JsonOpt,
    StateRootOpt,
    TokenOpt,
    complete_ticket,
    confirm_person,
    emit,
    table,
    text_for_terminal,
    workspace,
)
from oms.errors import InvalidInputError, UsageError, shown
from oms.fsio.outside import read_user_file
from oms.limits import LIMITS
from oms.services.workspace import shapes
from oms.store.payloads import ticket_payload

if TYPE_CHECKING:
    from oms.canonical import JsonObject
    from oms.services.workspace import Workspace

app = typer.Typer(
    help=(
        "Tickets and their leases."
        "\n\nExample: oms ticket add --title 'Fix the flaky test' < notes.md"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)
worktree_app = typer.Typer(
    help=("The git worktree of a ticket.\n\nExample: oms worktree create tkt-3"),
    no_args_is_help=True,
    rich_markup_mode=None,
)

TicketArg = Annotated[
    str,
    typer.Argument(
        help="A ticket's id (`oms ticket list`) or a unique prefix of one.",
        metavar="TICKET",
        autocompletion=complete_ticket,
    ),
]


def _ticket(ws: Workspace, handle: str) -> str:
    from oms.services.chain import handles

    return handles.ticket(ws, handle)


def _read_input(path: str | None) -> bytes:
    if path is None or path == "-":
        if sys.stdin.isatty():
            raise UsageError("give the input as a file, or pipe it on stdin")
        data = sys.stdin.buffer.read(LIMITS.ticket_input_bytes + 1)
    else:
        data = read_user_file(path, LIMITS.ticket_input_bytes)
    if len(data) > LIMITS.ticket_input_bytes:
        raise InvalidInputError(f"input is larger than {LIMITS.ticket_input_bytes} bytes")
    return data


def _utf8(data: bytes, where: str) -> str:
    """`data` as text, or the one-line reason it is not UTF-8 (exit 1, not an internal error)."""
    try:
        return data.decode("utf-8", "strict")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(
            f"the ticket's body from {where} is not UTF-8 ({_byte(data, exc.start)})",
            hint="convert it first, e.g. `iconv -f latin1 -t utf-8`; nothing was recorded",
        ) from None


def _byte(data: bytes, at: int) -> str:
    return f"byte 0x{data[at]:02x} at offset {at}"


def _text(value: str, option: str) -> str:
    """An option's text, refused in one line when the terminal gave bytes that are not UTF-8."""
    try:
        value.encode("utf-8", "strict")
    except UnicodeEncodeError as exc:
        raw = value.encode("utf-8", "surrogateescape")
        at = len(value[: exc.start].encode("utf-8", "surrogateescape"))  # (exc.start: characters)
        raise InvalidInputError(
            f"{option} is not UTF-8 ({_byte(raw, at)})",
            hint="give it as UTF-8 text (check the terminal's locale); nothing was recorded",
        ) from None
    return value


@app.command("add")
def add(
    title: Annotated[str, typer.Option("--title", help="One-line title.")],
    body_text: Annotated[str | None, typer.Option("--body", help="The body, as text.")] = None,
    body_file: Annotated[
        str | None, typer.Option("--body-file", help="Body from this file ('-' or omit: stdin).")
    ] = None,
    no_body: Annotated[bool, typer.Option("--no-body", help="The ticket has no body.")] = False,
    priority: Annotated[
        int | None,
        typer.Option(
            "--priority", min=1, max=5, help="1 (first) to 5; the conductor's order (default 3)."
        ),
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Add a local ticket.

    Examples:

    \b
      oms ticket add --title 'Fix the flaky test' < notes.md
      oms ticket add --title 'Bump the lock file' --no-body --priority 1
    """
    from oms.services.chain import tickets

    if sum((body_text is not None, body_file is not None, no_body)) > 1:
        raise UsageError("give the body one way: --body, --body-file or --no-body")
    _text(title, "--title")
    if body_text is not None:
        body = _text(body_text, "--body")
    else:
        where = "--body-file" if body_file else "stdin"
        body = "" if no_body else _utf8(_read_input(body_file), where)
    with workspace(state_root_, config_root_, etcd=True) as ws:  # correct on etcd (ADR 0043)
        rec = tickets.add(ws, title, body, priority)
    if json_out:
        emit({"ok": True, "ticket": shapes.ticket(rec)})
    else:
        typer.echo(f"added {rec.record_id}: {ticket_payload(rec)['title']}")


@app.command("import")
def import_(
    source: Annotated[
        str | None,
        typer.Argument(
            help=(
                "JSON from `gh issue view --json number,title,body,url`, or a list of issues from "
                "`gh issue list --json number,title,body,url` (file, or '-'/omitted: stdin)."
            )
        ),
    ] = None,
    repository: Annotated[
        str | None, typer.Option("--repository", help="Expected owner/name.")
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Import a GitHub issue as a ticket, or a list of up to 100 issues, each ticket whole
    (idempotent: a re-run imports what an interrupted one did not).

    Examples:

    \b
      gh issue view 42 --json number,title,body,url | oms ticket import
      oms ticket import issue.json --repository acme/shop
      gh issue list --limit 100 --json number,title,body,url | oms ticket import
    """
    from oms.services.chain import tickets

    data = _read_input(source)
    with workspace(state_root_, config_root_, etcd=True) as ws:  # content, then a create (0043)
        if data.lstrip()[:1] == b"[":
            done = tickets.import_github_list(ws, data, repository)
        else:
            done = [tickets.import_github(ws, data, repository)]
    if json_out and data.lstrip()[:1] == b"[":
        emit(
            {
                "ok": True,
                "imported": [{"created": c, "ticket": shapes.ticket(r)} for r, c in done],
            }
        )
    elif json_out:
        emit({"ok": True, "created": done[0][1], "ticket": shapes.ticket(done[0][0])})
    else:
        for rec, created in done:
            typer.echo(
                f"{'imported' if created else 'already imported'} {rec.record_id} from "
                f"{ticket_payload(rec)['repository']}"
            )


@app.command("list")
def list_(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """List tickets.

    Examples:

    \b
      oms ticket list
      oms ticket list --json
    """
    from oms.services.chain import tickets

    with workspace(state_root_, config_root_, etcd=True) as ws:
        recs = tickets.list_all(ws)
    if json_out:
        emit({"ok": True, "tickets": [shapes.ticket(r) for r in recs]})
        return
    table(
        ("id", "state", "attempt", "source", "worker", "expires", "title"),
        [
            (
                r.record_id,
                r.state,
                ticket_payload(r)["attempt"],
                ticket_payload(r)["source"],
                ticket_payload(r)["worker_id"],
                ticket_payload(r)["lease_expires_at"],
                ticket_payload(r)["title"],
            )
            for r in recs
        ],
    )


@app.command("show")
def show(
    ticket: TicketArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Show a ticket, its (verified) content, and where oms kept its attempts' uncommitted work.

    Examples:

    \b
      oms ticket show tkt-3
      oms ticket show gh-42    (a unique prefix of gh-42-1a2b3c4d)
    """
    from oms.services.admin import compaction
    from oms.services.chain import dispatches, tickets
    from oms.services.checkout import salvage

    with workspace(state_root_, config_root_, etcd=True) as ws:  # the cluster's (ADR 0043)
        ticket = _ticket(ws, ticket)
        rec = tickets.require(ws, ticket)
        content = tickets.content(ws, rec)
        waits = dispatches.ticket_waits(ws, rec)  # its dispatch waits for a person's approval
        kept = salvage.listed(ws.config_root, rec.record_id)  # refs of the config repository
        archived = compaction.summary(ws, rec.record_id)  # on a cluster, its key (ADR 0043)
    if json_out:
        emit(
            {
                "ok": True,
                "ticket": shapes.ticket(rec),
                "content": content,
                "salvaged": kept,
                "compacted": archived,
                "waits_for_person": waits,
            }
        )
        return
    for key in (
        "state",
        "attempt",
        "source",
        "repository",
        "worker_id",
        "session_id",
        "lease_expires_at",
        "reason",
    ):
        value = rec.payload.get(key) if key != "state" else rec.state
        typer.echo(f"{key:<17} {value if value is not None else '-'}")
    if waits is not None:
        typer.echo(f"{'waits':<17} {waits}")
    typer.echo(f"{'url':<17} {content.get('url') or '-'}")
    for line in _changes_requested(ticket_payload(rec).get("changes_requested")):
        typer.echo(text_for_terminal(line))
    for (
        row
    ) in kept:  # `git checkout <ref> -- .` or `git diff <commit>^ <commit>` brings the work back
        typer.echo(f"{'salvaged':<17} {row['ref']} {str(row['commit'])[:12]} {row['at']}")
    if archived is not None:  # its dispatches, workers, sessions, evidence and events: one archive
        detail = archived.get("error") or f"{archived['files']} files"
        typer.echo(f"{'compacted':<17} {archived['archive']} ({detail})")
    typer.echo(text_for_terminal(f"\n# {content['title']}\n\n{content['body']}"))


def _changes_requested(found: object) -> list[str]:
    """The lines of a ticket's request for changes (ADR 0039): who asked, of which result, and
    each comment as written; none without one."""
    if not isinstance(found, dict):
        return []
    commit = str(found.get("result_commit", ""))[:12]
    out = [
        f"{'changes':<17} requested by {found.get('person')} of "
        f"{found.get('dispatch_id')} (commit {commit})"
    ]
    for c in found.get("comments") or []:
        where = f"{c.get('path')}:{c.get('line')}: " if c.get("path") is not None else ""
        for n, text in enumerate(str(c.get("text", "")).splitlines()):
            out.append(f"{'  comment' if n == 0 else '':<17} {where if n == 0 else ''}{text}")
    return out


@app.command("lease")
def lease(
    ticket: TicketArg,
    worker: Annotated[
        str, typer.Option("--worker", help="The worker (pool slot) taking the lease.")
    ],
    minutes: Annotated[
        int | None, typer.Option("--minutes", help="Lease length (default: config lease).")
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Lease an open ticket; prints the lease token once.

    Examples:

    \b
      oms ticket lease tkt-3 --worker w1
      oms ticket lease tkt-3 --worker w1 --minutes 120 --json
    """
    from oms.services.chain import tickets

    with workspace(state_root_, config_root_, etcd=True) as ws:  # compare-and-set (ADR 0043)
        ticket = _ticket(ws, ticket)
        grant = tickets.lease(ws, ticket, worker, minutes)
    rec = grant.ticket
    if json_out:
        emit({"ok": True, "ticket": shapes.ticket(rec), "lease_token": grant.token})
        return
    typer.echo(
        f"leased {rec.record_id} to {ticket_payload(rec)['worker_id']} until "
        f"{ticket_payload(rec)['lease_expires_at']}"
    )
    typer.echo(f"session {ticket_payload(rec)['session_id']}")
    typer.echo(f"token   {grant.token}   (export OMS_LEASE_TOKEN=…; shown once)")


@app.command("renew")
def renew(
    ticket: TicketArg,
    token: TokenOpt,
    minutes: Annotated[int | None, typer.Option("--minutes")] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Extend a live lease.

    Example:

    \b
      OMS_LEASE_TOKEN=... oms ticket renew tkt-3 --minutes 60
    """
    from oms.services.chain import tickets

    with workspace(state_root_, config_root_, etcd=True) as ws:  # compare-and-set (ADR 0043)
        ticket = _ticket(ws, ticket)
        rec = tickets.renew(ws, ticket, token, minutes)
    if json_out:
        emit({"ok": True, "ticket": shapes.ticket(rec)})
    else:
        typer.echo(f"renewed {rec.record_id} until {ticket_payload(rec)['lease_expires_at']}")


@app.command("expire")
def expire(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """Return tickets whose lease has run out to open (attempt + 1, with lease-expiry evidence); the
    workers of the expired attempts are parked (their panes and worktrees kept).

    Example:

    \b
      oms ticket expire
    """
    from oms.services.chain import fence

    with workspace(state_root_, config_root_, etcd=True) as ws:  # as a tick does (ADR 0043)
        recs, parked = fence.expire_leases(ws)
    if json_out:
        emit({"ok": True, "expired": [shapes.ticket(r) for r in recs], "parked_workers": parked})
        return
    for rec in recs:
        typer.echo(f"expired {rec.record_id}: open again, attempt {ticket_payload(rec)['attempt']}")
    for worker_id in parked:
        typer.echo(
            f"parked worker {worker_id}: its attempt is fenced (stop "
            f"it with `oms worker stop {worker_id}`)"
        )
    typer.echo(f"{len(recs)} lease{'s' if len(recs) != 1 else ''} expired")


@app.command("done")
def done(
    ticket: TicketArg,
    token: TokenOpt,
    reason: Annotated[str | None, typer.Option("--reason")] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """The lease holder marks the ticket done.

    Example:

    \b
      OMS_LEASE_TOKEN=... oms ticket done tkt-3 --reason 'merged'
    """
    _finish(ticket, token, "done", reason, state_root_, config_root_, json_out)


@app.command("block")
def block(
    ticket: TicketArg,
    reason: Annotated[str, typer.Option("--reason", help="Why.")],
    token: Annotated[
        str | None,
        typer.Option(
            "--token", envvar="OMS_LEASE_TOKEN", help="For a leased ticket: the lease token."
        ),
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Block a ticket: the lease holder (with --token) or a person (an open ticket).

    Example:

    \b
      oms ticket block tkt-3 --reason 'waits for the API change'
    """
    if token:
        _finish(ticket, token, "blocked", reason, state_root_, config_root_, json_out)
        return
    from oms.services.chain import tickets

    with workspace(state_root_, config_root_, etcd=True) as ws:  # compare-and-set (ADR 0043)
        ticket = _ticket(ws, ticket)
        rec = tickets.block(ws, ticket, reason)
    if json_out:
        emit({"ok": True, "ticket": shapes.ticket(rec)})
    else:
        typer.echo(f"blocked {rec.record_id}")


PersonOpt = Annotated[
    str | None,
    typer.Option("--person", help="Who decides (needed off a terminal; kept in the ledger)."),
]
YesOpt = Annotated[bool, typer.Option("--yes", help="No typed confirmation (needs --person).")]
ReasonOpt = Annotated[str, typer.Option("--reason", help="Why (kept with the person's name).")]


@app.command("reopen")
def reopen(
    ticket: TicketArg,
    reason: ReasonOpt = "a person reopened it",
    person: PersonOpt = None,
    yes: YesOpt = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """A person sends a blocked ticket (an agent's question, a stop, a quarantine) back to the
    queue: its next attempt starts at the conductor's next tick, its failures counted afresh.

    Examples:

    \b
      oms ticket reopen tkt-3 --reason 'the login is fixed'
      oms ticket reopen tkt-3 --reason 'retry' --person ann --yes
    """
    _reopen(ticket, reason, person, yes, state_root_, config_root_, json_out, now_only=False)


@app.command("retry")
def retry(
    ticket: TicketArg,
    reason: ReasonOpt = "a person asked for a retry",
    person: PersonOpt = None,
    yes: YesOpt = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """As `reopen`, and an open ticket waiting for its backoff is taken at the next tick too.

    Example:

    \b
      oms ticket retry tkt-3 --reason 'the flake is fixed'
    """
    _reopen(ticket, reason, person, yes, state_root_, config_root_, json_out, now_only=True)


def _reopen(
    ticket: str,
    reason: str,
    person: str | None,
    yes: bool,
    state: str | None,
    config: str | None,
    json_out: bool,
    *,
    now_only: bool,
) -> None:
    from oms.services.chain import tickets

    with workspace(state, config, etcd=True) as ws:  # the person confirms the whole id
        ticket = _ticket(ws, ticket)
    verb = "retry" if now_only else "reopen"
    question = f"{verb.capitalize()} {ticket} as yourself?"
    who, _ = confirm_person(person, question=question, expect=ticket, yes=yes)
    with workspace(state, config, etcd=True) as ws:  # compare-and-set, then its event (ADR 0043)
        rec = tickets.reopen(ws, ticket, person=who, reason=reason, now_only=now_only)
    if json_out:
        emit({"ok": True, "ticket": shapes.ticket(rec)})
        return
    attempt, why = ticket_payload(rec)["attempt"], ticket_payload(rec)["reason"]
    typer.echo(f"{rec.record_id} is open for attempt {attempt} ({why})")
    typer.echo("next: the conductor takes it at its next tick (`oms conductor run`)")


def _finish(
    ticket: str,
    token: str,
    outcome: str,
    reason: str | None,
    state: str | None,
    config: str | None,
    json_out: bool,
) -> None:
    from oms.services.chain import tickets

    with workspace(state, config, etcd=True) as ws:  # compare-and-set (ADR 0043)
        ticket = _ticket(ws, ticket)
        rec = tickets.finish(ws, ticket, token, outcome, reason)
    if json_out:
        emit({"ok": True, "ticket": shapes.ticket(rec)})
    else:
        typer.echo(f"{rec.record_id} is {rec.state}")


def _wt_id(record: JsonObject | None) -> str | None:
    """A worktree record's id (None: no record)."""
    return None if record is None else str(record["worktree_id"])


@worktree_app.command("create")
def worktree_create(
    ticket: TicketArg,
    base: Annotated[
        str | None, typer.Option("--base", help="Base commit or ref (default: HEAD).")
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Create the ticket's git worktree on branch oms/<ticket> and record it.

    Examples:

    \b
      oms worktree create tkt-3
      oms worktree create tkt-3 --base main
    """
    from oms.services.chain import worktrees

    with workspace(state_root_, config_root_, etcd=True) as ws:  # this host's (ADR 0043, `upkeep`)
        ticket = _ticket(ws, ticket)
        mine = ws.store.worktrees.get(ticket)  # (another host's running worker has its own)
        worktrees.refuse_elsewhere(ws, ticket, _wt_id(mine), running=mine is None)
        record, created = worktrees.create(ws, ticket, base)
    if json_out:
        emit({"ok": True, "created": created, "worktree": record})
        return
    typer.echo(f"{'created' if created else 'exists '} {shown(str(record['worktree_root']))}")
    typer.echo(
        f"branch  {record['branch']} at {str(record['base_commit'])[:12]}  (id "
        f"{record['worktree_id']})"
    )


@worktree_app.command("show")
def worktree_show(
    ticket: TicketArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Show a ticket's worktree record.

    Example:

    \b
      oms worktree show tkt-3
    """
    from oms.errors import RecordNotFoundError
    from oms.services.chain import worktrees

    with workspace(state_root_, config_root_, etcd=True) as ws:  # this host's (ADR 0043, `upkeep`)
        ticket = _ticket(ws, ticket)
        record = ws.store.worktrees.get(ticket)
        worktrees.refuse_elsewhere(ws, ticket, _wt_id(record))
    if record is None:
        raise RecordNotFoundError(
            f"ticket {ticket} has no worktree record", hint=f"oms worktree create {ticket}"
        )
    if json_out:
        emit({"ok": True, "worktree": record})
        return
    for key, value in record.items():
        typer.echo(f"{key:<16} {value}")


@worktree_app.command("gc")
def worktree_gc(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would go; remove nothing.")
    ] = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Remove finished tickets' worktrees whose work is merged or archived; say why each other one
    stays.

    Examples:

    \b
      oms worktree gc --dry-run
      oms worktree gc
    """
    from oms.services.finishing import worktree_gc

    with workspace(state_root_, config_root_, etcd=True) as ws:  # this host's (ADR 0043, `upkeep`)
        report = worktree_gc.gc(ws, dry_run=dry_run)
    if json_out:
        emit(
            {
                "ok": True,
                "dry_run": dry_run,
                "removed": report.removed,
                "kept": report.kept,
                "bytes_freed": report.bytes_freed,
            }
        )
        return
    verb = "would remove" if dry_run else "removed"
    for row in report.removed:
        typer.echo(
            f"{verb:<12} {row['path']} ({row['branch']}, {int(str(row['bytes'])) / 2**20:.1f} MiB)"
        )
    for row in report.kept:
        typer.echo(f"{'kept':<12} {row['path']}: {row['why']}")
    typer.echo(
        f"{len(report.removed)} {verb}, {report.bytes_freed / 2**20:.1f} MiB; {len(report.kept)} "
        f"kept"
    )
