"""`oms live authorize|revoke|status`: a person's authorisation to contact agents about a GitHub
repository."""

from __future__ import annotations

from typing import Annotated

import typer

from oms.cli.common import (
    ConfigRootOpt,
    JsonOpt,
    StateRootOpt,
    confirm_person,
    emit,
    table,
    workspace,
)
from oms.services.workspace import shapes
from oms.store.payloads import authorization_payload

app = typer.Typer(
    help=(
        "Live authorisation for GitHub tickets (started by a person, revocable)."
        "\n\nExample: oms live status"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)
RepoOpt = Annotated[str, typer.Option("--repository", help="owner/name")]


@app.command("authorize")
def authorize(
    repository: RepoOpt,
    person: Annotated[
        str | None, typer.Option("--person", help="Who authorises (required off a TTY).")
    ] = None,
    yes: Annotated[
        bool, typer.Option("--yes", help="Skip the prompt (then --person is required).")
    ] = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Authorise oms to contact agents about REPOSITORY's tickets. A person must start this.

    Example:

    \b
      oms live authorize --repository acme/shop
    """
    from oms.domain.github import check_repository
    from oms.services.chain import live

    check_repository(repository)  # before the prompt shows it
    who, how = confirm_person(
        person,
        question=f"Authorise live agent contact for {repository}?",
        expect=repository,
        yes=yes,
    )
    with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043, `github`)
        rec = live.authorize(ws, repository, person=who, confirmed_by=how)
    if json_out:
        emit({"ok": True, "authorization": shapes.authorization(rec)})
    else:
        granted = authorization_payload(rec)
        typer.echo(f"{repository}: authorised by {granted['person']} ({granted['confirmed_by']})")


@app.command("revoke")
def revoke(
    repository: RepoOpt,
    reason: Annotated[str, typer.Option("--reason")] = "revoked",
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Withdraw a live authorisation; the repository's running workers are parked (panes and
    worktrees kept). On an etcd cluster every host's are fenced at once, and another host's
    worker is parked by that host's conductor.

    Example:

    \b
      oms live revoke --repository acme/shop --reason 'the review is over'
    """
    from oms.services.chain import fence

    with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043, `github`)
        rec, parked = fence.revoke(ws, repository, reason)
        cluster = ws.store.backend is not None
        others = fence.elsewhere(ws, rec)  # on a cluster: another host's, parked there
    if json_out:
        doc = {"ok": True, "authorization": shapes.authorization(rec), "parked_workers": parked}
        if cluster:
            doc["fenced_elsewhere"] = [{"worker": w, "host": h} for w, h in others]
        emit(doc)
    else:
        typer.echo(f"{repository}: revoked")
        for worker_id in parked:
            typer.echo(
                f"parked worker {worker_id}: its attempt is fenced (stop "
                f"it with `oms worker stop {worker_id}`)"
            )
        for worker_id, host in others:
            typer.echo(
                f"fenced worker {worker_id}: it runs on host {host}, whose conductor parks it "
                f"(stop it there with `oms worker stop {worker_id}`)"
            )


@app.command("status")
def status(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """Authorisations and the number of journaled contacts (on an etcd cluster, the
    authorisations are the cluster's and the contacts this host's journal).

    Example:

    \b
      oms live status
    """
    from oms.services.chain import live

    with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043, `github`)
        recs = live.list_all(ws)
        contacts = len(ws.store.journal("live-contact").seqs())  # (on a cluster: this host's)
        here = " on this host" if ws.store.backend is not None else ""
    if json_out:
        emit(
            {
                "ok": True,
                "contacts": contacts,
                "authorizations": [shapes.authorization(r) for r in recs],
            }
        )
        return
    table(
        ("repository", "state", "person", "since"),
        [
            (
                authorization_payload(r)["repository"],
                r.state,
                authorization_payload(r)["person"],
                authorization_payload(r)["authorized_at"],
            )
            for r in recs
        ],
    )
    typer.echo(f"{contacts} contact{'s' if contacts != 1 else ''} journaled{here}")
