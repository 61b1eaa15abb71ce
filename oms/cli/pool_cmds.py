"""`oms pool show|scale`: the worker pool (`services/conductor/pool.py`, rules in
`domain/pool.py`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

import typer

from oms.cli.common import ConfigRootOpt, JsonOpt, StateRootOpt, emit, table, workspace
from oms.domain import pool as pool_rules

if TYPE_CHECKING:
    from oms.schemas.payloads import PoolPayload
    from oms.services.conductor.pool import Occupancy

app = typer.Typer(
    help=("The worker pool: its slots, scaled under one lock.\n\nExample: oms pool scale --to 4"),
    no_args_is_help=True,
    rich_markup_mode=None,
)


def _show(payload: PoolPayload, occupancy: Occupancy, waits: dict[str, str] | None = None) -> None:
    slots = payload["slots"]
    table(
        ("slot", "state", "ticket", "since"),
        [
            [s["name"], pool_rules.shown_state(s), occupancy.held.get(s["name"]), s["since"]]
            for s in slots
        ],
    )
    typer.echo(f"next index {payload['next_index']} (indices are never reused)")
    for slot, why in (waits or {}).items():  # a slot held while a person is waited for
        typer.echo(f"{slot}: {occupancy.held.get(slot)}: {why}")


@app.command("show")
def show(
    state_root_: StateRootOpt = None, config_root_: ConfigRootOpt = None, json_out: JsonOpt = False
) -> None:
    """The pool's slots: active or draining, and the ticket each holds.

    Example:

    \b
      oms pool show
    """
    from oms.services.conductor import pool

    with workspace(state_root_, config_root_, etcd=True) as ws:  # the cluster's (ADR 0043)
        payload, occupancy = pool.current(ws), pool.occupancy(ws)
        waits = pool.waits(ws, occupancy)
    if json_out:
        emit({"ok": True, "pool": payload, "held": occupancy.held, "waits_for_person": waits})
        return
    _show(payload, occupancy, waits)


@app.command("scale")
def scale(
    to: Annotated[
        int | None,
        typer.Option("--to", help="Active slots wanted (1 to the config's max_workers)."),
    ] = None,
    up: Annotated[int, typer.Option("--up", min=0, help="Add this many active slots.")] = 0,
    down: Annotated[int, typer.Option("--down", min=0, help="Remove this many active slots.")] = 0,
    force: Annotated[
        bool,
        typer.Option(
            "--force", help="Park the workers of draining slots (an earlier scale's too)."
        ),
    ] = False,
    state_root_: StateRootOpt = None,
    config_root_: ConfigRootOpt = None,
    json_out: JsonOpt = False,
) -> None:
    """Scale the pool: idle slots leave first; busy ones drain (what runs finishes, parked with
    --force; a ticket not launched yet goes back to the queue).

    Examples:

    \b
      oms pool scale --to 4
      oms pool scale --down 1 --force
    """
    from oms.errors import UsageError
    from oms.services.conductor import pool

    if (to is not None) + bool(up) + bool(down) != 1:
        raise UsageError("give exactly one of --to N, --up K, --down K")
    with workspace(state_root_, config_root_, etcd=True) as ws:  # under a lease (ADR 0043)
        payload, plan, occupancy = pool.scale(ws, to=to, up=up, down=down, force=force)
        parked = pool.park_draining(ws, occupancy, plan.park) if plan.park else []
    if json_out:
        emit({"ok": True, "pool": payload, "plan": plan._asdict(), "parked": parked})
        return
    for name, slots in plan._asdict().items():
        if slots and name != "park":
            typer.echo(f"{name}: {', '.join(slots)}")
    for line in parked:
        typer.echo(line)
    _show(payload, occupancy)
