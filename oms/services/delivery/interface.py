"""What the delivery shells need of the world: a pane server (`Panes`), the host's sandbox
(`Sandbox`) and the attempt's git checkout (`Checkout`).

The shells (`launch.py`, `reconcile.py`, `lifecycle.py`, `native_resume.py`, `messages.py`, the
conductor's tick) take a `Panes` and never name tmux: `adapters/panes.TmuxPanes` is oms's own tmux
server, which implements it; `tests/sim/panes.py` is an in-memory one the simulator drives the real
shells against (docs/adr/0042-decisions-in-machines-a-simulator.md). Typing into a pane needs only a
part of it (`adapters/activation.Screen`), which every `Panes` is. A launch asks the `Sandbox`
(`adapters/host_sandbox.HostSandbox`) and the `Checkout` (`services/checkout/planned`) through its
context too, so the simulator can make either refuse.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from oms.adapters.panes import Pane
from oms.limits import LIMITS

if TYPE_CHECKING:
    from oms.canonical import JsonObject
    from oms.domain.sandbox_limits import SandboxLimits
    from oms.schemas.payloads import DispatchPayload


class Panes(Protocol):
    """oms's pane server, found by dispatch id: one session and one pane per worker."""

    def list(self) -> list[Pane]:
        """Every worker's pane, tagged or not yet (none when the server is not running)."""
        ...

    def fresh(self) -> Panes:
        """The same server answering from the server now (not from a listing taken earlier)."""
        ...

    def server_running(self) -> bool:
        """Does the server answer? (It ends with its last session.)"""
        ...

    def observe(self, dispatch_id: str) -> Pane | None:
        """The pane of `dispatch_id`, if it exists (alive or dead)."""
        ...

    def ensure(
        self, dispatch_id: str, *, argv: tuple[str, ...], cwd: str, create: bool = True
    ) -> tuple[str, Pane]:
        """The dispatch's live pane running `argv`: ("created", pane) when this call started it,
        ("reused", pane) when it was there already (`ProcessError` when `create` is False and there
        is none)."""
        ...

    def send_text(self, dispatch_id: str, text: str) -> None:
        """Type `text` literally into the pane (no Enter)."""
        ...

    def send_keys(self, dispatch_id: str, *keys: str) -> None:
        """Press named keys (`Enter`, `Escape`, `C-u`)."""
        ...

    def capture(self, dispatch_id: str) -> str:
        """The visible text of the pane."""
        ...

    def stop(
        self, dispatch_id: str, *, quit_keys: tuple[tuple[str, ...], ...] = (), grace: float = 5.0
    ) -> bool:
        """Stop the pane and every process in its group; False if one of them is left alive."""
        ...

    def close(self, dispatch_id: str) -> None:
        """Remove the dispatch's session as it is (a dead pane of an ended worker)."""
        ...

    def group_ends(self, pgid: int, timeout: float = LIMITS.pane_group_end_s) -> bool:
        """Does process group `pgid` have no live member within `timeout` s? (Looked at only.)"""
        ...

    def kill_server_if_idle(self) -> bool:
        """Stop the server when no session is left; True if it was stopped."""
        ...

    def kill_server(self) -> None:
        """Stop the server and every session on it."""
        ...


class Sandbox(Protocol):
    """The host's sandbox, asked before a worker's pane: no sandbox, no launch."""

    def probe(self) -> None:
        """`SandboxUnavailableError` with the reason when no sandbox of a worker's shape runs."""
        ...

    def trial(self, limits: SandboxLimits) -> None:
        """`CgroupUnavailableError` when no cgroup holding `limits` can be made."""
        ...


class Checkout(Protocol):
    """The attempt's git worktree, made ready and verified before its first launch (or verified,
    with its own work in it, before a relaunch)."""

    def ready(
        self,
        payload: DispatchPayload,
        evidence: JsonObject | None,
        repository: str,
        *,
        bound: bool,
    ) -> None:
        """The planned, clean checkout (an earlier attempt's work salvaged), or
        `WorktreeNeedsPersonError`."""
        ...

    def verify(self, payload: DispatchPayload, repository: str, *, own_work: bool = False) -> None:
        """The worktree is the dispatch's, at its recorded commit (`own_work`: with the attempt's
        own changes in it)."""
        ...
