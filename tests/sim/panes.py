"""An in-memory `Panes` (`oms/services/delivery/interface.py`): a dict of panes, no tmux, no
processes, for the simulator to run the real delivery shells against. A seeded `random.Random`
decides the faults: an `ensure` refused, the deliverer dying right after its pane started
(`Crash`), a pane that dies, the whole server gone. It counts what a duplicate would be: every pane
it ever started, per dispatch."""

from __future__ import annotations

import random
from collections import Counter

from oms.adapters.panes import Pane
from oms.errors import ProcessError


class Crash(BaseException):
    """The deliverer's process died here (no handler of oms's runs: not an `OmsError`)."""


class MemoryPanes:
    """oms's pane server as a dict (`Panes`)."""

    def __init__(self, rng: random.Random, *, faults: float = 0.0, crashes: float = 0.0) -> None:
        self.rng = rng
        self.faults = faults  # the chance of each fault at each chance for one
        self.crashes = crashes  # the chance the deliverer dies right after its pane started
        self.panes: dict[str, Pane] = {}
        self.started: Counter[str] = Counter()  # dispatch id -> panes ever started for it
        self.typed: list[tuple[str, str]] = []
        self.running = True
        self._next = 1

    def _fault(self) -> bool:
        return self.rng.random() < self.faults

    def list(self) -> list[Pane]:
        return list(self.panes.values()) if self.running else []

    def fresh(self) -> MemoryPanes:
        return self

    def server_running(self) -> bool:
        return self.running and bool(self.panes)

    def observe(self, dispatch_id: str) -> Pane | None:
        return self.panes.get(dispatch_id) if self.running else None

    def ensure(
        self, dispatch_id: str, *, argv: tuple[str, ...], cwd: str, create: bool = True
    ) -> tuple[str, Pane]:
        existing = self.observe(dispatch_id)
        if existing is not None and not existing.dead:
            return "reused", existing
        if not create:
            raise ProcessError(f"the live pane of {dispatch_id} ended before this launch")
        if self._fault():
            raise ProcessError(f"tmux refused a pane for {dispatch_id}")
        self.running = True
        pid = 10_000 + self._next
        pane = Pane(dispatch_id, dispatch_id, f"%{self._next}", pid, False, None, None)
        self._next += 1
        self.started[dispatch_id] += 1
        self.panes[dispatch_id] = pane
        if self.rng.random() < self.crashes:
            raise Crash(f"the deliverer died after it started the pane of {dispatch_id}")
        return "created", pane

    def die(self, dispatch_id: str, status: int = 1) -> None:
        """The pane's process ended (`remain-on-exit`: the dead pane stays)."""
        pane = self.panes.get(dispatch_id)
        if pane is not None:
            self.panes[dispatch_id] = Pane(
                pane.dispatch_id, pane.session, pane.pane_id, pane.pane_pid, True, status, None
            )

    def send_text(self, dispatch_id: str, text: str) -> None:
        self._live(dispatch_id)
        self.typed.append((dispatch_id, text))

    def send_keys(self, dispatch_id: str, *keys: str) -> None:
        self._live(dispatch_id)
        self.typed.append((dispatch_id, " ".join(keys)))

    def _live(self, dispatch_id: str) -> None:
        pane = self.observe(dispatch_id)
        if pane is None or pane.dead:
            raise ProcessError(f"no live pane of {dispatch_id}")

    def capture(self, dispatch_id: str) -> str:
        self._live(dispatch_id)
        return ""

    def stop(
        self, dispatch_id: str, *, quit_keys: tuple[tuple[str, ...], ...] = (), grace: float = 5.0
    ) -> bool:
        self.panes.pop(dispatch_id, None)
        return True

    def close(self, dispatch_id: str) -> None:
        self.panes.pop(dispatch_id, None)

    def group_ends(self, pgid: int, timeout: float = 6.0) -> bool:
        return True

    def kill_server_if_idle(self) -> bool:
        if self.panes:
            return False
        self.running = False
        return True

    def kill_server(self) -> None:
        self.panes.clear()
        self.running = False
