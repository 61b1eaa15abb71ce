"""`oms web`'s HTTP server (ADR 0041): 127.0.0.1 only, every request carrying the random token the
printed URL holds, its `Host` naming this server (no DNS rebinding) and any `Origin` this server's
own. An action is a POST of JSON to `/api/act` that also carries this server's CSRF token (an
HMAC of the URL token under a per-server secret) twice: in a header the page's script sets, and in
a `SameSite=Strict` cookie the page set; its `Origin` must be sent and be this server. The live
board is a stream of server-sent events (`/api/events`): one watcher looks at the ledger's log
every `LIMITS.web_watch_ms` and, when it changed, reads the board once for every stream (and for
`/api/board`: an unchanged state is not read again; on an etcd store, the last key of the
cluster's ledger too); at most
`LIMITS.web_streams` streams (more: 503), each ended when the server ends. A verify runs in a
thread of its own (`actions.Verifies`): its POST answers 202 once it is under way, and the board
shows how it stands (`verifies`) until it ends; nothing else waits for it. Every other action runs
in its POST's thread with a workspace of its own, the board's reads going on beside it. Every
answer carries a strict Content-Security-Policy (no inline script: the page's script is a file),
`X-Frame-Options: DENY`, `nosniff`, no referrer and no caching. The page draws every string with
`textContent`, never as HTML."""

from __future__ import annotations

import contextlib
import getpass
import hashlib
import hmac
import json
import secrets
import socket
import sys
import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from email.message import Message
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from oms.canonical import JsonObject
from oms.canonical.strict_json import loads_message
from oms.errors import (
    CanonicalJsonError,
    InvalidInputError,
    NotFoundError,
    OmsError,
    RecordNotFoundError,
    UsageError,
    one_line,
)
from oms.limits import LIMITS
from oms.services.web import actions, board
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
CSRF_HEADER = "X-OMS-CSRF"
Opener = Callable[[], AbstractContextManager[Workspace]]


def asset(name: str) -> bytes:
    """One of the page's files, from inside the package (the frozen binary carries them)."""
    from importlib import resources

    return (resources.files("oms.services.web") / "assets" / name).read_bytes()


