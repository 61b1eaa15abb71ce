"""The two doors a broker applies for its one worker: hooks and the MCP bridge (ADR 0012).

`WorkerDoors` holds the binding delivery wrote into the launch spec — dispatch, session, provider,
hook contract, the role's tool allow-list, the delivery nonce —, its pane's first process (which
a bridge's first `tools/list` is noted under), and the state and config roots,
which never enter the sandbox. A relay's argv is compared with that binding; nothing from inside is
trusted. The workspace opens on the first request that needs it (a probe never opens it; a
PreToolUse for an allowed tool does, to ask whether the attempt is fenced) and stays open for the
broker's life.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING

from oms.domain.relay import fails_closed, hook_event
from oms.services.doors import bridge, hooks
from oms.services.doors.interface import BridgeSession, DoorRefusedError
from oms.services.doors.progress import Memo

if TYPE_CHECKING:
    from oms.domain.own_pane import PaneProcess
    from oms.services.workspace import Workspace


HOOK_RATE, HOOK_BURST = 5.0, 30  # state-touching hooks a second, sustained, and in a burst


class TokenBucket:
    """`rate` takes a second, `burst` at once (pure but for the clock)."""

    def __init__(
        self, rate: float, burst: int, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.clock = clock
        self.at = clock()

    def take(self) -> bool:
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True


class WorkerDoors:
    """`broker.Doors` for one worker."""

    def __init__(
        self,
        binding: hooks.HookArgs,
        nonce: str,
        state_root: str,
        config_root: str,
        log: Callable[[str], None],
        own: tuple[PaneProcess, ...] = (),
        store: Mapping[str, object] | None = None,
    ) -> None:
        self.binding = binding
        self.store = store  # the backend its launch spec names (None: the state root's)
        self.own = own  # the pane's first process (the supervisor, or its onefile bootloader)
        self.nonce = nonce
        self.state_root = state_root
        self.config_root = config_root
        self.log = log
        self._ws: Workspace | None = None
        self.bucket = TokenBucket(HOOK_RATE, HOOK_BURST)
        self.memo = (
            Memo()
        )  # the session payload its hooks changed and did not yet write (coalesced)

    def workspace(self) -> Workspace:
        """The broker's workspace (opened once)."""
        if self._ws is None:
            from oms.services.workspace import Workspace

            self._ws = Workspace.open(self.state_root, self.config_root, spec_store=self.store)
        return self._ws

    def close(self) -> None:
        """Close the workspace if it was opened."""
        if self._ws is not None:
            self._ws.close()
            self._ws = None

    def hook(self, argv: tuple[str, ...], body: bytes) -> tuple[bytes, str]:
        """One hook request (a PreToolUse always; the others while the worker's write budget
        lasts)."""
        if not fails_closed(argv) and not self.bucket.take():
            self.log(
                "hook refused: more hooks than a worker fires (the "
                "state root is not grown for them)"
            )
            self.memo.missed += (
                hook_event(argv) == "Stop"
            )  # a turn all the same: the next Stop counts it
            return b"{}\n", "too many hooks: answered without recording"
        out, err = hooks.answer(self.binding, argv, body, self.workspace, self.nonce, self.memo)
        if err:
            self.log(f"hook: {err}")
        return out, err

    def bridge(self, argv: tuple[str, ...]) -> BridgeSession:
        """A new MCP session for a bridge relay bound to this worker."""
        try:
            dispatch_id, session_id = bridge.parse_args(argv)
        except ValueError as exc:
            raise DoorRefusedError(str(exc)) from exc
        if (dispatch_id, session_id) != (self.binding.dispatch_id, self.binding.session_id):
            raise DoorRefusedError("bridge arguments are not this worker's binding")
        args = bridge.BridgeArgs(dispatch_id, session_id, self.nonce, self.own)
        return bridge.Session(bridge.Tools(args, self.workspace, self.log), self.log)
