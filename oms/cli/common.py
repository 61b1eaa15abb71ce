"""Options, output helpers and the human-confirmation rule shared by the command modules."""

from __future__ import annotations

import contextlib
import getpass
import json
import os
import sys
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Annotated

import typer

from oms.errors import StateRootError, UsageError, shown
from oms.store.stateroot import default_state_root

if TYPE_CHECKING:
    from oms.services.workspace import Workspace

StateRootOpt = Annotated[
    str | None,
    typer.Option(
        "--state-root",
        envvar="OMS_STATE_ROOT",
        help="State root (default: one per repository, under $XDG_STATE_HOME/oms).",
    ),
]
ConfigRootOpt = Annotated[
    str | None,
    typer.Option(
        "--config-root",
        envvar="OMS_CONFIG_ROOT",
        help="Config root: the repository holding .oms/ (default: the one you are in).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]
UNTIL_AHEAD = "90m, 2h, 1d12h (from now), 09:00 (the next 09:00 here) or YYYY-MM-DDTHH:MM:SS.mmmZ"
UNTIL_BEHIND = "90m, 2h, 1d (ago), 09:00 (the last 09:00 here) or YYYY-MM-DDTHH:MM:SS.mmmZ"
TokenOpt = Annotated[
    str,
    typer.Option(
        "--token",
        envvar="OMS_LEASE_TOKEN",
        help="The lease token (prefer $OMS_LEASE_TOKEN: command lines are visible to other users).",
    ),
]


def state_root(value: str | None, repository: str | None = None) -> str:
    """The absolute state root to use: `value` (`--state-root`, `$OMS_STATE_ROOT`), else the
    default state root of `repository` (when not given, the one oms runs in): one per repository
    (ADR 0032)."""
    if value:
        return os.path.abspath(value)
    return os.path.abspath(default_state_root(repository=repository or config_root(None)))


def config_root(value: str | None) -> str:
    """The repository oms works for: the top level of the git working tree holding `value` (default:
    the current directory), found as git finds it; `NotARepositoryError` outside one (ADR 0032)."""
    from oms.adapters.git import repository_top

    return repository_top(os.path.abspath(value or os.getcwd()))


def emit(data: object) -> None:
    """Print one JSON document."""
    typer.echo(json.dumps(data, sort_keys=True))


def cell(value: object) -> str:
    """A value as a person reads it, never a Python repr: `-` for none, `yes`/`no`, an object as
    `key=value` pairs, a list comma-separated."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, dict):
        return " ".join(f"{k}={cell(v)}" for k, v in value.items()) or "-"
    if isinstance(value, list | tuple):
        return ", ".join(cell(v) for v in value) or "-"
    return str(value)


def table(header: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """Print an aligned text table (or a note when empty)."""
    cells = [[cell(c) for c in row] for row in rows]
    widths = [
        max(len(h), *(len(r[i]) for r in cells)) if cells else len(h) for i, h in enumerate(header)
    ]
    lines = ["  ".join(h.upper().ljust(w) for h, w in zip(header, widths, strict=True)).rstrip()]
    lines += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in cells
    ]
    typer.echo("\n".join(lines))  # one write (a call a row costs ~10 µs: 0.1 s at 10,000 rows)


@contextlib.contextmanager
def workspace(
    state: str | None,
    config: str | None,
    *,
    served: bool = True,
    etcd: bool = False,
    check_backend: bool = True,
) -> Iterator[Workspace]:
    """Open the workspace for one command (its options: `Workspace.open`'s)."""
    from oms.services.workspace import Workspace

    repo = config_root(config)
    path = state_root(state, repo)
    try:
        ws = Workspace.open(path, repo, served=served, etcd=etcd, check_backend=check_backend)
    except StateRootError as exc:
        chosen = state or os.environ.get("OMS_STATE_ROOT")
        if chosen or os.path.lexists(path):
            raise
        raise _left_behind(exc, os.path.dirname(path)) from None
    before = ws.store.write_mark()
    try:
        yield ws
    finally:
        try:
            if ws.store.write_mark() != before:  # it wrote: its heads signed, anchored (ADR 0027)
                why = ws.store.sign_and_anchor()
                if why is not None:
                    warning = f"the anchor stays: {why} (`oms audit verify`)"
                    sys.stderr.write(f"oms: warning: {warning}\n")
        finally:
            ws.close()


def _left_behind(exc: StateRootError, base: str) -> StateRootError:
    """The refusal of a repository's missing default state root, naming the state root a move or
    rename of the repository left behind, if there is one (ADR 0032)."""
    from oms.store.stateroot import left_behind

    found = left_behind(base)
    if not found:
        return exc
    path, served = found[0]
    more = f" ({len(found) - 1} more like it)" if len(found) > 1 else ""
    hint = (
        f"the state root {shown(path)} serves {shown(served)}, which is gone{more}: if this "
        "repository was there, move it back to go on with its tickets; `oms init` here starts "
        "afresh"
    )
    return StateRootError(exc.message, hint=hint)


def confirm_person(person: str | None, *, question: str, expect: str, yes: bool) -> tuple[str, str]:
    """Establish that a person is acting: on a TTY, they type `expect`; elsewhere `--person` must
    name them.

    Returns (person, how): how is "tty" or "flag".
    """
    if sys.stdin.isatty() and not yes:
        typed = typer.prompt(f"{question}\nType {expect!r} to confirm")
        if typed.strip() != expect:
            raise UsageError("confirmation did not match; nothing was recorded")
        return (person or getpass.getuser()), "tty"
    if not person:
        raise UsageError(
            "not on a terminal: name the person with --person (oms records who authorised this)"
        )
    return person, "flag"


def text_for_terminal(text: str) -> str:
    """Text someone else wrote (a ticket's title and body), safe to print: lines and tabs kept,
    every other control character (ESC and so terminal escapes: OSC 52 writes the clipboard) shown
    escaped."""
    return "".join(
        c if c in "\n\t" or c.isprintable() else c.encode("unicode_escape").decode("ascii")
        for c in text
    )


def _ids_for_completion(ctx: typer.Context, kinds: Sequence[str], incomplete: str) -> list[str]:
    """The ids of `kinds` that begin `incomplete`, read from the state root the command line names
    so far (else the default), writing nothing; nothing at all when it cannot be read (a completion
    never fails where the person types)."""
    from oms.errors import OmsError
    from oms.store import Store

    params = ctx.params
    found: list[str] = []
    try:
        repo = config_root(params.get("config_root_"))
        store = Store.open(state_root(params.get("state_root_"), repo))
    except (OmsError, OSError):
        return []
    try:
        for kind in kinds:
            found += sorted(i for i in store.records(kind).ids() if i.startswith(incomplete))
    except (OmsError, OSError):
        return []
    finally:
        store.state.close()
    return found


def complete_ticket(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion of a ticket argument: the tickets' ids."""
    return _ids_for_completion(ctx, ("ticket",), incomplete)


def complete_dispatch(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion of a dispatch argument: tickets' ids (each names its attempt), then
    dispatches'."""
    return _ids_for_completion(ctx, ("ticket", "dispatch"), incomplete)


def complete_dispatch_id(ctx: typer.Context, incomplete: str) -> list[str]:
    """Shell completion of an option that takes a whole dispatch id (a filter): dispatches' ids."""
    return _ids_for_completion(ctx, ("dispatch",), incomplete)