class Board(ThreadingHTTPServer):
    """The server: its tokens, how to open the workspace for one request, who acts, and the live
    board its streams share. A thread per connection, at most `Limits.web_connections` at once (one
    more is closed at once): 127.0.0.1 is every local user's, and idle connections must not take
    every thread and descriptor."""

    daemon_threads = True
    request_queue_size = 64

    def __init__(
        self, port: int, opener: Opener, token: str | None = None, person: str | None = None
    ) -> None:
        self._slots = threading.BoundedSemaphore(LIMITS.web_connections)
        super().__init__((LOOPBACK, port), _Handler)
        self.token = token or secrets.token_urlsafe(24)
        secret = secrets.token_bytes(32)  # this server's only: a page of another server has none
        self.csrf = hmac.new(secret, self.token.encode(), hashlib.sha256).hexdigest()
        self.person = person or getpass.getuser()
        self.opener = opener
        self.reading = threading.Lock()  # one use of the state at a time (a verify: its own)
        self.verifies = actions.Verifies(opener)
        self.port = int(self.server_address[1])
        self.hosts = {f"{LOOPBACK}:{self.port}", f"localhost:{self.port}"}
        self.cookie = f"oms_csrf_{self.port}"  # cookies ignore the port: the name does not
        self.ending = threading.Event()
        self.changed = threading.Condition()
        self.generation = 0  # how many boards the watcher has read
        self.latest = b""  # the last of them, as the streams send it
        self.streams = 0
        self._watcher: threading.Thread | None = None
        self._kept: tuple[tuple[int, ...], float, bytes] | None = None  # marker, when, board
        self._marks = contextlib.ExitStack()  # the workspace `_mark` reads through, kept open
        self._marking: Workspace | None = None

    @property
    def url(self) -> str:
        """What the person opens: the token rides in the query."""
        return f"http://{LOOPBACK}:{self.port}/?t={self.token}"

    def read(self, what: Callable[[Workspace], JsonObject]) -> JsonObject:
        with self.reading, self.opener() as ws:
            return what(ws)

    def act(self, action: str, handle: str, text: str) -> JsonObject:
        """An action, with a workspace of its own and without the reading lock: a message waits
        for the agent to show it took it, a stop for its group to end, a merge for git — the
        board's reads and its stream go on meanwhile (as beside a verify: two workspaces of one
        process take turns through the store's own no-replace files and locks)."""
        with self.opener() as ws:
            return actions.act(ws, action, handle, text, self.person)

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

    def current(self) -> tuple[int, bytes]:
        """The board's JSON (its error, when it cannot be read), and its status: read again only
        when the ledger's log changed or `LIMITS.web_refresh_ms` passed since it was read (ages
        move on); otherwise the one read before (an idle fleet's update is one `lstat`, and on a
        cluster one read: `_mark`). A workspace that cannot be opened (a cluster unreachable, a
        commit moving `[store]`) is the answer's one line; the next look tries again."""
        with self.reading:
            try:
                mark = self._mark()
                kept = self._kept
                if (
                    kept is not None
                    and kept[0] == mark
                    and time.monotonic() - kept[1] < LIMITS.web_refresh_ms / 1000
                ):
                    return 200, kept[2]
                with self.opener() as ws:
                    doc: JsonObject = {
                        "ok": True,
                        **board.board(ws),
                        "verifies": self.verifies.shown(),
                    }
            except OmsError as exc:
                return 409, json.dumps({"ok": False, "error": exc.message}).encode()
            data = json.dumps(doc).encode()
            self._kept = (mark, time.monotonic(), data)
            return 200, data

    def _mark(self) -> tuple[int, ...]:
        """What the look compares (`board.marker`), read through one workspace kept open for it
        (under `reading`): opening one reads the commit and, on a cluster, the pin, which a look
        every `LIMITS.web_watch_ms` need not do; each board read opens its own, with every check a
        command makes. A workspace that failed is opened again at the next look."""
        if self._marking is None:
            self._marking = self._marks.enter_context(self.opener())
        try:
            return (*board.marker(self._marking), self.verifies.generation)
        except OmsError:
            self._marks.close()
            self._marking = None
            raise

    def board_event(self) -> bytes:
        """The board as one stream's message."""
        return self.current()[1]

    def enter_stream(self) -> bool:
        """Count one more stream in, False when `LIMITS.web_streams` are open already."""
        with self.changed:
            if self.ending.is_set() or self.streams >= LIMITS.web_streams:
                return False
            self.streams += 1
            if self._watcher is None:
                self._watcher = threading.Thread(target=self._watch, daemon=True)
                self._watcher.start()
            return True

    def leave_stream(self) -> None:
        with self.changed:
            self.streams -= 1
            self.changed.notify_all()

    def next_board(self, seen: int, timeout: float) -> tuple[bytes | None, int]:
        """The board read after generation `seen`, None after `timeout` or once the server ends."""
        with self.changed:
            self.changed.wait_for(
                lambda: self.generation > seen or self.ending.is_set(), timeout=timeout
            )
            if self.ending.is_set() or self.generation == seen:
                return None, seen
            return self.latest, self.generation

    def _watch(self) -> None:
        """One loop for every stream: the board (`current`: read again only when the state
        changed, or ages moved on) handed to them all whenever it is a new one."""
        while not self.ending.wait(LIMITS.web_watch_ms / 1000):
            if self.streams == 0:
                continue
            data = self.board_event()
            if data == self.latest:  # the kept board, or the same error again
                continue
            with self.changed:
                self.latest = data
                self.generation += 1
                self.changed.notify_all()

    def end(self) -> None:
        """End every stream (each says so to its page), then the watcher."""
        self.ending.set()
        with self.changed:
            self.changed.notify_all()

    def shutdown(self) -> None:
        self.end()
        super().shutdown()

    def server_close(self) -> None:
        """End the streams and let each tell its page (a bounded wait), then close."""
        self.end()
        with self.changed:
            self.changed.wait_for(lambda: self.streams == 0, timeout=LIMITS.web_end_s)
        with self.reading:
            self._marks.close()
            self._marking = None
        super().server_close()


def serve(port: int, opener: Opener, bind: str = LOOPBACK, person: str | None = None) -> Board:
    """A board server bound to 127.0.0.1:`port` (0: a free one); any other address is refused.
    Actions are recorded as `person`'s (default: the login name)."""
    if bind != LOOPBACK:
        raise UsageError(
            f"oms web serves on {LOOPBACK} only, not {bind}",
            hint="drop --bind; reach it from elsewhere through an SSH tunnel (docs/guide.md)",
        )
    return Board(port, opener, person=person)


