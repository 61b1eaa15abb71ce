"""The proxy's doors for sandboxes without a network (ADR 0020): one Unix socket per dispatch that
holds a token, `doors/<dispatch_id>/model.sock` in the sandbox directory (never under the state
root, whose path a sandbox must not see: ADR 0026), served by the same handler, settings, usage
book, budgets, deadlines and held-bytes bounds as the loopback TCP server, all but the handshake:
a door answers no `/oms-proxy/hello` (the proxy's proof of itself is for oms, not a sandbox). A
worker's sandbox is shown its own door's directory, read-only, at `/oms/door` (a restarted proxy's
new socket shows there too), and an in-sandbox relay (`process/netrelay.py`) brings each agent
connection to it.

A door is one dispatch's: only that dispatch's token counts on it, and it has its own
`Limits.proxy_door_connections` slots, so an agent that fills its door (connections it dribbles,
churns or holds open) takes nothing from any other worker. `Doors` opens a door for each dispatch
that holds a token and closes it (its socket removed) once the token is gone, every
`Limits.proxy_doors_every_s` and before each handshake is answered (a launch issues its token, then
checks the proxy's handshake: its door is open by then, ADR 0026); a launch waits for its door
(`wait_for_door`).
"""

from __future__ import annotations

import socket
import socketserver
import sys
import threading
import time
from dataclasses import replace

from oms.canonical.ids import OPAQUE_ID, check
from oms.errors import OmsError, ProxyError, suppress_faults
from oms.fsio import Root
from oms.limits import LIMITS
from oms.services.proxy import tokens as proxy_tokens
from oms.services.proxy.book import failure, note
from oms.services.proxy.server import Handler, ProxyServer

DOORS = "doors"  # in the sandbox directory (`store/sandboxes.py`)


def door_dir(dispatch_id: str) -> str:
    """A dispatch's door directory (relative to the sandbox directory): what its sandbox is
    shown."""
    return f"{DOORS}/{check(dispatch_id, 'dispatch id', OPAQUE_ID)}"


def door_path(dispatch_id: str) -> str:
    """A dispatch's door: the socket in its directory."""
    return f"{door_dir(dispatch_id)}/model.sock"


class Door(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """One dispatch's door: its own connection slots, the proxy's everything else."""

    daemon_threads = True

    def __init__(self, main: ProxyServer, listener: socket.socket, dispatch_id: str) -> None:
        super().__init__("", Handler, bind_and_activate=False)
        self.socket.close()
        self.socket = (
            listener  # bound and listening already (fsio: under the state root, mode 0600)
        )
        self.door_dispatch = dispatch_id
        # everything the TCP port serves but the handshake key: the proxy's proof of itself, which a
        # sandbox could otherwise have signed for any challenge it chose (its door needs no token)
        self.settings = replace(main.settings, hello_key=None)
        self.book = main.book
        self.rests = main.rests
        self.dispatch_lock = main.dispatch_lock
        self.deadlines = main.deadlines
        self.held = main.held
        self._slots = threading.BoundedSemaphore(LIMITS.proxy_door_connections)

    def process_request(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        """Within this door's slots, else closed at once."""
        if not self._slots.acquire(blocking=False):
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: object, client_address: object) -> None:  # noqa: ARG002
        """One bounded line to the log (never a traceback, never an error's text)."""
        note(
            f"a connection on the door of {self.door_dispatch} failed: {failure(sys.exc_info()[1])}"
        )


class Doors:
    """Opens a door for each dispatch that holds a token and closes it once the token is gone."""

    def __init__(self, main: ProxyServer, state: Root, root: Root) -> None:
        self.main = main
        self.state = state  # the state root: the tokens
        self.root = root  # the sandbox directory: the doors
        self.open: dict[str, Door] = {}
        self.failing: dict[str, tuple[str, float, float]] = {}  # dispatch -> (why, retry at, wait)
        self._stop = threading.Event()
        self._keeping = threading.Lock()  # the loop and a handshake's nudge, one at a time

    def keep(self) -> None:
        """One pass: the doors match the tokens."""
        with self._keeping:
            self._keep()

    def _keep(self) -> None:
        live = set(proxy_tokens.holders(self.state))
        now = time.monotonic()
        for dispatch_id in set(self.failing) - live:
            del self.failing[dispatch_id]
        for dispatch_id in sorted(live - set(self.open)):
            why, at, wait = self.failing.get(dispatch_id, ("", now, LIMITS.proxy_doors_every_s / 2))
            if at > now:
                continue  # it failed: tried again after a wait that doubles (issue 24's soak)
            try:
                self.root.mkdirs(door_dir(dispatch_id))
                listener = self.root.listen_unix(door_path(dispatch_id))
            except OmsError as exc:
                if exc.message != why:  # once per door and reason, never once per pass
                    note(f"no door for {dispatch_id}: {exc.message}")
                wait = min(2 * wait, LIMITS.proxy_door_retry_s)
                self.failing[dispatch_id] = (exc.message, now + wait, wait)
                continue
            self.failing.pop(dispatch_id, None)
            door = Door(self.main, listener, dispatch_id)
            self.open[dispatch_id] = door
            threading.Thread(
                target=door.serve_forever, name=f"oms-door-{dispatch_id}", daemon=True
            ).start()
        for dispatch_id in sorted(set(self.open) - live):
            self._close(dispatch_id)

    def _close(self, dispatch_id: str) -> None:
        door = self.open.pop(dispatch_id)
        with suppress_faults():
            self.root.remove_socket(door_path(dispatch_id))
            self.root.remove_empty_dir(door_dir(dispatch_id))

        def end() -> None:
            door.shutdown()
            door.server_close()

        threading.Thread(
            target=end, daemon=True
        ).start()  # `shutdown` waits for its loop's next turn

    def run(self) -> None:
        """Keep the doors until `stop`."""
        self.root.mkdirs(DOORS)
        while not self._stop.wait(LIMITS.proxy_doors_every_s):
            try:
                self.keep()
            except OmsError as exc:
                note(f"doors not kept this time: {exc.message}")

    def stop(self) -> None:
        """Stop keeping, and close every door."""
        self._stop.set()
        with self._keeping:
            for dispatch_id in sorted(self.open):
                self._close(dispatch_id)


def wait_for_door(root: Root, dispatch_id: str, timeout_s: float = LIMITS.proxy_door_wait_s) -> str:
    """The door directory of `dispatch_id` once the proxy opened its socket (relative to the sandbox
    directory `root`); ProxyError after `timeout_s`."""
    deadline = time.monotonic() + timeout_s
    while not root.exists(door_path(dispatch_id)):
        if time.monotonic() > deadline:
            raise ProxyError(
                f"the model proxy opened no door for {dispatch_id} within {timeout_s:g}s"
            )
        time.sleep(0.02)
    return door_dir(dispatch_id)
