"""`oms proxy start|stop|status` and the long-running `oms proxy serve` they manage: the loopback
model proxy (`services/proxy/control.py`, ADR 0020)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from oms.cli.common import ConfigRootOpt, JsonOpt, StateRootOpt, emit, workspace
from oms.domain.proxy import UNKNOWABLE

if TYPE_CHECKING:
    from oms.services.proxy.control import Status

app = typer.Typer(
    help=(
        "The loopback model proxy: holds the real keys, serves each worker through its own token."
        "\n\nExample: oms proxy status"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _show(found: Status, json_out: bool) -> None:
    if json_out:
        emit({"ok": found.state not in UNKNOWABLE, **found.to_json()})
        return
    typer.echo(f"proxy: {found.state} ({found.note})")


@app.command("start")
def start(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """Start the proxy in the background; it is recorded only once it answers the handshake.

    Example:

    \b
      oms proxy start
    """
    from oms.services.proxy import control as proxy_control

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its records: the store's
        found = proxy_control.start(ws)
    _show(found, json_out)


@app.command("stop")
def stop(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """Stop the recorded proxy (only the exact process oms started); a stale record is removed.

    Example:

    \b
      oms proxy stop
    """
    from oms.services.proxy import control as proxy_control

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its records: the store's
        found = proxy_control.stop(ws)
    _show(found, json_out)


@app.command("status")
def status(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """Running (the handshake checked now), not running, stale, or unverified or unreadable (exit
    1).

    Example:

    \b
      oms proxy status --json
    """
    from oms.errors import ProxyError
    from oms.services.proxy import control as proxy_control

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its records: the store's
        found = proxy_control.status(ws)
    if found.state in UNKNOWABLE:
        if json_out:
            _show(found, json_out)
        raise ProxyError(
            f"proxy {found.state}: {found.note}", hint="`oms proxy stop`, then `oms proxy start`"
        )
    _show(found, json_out)


@app.command("serve", hidden=True)
def serve(
    secret_fd: Annotated[
        int, typer.Option("--secret-fd", min=3, help="Descriptor holding the handshake key.")
    ],
    ready_fd: Annotated[
        int, typer.Option("--ready-fd", min=3, help="Descriptor to write the port to.")
    ],
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    port: Annotated[
        int | None,
        typer.Option(
            "--port", min=1, max=65535, help="The port to ask for first (the proxy's before)."
        ),
    ] = None,
) -> None:
    """The proxy itself (started by `oms proxy start`)."""
    from oms.services.proxy import control as proxy_control

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its records: the store's
        proxy_control.serve(ws, secret_fd, ready_fd, port)
