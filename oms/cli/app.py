"""The Typer application: the root, `init`, `doctor`, `status`, and the command groups."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Annotated

import typer

from oms.cli import version_cmd
from oms.cli.common import (
    ConfigRootOpt,
    JsonOpt,
    StateRootOpt,
    config_root,
    emit,
    state_root,
    table,
    workspace,
)
from oms.cli.fast_help import SECTION
from oms.errors import NotARepositoryError, shown
from oms.limits import LIMITS
from oms.version import __version__

if TYPE_CHECKING:
    from oms.services.workspace import Workspace

ROOT_HELP = """oms: run a fleet of untrusted coding agents on tickets, one verified step at a time.

New here? docs/guide.md walks the first hour, step by step; docs/cli.md is every command's help.
Where a command takes a TICKET or a DISPATCH, give its whole id or a unique prefix of one; where it
takes a dispatch (a worker), a ticket's id names its live attempt (its result, for `oms result`;
once its attempts ended, its last one, for `oms worker log|observe` and `oms dispatch show`).

Examples:

\b
  oms init --commit
  oms ticket add --title 'Fix the flaky test' < notes.md
  oms conductor run
  oms result merge tkt-1"""

root = typer.Typer(  # the root's own commands; `app` is it with every group
    name="oms",
    help=ROOT_HELP,
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog=SECTION,
)
# The command groups, in the order the root's help lists them: (name, module in oms.cli, its Typer).
# A run imports only the module of the group its first word names (`app_for`); the frozen build
# carries every oms.cli module (build/oms.spec).
GROUPS = (
    ("store", "store_cmds", "app"),
    ("ticket", "ticket_cmds", "app"),
    ("worktree", "ticket_cmds", "worktree_app"),
    ("dispatch", "dispatch_cmds", "app"),
    ("policy", "dispatch_cmds", "policy_app"),
    ("live", "live_cmds", "app"),
    ("worker", "worker_cmds", "app"),
    ("conductor", "conductor_cmds", "app"),
    ("pool", "pool_cmds", "app"),
    ("route", "route_cmds", "app"),
    ("provider", "route_cmds", "provider_app"),
    ("proxy", "proxy_cmds", "app"),
    ("result", "result_cmds", "app"),
    ("audit", "audit_cmds", "app"),
    ("host", "host_cmds", "app"),
)


def _with(groups: Sequence[tuple[str, str, str]]) -> typer.Typer:
    """The root with `groups` (their modules imported now)."""
    import copy
    import importlib

    app = copy.copy(root)
    app.registered_groups = []
    for name, module, attribute in groups:
        group = getattr(importlib.import_module(f"oms.cli.{module}"), attribute)
        app.add_typer(group, name=name)
    return app


def app_for(args: Sequence[str]) -> typer.Typer:
    """The app a run of `args` needs: a root command's, or the group its first word names (that
    group's module alone imported), narrowed to the command (`cli/narrow.py`); any other first word
    (an option, help, a typo) gets every group."""
    from oms.cli.narrow import names, narrowed

    if args[:1] and args[0] in names(root):
        return narrowed(_with(()), args)
    return narrowed(_with([g for g in GROUPS if args[:1] == [g[0]]] or GROUPS), args)


def __getattr__(name: str) -> typer.Typer:
    """`app`: the whole app, every group's module imported (the docs, completion, the tests)."""
    if name != "app":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    whole = globals()["app"] = _with(GROUPS)
    return whole


def _version(value: bool) -> None:
    if value:
        typer.echo(f"oms {__version__}")
        raise typer.Exit(0)


@root.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            is_eager=True,
            callback=_version,
            help="Print the version (--verbose: its digest, as `oms version --verbose`).",
        ),
    ] = False,
    verbose: Annotated[
        bool, typer.Option("--verbose", help="Show tracebacks of internal errors.")
    ] = False,
) -> None:
    """oms: run a fleet of untrusted coding agents on tickets, one verified step at a time."""


AUTHOR_HELP = (
    "Who --commit commits as: 'Your Name <you@example.com>' (default: the person git knows; where "
    "git knows no one yet, oms asks on a terminal), kept in the repository's git config if git "
    "knew no one."
)


