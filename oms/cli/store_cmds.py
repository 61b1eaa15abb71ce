"""`oms store verify|sweep`."""

from __future__ import annotations

import typer

from oms.cli.common import JsonOpt, StateRootOpt, emit, state_root
from oms.errors import shown

app = typer.Typer(help="Inspect and check the state root.", no_args_is_help=True, rich_markup_mode=None)


@app.command("verify")
def verify(state_root_: StateRootOpt = None, json_out: JsonOpt = False) -> None:
    """Check every file of the state root; exit 1 with a precise report on any problem."""
    from oms.services.storeops import verify_state

    report = verify_state(state_root(state_root_))
    errors = [f for f in report.findings if f.severity == "error"]
    if json_out:
        emit(
            {
                "ok": report.ok,
                "root": shown(report.root),
                "counts": report.counts,
                "findings": [f.to_json() for f in report.findings],
            }
        )
    else:
        for f in report.findings:
            typer.echo(f"{'FAIL' if f.severity == 'error' else 'note'}  {shown(f.path)}: {shown(f.problem, 400)}")
        counts = ", ".join(f"{n} {what}" for what, n in sorted(report.counts.items())) or "nothing stored yet"
        verdict = "ok" if report.ok else f"{len(errors)} problem{'s' if len(errors) != 1 else ''}"
        typer.echo(f"store verify: {verdict} in {shown(report.root)} ({counts})")
    if not report.ok:
        raise typer.Exit(1)


@app.command("sweep")
def sweep(state_root_: StateRootOpt = None, json_out: JsonOpt = False) -> None:
    """Remove temp files and locks left by processes that are provably gone."""
    from oms.services.storeops import sweep_state

    removed = sweep_state(state_root(state_root_))
    if json_out:
        emit({"ok": True, "removed": removed})
        return
    for path in removed:
        typer.echo(f"removed  {shown(path)}")
    typer.echo(f"store sweep: removed {len(removed)} item{'s' if len(removed) != 1 else ''}")
