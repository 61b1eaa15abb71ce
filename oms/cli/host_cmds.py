"""`oms host key`: this host's state key, as the other hosts pin it (ADR 0043, amendment
`hostkeys`)."""

from __future__ import annotations

import typer

from oms.cli.common import ConfigRootOpt, JsonOpt, StateRootOpt, config_root, emit, state_root

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