@root.command()
def init(
    commit: Annotated[
        bool,
        typer.Option(
            "--commit", help="Also commit .oms/ in the config root (what runs comes from HEAD)."
        ),
    ] = False,
    author: Annotated[str | None, typer.Option("--author", help=AUTHOR_HELP)] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Create (or verify) this repository's state root and its key; scaffold .oms/config.toml and
    .oms/role-policy.json at the repository's top.

    Examples:

    \b
      oms init --commit
      oms init --commit --author 'Ann Lee <ann@example.com>'
    """
    import dataclasses

    from oms.services.admin.setup import commit_scaffold, committer
    from oms.services.admin.setup import init as do_init

    repo = config_root(config_root_)
    who = None
    if commit:  # who commits is settled before anything is made
        who = committer(repo, author if author is not None else _asked_person(repo))
    result = do_init(state_root(state_root_, repo), repo)
    if who is not None:
        result = dataclasses.replace(result, committed=commit_scaffold(repo, *who))
    if json_out:
        emit({"ok": True, **result.to_json()})
        return
    typer.echo(
        f"state root   {shown(result.state_root)} "
        f"({'created' if result.state_created else 'already initialised'})"
    )
    typer.echo(f"repository   {shown(repo)} (the one this state root serves)")
    if result.state_created and not (state_root_ or os.environ.get("OMS_STATE_ROOT")):
        from oms.store.stateroot import left_behind

        for path, served in left_behind(os.path.dirname(result.state_root))[:3]:
            typer.echo(  # a repository moved or renamed: its tickets are there (ADR 0032)
                f"left behind  {shown(path)} serves {shown(served)}, which is gone "
                "(moved from there? move it back to go on with that state root's tickets)"
            )
    typer.echo(f"signing key  ed25519 {result.key_id[:16]}")
    if result.sandbox_dir:
        where = shown(result.sandbox_dir)
        typer.echo(f"sandboxes    {where} (agent homes and sockets: never the state root)")
    if result.config_path:
        typer.echo(
            f"config       {shown(result.config_path)} "
            f"({'created' if result.config_created else 'exists, valid'})"
        )
    if result.policy_path:
        typer.echo(
            f"role policy  {shown(result.policy_path)} "
            f"({'created' if result.policy_created else 'exists, valid'})"
        )
    if who is not None and who[1]:
        person = shown(f"{who[0][0]} <{who[0][1]}>")
        typer.echo(f"git identity {person} (kept in the repository's git config)")
    if result.committed is not None:
        typer.echo(f"committed    .oms/ as {result.committed[:12]}")
    elif result.policy_created:
        _next_commit(repo)
        return
    typer.echo("next         oms doctor")


def _asked_person(repo: str) -> str | None:
    """On a terminal, where git knows no one: the person's `Name <email>`, asked (None: not
    asked)."""
    import sys

    from oms.adapters.git import known_person

    if not sys.stdin.isatty() or known_person(repo) is not None:
        return None
    typer.echo("git does not know who you are yet: oms commits .oms/ as you, and keeps it in git")
    name = typer.prompt("Your name (git user.name)").strip()
    email = typer.prompt("Your email (git user.email)").strip()
    return f"{name} <{email}>"


def _next_commit(repo: str) -> None:
    """The command that commits the scaffold (what runs comes from HEAD)."""
    import shlex

    from oms.adapters.git import known_person

    quoted = shlex.quote(os.path.abspath(repo))
    if known_person(repo) is None:  # `git commit` would fail: say who in the same command
        who = "--author 'Your Name <you@example.com>'"
        typer.echo(f"next         oms init --commit {who} --config-root {quoted}")
        typer.echo("             (git does not know who you are yet: oms keeps it in the repo)")
        return
    typer.echo(f"next         git -C {quoted} add .oms && git -C {quoted} commit -m 'oms config'")
    then = "then `oms doctor`"
    typer.echo(f"             (what runs comes from HEAD; `oms init --commit` does it), {then}")


@root.command()
def doctor(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """Check tools, the state root, kernel features and the config: one line each, OK or FAIL with
    the fix.

    Examples:

    \b
      oms doctor
      oms doctor --json
    """
    from oms.services.admin.doctor import diagnose

    try:
        repo = config_root(config_root_)
    except NotARepositoryError as exc:  # said as a FAIL line, with the fix
        where = os.path.abspath(config_root_ or os.getcwd())
        checks = diagnose(state_root_ and state_root(state_root_), where, outside=exc)
    else:
        checks = diagnose(state_root(state_root_, repo), repo)
    failed = [c for c in checks if not c.ok]
    if json_out:
        emit({"ok": not failed, "checks": [c.to_json() for c in checks]})
    else:
        width = max(len(c.name) for c in checks)
        for c in checks:
            mark = "FAIL" if not c.ok else "WARN" if c.warn else "OK  "
            line = f"{mark}  {c.name:<{width}}  {shown(c.detail, 400)}"
            typer.echo(line + (f"  (fix: {shown(c.fix, 400)})" if c.fix else ""))
    if failed:
        raise typer.Exit(1)


@root.command()
def status(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """Tickets, dispatches, workers (each with its host: `host unreachable` once that host's
    heartbeat lapsed), sessions and live authorisations at a glance.

    Examples:

    \b
      oms status
      oms status --json
    """
    from oms.services.admin.status import snapshot

    with workspace(state_root_, config_root_, etcd=True) as ws:  # correct on etcd (ADR 0043)
        snap = snapshot(ws)
        ws_now = ws.now()
    if json_out:
        emit({"ok": True, **snap.to_json()})
        return
    data = snap.to_json()
    cells = snap.host_cells()  # each worker's host, `host unreachable` when its heartbeat lapsed
    for item in data["workers"] if isinstance(data["workers"], list) else []:
        if isinstance(item, dict):
            item["host"] = cells.get(str(item.get("id")), item.get("host"))
    for line in snap.warnings:
        typer.echo(f"WARN {line}")
    if snap.warnings:
        typer.echo("")
    sections = (
        ("tickets", ("id", "state", "attempt", "worker_id", "lease_expires_at", "title")),
        ("dispatches", ("id", "state", "ticket_id", "attempt", "role_id", "advisor_verdict")),
        ("workers", ("id", "state", "health", "agent", "ticket_id", "end_reason", "host")),
        ("sessions", ("id", "state", "dispatch_id", "tmux_pane_id", "heartbeat_deadline_at")),
        ("live", ("id", "state", "repository", "person")),
    )
    for name, fields in sections:
        items = data[name]
        assert isinstance(items, list)  # noqa: S101 - shape of to_json
        typer.echo(f"{name} ({len(items)})")
        if items and name == "tickets":
            _tickets_table(fields, items, snap.reasons(ws_now))
        elif items:
            table(
                fields, [[item.get(f) for f in fields] for item in items if isinstance(item, dict)]
            )
        typer.echo("")


def _tickets_table(
    fields: tuple[str, ...], items: Sequence[object], reasons: dict[str, str]
) -> None:
    """The tickets' table with the reason each waits, is blocked or parked (one phrase, cut to what
    the terminal's width leaves it)."""
    import shutil

    from oms.domain.status_reason import fit

    dicts = [item for item in items if isinstance(item, dict)]
    *shown, last = fields
    columns = [["-" if (v := item.get(f)) is None else str(v) for item in dicts] for f in shown]
    titles = (str(item.get(last) or "-") for item in dicts)
    columns.append(
        [
            t if len(t) <= LIMITS.status_title_chars else fit(t, LIMITS.status_title_chars)
            for t in titles
        ]
    )
    widths = [max(len(h), *map(len, column)) for h, column in zip(fields, columns, strict=True)]
    room = shutil.get_terminal_size().columns - sum(w + 2 for w in widths)
    most = max(room, LIMITS.status_reason_min_chars)
    whys = [fit(reasons.get(str(item.get("id")), ""), most) or "-" for item in dicts]
    line = "  ".join(f"{{:<{w}}}" for w in widths) + "  {}"  # the reason last, not padded
    header = [h.upper() for h in (*fields, "reason")]
    lines = [line.format(*header).rstrip(), *map(str.rstrip, map(line.format, *columns, whys))]
    typer.echo("\n".join(lines))  # one write: a call per row was a fifth of `oms status`'s time


