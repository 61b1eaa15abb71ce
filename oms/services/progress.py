"""The park of a worker whose dispatch got no result within its role's bound (`domain/gate.py` decides;
`services/hooks.py` asks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the broker imports hooks at start: this loads what it uses when it uses it
    from oms.services.workspace import Workspace


def park_no_result(ws: Workspace, dispatch_id: str, why: str, notes: list[str]) -> None:
    """Park the worker as `oms worker park` does (an agent mid-turn is interrupted: a Codex goal pauses),
    with the reason NO_RESULT; the agent's Stop is let through."""
    from oms.canonical import add_ms
    from oms.domain.gate import NO_RESULT, NO_RESULT_PARK_MS
    from oms.errors import OmsError
    from oms.services.delivery import Delivery  # tmux and the plan: only when a worker is parked

    try:
        Delivery.open(ws).park(dispatch_id, NO_RESULT, add_ms(ws.now(), NO_RESULT_PARK_MS))
        notes.append(f"{why}: the worker is parked ({NO_RESULT})")
    except OmsError as exc:
        notes.append(f"{why}: the worker could not be parked: {exc.message}")
