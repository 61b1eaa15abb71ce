"""What the broker asks of a worker's doors, and what bounds it (ADR 0012): the one home of these
names.

`services/doors/broker.py` serves connections; `services/doors/worker_doors.py` is the worker's
`Doors`. A door refuses a request with `DoorRefusedError`; a hook that cannot be answered gets
`domain/relay.unanswered` (a denial when its command line was registered for PreToolUse or names no
event: fail closed).
"""

from __future__ import annotations

from typing import NamedTuple, Protocol


class BrokerLimits(NamedTuple):
    """Bounds on what a relay can make the broker hold or wait for."""

    max_connections: int = 16
    header_s: float = 5.0
    hook_s: float = 10.0
    body_cap: int = 1024 * 1024
    line_cap: int = 1024 * 1024
    out_cap: int = 8 * 1024 * 1024


class BridgeSession(Protocol):
    """One MCP session (a bridge relay's connection)."""

    def line(self, data: bytes) -> list[bytes]:
        """Answer one received line: the encoded lines to send back (possibly none)."""

    def oversized(self) -> list[bytes]:
        """Answer a line that was longer than the cap."""


class Doors(Protocol):
    """What the broker applies (services/doors/worker_doors.py); refusals are `DoorRefusedError`."""

    def hook(self, argv: tuple[str, ...], body: bytes) -> tuple[bytes, str]:
        """(what the hook prints, one stderr line or "")."""

    def bridge(self, argv: tuple[str, ...]) -> BridgeSession:
        """A new MCP session for a bridge relay with `argv`."""


class DoorRefusedError(Exception):
    """The relay's request cannot be served (e.g. its binding is not the broker's)."""