@root.command()
def demo(
    directory: Annotated[
        str | None,
        typer.Option(
            "--dir", help="Run in this new or empty directory (default: a new one under $TMPDIR)."
        ),
    ] = None,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout", min=5.0, max=600.0, help="Seconds to wait for the worker's result."
        ),
    ] = LIMITS.demo_timeout_s,
    count: Annotated[
        int | None,
        typer.Option(
            "--tickets", min=1, max=1000, help="Run the conductor over this many tickets instead."
        ),
    ] = None,
    workers: Annotated[
        int, typer.Option("--workers", min=1, max=64, help="With --tickets: workers at a time.")
    ] = 2,
    keep: Annotated[
        bool,
        typer.Option(
            "--keep", help="Leave the worker and the demo's tmux server running (default: ended)."
        ),
    ] = False,
    json_out: JsonOpt = False,
) -> None:
    """The whole chain on a scratch repository: ticket, advisor review, delivery into a tmux pane,
    and a worker that talks to oms only through its MCP bridge and its hooks; prints the timeline.
    With --tickets N: the conductor works N tickets, --workers K at a time, until each has a
    result.

    Examples:

    \b
      oms demo
      oms demo --tickets 20 --workers 4 --keep
    """
    import sys

    from oms.demo.scratch import run
    from oms.errors import DemoFailedError
    from oms.services.chain.worktrees import branch_for

    def progress(message: str) -> None:
        if not json_out:
            sys.stderr.write(f"oms demo: {message}\n")
            sys.stderr.flush()

    if count is not None:
        _fleet_demo(
            directory, count, workers, max(timeout, 30.0 * count / workers), json_out, progress
        )
        return

    result = run(directory, timeout_s=timeout, keep=keep, progress=progress)
    import shlex

    roots = (
        f"--state-root {shlex.quote(result.state_root)} --config-root {shlex.quote(result.repo)}"
    )
    if json_out:
        emit(result.to_json())
        if not result.ok:
            raise typer.Exit(1)
        return
    typer.echo("Timeline")
    width = max((len(s.subject) for s in result.timeline), default=8)
    for s in result.timeline:
        typer.echo(f"  {s.at[11:23]}  {s.source:<8}  {s.subject:<{width}}  {s.text}")
    typer.echo("")
    if result.ok:
        typer.echo(
            f"Result: dispatch {result.dispatch_id} is {result.dispatch_state}; commit "
            f"{result.result_commit} on branch {branch_for(result.ticket_id)}"
        )
    if not result.kept:
        typer.echo(
            "The worker was stopped and the demo's tmux server "
            "ended (`oms demo --keep` keeps them)."
        )
    typer.echo("Where to look")
    if result.kept:
        pane = f"tmux -S {shlex.quote(result.socket)} attach -t {result.dispatch_id}"
        typer.echo(f"  {pane}   # the worker's pane (Enter ends it)")
    typer.echo(f"  oms status {roots}")
    typer.echo(f"  oms audit log {roots}")
    typer.echo(f"  git -C {shlex.quote(result.repo)} log --oneline --graph --all")
    if result.kept:
        typer.echo(f"  oms worker stop {result.dispatch_id} --reason 'demo over' {roots}")
    if not result.ok:
        look = (
            f"look at the pane: tmux -S {result.socket} attach"
            if result.kept
            else f"oms status {roots}"
        )
        raise DemoFailedError(f"demo did not finish: {result.reason}", hint=look)


