"""`oms worker deliver|park|resume|stop|send|observe|log`."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated

import typer

from oms.cli.common import (
    UNTIL_AHEAD,
    ConfigRootOpt,
    JsonOpt,
    StateRootOpt,
    cell,
    complete_dispatch,
    emit,
    workspace,
)
from oms.cli.fast_help import SECTION

app = typer.Typer(
    help=("Deliver, park, resume, stop and observe workers.\n\nExample: oms worker observe tkt-3"),
    no_args_is_help=True,
    rich_markup_mode=None,
    epilog=SECTION,
)
DispatchArg = Annotated[
    str,
    typer.Argument(
        help="A dispatch (the worker's id) or a unique prefix of one, or a ticket: its live "
        "attempt.",
        metavar="DISPATCH|TICKET",
        autocompletion=complete_dispatch,
    ),
]


def _print(view: Mapping[str, object]) -> None:
    for key, value in view.items():
        typer.echo(f"{key:<16} {cell(value)}")
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
    """Deliver one accepted dispatch, exactly once: verify everything, launch it in a pane.

    Example:

    \b
      oms worker deliver --event-id evt-delivery-5d41402abc4b2a76b9719d911017c592
    """
    from oms.canonical import check
    from oms.services.delivery.service import Delivery

    check(event_id, "event id")
    with workspace(state_root_, config_root_, etcd=True) as ws:  # served on etcd (ADR 0043)
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
        str, typer.Option("--until", help=f"Parked until: {UNTIL_AHEAD}.", show_default=False)
    ],
    reason: Annotated[str, typer.Option("--reason")] = "parked by oms worker park",
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Interrupt the agent and park the worker until a time (refused, nothing changed, for an
    agent that cannot pause: a `codex_exec` worker runs on to its end).

    Examples:

    \b
      oms worker park tkt-3 --until 2h
      oms worker park dsp-3fa2 --until 09:00 --reason 'after the release'
    """
    from oms.canonical.when import when
    from oms.services.chain import handles
    from oms.services.delivery.service import Delivery

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its host's pane (ADR 0043)
        dispatch, until = handles.dispatch(ws, dispatch), when(until, ws.now(), ahead=True)
        view = Delivery.open(ws).park(dispatch, reason, until, person=True)
    emit({"ok": True, **view}) if json_out else _print(view)


@app.command("resume")
def resume(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Resume a parked worker once due: by keys while its pane lives, else relaunched on its agent's
    own session.

    Example:

    \b
      oms worker resume tkt-3
    """
    from oms.services.chain import handles
    from oms.services.delivery.service import Delivery

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its host's pane (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch)
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
    """Stop the worker: its pane and every process in it; the end reason is recorded.

    Examples:

    \b
      oms worker stop tkt-3
      oms worker stop dsp-3fa2 --reason 'wrong approach'
    """
    from oms.services.chain import handles
    from oms.services.delivery.service import Delivery

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its host's pane (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch)
        view = Delivery.open(ws).stop(dispatch, reason)
    emit({"ok": True, **view}) if json_out else _print(view)


@app.command("log")
def log(
    dispatch: DispatchArg,
    follow: Annotated[
        bool,
        typer.Option(
            "--follow", "-f", help="Keep printing new lines until the attempt ends (Ctrl-C stops)."
        ),
    ] = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """The worker's pane log ("attempt fenced", "stop gate released", how its sandbox ended): its
    last lines, each with its time; --json: one object a line.

    Examples:

    \b
      oms worker log tkt-3
      oms worker log dsp-3fa2 --follow
    """
    import time

    from oms.cli.exits import EXIT_INTERRUPTED
    from oms.domain.panelog import Line
    from oms.limits import LIMITS
    from oms.services.chain import handles
    from oms.services.delivery import panelog

    def show(line: Line) -> None:
        if json_out:
            emit({"dispatch_id": dispatch, "at": line.at, "line": line.text})
        else:
            typer.echo(f"{line.at or '-':<24} {line.text}")

    with workspace(state_root_, config_root_, etcd=True) as ws:  # this host's log (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch, handles.Want.LAST)  # an ended attempt's too
        if follow:
            try:
                panelog.follow(ws, dispatch, show, lambda: time.sleep(LIMITS.pane_log_poll_s))
            except KeyboardInterrupt:  # (Typer would end with 130 and say nothing)
                typer.echo(f"oms: interrupted: stopped following; {dispatch} goes on", err=True)
                raise typer.Exit(EXIT_INTERRUPTED) from None
            return
        panelog.ended(ws, dispatch)  # no such worker: said, not an empty log
        lines, _ = panelog.read(ws, dispatch, None)
    for line in lines:
        show(line)
    if not lines and not json_out:
        typer.echo(f"(nothing logged for {dispatch} yet)")


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
    characters dropped, only for a running attempt without a result, of an agent that reads its
    terminal (refused, nothing sent, to a `codex_exec` worker: `codex exec` reads nothing typed).

    Examples:

    \b
      oms worker send tkt-3 'the tests live in tests/unit, not test/'
      oms worker send dsp-3fa2 --file notes.txt
    """
    import getpass

    from oms.services.chain import handles
    from oms.services.delivery.service import Delivery

    message = _message(text, file)
    who = person or getpass.getuser()
    with workspace(state_root_, config_root_, etcd=True) as ws:  # its host's pane (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch)
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
    """Worker, session and pane state (records an end reason if the pane has ended).

    Examples:

    \b
      oms worker observe tkt-3
      oms worker observe dsp-3fa2 --json
    """
    from oms.services.chain import handles
    from oms.services.delivery.service import Delivery

    with workspace(state_root_, config_root_, etcd=True) as ws:  # any host's (ADR 0043)
        dispatch = handles.dispatch(ws, dispatch, handles.Want.LAST)  # an ended attempt's too
        view = Delivery.open(ws).observe(dispatch)
    emit({"ok": True, **view}) if json_out else _print(view)
