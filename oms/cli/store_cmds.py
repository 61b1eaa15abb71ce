"""`oms store verify|sweep|compact|pin-cluster`."""

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
from oms.errors import shown

app = typer.Typer(
    help=("Inspect and check the state root.\n\nExample: oms store verify"),
    no_args_is_help=True,
    rich_markup_mode=None,
)


@app.command("verify")
def verify(
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Check every file of the state root; exit 1 with a precise report on any problem. When the
    repository's committed `[store]` names etcd, every key of its store is checked too.

    Example:

    \b
      oms store verify
    """
    from oms.services.admin.storeops import verify_state

    report = verify_state(state_root(state_root_, repo := _repository(config_root_)), repo)
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
            typer.echo(
                f"{'FAIL' if f.severity == 'error' else 'note'}  "
                f"{shown(f.path)}: {shown(f.problem, 400)}"
            )
        counts = (
            ", ".join(f"{n} {what}" for what, n in sorted(report.counts.items()))
            or "nothing stored yet"
        )
        verdict = "ok" if report.ok else f"{len(errors)} problem{'s' if len(errors) != 1 else ''}"
        typer.echo(f"store verify: {verdict} in {shown(report.root)} ({counts})")
    if not report.ok:
        raise typer.Exit(1)


@app.command("pin-cluster")
def pin_cluster(
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Pin the etcd cluster this repository's committed [store] names (its endpoints, its prefix
    and, over https, the CA your ~/.config/oms/etcd.toml trusts) for this state root, in your own
    ~/.config/oms/clusters.toml (never the repository's): oms talks to no other for it. Run it
    once the members are yours, and again after the repository changes its [store]; nothing is
    sent to the cluster. A prefix is one state root's: another's on the same members is refused.

    Example:

    \b
      oms store pin-cluster
    """
    from oms.domain.cluster_pins import named
    from oms.services.admin.storeops import pin_store_cluster

    repository = config_root(config_root_)
    path, pin, old = pin_store_cluster(state_root(state_root_, repository), repository)
    if json_out:
        emit(
            {
                "ok": True,
                "file": shown(path),
                "keyid": pin.keyid,
                "repository": shown(pin.repository),
                "endpoints": list(pin.endpoints),
                "prefix": pin.prefix,
                "ca": pin.ca,
                "replaced": old is not None and old != pin,
            }
        )
        return
    if old is not None and old != pin:
        typer.echo(f"was     {shown(named(old), 400)}")
    typer.echo(f"pinned  {shown(named(pin), 400)} for state key {pin.keyid[:12]} in {shown(path)}")


@app.command("sweep")
def sweep(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """Remove temp files and locks left by processes that are provably gone. When the repository's
    committed `[store]` names etcd, also its lock keys that no lease holds.

    Example:

    \b
      oms store sweep
    """
    from oms.services.admin.storeops import sweep_state

    repo = _repository(config_root_)
    removed = sweep_state(state_root(state_root_, repo), repo)
    if json_out:
        emit({"ok": True, "removed": removed})
        return
    for path in removed:
        typer.echo(f"removed  {shown(path)}")
    typer.echo(f"store sweep: removed {len(removed)} item{'s' if len(removed) != 1 else ''}")


@app.command("compact")
def compact(
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Say what would be compacted; change nothing.")
    ] = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Move ended tickets' dispatch, worker and session records, evidence and events into one
    archive each ([retention] compact_after_days); the ledger still verifies. Say why each other
    ended ticket stays.

    Examples:

    \b
      oms store compact --dry-run
      oms store compact
    """
    from oms.services.admin import compaction

    with workspace(state_root_, config_root_, etcd=True) as ws:  # its keys (ADR 0043, `upkeep`)
        report = compaction.compact(ws, dry_run=dry_run)
    if json_out:
        emit(
            {
                "ok": True,
                "dry_run": dry_run,
                "off": report.off,
                "not_due": report.not_due,
                "compacted": report.compacted,
                "kept": report.kept,
                "bytes_freed": report.bytes_freed,
            }
        )
        return
    if report.off:
        typer.echo(
            "compaction is off ([retention] compact_after_days = "
            "0 in .oms/config.toml): nothing done"
        )
        return
    verb = "would compact" if dry_run else "compacted"
    for row in report.compacted:
        typer.echo(
            f"{verb:<14} {row['ticket_id']}: {row['files']} files, "
            f"{int(str(row['bytes_before'])) // 1024} KiB -> {shown(str(row['archive']))} "
            f"({int(str(row['bytes_after'])) // 1024} KiB)"
        )
    for row in report.kept:
        typer.echo(f"{'kept':<14} {row['ticket_id']}: {row['why']}")
    typer.echo(
        f"{len(report.compacted)} {verb}, {report.bytes_freed // 1024} KiB freed; "
        f"{len(report.kept)} kept; {report.not_due} ended ticket(s) not due yet ([retention] "
        f"compact_after_days)"
    )


def _repository(value: str | None) -> str | None:
    """The repository `--config-root` names (or the one the command runs in); None outside one
    when none was named: the state root alone is verified."""
    from oms.errors import NotARepositoryError

    try:
        return config_root(value)
    except NotARepositoryError:
        if value is not None:
            raise
        return None