def _fleet_demo(
    directory: str | None,
    count: int,
    workers: int,
    timeout: float,
    json_out: bool,
    progress: Callable[[str], None],
) -> None:
    import shlex

    from oms.demo import fleet as demo_fleet
    from oms.errors import DemoFailedError

    result = demo_fleet.run(
        directory, count=count, workers=workers, timeout_s=timeout, progress=progress
    )
    if json_out:
        emit(result.to_json())
        if not result.ok:
            raise typer.Exit(1)
        return
    table(
        ("ticket", "dispatch", "state"),
        [[r["ticket_id"], r["dispatch_id"], r["state"]] for r in result.results],
    )
    typer.echo(
        f"\n{len(result.results)} tickets in {result.seconds:.0f} s over {result.ticks} ticks; "
        f"at most {result.max_concurrent_workers} workers at once (pool {workers}); the demo's "
        f"tmux server has ended"
    )
    roots = (
        f"--state-root {shlex.quote(result.state_root)} --config-root {shlex.quote(result.repo)}"
    )
    typer.echo(f"  oms status {roots}")
    if not result.ok:
        raise DemoFailedError(f"demo did not finish: {result.reason}", hint=f"oms status {roots}")


COMPLETION_SHELLS = ("bash", "zsh", "fish")
COMPLETE_VAR = "_OMS_COMPLETE"  # the completion scripts call oms with it set (`cli/boundary.py`)


