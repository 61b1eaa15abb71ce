"""`oms dispatch …` and `oms policy show`."""

from __future__ import annotations

from typing import Annotated

import typer

from oms.cli.common import (
    ConfigRootOpt,
    JsonOpt,
    StateRootOpt,
    complete_dispatch,
    complete_ticket,
    config_root,
    confirm_person,
    emit,
    table,
    workspace,
)
from oms.services.workspace import shapes
from oms.store import Record
from oms.store.payloads import dispatch_payload

app = typer.Typer(
    help=(
        "Dispatches: propose, review, approve, accept, reject, cancel."
        "\n\nExample: oms dispatch show tkt-3"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)
policy_app = typer.Typer(
    help=("The role policy.\n\nExample: oms policy show"),
    no_args_is_help=True,
    rich_markup_mode=None,
)
DispatchArg = Annotated[
    str,
    typer.Argument(
        help="A dispatch (`oms dispatch list`) or a unique prefix of one, or a ticket: its live "
        "attempt.",
        metavar="DISPATCH|TICKET",
        autocompletion=complete_dispatch,
    ),
]


def _print(rec: Record, waits: dict[str, str] | None = None) -> None:
    typer.echo(f"dispatch {rec.record_id} is {rec.state}")
    if waits and rec.record_id in waits:
        typer.echo(f"  {'waits_for_person':<23} {waits[rec.record_id]}")
    for key in (
        "ticket_id",
        "attempt",
        "role_id",
        "model_id",
        "provider_mode",
        "worktree_path",
        "worktree_branch",
        "worktree_start_commit",
        "policy_digest",
        "dispatch_intent_sha256",
        "advisor_verdict",
        "advisor_evidence",
        "approval_evidence",
        "delivery_event_id",
        "reason",
    ):
        value = rec.payload.get(key)
        if value is not None:
            typer.echo(f"  {key:<23} {value}")


@app.command("propose")
def propose(
    ticket: Annotated[
        str,
        typer.Argument(
            help="A leased ticket (or a unique prefix of its id).",
            metavar="TICKET",
            autocompletion=complete_ticket,
        ),
    ],
    role: Annotated[
        str | None, typer.Option("--role", help="Worker role (default: config worker.role).")
    ] = None,
    provider: Annotated[
        str | None,
        typer.Option(
            "--provider",
            help="Pin a provider (skips cooldowns and quota; see `oms route explain`).",
        ),
    ] = None,
    replace: Annotated[
        bool,
        typer.Option(
            "--replace",
            help="Cancel the attempt's proposal (not yet accepted) and propose this in its place.",
        ),
    ] = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Capture the dispatch intent for a leased ticket (and its digest), routed to a provider when
    providers are configured.

    Examples:

    \b
      oms dispatch propose tkt-3
      oms dispatch propose tkt-3 --role oms.ticket-executor --provider codex
      oms dispatch propose tkt-3 --provider codex --replace   (another route, same attempt)
    """
    from oms.services.chain import dispatches, handles

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its leasing host's (ADR 0043)
        rec, created = dispatches.propose(
            ws, handles.ticket(ws, ticket), role, provider, replace=replace
        )
        waits = dispatches.shown_waits(ws, [rec])
    if json_out:
        emit({"ok": True, "created": created, "dispatch": shapes.dispatch(rec, waits)})
    else:
        _print(rec, waits)


@app.command("review")
def review(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Run the advisor role on the intent; store its verdict as signed evidence.

    Examples:

    \b
      oms dispatch review tkt-3      (the ticket's live attempt)
      oms dispatch review dsp-3fa2   (a unique prefix of a dispatch id)
    """
    from oms.services.chain import dispatches, handles

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its leasing host's (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch)
        rec, ref = dispatches.review(ws, dispatch)
        rationale = ws.store.evidence.get(ref).body["payload"]
    if json_out:
        emit({"ok": True, "dispatch": shapes.dispatch(rec), "evidence": ref})
        return
    _print(rec)
    if isinstance(rationale, dict):
        typer.echo(f"  advisor says: {rationale.get('rationale')}")


@app.command("approve")
def approve(
    dispatch: DispatchArg,
    person: Annotated[
        str | None, typer.Option("--person", help="Who approves (required off a TTY).")
    ] = None,
    rationale: Annotated[str, typer.Option("--rationale")] = "approved by a person",
    yes: Annotated[
        bool, typer.Option("--yes", help="Skip the interactive confirmation (needs --person).")
    ] = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """A person approves the intent (only where the role policy allows human approval).

    Examples:

    \b
      oms dispatch approve tkt-3
      oms dispatch approve dsp-3fa2 --person ann --yes
    """
    from oms.services.chain import dispatches, handles

    with workspace(state_root_, config_root_, etcd=True) as ws:  # the person confirms the id
        dispatch = handles.dispatch(ws, dispatch)
    who, _ = confirm_person(
        person, question=f"Approve dispatch {dispatch} as yourself?", expect=dispatch, yes=yes
    )
    with workspace(state_root_, config_root_, etcd=True) as ws:  # any host's, under a lease
        rec, ref = dispatches.approve(ws, dispatch, person=who, rationale=rationale)
    if json_out:
        emit({"ok": True, "dispatch": shapes.dispatch(rec), "evidence": ref})
    else:
        _print(rec)


@app.command("accept")
def accept(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Accept an approved dispatch: creates the worker and the delivery event.

    Example:

    \b
      oms dispatch accept tkt-3
    """
    from oms.services.chain import dispatches, handles

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its leasing host's (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch)
        rec, event = dispatches.accept(ws, dispatch)
    if json_out:
        emit({"ok": True, "dispatch": shapes.dispatch(rec), "delivery_event_id": event})
    else:
        _print(rec)
        typer.echo(f"next: oms worker deliver --event-id {event}")


@app.command("reject")
def reject(
    dispatch: DispatchArg,
    reason: Annotated[str, typer.Option("--reason")],
    person: Annotated[
        str | None,
        typer.Option("--person", help="Who declines it (default: your login name)."),
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Decline a proposed dispatch; who declined it is kept as signed evidence and named in its
    reason.

    Examples:

    \b
      oms dispatch reject tkt-3 --reason 'wrong role'
      oms dispatch reject dsp-3fa2 --reason 'wrong role' --person ann
    """
    import getpass

    from oms.services.chain import dispatches, handles

    who = person or getpass.getuser()
    with workspace(state_root_, config_root_, etcd=True) as ws:  # any host's (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch)
        rec = dispatches.reject(ws, dispatch, reason, person=who)
    emit({"ok": True, "dispatch": shapes.dispatch(rec)}) if json_out else _print(rec)


@app.command("cancel")
def cancel(
    dispatch: DispatchArg,
    reason: Annotated[str, typer.Option("--reason")],
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Cancel a dispatch that has not ended.

    Example:

    \b
      oms dispatch cancel tkt-3 --reason 'the policy changed'
    """
    from oms.services.chain import dispatches, handles

    with workspace(state_root_, config_root_, etcd=True) as ws:  # any host's (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch)
        rec = dispatches.cancel(ws, dispatch, reason)
    emit({"ok": True, "dispatch": shapes.dispatch(rec)}) if json_out else _print(rec)


@app.command("show")
def show(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Show a dispatch.

    Examples:

    \b
      oms dispatch show tkt-3
      oms dispatch show dsp-3fa2 --json
    """
    from oms.services.chain import dispatches, handles

    with workspace(state_root_, config_root_, etcd=True) as ws:  # the cluster's (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch, handles.Want.LAST)  # an ended attempt's too
        rec = dispatches.get(ws, dispatch)
        waits = dispatches.shown_waits(ws, [rec])
    if json_out:
        emit({"ok": True, "dispatch": shapes.dispatch(rec, waits)})
    else:
        _print(rec, waits)


@app.command("list")
def list_(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """List dispatches.

    Examples:

    \b
      oms dispatch list
      oms dispatch list --json
    """
    from oms.services.chain import dispatches

    with workspace(state_root_, config_root_, etcd=True) as ws:  # the cluster's (ADR 0043)
        recs = dispatches.list_all(ws)
        waits = dispatches.shown_waits(ws, recs)
    if json_out:
        emit({"ok": True, "dispatches": [shapes.dispatch(r, waits) for r in recs]})
        return
    table(
        ("id", "state", "ticket", "attempt", "role", "verdict"),
        [
            (
                r.record_id,
                r.state,
                dispatch_payload(r)["ticket_id"],
                dispatch_payload(r)["attempt"],
                dispatch_payload(r)["role_id"],
                dispatch_payload(r)["advisor_verdict"],
            )
            for r in recs
        ],
    )
    for why in waits.values():  # who must act, and how
        typer.echo(why)


@policy_app.command("show")
def policy_show(config_root_: ConfigRootOpt = None, json_out: JsonOpt = False) -> None:
    """The committed role policy: its digest and grants (refused if the file is not the one at
    HEAD).

    Examples:

    \b
      oms policy show
      oms policy show --json
    """
    from oms.fsio import Root
    from oms.services.workspace.policy import load_tracked

    root = config_root(config_root_)
    with Root.open(root, private=False) as repo:
        policy = load_tracked(root, repo)
    if json_out:
        emit({"ok": True, "digest": policy.digest, "policy": policy.raw})
        return
    typer.echo(f"digest          {policy.digest}")
    typer.echo(f"human approval  {'allowed' if policy.human_approval else 'not allowed'}")
    table(
        ("role", "capabilities", "tools", "may_review"),
        [
            (
                name,
                ",".join(g.capabilities) or "-",
                ",".join(g.tools) or "-",
                "yes" if g.may_review else "no",
            )
            for name, g in sorted(policy.roles.items())
        ],
    )
