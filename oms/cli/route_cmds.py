"""`oms route explain` and `oms provider show|rest|clear`: which provider serves a role, and why the
others do not (`domain/routing.py`, `services/chain/providers.py`, ADR 0019)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from oms.cli.common import ConfigRootOpt, JsonOpt, StateRootOpt, emit, table, workspace

if TYPE_CHECKING:
    from oms.canonical import Json, JsonObject
    from oms.services.workspace import Workspace

app = typer.Typer(
    help=("Routing: which provider serves a role, and why.\n\nExample: oms route explain"),
    no_args_is_help=True,
    rich_markup_mode=None,
)
provider_app = typer.Typer(
    help=(
        "Providers' standing, shared by the fleet: cooldowns and quota readings."
        "\n\nExample: oms provider show"
    ),
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _standing_rows(ws: Workspace) -> list[JsonObject]:
    from oms.services.chain import providers

    standings = providers.standings(ws)
    rows: list[JsonObject] = []
    for provider_id, provider in ws.config().routing.providers.items():
        s = standings.get(provider_id)
        tags: list[Json] = [*sorted(provider.tags)]
        rows.append(
            {
                "provider_id": provider_id,
                "family": provider.family,
                "enabled": provider.enabled,
                "endpoint": provider.endpoint,
                "cost_tier": provider.cost_tier,
                "tags": tags,
                "cooldown_until": None if s is None else s.cooldown_until,
                "cooldown_kind": None if s is None else s.cooldown_kind,
                "cooldown_reason": None if s is None else s.cooldown_reason,
                "quota_percent": None if s is None else s.quota_percent,
            }
        )
    return rows


@app.command("explain")
def explain(
    role: Annotated[
        str | None, typer.Option("--role", help="The role (default: config worker.role).")
    ] = None,
    provider: Annotated[
        str | None, typer.Option("--provider", help="Explain a pin to this provider.")
    ] = None,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """The provider a new dispatch of the role would get now, and for every other one why not.

    Examples:

    \b
      oms route explain
      oms route explain --role oms.ticket-executor --provider claude
    """
    from oms.domain.config import role as find_role
    from oms.services.chain import providers

    with workspace(state_root_, config_root_, etcd=True) as ws:  # the cluster's (ADR 0043)
        configured = find_role(ws.config(), role or ws.config().worker_role)
        choice = providers.route(ws, configured, provider)
        now = ws.now()
    out: JsonObject = {
        "ok": True,
        "role_id": configured.role_id,
        "at": now,
        "provider_id": choice.provider_id,
        "model": choice.model,
        "endpoint": choice.endpoint,
        "rule": choice.rule,
        "wait_until": choice.wait_until,
        "excluded": dict(sorted(choice.excluded.items())),
    }
    if json_out:
        emit(out)
        return
    if choice.provider_id is None:
        wait = f"; the first cooldown ends {choice.wait_until}" if choice.wait_until else ""
        typer.echo(f"role {configured.role_id}: no provider can serve it now{wait}")
    else:
        typer.echo(
            f"role {configured.role_id}: {choice.provider_id} ({choice.rule}), model "
            f"{choice.model}, endpoint {choice.endpoint or 'the CLI default'}"
        )
    if choice.excluded:
        table(("provider", "why not"), [[p, why] for p, why in sorted(choice.excluded.items())])


@provider_app.command("show")
def show(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """Every configured provider: its family, cost tier, tags, cooldown and last quota reading.

    Example:

    \b
      oms provider show
    """
    with workspace(state_root_, config_root_, etcd=True) as ws:  # the cluster's (ADR 0043)
        rows = _standing_rows(ws)
    if json_out:
        emit({"ok": True, "providers": rows})
        return
    table(
        ("provider", "family", "tier", "enabled", "cooldown until", "quota"),
        [
            [
                r["provider_id"],
                r["family"],
                r["cost_tier"],
                r["enabled"],
                f"{r['cooldown_until']} ({r['cooldown_kind']})" if r["cooldown_until"] else "-",
                "unknown" if r["quota_percent"] is None else f"{r['quota_percent']}%",
            ]
            for r in rows
        ],
    )


@provider_app.command("rest")
def rest(
    provider: Annotated[str, typer.Argument(help="A configured provider.")],
    minutes: Annotated[int, typer.Option("--minutes", min=1, max=11520, help="How long it rests.")],
    reason: Annotated[str, typer.Option("--reason", help="Why (one line).")] = "rested by a person",
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Put a provider in cooldown for the fleet (a quota cooldown: its running workers are parked
    until it ends; a longer cooldown already running is kept).

    Example:

    \b
      oms provider rest codex --minutes 60 --reason 'quota'
    """
    from oms.canonical import add_ms
    from oms.domain.routing import Cooldown
    from oms.services.chain import providers

    with workspace(state_root_, config_root_, etcd=True) as ws:  # the cluster's (ADR 0043)
        until = add_ms(ws.now(), minutes * 60_000)
        changed = providers.rest(
            ws, provider, Cooldown(until, "quota", reason), "oms provider rest"
        )
        rows = [r for r in _standing_rows(ws) if r["provider_id"] == provider]
    if json_out:
        emit({"ok": True, "changed": changed, "provider": rows[0]})
        return
    typer.echo(
        f"{provider}: rests until {rows[0]['cooldown_until']}"
        + ("" if changed else " (already so long)")
    )


@provider_app.command("clear")
def clear(
    provider: Annotated[str, typer.Argument(help="A configured provider.")],
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """End a provider's cooldown now (a person's decision: its quota is back).

    Example:

    \b
      oms provider clear codex
    """
    from oms.services.chain import providers

    with workspace(state_root_, config_root_, etcd=True) as ws:  # the cluster's (ADR 0043)
        changed = providers.clear(ws, provider)
    if json_out:
        emit({"ok": True, "changed": changed})
        return
    typer.echo(f"{provider}: " + ("cooldown ended" if changed else "was not resting"))
