"""The Typer commands. Each one parses, calls one service, and renders (a table, or JSON with --json)."""

from __future__ import annotations

import json
import os
from typing import Annotated

import typer

from oms.store.stateroot import default_state_root
from oms.version import __version__

app = typer.Typer(
    name="oms",
    help="oms: run a fleet of untrusted coding agents on tickets, one verified step at a time.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
store_app = typer.Typer(help="Inspect and check the state root.", no_args_is_help=True, rich_markup_mode=None)
app.add_typer(store_app, name="store")

StateRootOpt = Annotated[
    str | None,
    typer.Option("--state-root", envvar="OMS_STATE_ROOT", help="State root (default: $XDG_STATE_HOME/oms)."),
]
ConfigRootOpt = Annotated[
    str | None,
    typer.Option(
        "--config-root",
        envvar="OMS_CONFIG_ROOT",
        help="Config root holding .oms/config.toml (default: the current directory).",
    ),
]
JsonOpt = Annotated[bool, typer.Option("--json", help="Machine-readable JSON on stdout.")]


def _emit(data: object) -> None:
    typer.echo(json.dumps(data, sort_keys=True))


def _state_root(value: str | None) -> str:
    return os.path.abspath(value or default_state_root())


def _config_root(value: str | None) -> str:
    return os.path.abspath(value or os.getcwd())


def _version(value: bool) -> None:
    if value:
        typer.echo(f"oms {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", is_eager=True, callback=_version, help="Print the version.")
    ] = False,
    verbose: Annotated[bool, typer.Option("--verbose", help="Show tracebacks of internal errors.")] = False,
) -> None:
    """oms: run a fleet of untrusted coding agents on tickets, one verified step at a time."""


@app.command()
def init(state_root: StateRootOpt = None, config_root: ConfigRootOpt = None, json_out: JsonOpt = False) -> None:
    """Create (or verify) the state root and its signing key; scaffold .oms/config.toml."""
    from oms.services.setup import init as do_init

    result = do_init(_state_root(state_root), _config_root(config_root))
    if json_out:
        _emit({"ok": True, **result.to_json()})
        return
    typer.echo(f"state root   {result.state_root} ({'created' if result.state_created else 'already initialised'})")
    typer.echo(f"signing key  ed25519 {result.key_id[:16]}")
    if result.config_path:
        typer.echo(f"config       {result.config_path} ({'created' if result.config_created else 'exists, valid'})")
    typer.echo("next         oms doctor")


@app.command()
def doctor(state_root: StateRootOpt = None, config_root: ConfigRootOpt = None, json_out: JsonOpt = False) -> None:
    """Check tools, the state root, kernel features and the config: one line each, OK or FAIL with the fix."""
    from oms.services.doctor import diagnose

    checks = diagnose(_state_root(state_root), _config_root(config_root))
    failed = [c for c in checks if not c.ok]
    if json_out:
        _emit({"ok": not failed, "checks": [c.to_json() for c in checks]})
    else:
        width = max(len(c.name) for c in checks)
        for c in checks:
            line = f"{'OK  ' if c.ok else 'FAIL'}  {c.name:<{width}}  {c.detail}"
            typer.echo(line + (f"  (fix: {c.fix})" if c.fix else ""))
    if failed:
        raise typer.Exit(1)


@store_app.command("verify")
def store_verify(state_root: StateRootOpt = None, json_out: JsonOpt = False) -> None:
    """Check every file of the state root; exit 1 with a precise report on any problem."""
    from oms.services.storeops import verify_state

    report = verify_state(_state_root(state_root))
    errors = [f for f in report.findings if f.severity == "error"]
    if json_out:
        _emit(
            {
                "ok": report.ok,
                "root": report.root,
                "counts": report.counts,
                "findings": [f.to_json() for f in report.findings],
            }
        )
    else:
        for f in report.findings:
            typer.echo(f"{'FAIL' if f.severity == 'error' else 'note'}  {f.path}: {f.problem}")
        counts = ", ".join(f"{n} {what}" for what, n in sorted(report.counts.items())) or "nothing stored yet"
        verdict = "ok" if report.ok else f"{len(errors)} problem{'s' if len(errors) != 1 else ''}"
        typer.echo(f"store verify: {verdict} in {report.root} ({counts})")
    if not report.ok:
        raise typer.Exit(1)


@store_app.command("sweep")
def store_sweep(state_root: StateRootOpt = None, json_out: JsonOpt = False) -> None:
    """Remove temp files and locks left by processes that are provably gone."""
    from oms.services.storeops import sweep_state

    removed = sweep_state(_state_root(state_root))
    if json_out:
        _emit({"ok": True, "removed": removed})
        return
    for path in removed:
        typer.echo(f"removed  {path}")
    typer.echo(f"store sweep: removed {len(removed)} item{'s' if len(removed) != 1 else ''}")
