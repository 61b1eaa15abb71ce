"""`oms conductor tick|run`: the unattended fleet (`services/conductor/tick.py`,
`services/conductor/loop.py`)."""

from __future__ import annotations

import contextlib
import signal
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from oms.cli.common import ConfigRootOpt, JsonOpt, StateRootOpt, emit, workspace
from oms.cli.internal import InternalErrorsSeen

if TYPE_CHECKING:
    from oms.services.conductor.tick import Tick
    from oms.services.workspace import Workspace

app = typer.Typer(
    help=("The conductor: one tick, or ticks in a loop.\n\nExample: oms conductor run"),
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _stamp() -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())


def _lines(report: Tick) -> list[str]:
    out = []
    for phase in report.phases:
        out += [f"{phase.name}: {line}" for line in phase.done]
        out += [f"{phase.name}: skipped {line}" for line in phase.skipped]
    return out


def _summary(report: Tick) -> str:
    counts: dict[str, int] = {}
    for cls in report.classes.values():
        counts[cls] = counts.get(cls, 0) + 1
    workers = ", ".join(f"{n} {cls}" for cls, n in sorted(counts.items())) or "no workers"
    timing = " ".join(f"{p.name}={p.ms:.0f}ms" for p in report.phases)
    on = f" on host {report.host}" if report.host else ""
    return f"tick {sum(p.ms for p in report.phases):.0f} ms{on} ({workers}) {timing}"


