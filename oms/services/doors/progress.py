"""What a worker's broker keeps between its hooks, and the park of a worker whose dispatch got no
result within its role's bound (`domain/gate.py` decides both; `services/doors/hooks.py` asks)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from oms.store.payloads import session_payload

if TYPE_CHECKING:  # the broker imports this module at start: it loads what it uses when it uses it
    from oms.schemas.payloads import SessionPayload
    from oms.services.workspace import Workspace
    from oms.store import Record


class Memo:
    """What one broker keeps between its worker's hooks: the session payload it computed but did not
    write (a coalesced heartbeat: `domain/gate.py`), and the version it was computed on. Another
    writer's version (a park, a resume) supersedes it."""

    def __init__(self) -> None:
        self.on: tuple[str, int] | None = None
        self.payload: SessionPayload | None = None
        self.missed = (
            0  # Stops the broker's hook budget answered unrecorded since: turns all the same
        )

    def base(self, session: Record) -> SessionPayload:
        """The payload the next hook starts from."""
        if self.payload is not None and self.on == (session.record_id, session.version):
            return self.payload
        return session_payload(session).copy()

    def keep(self, session: Record, payload: SessionPayload | None, *, counted: bool) -> None:
        """Remember `payload` on top of `session` (None: nothing is pending). `counted`: the hook
        was a Stop, which counted the missed turns; any other hook leaves them to the next Stop (an
        agent's own hooks that drain the budget must not erase the turns it ran meanwhile)."""
        self.on, self.payload = (session.record_id, session.version), payload
        if counted:
            self.missed = 0


def park_no_result(ws: Workspace, dispatch_id: str, why: str, notes: list[str]) -> None:
    """Park the worker as `oms worker park` does (an agent mid-turn is interrupted: a Codex goal
    pauses), with the reason NO_RESULT; the agent's Stop is let through (a run that cannot pause
    is `ending` by itself: not halted)."""
    from oms.canonical import add_ms
    from oms.domain.gate import NO_RESULT
    from oms.errors import OmsError
    from oms.limits import LIMITS

    # tmux and the plan: only when a worker is parked
    from oms.services.delivery.service import Delivery

    try:
        until = add_ms(ws.now(), LIMITS.no_result_park_ms)
        Delivery.open(ws).park(dispatch_id, NO_RESULT, until, ending=True)
        notes.append(f"{why}: the worker is parked ({NO_RESULT})")
    except OmsError as exc:
        notes.append(f"{why}: the worker could not be parked: {exc.message}")
