"""The proxy's door for sandboxes without a network (ADR 0020): a Unix socket in the state root
(`proxy/model.sock`) served by the same handler, settings, usage book, budgets and connection slots as the
loopback TCP server. A worker's sandbox has this socket bound in, and an in-sandbox relay
(`process/netrelay.py`) brings each agent connection to it: one proxy, two doors.
"""

from __future__ import annotations

import socket
import socketserver
import sys

from oms.services.proxy_book import note
from oms.services.proxy_server import Handler, ProxyServer

MODEL_SOCKET = "proxy/model.sock"  # under the state root


class SandboxFront(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    """The proxy's second door: a Unix socket in the state root (`proxy/model.sock`), bound into sandboxes
    that have no network (ADR 0020), whose in-sandbox relay brings each agent connection here. It shares
    the TCP server's settings, usage book, budgets and connection slots: one proxy, two doors."""

    daemon_threads = True

    def __init__(self, main: ProxyServer, listener: socket.socket) -> None:
        super().__init__("", Handler, bind_and_activate=False)
        self.socket.close()
        self.socket = listener  # bound and listening already (fsio: under the state root, mode 0600)
        self.main = main
        self.settings = main.settings
        self.book = main.book
        self.dispatch_lock = main.dispatch_lock

    def process_request(self, request: socket.socket | tuple[bytes, socket.socket], client_address: object) -> None:
        """As the TCP server: within the shared connection slots, else closed at once."""
        if not self.main.take_slot():
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def process_request_thread(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self.main.give_slot()

    def handle_error(self, request: object, client_address: object) -> None:  # noqa: ARG002
        """One bounded line to the log (never a traceback per request)."""
        error = sys.exc_info()[1]
        note(f"a sandbox connection failed: {type(error).__name__}: {str(error)[:200]}")
