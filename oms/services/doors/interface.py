"""What the broker asks of a worker's doors, and what bounds it (ADR 0012): the one home of these
names.

`services/doors/broker.py` serves connections; `services/doors/worker_doors.py` is the worker's
`Doors`. A door refuses a request with `DoorRefusedError`; a hook that cannot be answered gets
`domain/relay.unanswered` (a denial when its command line was registered for PreToolUse or names no
event: fail closed).
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

from oms.limits import LIMITS


class BrokerLimits(NamedTuple):
    """Bounds on what a relay can make the broker hold or wait for (`Limits`' by default; a test
    shrinks them)."""

    max_connections: int = LIMITS.broker_connections
    header_s: float = LIMITS.broker_header_s
    hook_s: float = LIMITS.broker_hook_s
    body_cap: int = LIMITS.hook_stdin_bytes
    line_cap: int = LIMITS.bridge_line_bytes
    out_cap: int = LIMITS.broker_out_bytes
    out_s: float = LIMITS.broker_out_s


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
