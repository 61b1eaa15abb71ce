"""`oms audit verify|checkpoint|log`: the tamper-evident ledger (issue 14 item 5, ADR 0022;
`store/ledger.py`, `store/ledger_check.py`)."""

from __future__ import annotations

from typing import Annotated

import typer

from oms.cli.common import (
    UNTIL_BEHIND,
    ConfigRootOpt,
    JsonOpt,
    StateRootOpt,
    complete_dispatch_id,
    complete_ticket,
    confirm_person,
    emit,
    workspace,
)
from oms.limits import LIMITS

app = typer.Typer(
    help=(
        "The ledger: one hash chain over everything oms wrote, with signed checkpoints."
        "\n\nExample: oms audit log --since 2h"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)


@app.command("verify")
def verify_cmd(
    checkpoint: Annotated[
        str | None,
        typer.Option(
            "--checkpoint", help="A checkpoint exported earlier (finds a rolled-back root)."
        ),
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Check the chain, its signed checkpoints, and every ledgered file (exit 1: something is
    wrong). On an etcd store, its keys and the ledger over them too.

    Examples:

    \b
      oms audit verify
      oms audit verify --checkpoint ~/oms-checkpoint.json
    """
    from oms.errors import IntegrityError
    from oms.fsio.outside import read_user_file
    from oms.store.anchor import KEYS_ROLLBACK_HINT, ROLLBACK_HINT

    exported = read_user_file(checkpoint, 4096) if checkpoint is not None else None
    with workspace(state_root_, config_root_, etcd=True) as ws:  # the keys too (ADR 0043)
        audit = ws.store.audit(exported)
    doc = {
        "ok": audit.ok,
        "entries": audit.entries,
        "files": audit.files,
        "compacted": audit.compacted,
        "checkpoints": audit.checkpoints,
        "anchored": audit.anchored,
        "problems": audit.problems,
        "notes": audit.notes,
    }
    if json_out:
        emit(doc)
    else:
        for line in audit.problems[:50]:
            typer.echo(f"bad: {line}")
        for line in audit.notes:
            typer.echo(f"note: {line}")
        anchored = "" if audit.anchored is None else f", anchored at entry {audit.anchored}"
        typer.echo(
            f"{audit.entries} entries, {audit.files} files ({audit.compacted} compacted), "
            f"{audit.checkpoints} checkpoints checked{anchored}: "
            f"{'ok' if audit.ok else f'{len(audit.problems)} problem(s)'}"
        )
    if not audit.ok:
        first = audit.problems[0]
        hint = (
            None
            if "was rolled back" not in first
            else KEYS_ROLLBACK_HINT
            if first.startswith("etcd:")
            else ROLLBACK_HINT
        )
        raise IntegrityError(f"the ledger does not hold: {audit.problems[0]}", hint=hint)


@app.command("checkpoint")
def checkpoint_cmd(
    export: Annotated[
        str | None,
        typer.Option("--export", help="Also write it to this file, outside the state root."),
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Sign the ledger's head now; with --export, keep a copy outside the state root (`audit verify
    --checkpoint`). On an etcd store, the head of the ledger on its keys, signed by this host's
    state key and anchored outside the cluster.

    Example:

    \b
      oms audit checkpoint --export ~/oms-checkpoint.json
    """
    import json
    import os
    import sys

    from oms.errors import InvalidInputError
    from oms.fsio.outside import write_new_user_file
    from oms.store import Anchored

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its keys (ADR 0043, `rest`)
        state = os.path.realpath(ws.store.path)
        if export is not None:  # refused before anything is written
            target = os.path.realpath(export)
            if target == state or target.startswith(state + "/"):
                raise InvalidInputError(
                    "export the checkpoint outside the state root (a copy inside proves nothing)"
                )
            if os.path.lexists(export):
                raise InvalidInputError(f"{export} exists: export to a new file")
        on_keys = isinstance(ws.store.backend, Anchored)  # etcd: the keys' ledger
        keys = ws.store.checkpoint_keys() if on_keys else None
        found = None if on_keys else ws.store.checkpoint()
    if keys is None and found is None:
        raise InvalidInputError("the ledger is empty: nothing to sign yet")
    signed = keys[0] if keys is not None else found[0] if found is not None else {}
    if keys is not None and keys[1] is not None:
        sys.stderr.write(f"oms: warning: the anchor stays: {keys[1]} (`oms audit verify`)\n")
    if export is not None:
        write_new_user_file(export, (json.dumps(signed, sort_keys=True) + "\n").encode("ascii"))
    if json_out:
        emit({"ok": True, "checkpoint": signed, "exported": export})
        return
    typer.echo(
        f"checkpoint: entry {signed['seq']}, head {str(signed['head'])[:16]}"
        + (f", exported to {export}" if export else "")
    )


@app.command("log")
def log_cmd(
    ticket: Annotated[
        str | None,
        typer.Option(
            "--ticket", help="Only what names this ticket.", autocompletion=complete_ticket
        ),
    ] = None,
    dispatch: Annotated[
        str | None,
        typer.Option(
            "--dispatch",
            help="Only what names this dispatch (or its worker).",
            autocompletion=complete_dispatch_id,
        ),
    ] = None,
    worker: Annotated[
        str | None,
        typer.Option(
            "--worker",
            help="Only what names this worker (a worker's id is its dispatch's).",
            autocompletion=complete_dispatch_id,
        ),
    ] = None,
    since: Annotated[
        str | None, typer.Option("--since", help=f"From this time on: {UNTIL_BEHIND}.")
    ] = None,
    until: Annotated[
        str | None, typer.Option("--until", help=f"Up to this time: {UNTIL_BEHIND}.")
    ] = None,
    limit: Annotated[
        int, typer.Option("--limit", min=1, help="The last N entries that match.")
    ] = LIMITS.audit_log_entries,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """The readable timeline: every ledger entry, what it wrote and what that says (filters by
    ticket, dispatch or worker, and time). On an etcd store, the ledger on its keys.

    Examples:

    \b
      oms audit log --ticket tkt-3
      oms audit log --since 2h --limit 50
      oms audit log --since 09:00 --json
    """
    from oms.errors import IntegrityError, UsageError
    from oms.services.admin import audit

    if worker is not None and dispatch is not None and worker != dispatch:
        raise UsageError(
            "--worker and --dispatch name one id (a worker's is its dispatch's): give one"
        )
    from oms.canonical.when import when

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its keys' ledger (ADR 0043)
        since = None if since is None else when(since, ws.now(), ahead=False, what="--since")
        until = None if until is None else when(until, ws.now(), ahead=False, what="--until")
        rows, fault = audit.timeline(
            ws, ticket=ticket, dispatch=dispatch or worker, since=since, until=until, limit=limit
        )
    if json_out:
        emit({"ok": fault is None, "entries": rows, "fault": fault})
    else:
        for row in rows:
            typer.echo(f"{row['at']}  #{row['seq']:<6} {row['kind']:<8} {row['what']}")
    if fault is not None:  # the timeline stops where the chain breaks: never silently
        raise IntegrityError(f"the ledger breaks here: {fault}", hint="oms audit verify")


@app.command("adopt")
def adopt_cmd(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """Start the ledger of a state root made before it: every record, event, evidence and journal
    file as it is now (once; refused when a ledger exists). On an etcd store there is nothing to
    adopt (every key is written with its ledger entry): it says so.

    Example:

    \b
      oms audit adopt
    """
    from oms.errors import ConfigError
    from oms.services.workspace.committed import committed_backend
    from oms.store import ledger

    # (before `oms init` records it)
    with workspace(state_root_, config_root_, served=False, check_backend=False) as ws:
        if committed_backend(ws.config_root) == "etcd":
            raise ConfigError(
                'nothing to adopt on store.backend = "etcd": every key is created with its '
                "ledger entry in one transaction, so no key was ever written outside the ledger "
                "(ADR 0043, amendment `etcdledger`)"
            )
        count = ledger.adopt(ws.store.state.root)
    if json_out:
        emit({"ok": True, "adopted": count})
        return
    typer.echo(f"adopted {count} files: the ledger names them from here on")


PersonOpt = Annotated[str | None, typer.Option("--person", help="Who accepts (needed off a TTY).")]
YesOpt = Annotated[bool, typer.Option("--yes", help="Skip the prompt (then --person is required).")]


@app.command("accept-rollback")
def accept_rollback_cmd(
    person: PersonOpt = None,
    yes: YesOpt = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Accept that the state root was rolled back (`oms audit verify` names it): say what was lost,
    keep the anchor it left in the state root, and anchor the state root as it is. Ticket ids stay
    above every one the lost entries gave. On an etcd store, a rolled-back cluster first (its
    keys' anchor). A person must run this.

    Example:

    \b
      oms audit accept-rollback --person ann --yes
    """
    from oms.services.admin import audit

    who, how = confirm_person(
        person,
        question="Accept that this state root was rolled back (what it lost stays lost)?",
        expect="accept",
        yes=yes,
    )
    with workspace(state_root_, config_root_, etcd=True) as ws:  # its keys too (ADR 0043)
        done = audit.accept_rollback(ws)
    if json_out:
        emit({"ok": True, "person": who, "confirmed_by": how, **done})
        return
    typer.echo(f"rollback accepted by {who} ({how}): lost {done['lost']}")
    reserved = done["tickets_reserved"]
    typer.echo(f"ticket ids up to tkt-{reserved} stay used; the anchor names this ledger again")
