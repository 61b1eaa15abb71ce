"""`oms web`'s HTTP server (ADR 0041): 127.0.0.1 only, every request carrying the random token the
printed URL holds, its `Host` naming this server (no DNS rebinding) and any `Origin` this server's
own; GET only (the board is read-only). Every answer carries a strict Content-Security-Policy (no
inline script: the page's script is a file), `X-Frame-Options: DENY`, `nosniff`, no referrer and
no caching. The page draws every string with `textContent`, never as HTML."""

from __future__ import annotations

import contextlib
import hmac
import json
import secrets
import socket
import sys
import threading
from collections.abc import Callable
from contextlib import AbstractContextManager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from oms.canonical import JsonObject
from oms.errors import NotFoundError, OmsError, RecordNotFoundError, UsageError, one_line
from oms.limits import LIMITS
from oms.services.web import board
from oms.services.workspace import Workspace

LOOPBACK = "127.0.0.1"
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
ASSETS = {  # path → (file under assets/, content type)
    "/": ("index.html", "text/html; charset=utf-8"),
    "/app.js": ("app.js", "text/javascript; charset=utf-8"),
    "/app.css": ("app.css", "text/css; charset=utf-8"),
}
Opener = Callable[[], AbstractContextManager[Workspace]]


def asset(name: str) -> bytes:
    """One of the page's files, from inside the package (the frozen binary carries them)."""
    from importlib import resources

    return (resources.files("oms.services.web") / "assets" / name).read_bytes()


class Board(ThreadingHTTPServer):
    """The server: its token, and how to open the workspace for one request. A thread per
    connection, at most `Limits.web_connections` at once (one more is closed at once): 127.0.0.1 is
    every local user's, and idle connections must not take every thread and descriptor."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(self, port: int, opener: Opener, token: str | None = None) -> None:
        self._slots = threading.BoundedSemaphore(LIMITS.web_connections)
        super().__init__((LOOPBACK, port), _Handler)
        self.token = token or secrets.token_urlsafe(24)
        self.opener = opener
        self.reading = threading.Lock()  # one read of the state at a time
        self.port = int(self.server_address[1])
        self.hosts = {f"{LOOPBACK}:{self.port}", f"localhost:{self.port}"}

    @property
    def url(self) -> str:
        """What the person opens: the token rides in the query."""
        return f"http://{LOOPBACK}:{self.port}/?t={self.token}"

    def read(self, what: Callable[[Workspace], JsonObject]) -> JsonObject:
        with self.reading, self.opener() as ws:
            return what(ws)

    def process_request(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        """Serve the connection in its thread, unless `Limits.web_connections` are open already
        (closed at once)."""
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
        """Never a traceback into the person's terminal (ADR 0007): a peer gone before its answer
        (a closed tab; anyone on the machine can reset a connection) is nothing to say; anything
        else is one line."""
        error = sys.exc_info()[1]
        if isinstance(error, OSError):
            return
        sys.stderr.write(f"oms web: a request failed: {one_line(repr(error), 200)}\n")


def serve(port: int, opener: Opener, bind: str = LOOPBACK) -> Board:
    """A board server bound to 127.0.0.1:`port` (0: a free one); any other address is refused."""
    if bind != LOOPBACK:
        raise UsageError(
            f"oms web serves on {LOOPBACK} only, not {bind}",
            hint="drop --bind; reach it from elsewhere through an SSH tunnel (docs/guide.md)",
        )
    return Board(port, opener)


class _Handler(BaseHTTPRequestHandler):
    """One connection: its request line and headers must arrive within `Limits.web_header_s` (a
    watchdog shuts an idle or dribbling sender down), each later read or write too."""

    server: Board
    server_version = "oms-web"
    sys_version = ""
    timeout = LIMITS.web_header_s

    def handle_one_request(self) -> None:
        self._watchdog = threading.Timer(LIMITS.web_header_s, self._cut)
        self._watchdog.daemon = True
        self._watchdog.start()
        try:
            super().handle_one_request()
        finally:
            self._watchdog.cancel()

    def parse_request(self) -> bool:
        """The request's line and headers are in: the watchdog is done."""
        parsed = super().parse_request()
        self._watchdog.cancel()
        return parsed

    def _cut(self) -> None:
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)  # its read ends; the handler closes it

    def log_message(self, format: str, *args: object) -> None:
        """Quiet: the person watches the page, not a request log."""

    def _send(self, code: int, body: bytes, ctype: str = "text/plain; charset=utf-8") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _refusal(self) -> str | None:
        """Why this request is refused (403), None when it may be answered."""
        if self.headers.get("Host", "") not in self.server.hosts:
            return "wrong Host"
        origin = self.headers.get("Origin")
        if origin is not None and origin.removeprefix("http://") not in self.server.hosts:
            return "foreign Origin"
        site = self.headers.get("Sec-Fetch-Site")
        if site is not None and site not in ("same-origin", "none"):
            return "cross-site request"
        given = parse_qs(urlsplit(self.path).query).get("t", [""])[0]
        if not hmac.compare_digest(given.encode(), self.server.token.encode()):
            return "no or wrong token"
        return None

    def do_GET(self) -> None:
        if len(self.path) > LIMITS.web_url_bytes:
            self._send(414, b"too long\n")
            return
        why = self._refusal()
        if why is not None:
            self._send(403, f"forbidden: {why}\n".encode())
            return
        parts = urlsplit(self.path)
        query = parse_qs(parts.query)
        if parts.path in ASSETS:
            name, ctype = ASSETS[parts.path]
            body = asset(name)
            if (
                name == "index.html"
            ):  # its script and style need the token too (urlsafe: no quoting)
                body = body.replace(b"@TOKEN@", self.server.token.encode())
            self._send(200, body, ctype)
            return
        pick = query.get("id", [""])[0]
        routes: dict[str, Callable[[Workspace], JsonObject]] = {
            "/api/board": board.board,
            "/api/audit": board.audit_tail,
            "/api/log": lambda ws: board.worker_log(ws, pick),
            "/api/result": lambda ws: board.result(ws, pick),
        }
        route = routes.get(parts.path)
        if route is None:
            self._send(404, b"not found\n")
            return
        try:
            doc: JsonObject = {"ok": True, **self.server.read(route)}
            code = 200
        except (NotFoundError, RecordNotFoundError) as exc:
            doc, code = {"ok": False, "error": exc.message}, 404
        except OmsError as exc:
            doc, code = {"ok": False, "error": exc.message}, 409
        self._send(code, json.dumps(doc).encode(), "application/json")

    def do_HEAD(self) -> None:
        self.do_GET()

    def _refuse_write(self) -> None:
        self._send(405, b"oms web is read-only\n")

    do_POST = do_PUT = do_DELETE = do_PATCH = _refuse_write  # noqa: N815 - stdlib's names
