"""`oms worker deliver|park|resume|stop|send|observe`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import typer

from oms.cli.common import ConfigRootOpt, JsonOpt, StateRootOpt, emit, workspace
from oms.cli.fast_help import SECTION

app = typer.Typer(
    help="Deliver, park, resume, stop and observe workers.",
    no_args_is_help=True,
    rich_markup_mode=None,
    epilog=SECTION,
)
DispatchArg = Annotated[str, typer.Argument(help="Dispatch id (the worker's id).")]


def _print(view: Mapping[str, object]) -> None:
    for key, value in view.items():
        typer.echo(f"{key:<16} {value if value is not None else '-'}")
    failed = view.get("salvage_error")
    if isinstance(failed, str):  # an end that kept nothing says so where a person looks
        from oms.domain.workers import unsalvaged

        typer.echo(f"WARN {unsalvaged(failed)}", err=True)


@app.command("deliver")
def deliver(
    event_id: Annotated[
        str, typer.Option("--event-id", help="A dispatch-delivery-requested event.")
    ],
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Deliver one accepted dispatch, exactly once: verify everything, launch it in a pane."""
    from oms.canonical import check
    from oms.services.delivery.service import Delivery

    check(event_id, "event id")
    with workspace(state_root_, config_root_) as ws:
        result = Delivery.open(ws).deliver(event_id)
    if json_out:
        emit({"ok": True, **result})
        return
    outcome = result["outcome"]
    assert isinstance(outcome, dict)  # noqa: S101 - shape of the receipt
    typer.echo(
        f"{result['status']}: {outcome.get('status')} {outcome.get('dispatch_id', '')}".rstrip()
    )
    for key in ("session_id", "pane_id", "provider_mode", "reason"):
        if outcome.get(key):
            typer.echo(f"  {key:<14} {outcome[key]}")
    if outcome.get("status") == "parked":
        raise typer.Exit(1)


@app.command("park")
def park(
    dispatch: DispatchArg,
    until: Annotated[
        str, typer.Option("--until", help="Parked until (YYYY-MM-DDTHH:MM:SS.mmmZ, in the future).")
    ],
    reason: Annotated[str, typer.Option("--reason")] = "parked by oms worker park",
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Interrupt the agent and park the worker until a time."""
    from oms.services.delivery.service import Delivery

    with workspace(state_root_, config_root_) as ws:
        view = Delivery.open(ws).park(dispatch, reason, until)
    emit({"ok": True, **view}) if json_out else _print(view)


@app.command("resume")
def resume(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Resume a parked worker once due: by keys while its pane lives, else relaunched on its agent's
    own session."""
    from oms.services.delivery.service import Delivery

    with workspace(state_root_, config_root_) as ws:
        view = Delivery.open(ws).resume(dispatch)
    emit({"ok": True, **view}) if json_out else _print(view)


@app.command("stop")
def stop(
    dispatch: DispatchArg,
    reason: Annotated[str, typer.Option("--reason")] = "stopped by oms worker stop",
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Stop the worker: its pane and every process in it; the end reason is recorded."""
    from oms.services.delivery.service import Delivery

    with workspace(state_root_, config_root_) as ws:
        view = Delivery.open(ws).stop(dispatch, reason)
    emit({"ok": True, **view}) if json_out else _print(view)


@app.command("send")
def send(
    dispatch: DispatchArg,
    text: Annotated[
        str | None,
        typer.Argument(help="The message ('-': read it from stdin).", show_default=False),
    ] = None,
    file: Annotated[
        str | None, typer.Option("--file", help="Read the message from this file ('-': stdin).")
    ] = None,
    person: Annotated[
        str | None,
        typer.Option(
            "--person", help="Who sends it (default: your login name; kept in the ledger)."
        ),
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Type a person's message into a live agent's conversation: recorded first, control
    characters dropped, only for a running attempt without a result."""
    import getpass

    from oms.services.delivery.service import Delivery

    message = _message(text, file)
    who = person or getpass.getuser()
    with workspace(state_root_, config_root_) as ws:
        view = Delivery.open(ws).send(dispatch, message, person=who)
    emit({"ok": True, **view}) if json_out else _print(view)


def _message(text: str | None, file: str | None) -> str:
    """The message from the argument, a file or stdin, read at most one byte over its bound."""
    import sys

    from oms.domain.messages import check_size
    from oms.errors import InvalidInputError, UsageError
    from oms.fsio.outside import read_user_file
    from oms.limits import LIMITS

    if (text is None) == (file is None):
        raise UsageError("give the message as an argument or with --file (not both)")
    if text is not None and text != "-":
        return text
    cap = LIMITS.send_text_bytes
    if text == "-" or file == "-":
        if sys.stdin.isatty():
            raise UsageError("pipe the message on stdin, or give it as an argument")
        data = sys.stdin.buffer.read(cap + 1)
    else:
        assert file is not None  # noqa: S101 - one of the two is given
        data = read_user_file(file, cap + 1)
    check_size(len(data), cap)
    try:
        return data.decode("utf-8", "strict")
    except UnicodeDecodeError as exc:
        raise InvalidInputError(f"the message is not UTF-8 (byte {exc.start})") from None


@app.command("observe")
def observe(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Worker, session and pane state (records an end reason if the pane has ended)."""
    from oms.services.delivery.service import Delivery

    with workspace(state_root_, config_root_) as ws:
        view = Delivery.open(ws).observe(dispatch)
    emit({"ok": True, **view}) if json_out else _print(view)