def _cookies(headers: Message, name: str) -> list[bytes]:
    """Every value of the cookie `name` in the request's `Cookie` headers, split by hand: any
    server on 127.0.0.1 may set a cookie the browser sends here too (cookies ignore the port), and
    `SimpleCookie` keeps nothing once one value does not parse (a space, a quote), which refused
    every action for as long as such a cookie lived."""
    found = []
    for line in headers.get_all("Cookie") or []:
        for pair in line.split(";"):
            key, eq, value = pair.strip().partition("=")
            if eq and key == name:
                found.append(value.strip().encode())
    return found


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

    def _head(self, code: int, ctype: str, length: int | None, extra: dict[str, str]) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        if length is not None:
            self.send_header("Content-Length", str(length))
        self.send_header("Content-Security-Policy", CSP)
        self.send_header("X-Frame-Options", "DENY")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("Referrer-Policy", "no-referrer")
        self.send_header("Cache-Control", "no-store")
        self.send_header("Cross-Origin-Resource-Policy", "same-origin")
        for name, value in extra.items():
            self.send_header(name, value)
        self.end_headers()

    def _send(
        self,
        code: int,
        body: bytes,
        ctype: str = "text/plain; charset=utf-8",
        extra: dict[str, str] | None = None,
    ) -> None:
        self._head(code, ctype, len(body), extra or {})
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

    def _action_refusal(self) -> str | None:
        """Why this action is refused (403) beyond `_refusal`: no Origin, not JSON, or no CSRF
        token in both the header and the cookie."""
        if self.headers.get("Origin") is None:
            return "no Origin"
        ctype = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
        if ctype != "application/json":
            return "not JSON"
        want = self.server.csrf.encode()
        header = self.headers.get(CSRF_HEADER, "").encode()
        if not hmac.compare_digest(header, want):
            return "no or wrong CSRF token"
        if not any(
            hmac.compare_digest(v, want) for v in _cookies(self.headers, self.server.cookie)
        ):
            return "no or wrong CSRF token"
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
            extra = {}
            if name == "index.html":  # its script and style need the token too (urlsafe)
                body = body.replace(b"@TOKEN@", self.server.token.encode())
                body = body.replace(b"@CSRF@", self.server.csrf.encode())
                extra["Set-Cookie"] = (
                    f"{self.server.cookie}={self.server.csrf}; Path=/; SameSite=Strict; HttpOnly"
                )
            self._send(200, body, ctype, extra)
            return
        if parts.path == "/api/events" and self.command == "GET":
            self._stream()
            return
        pick = query.get("id", [""])[0]
        if parts.path == "/api/board":
            code, data = self.server.current()
            self._send(code, data, "application/json")
            return
        routes: dict[str, Callable[[Workspace], JsonObject]] = {
            "/api/audit": board.audit_tail,
            "/api/log": lambda ws: board.worker_log(ws, pick),
            "/api/worker": lambda ws: board.worker(ws, pick),
            "/api/result": lambda ws: board.result(ws, pick),
            "/api/diff": lambda ws: board.diff(ws, pick),
        }
        route = routes.get(parts.path)
        if route is None:
            self._send(404, b"not found\n")
            return
        self._answer(route)

    def _answer(self, route: Callable[[Workspace], JsonObject]) -> None:
        self._reply(lambda: self.server.read(route))

    def _reply(self, answer: Callable[[], JsonObject], done: int = 200) -> None:
        """`answer`'s document (`done`), or its refusal as the command's error and hint."""
        try:
            doc: JsonObject = {"ok": True, **answer()}
            code = done
        except (NotFoundError, RecordNotFoundError) as exc:
            doc, code = {"ok": False, "error": exc.message, "hint": exc.remedy}, 404
        except (UsageError, InvalidInputError) as exc:
            doc, code = {"ok": False, "error": exc.message, "hint": exc.remedy}, 400
        except OmsError as exc:
            doc, code = {"ok": False, "error": exc.message, "hint": exc.remedy}, 409
        self._send(code, json.dumps(doc).encode(), "application/json")

    def _stream(self) -> None:
        """Server-sent events: the board now, then each time it changes, until the page goes or
        the server ends (an `end` event)."""
        if not self.server.enter_stream():
            self._send(503, b"too many live streams\n", extra={"Retry-After": "5"})
            return
        self.close_connection = True
        try:
            self._head(200, "text/event-stream", None, {})
            seen = self.server.generation
            self.wfile.write(b"data: " + self.server.board_event() + b"\n\n")
            while True:
                data, seen = self.server.next_board(seen, timeout=15.0)
                if self.server.ending.is_set():
                    self.wfile.write(b"event: end\ndata: {}\n\n")
                    break
                self.wfile.write(b": alive\n\n" if data is None else b"data: " + data + b"\n\n")
        except OSError:  # the page went
            pass
        finally:
            self.server.leave_stream()

    def do_HEAD(self) -> None:
        self.do_GET()

    def do_POST(self) -> None:
        if len(self.path) > LIMITS.web_url_bytes:
            self._send(414, b"too long\n")
            return
        why = self._refusal() or self._action_refusal()
        if why is not None:
            self._send(403, f"forbidden: {why}\n".encode())
            return
        if urlsplit(self.path).path != "/api/act":
            self._send(404, b"not found\n")
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            self._send(411, b"a length is needed\n")
            return
        if not 0 <= length <= LIMITS.web_post_bytes:
            self.close_connection = True
            self._send(413, b"too large\n")
            return
        try:
            doc = loads_message(self.rfile.read(length))
            action, handle, text = doc["action"], doc["id"], doc.get("text", "")
            if not (isinstance(action, str) and isinstance(handle, str) and isinstance(text, str)):
                raise TypeError(action)
        except (CanonicalJsonError, KeyError, TypeError):
            self._send(400, b"an action is a JSON object: action, id, text\n")
            return
        if action == "verify":  # in its own thread: the board is not held while checks run
            self._reply(lambda: self.server.verifies.start(handle), done=202)
            return
        self._reply(lambda: self.server.act(action, handle, text))

    def _refuse_write(self) -> None:
        self._send(405, b"oms web takes a POST to /api/act only\n")

    do_PUT = do_DELETE = do_PATCH = _refuse_write  # noqa: N815 - stdlib's names