@app.command("tick")
def tick(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """One idempotent pass over the fleet, phase by phase; --json reports each phase's lines.

    Phases, in order: reconcile, expire, deadlines, providers, resume, deliver, resolve, fill,
    close, notify, compact, checkpoint.

    Examples:

    \b
      oms conductor tick
      */5 * * * * cd ~/src/shop && oms conductor tick   (cron)
    """
    from oms.services.conductor import tick as conductor

    signal.signal(signal.SIGINT, _interrupted_now)
    with workspace(state_root_, config_root_, etcd=True) as ws:  # a host's (ADR 0043 `etcdtick`)
        report = conductor.tick(ws)
    if json_out:
        emit({"ok": not report.internal, **report.to_json()})
    else:
        for line in _lines(report):
            typer.echo(line)
        typer.echo(_summary(report))
    if report.internal:
        raise InternalErrorsSeen(_internal(report.internal))


def _internal(lines: list[str]) -> str:
    more = f" (and {len(lines) - 1} more, above)" if len(lines) > 1 else ""
    return f"{lines[0]}{more}; rerun with OMS_VERBOSE=1 and report it"


@app.command("notify", hidden=True)
def notify(
    notice: Annotated[list[str], typer.Argument(help="Claimed notices' ids.")],
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
) -> None:
    """Run the `[notify]` commands on claimed notices (started detached by oms, ADR 0036)."""
    from oms.canonical import check
    from oms.services.notify import notices

    for notice_id in notice:
        check(notice_id, "notice id")
    # on an etcd store, where the tick claimed them (ADR 0043, amendment `rest`)
    with workspace(state_root_, config_root_, etcd=True) as ws:
        notices.deliver_all(ws, notice)


@app.command("run")
def run(
    interval: Annotated[
        int | None,
        typer.Option(
            "--interval", min=1, max=3600, help="Seconds between ticks (default: the config's)."
        ),
    ] = None,
    ticks: Annotated[
        int | None, typer.Option("--ticks", min=1, help="Stop after this many ticks.")
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Tick in a loop (woken early by new tickets and events) until Ctrl-C or SIGTERM; workers keep
    running.

    Examples:

    \b
      oms conductor run
      oms conductor run --interval 30 --ticks 10
    """
    from oms.services.conductor import tick as conductor
    from oms.services.conductor.loop import Loop

    asked: list[int] = []
    internal: list[str] = []
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda s, _f: _asked_to_stop(asked, s))
    live = sys.stdout.isatty() and not json_out
    with workspace(state_root_, config_root_, etcd=True) as ws:  # (ADR 0043 `etcdtick`)
        every = interval if interval is not None else ws.config().tick_seconds

        def report(done: Tick | None, failed: str | None) -> None:
            if done is not None:
                internal.extend(done.internal)
            elif failed is not None and failed.startswith("internal error"):
                internal.append(f"a tick: {failed}")
            if json_out:
                emit(
                    {"type": "tick", **done.to_json()}
                    if done is not None
                    else {"type": "tick-failed", "error": failed}
                )
            elif done is None:
                typer.echo(f"{_stamp()} tick failed: {failed}")
            elif live:
                _live_view(ws, done, now)
            else:
                for line in _lines(done):
                    typer.echo(f"{_stamp()} {line}")
                typer.echo(f"{_stamp()} {_summary(done)}")

        with contextlib.ExitStack() as stack:
            stack.enter_context(conductor.lock(ws))  # refused before anything is said
            if not json_out:
                typer.echo(
                    f"{_stamp()} conductor on {ws.store.path}, a tick every {every} s "
                    "(Ctrl-C ends it)"
                )
            now = stack.enter_context(_doing()) if live else None
            count = Loop(ws, float(every), report, lambda: bool(asked), ticks, held=True).run()
    why = "asked to stop" if asked else "done"
    if json_out:
        emit({"type": "stopped", "ticks": count, "reason": why, "internal_errors": internal})
    else:
        typer.echo(
            f"{_stamp()} conductor stopped after {count} ticks ({why}); workers keep running"
        )
    if internal:
        raise InternalErrorsSeen(_internal(internal))


def _doing() -> Doing:
    from oms.limits import LIMITS
    from oms.services.conductor import doing

    def write(text: str) -> None:
        sys.stdout.write(text)
        sys.stdout.flush()

    return Doing(write, doing.said, LIMITS.dashboard_refresh_s)


def _asked_to_stop(asked: list[int], signum: int) -> None:
    """Ctrl-C (or SIGTERM) once: the loop ends after the running tick, and says what that tick is
    doing (a model call can take minutes); twice: it ends now — what it runs (the advisor) ends
    with it, its workers keep running (ADR 0031)."""
    asked.append(signum)
    if len(asked) > 1:
        raise KeyboardInterrupt
    from oms.services.conductor import doing

    what = doing.said()
    now = f"; this tick is at {what}" if what else ""
    again = "again to stop now; workers keep running"
    sys.stderr.write(f"\noms: stopping after this tick{now} ({again})\n")
    sys.stderr.flush()


def _interrupted_now(_signum: int, _frame: object) -> None:
    """A one-shot tick's Ctrl-C ends it now, saying where (what it ran ends with it)."""
    from oms.services.conductor import doing

    what = doing.said()
    sys.stderr.write(f"\noms: stopping now{f', at {what}' if what else ''}; workers keep running\n")
    raise KeyboardInterrupt


def _live_view(ws: Workspace, report: Tick, now: Doing | None = None) -> None:
    """Redraw the screen: pool, workers (ticket, title, health, age, last heartbeat), queue, recent
    ends, the tick; under it, what the conductor does now."""
    from oms.cli.conductor_view import render

    screen = "\x1b[H\x1b[2J" + render(ws, report)
    if now is None:
        typer.echo(screen, nl=False)
    else:
        now.redraw(screen)


class Doing:
    """The screen's last line, redrawn while a tick runs whenever what it does changes (the phase,
    "tkt-3: the advisor reviews dsp-… (a model call)"): a long tick — the first, a model call — is
    never a silent screen. One thread polls `said` (`services/conductor/doing.said`) every
    `every_s`; every write goes through one lock."""

    def __init__(
        self, write: Callable[[str], None], said: Callable[[], str], every_s: float
    ) -> None:
        import threading

        self.write, self.said, self.every_s = write, said, every_s
        self.lock = threading.Lock()
        self.shown: str | None = None
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="oms-doing", daemon=True)

    def poll(self) -> None:
        """Redraw the line if what it says changed."""
        import shutil

        from oms.cli.conductor_view import cell, doing_line

        line = doing_line(self.said())
        with self.lock:
            if line != self.shown:
                width = shutil.get_terminal_size().columns - 1
                self.write("\r\x1b[K" + cell(line, width).rstrip())
                self.shown = line

    def redraw(self, screen: str) -> None:
        """Draw a new screen, then the line under it."""
        with self.lock:
            self.write(screen)
            self.shown = None
        self.poll()

    def _run(self) -> None:
        while not self.stop.wait(self.every_s):
            self.poll()

    def __enter__(self) -> Doing:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop.set()
        self.thread.join()
        with self.lock:
            if self.shown is not None:
                self.write("\n")
