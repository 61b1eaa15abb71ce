"""`oms result verify|merge|discard DSP`: finishing a dispatch's result without losing work (issue
14, ADR 0021; `services/finishing/verify.py`, `services/finishing/finish.py`)."""

from __future__ import annotations

from typing import Annotated

import typer

from oms.cli.common import (
    ConfigRootOpt,
    JsonOpt,
    StateRootOpt,
    complete_dispatch,
    emit,
    workspace,
)

app = typer.Typer(
    help=(
        "A dispatch's result: verify it in a sandbox, merge it, or discard it (archived first)."
        "\n\nExample: oms result merge tkt-3"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)
DispatchArg = Annotated[
    str,
    typer.Argument(
        help="The dispatch whose result it is (or a unique prefix of its id), or a ticket: its "
        "one result.",
        metavar="DISPATCH|TICKET",
        show_default=False,
        autocompletion=complete_dispatch,
    ),
]


@app.command("verify")
def verify_cmd(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Run the committed [verify] checks against the tree a merge would make; sign the outcome (exit
    1: failed).

    Examples:

    \b
      oms result verify tkt-3      (the ticket's one result)
      oms result verify dsp-3fa2
    """
    from oms.errors import VerificationFailedError
    from oms.services.chain import handles
    from oms.services.finishing import verify

    with workspace(state_root_, config_root_) as ws:
        dispatch = handles.dispatch(ws, dispatch, handles.Want.RESULT)
        done = verify.verify(ws, dispatch, progress=lambda line: typer.echo(line, err=True))
    doc = {
        "ok": done.passed,
        "dispatch_id": dispatch,
        "passed": done.passed,
        "evidence": done.ref,
        "commit": done.commit,
        "target": done.target.branch,
        "base": done.target.head,
        "mode": done.target.mode,
        "tree": done.tree,
        "checks": [r.evidence() for r in done.ran],
    }
    failed = None
    if not done.passed:
        where = "its checks' evidence (`checks`)" if json_out else "the output above"
        failed = VerificationFailedError(
            f"the checks of {dispatch} failed", hint=f"see {where}; nothing merged"
        )
    if json_out:  # one document: the outcome, with the error when it failed
        emit(doc | (failed.to_json() if failed else {}))
        if failed:
            raise typer.Exit(1)
        return
    for r in done.ran:
        outcome = (
            "passed"
            if r.passed
            else ("timed out" if r.exit_code is None else f"exit {r.exit_code}")
        )
        typer.echo(f"{outcome:<10} {r.duration_ms / 1000:7.1f}s  {' '.join(r.argv)[:100]}")
        if not r.passed and r.output:
            tail = r.output[-2000:].decode("utf-8", "replace").rstrip()
            typer.echo("\n".join("    " + line for line in tail.splitlines()[-20:]))
    typer.echo(
        f"{'verified' if done.passed else 'failed'}: {done.commit[:12]} into "
        f"{done.target.branch} ({done.target.head[:12]}), evidence {done.ref[:12]}"
    )
    if failed:
        raise failed


@app.command("merge")
def merge_cmd(
    dispatch: DispatchArg,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Merge a verified result into the target branch (only the verified tree, on the verified
    base). The merge commit is yours: git's identity (user.name, user.email), as `git merge` makes
    it.

    Example:

    \b
      oms result merge tkt-3
    """
    from oms.services.chain import handles
    from oms.services.finishing import finish

    with workspace(state_root_, config_root_) as ws:
        dispatch = handles.dispatch(ws, dispatch, handles.Want.RESULT)
        done = finish.merge(ws, dispatch)
    if json_out:
        emit(
            {
                "ok": True,
                "dispatch_id": dispatch,
                "target": done.target,
                "base": done.base,
                "merged": done.merged,
                "mode": done.mode,
                "evidence": done.ref,
                "already_merged": done.already,
            }
        )
        return
    if done.already:
        typer.echo(f"already merged: {dispatch}'s result is in {done.target} ({done.merged[:12]})")
        return
    typer.echo(
        f"merged {dispatch} into {done.target}: "
        f"{done.base[:12]} -> {done.merged[:12]} ({done.mode})"
    )


@app.command("discard")
def discard_cmd(
    dispatch: DispatchArg,
    reason: Annotated[
        str, typer.Option("--reason", help="Why (kept in the discard evidence).")
    ] = "discarded",
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Archive the dispatch's branch under refs/oms/archive/, then remove its worktree and
    branch.

    Example:

    \b
      oms result discard tkt-3 --reason 'superseded by tkt-4'
    """
    from oms.services.chain import handles
    from oms.services.finishing import finish

    with workspace(state_root_, config_root_) as ws:
        dispatch = handles.dispatch(ws, dispatch, handles.Want.RESULT)
        done = finish.discard(ws, dispatch, reason)
    if json_out:
        emit(
            {
                "ok": True,
                "dispatch_id": dispatch,
                "archive_ref": done.archive_ref,
                "commit": done.commit,
                "bundle": done.bundle,
                "removed": list(done.removed),
                "kept": list(done.kept),
                "evidence": done.ref,
            }
        )
        return
    typer.echo(
        f"archived {done.commit[:12]} at {done.archive_ref}"
        + (f" and {done.bundle}" if done.bundle else "")
    )
    for line in done.removed:
        typer.echo(f"removed  {line}")
    for line in done.kept:
        typer.echo(f"kept     {line}")
