"""`oms host key`: this host's state key, as the other hosts pin it (ADR 0043, amendment
`hostkeys`); `oms host release-name`: a lost state root's host name released (amendment
`names2`)."""

from __future__ import annotations

from typing import Annotated

import typer

from oms.cli.common import (
    ConfigRootOpt,
    JsonOpt,
    StateRootOpt,
    config_root,
    emit,
    state_root,
    workspace,
)

app = typer.Typer(
    help="This host, as the other hosts of a cluster know it.\n\nExample: oms host key",
    no_args_is_help=True,
    rich_markup_mode=None,
)


@app.command("key")
def key(
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Print the line that pins this host's state key on the other hosts of an etcd cluster:
    paste it under [hosts] in their ~/.config/oms/etcd.toml (yours, never the repository's), so
    their `oms audit verify` checks this host's ledger entries and evidence by its signatures.

    Example:

    \b
      oms host key >> /tmp/line   # then, on each other host, under [hosts] in its etcd.toml
    """
    from oms.domain.etcd_settings import pin_line
    from oms.services.workspace.host import host_key

    repository = config_root(config_root_) if state_root_ is None else None
    name, keyid, public = host_key(state_root(state_root_, repository))
    line = pin_line(name, keyid, bytes.fromhex(public))
    if json_out:
        emit({"ok": True, "host": name, "keyid": keyid, "public_key": public, "line": line})
        return
    typer.echo(line)
    typer.echo(
        "(paste it under [hosts] in ~/.config/oms/etcd.toml on each other host of the cluster)",
        err=True,
    )


@app.command("release-name")
def release_name(
    name: Annotated[str, typer.Argument(help="the host name to release")],
    bound_to: Annotated[
        str,
        typer.Option(
            "--bound-to",
            help="the state key the name is bound to (16 or more hex digits, as the refusal "
            "`host-name-taken` printed it): the lost state root's",
        ),
    ],
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Release a host name whose state root was lost, on the etcd store the repository names: the
    name's next command binds it to its own state key. Refused while that host's heartbeat or
    conductor lock is on the store (it is alive), and unless --bound-to names the key the name is
    bound to. Its workers and leases are left as they are: the next holder of the name finds no
    pane of theirs, and a lapsed lease is expired as ever.

    Example:

    \b
      oms host release-name build-1 --bound-to 3f0c9a1b2c3d4e5f
    """
    from oms.services.admin.hostnames import release_name as release

    with workspace(state_root_, config_root_, etcd=True) as ws:
        done = release(ws, name, bound_to)
    if json_out:
        emit({"ok": True, "host": done.host, "generation": done.generation, "keyid": done.keyid})
        return
    typer.echo(
        f"released host name {done.host} (binding {done.generation}, state key "
        f"{done.keyid[:16]}): the next command under that name binds it"
    )