@root.command()
def completion(
    shell: Annotated[str, typer.Argument(help="bash, zsh or fish.", metavar="SHELL")],
) -> None:
    """Print the shell completion script: `source <(oms completion bash)` in ~/.bashrc, `oms
    completion zsh > "${fpath[1]}/_oms"`, or `oms completion fish >
    ~/.config/fish/completions/oms.fish`.

    Examples:

    \b
      source <(oms completion bash)
      oms completion fish > ~/.config/fish/completions/oms.fish
    """
    from typer._completion_shared import (
        _completion_scripts,
    )  # Typer's own scripts (typer is pinned: ADR 0006)

    from oms.errors import UsageError

    if shell not in COMPLETION_SHELLS:
        raise UsageError(
            f"no completion for shell {shell[:40]!r} (expected one of "
            f"{', '.join(COMPLETION_SHELLS)})"
        )
    names = {
        "complete_func": "_oms_completion",
        "prog_name": "oms",
        "autocomplete_var": COMPLETE_VAR,
    }
    typer.echo((_completion_scripts[shell] % names).strip())


@root.command()
def web(
    port: Annotated[
        int, typer.Option("--port", help="The port on 127.0.0.1 (0: a free one).", min=0, max=65535)
    ] = 0,
    bind: Annotated[
        str, typer.Option("--bind", help="Refused unless 127.0.0.1: the board is local only.")
    ] = "127.0.0.1",
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
) -> None:
    """Serve a board in the browser on 127.0.0.1 until Ctrl-C: the queue, the pool, the workers,
    results and the audit log, updated live; its buttons approve or reject a dispatch that waits
    for a person, verify, merge or request changes of a result, cancel a dispatch and send a worker
    a message, as you (your login name). It prints the URL to open, with the random token every
    request must carry. A server, so no --json.

    Examples:

    \b
      oms web
      oms web --port 8765
    """
    import signal

    from oms.services.web import server
    from oms.services.web.board import marker

    with workspace(state_root_, config_root_, etcd=True) as ws:  # fails now, not on a request
        on_etcd = ws.store.backend is not None  # the cluster `[store]` names (ADR 0043, `rest`)
        marker(ws)  # what its watcher reads: an unreachable cluster is one line now

    def opener() -> AbstractContextManager[Workspace]:  # per request: on files, the backend was
        if on_etcd:  # checked as it started; on etcd, its pin too, each time (a commit moves it)
            return workspace(state_root_, config_root_, etcd=True)
        return workspace(state_root_, config_root_, check_backend=False)

    board = server.serve(port, opener, bind)

    def stop(_signum: int, _frame: object) -> None:
        raise KeyboardInterrupt  # SIGTERM ends it as Ctrl-C does: the pages are told

    signal.signal(signal.SIGTERM, stop)
    typer.echo(f"oms web: open {board.url}")
    typer.echo("(Ctrl-C stops it)")
    sys.stdout.flush()
    try:
        board.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        board.server_close()


root.command("version")(version_cmd.version)
