"""The loopback model proxy's HTTP server (issue 13, ADR 0020): one thread a connection, bound to
127.0.0.1.

Every request but the handshake (`GET /oms-proxy/hello?c=<hex>`, answered with HMAC(key, c)) must
name a provider in its path and present a token issued for that provider (`tokens.py`), else
it is refused with a 401 and nothing is forwarded. Then: a body over the bound is a 413, a dispatch
over its role's token budget a 429, a provider whose key the proxy does not hold a 502; anything
else is relayed (`relay.py`). Refusals close the connection (their body is never read). The
usage of each dispatch is on disk before it matters: a request's reservation before it is forwarded,
its answer's cost before the answer's last chunk is released (`Book`, ADR 0028).
"""

from __future__ import annotations

import contextlib
import socket
import socketserver
import sys
import threading
from collections.abc import Callable, Mapping, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from oms.domain import proxy as proxy_rules
from oms.domain import proxy_limits as limits
from oms.domain import proxy_usage as counting
from oms.domain.codex_login import API_KEY, CHATGPT, Missing, UpstreamAuth
from oms.domain.routing import Provider
from oms.errors import OmsError, ResourcesShortError
from oms.fsio.procinfo import descriptors_left
from oms.limits import LIMITS
from oms.services.proxy import admit as proxy_admit
from oms.services.proxy import body as proxy_body
from oms.services.proxy import tokens as proxy_tokens
from oms.services.proxy.book import Book, failure, note
from oms.services.proxy.credentials import credential_key
from oms.services.proxy.guards import Deadlines, Held
from oms.services.proxy.relay import Answer, Downstream, Outgoing, relay
from oms.services.proxy.rests import Rests
from oms.services.proxy.settings import Settings


class ProxyServer(ThreadingHTTPServer):
    """The server: 127.0.0.1 only, a thread per connection (at most `Limits.proxy_connections` at
    once, with descriptors to spare: a new one closes the one that has waited longest for its
    request, so idle or slow connections cannot take every slot or descriptor), the usage book
    flushed once a second."""

    daemon_threads = True
    request_queue_size = 64

    def process_request(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        """Serve the connection in its thread if there is room for it (`_room`); else close it."""
        if not self._room():
            self.shutdown_request(request)
            return
        super().process_request(request, client_address)

    def _room(self) -> bool:
        """A slot for a new connection (`proxy_guards`): when descriptors run short, or every slot
        is taken, the connection that has waited longest for its request is closed to make room;
        none waiting: no room."""
        family = self.socket.family  # the port's own connections only: never a door's
        if descriptors_left() < LIMITS.proxy_descriptor_reserve and not self.deadlines.evict_oldest(
            family
        ):
            return False
        if self._slots.acquire(blocking=False):
            return True
        return self.deadlines.evict_oldest(family) and self._slots.acquire(
            timeout=LIMITS.proxy_evicted_s
        )

    def process_request_thread(
        self, request: socket.socket | tuple[bytes, socket.socket], client_address: object
    ) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: object, client_address: object) -> None:  # noqa: ARG002
        """One bounded line to the log for a connection that failed (never a traceback per
        request)."""
        error = sys.exc_info()[1]
        note(f"a connection failed: {failure(error)}")

    def __init__(self, settings: Settings, port: int) -> None:
        self.settings = settings
        self._slots = threading.BoundedSemaphore(LIMITS.proxy_connections)
        self.deadlines = Deadlines()
        self.hellos = threading.BoundedSemaphore(LIMITS.proxy_hellos)  # answered unevictable
        self.held = Held(2 * settings.max_request_bytes)
        self.in_flight: dict[
            str, threading.Lock
        ] = {}  # per dispatch with a budget: one request at a time
        self._in_flight_lock = threading.Lock()
        self.book = Book(settings.root, settings.clock)
        self.rests = Rests(settings.root, settings.backend)
        self.on_hello: Callable[[], None] | None = None  # run before a handshake is answered
        self._stopping = threading.Event()
        super().__init__((proxy_rules.check_bind(proxy_rules.LOOPBACK), port), Handler)
        self._flusher = threading.Thread(
            target=self._flush_loop, name="oms-proxy-usage", daemon=True
        )
        self._flusher.start()

    def server_bind(self) -> None:
        """Bind without the reverse lookup `HTTPServer` makes of its address."""
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = proxy_rules.LOOPBACK, int(self.server_address[1])

    @property
    def port(self) -> int:
        """The port it listens on."""
        return int(self.server_address[1])

    def take_slot(self) -> bool:
        """One of the `LIMITS.proxy_connections` slots, if one is free."""
        return self._slots.acquire(blocking=False)

    def give_slot(self) -> None:
        """A slot back."""
        self._slots.release()

    def dispatch_lock(self, dispatch_id: str) -> threading.Lock:
        """The lock that keeps one request of a budgeted dispatch in flight at a time."""
        with self._in_flight_lock:
            return self.in_flight.setdefault(dispatch_id, threading.Lock())

    def _flush_loop(self) -> None:
        while not self._stopping.wait(LIMITS.proxy_flush_s):
            self.book.flush()

    def server_close(self) -> None:
        """Stop, and write the usage not yet written."""
        self._stopping.set()
        self.deadlines.close()
        super().server_close()
        self.book.flush()


def _auth_of(credential: UpstreamAuth) -> str:
    """How a credential is presented upstream: a ChatGPT login (it names an account) or a key."""
    return CHATGPT if credential.account_id is not None else API_KEY


class Handler(BaseHTTPRequestHandler):
    """One worker connection: its request line, headers and body must all arrive within `[proxy]
    request_deadline_s` (at most `Limits.proxy_header_s`) of the moment it waits for them
    (`proxy_guards.Deadlines`: a slow, dribbling or idle sender is closed); the upstream's answer
    may take `Limits.proxy_client_s`. On a sandbox's door (`proxy_front.Door`) only that door's
    dispatch's token counts."""

    protocol_version = "HTTP/1.1"
    timeout = LIMITS.proxy_header_s
    server: ProxyServer  # (or a `proxy_front.Door`, which has the same parts)

    def handle_one_request(self) -> None:
        """One request, its line, headers and body under the deadline."""
        seconds = self.server.settings.request_deadline_s
        self.connection.settimeout(seconds)
        self.server.deadlines.arm(self.connection, seconds)
        try:
            super().handle_one_request()
        finally:
            self.server.deadlines.disarm(self.connection)

    def setup(self) -> None:
        """No Nagle delay: each streamed chunk leaves at once."""
        super().setup()
        if self.connection.family == socket.AF_INET:  # (the sandboxes' Unix socket has no Nagle)
            self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    # quiet: the proxy logs its own lines
    def log_message(self, format: str, *args: object) -> None:  # noqa: ARG002
        return

    def do_GET(self) -> None:
        self._serve()

    def do_POST(self) -> None:
        self._serve()

    def do_PUT(self) -> None:
        self._serve()

    def do_PATCH(self) -> None:
        self._serve()

    def do_DELETE(self) -> None:
        self._serve()

    def do_HEAD(self) -> None:
        self._serve()

    def _serve(self) -> None:
        s = self.server.settings
        if self.command == "GET" and urlsplit(self.path).path == proxy_rules.HELLO_PATH:
            self._hello(s)
            return
        admitted = proxy_admit.admit(s, self.command, self.path, self.headers.items(), self.server)
        if isinstance(admitted, proxy_body.Refusal):
            self._refuse(admitted.status, admitted.kind, admitted.message)
            return
        route, provider, grant = admitted
        try:
            resting = self.server.rests.resting(route.provider_id, s.clock())
        except ResourcesShortError:  # whether it rests is not known: nothing is forwarded
            self._refuse_short()
            return
        if resting is not None:  # a resting provider is rested here: nothing is forwarded
            self._resting(resting)
            return
        self._held(s, route, provider, grant)

    def _refuse_short(self) -> None:
        short = proxy_admit.SHORT
        self._refuse(short.status, short.kind, short.message)

    def _held(
        self,
        s: Settings,
        route: proxy_rules.Route,
        provider: Provider,
        grant: proxy_tokens.Grant,
    ) -> None:
        """The body, read within the bytes the proxy may hold for it, then the answer."""
        size = proxy_body.announced(self.headers, s.max_request_bytes)
        if not self.server.held.take(grant.dispatch_id, size):
            self._refuse(
                503, "oms_proxy_busy", "the proxy holds as many request bodies as it may now; retry"
            )
            return
        self.server.deadlines.spare(self.connection, grant.dispatch_id)  # its body is coming
        try:
            body = self._body(s.max_request_bytes)
            if body is None:
                return
            self.server.deadlines.disarm(
                self.connection
            )  # the request is in: the answer may take its time
            self.connection.settimeout(LIMITS.proxy_client_s)
            self._answer(s, route, provider, grant, body)
        finally:
            self.server.held.give(grant.dispatch_id, size)

    def _answer(
        self,
        s: Settings,
        route: proxy_rules.Route,
        provider: Provider,
        grant: proxy_tokens.Grant,
        body: bytes,
    ) -> None:
        """Forward an authorised request, within its role's token budget (one at a time when it has
        one)."""
        budget = s.budgets.get(grant.role_id or "")
        if budget is None:
            self._forward(s, route, provider, grant, body)
            return
        lock = self.server.dispatch_lock(grant.dispatch_id)
        if not lock.acquire(
            timeout=LIMITS.proxy_client_s
        ):  # one request of a budgeted dispatch at a time
            self._refuse(
                429, "oms_token_budget", "another request of this dispatch is still in flight"
            )
            return
        try:
            over = counting.over_budget(
                self.server.book.used(grant.dispatch_id), budget, grant.role_id
            )
            if over is not None:
                self._refuse(429, "oms_token_budget", over)
                return
            self._forward(s, route, provider, grant, body)
        finally:
            lock.release()

    def _forward(
        self,
        s: Settings,
        route: proxy_rules.Route,
        provider: Provider,
        grant: proxy_tokens.Grant,
        body: bytes,
    ) -> None:
        """Relay one authorised request upstream with the real key; rest the provider on a quota
        answer. What it may cost is reserved on disk before it goes, and its cost written before its
        answer's last chunk is released (`Book`): a proxy killed at any moment leaves every answer
        counted."""
        held = s.credentials.get(credential_key(route.provider_id, provider.endpoint))
        credential = held.current() if held is not None else Missing("it is not configured")
        if isinstance(credential, Missing):
            self._refuse(
                502,
                "oms_proxy_key",
                f"the proxy holds no credential for {route.provider_id}: {credential.why}",
            )
            return

        limited = False

        def on_error(status: int, first: bytes, headers: Mapping[str, str]) -> None:
            nonlocal limited
            cooldown = limits.cooldown_for(status, first, headers, s.clock(), s.routing)
            if cooldown is not None:
                limited = True
                try:
                    s.rest(route.provider_id, cooldown, grant.dispatch_id)
                except OmsError as exc:
                    note(f"cooldown of {route.provider_id} not recorded: {exc.message}")

        def start(status: int, headers: proxy_rules.Headers) -> None:
            if not limited:  # the upstream answers with no limit: a rest it had is over
                self.server.rests.answered(route.provider_id, s.clock())
            self._start(status, headers)

        outgoing = Outgoing(
            self.command,
            proxy_rules.upstream_base(provider.family, provider.endpoint, _auth_of(credential)),
            route.rest,
            proxy_rules.upstream_headers(self.headers.items(), provider.family, credential),
            body,
        )
        with contextlib.ExitStack() as probing:
            try:
                resting = probing.enter_context(
                    self.server.rests.probe(route.provider_id, s.clock())
                )
            except ResourcesShortError:  # whether it rests is not known: nothing is forwarded
                self._refuse_short()
                return
            if resting is not None:  # it began resting meanwhile, or another request probes it
                self._resting(resting)
                return
            self._relay(outgoing, grant.dispatch_id, on_error, start)

    def _relay(
        self,
        outgoing: Outgoing,
        dispatch_id: str,
        on_error: Callable[[int, bytes, Mapping[str, str]], None],
        start: Callable[[int, proxy_rules.Headers], None],
    ) -> None:
        """The relay, what it may cost reserved on disk before it goes and its cost written before
        its answer's last chunk is released (`Book`)."""
        book, body = self.server.book, outgoing.body
        charge = counting.reservation(body, LIMITS.proxy_unasked_output)
        if not book.reserve(dispatch_id, charge):
            why = "the proxy cannot record what this request costs now; retry"
            self._refuse(503, "oms_proxy_usage", why)
            return
        settled = False

        def on_done(answer: Answer) -> bool:
            nonlocal settled
            settled = True
            return book.settle(dispatch_id, charge, _cost(answer, body))

        answer: Answer | None = None
        try:
            answer = relay(outgoing, Downstream(start, self.wfile), on_error, on_done)
        finally:
            if not settled:  # (an answer that broke off, or none: a failure of ours charges it all)
                book.settle(dispatch_id, charge, charge if answer is None else _cost(answer, body))
        if not answer.complete:
            self.close_connection = True

    def _start(self, status: int, headers: proxy_rules.Headers) -> None:
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()

    def _body(self, cap: int) -> bytes | None:
        """The request body (bounded, framed exactly: `proxy_body.read`), or None once a refusal was
        sent."""
        found = proxy_body.read(self.headers, self.rfile, cap)
        if isinstance(found, proxy_body.Refusal):
            self._refuse(found.status, found.kind, found.message)
            return None
        return found

    def _hello(self, s: Settings) -> None:
        if s.hello_key is None:  # a door: the handshake is oms's own, on the TCP port only
            self._refuse(404, "oms_proxy_hello", "no handshake here")
            return
        challenge = parse_qs(urlsplit(self.path).query).get("c", [""])[0]
        answer = proxy_rules.hello_answer(s.hello_key, challenge)
        if answer is None:
            self._refuse(400, "oms_proxy_hello", "expected c=<32 to 128 hex digits>")
            return
        spared = self.server.hellos.acquire(blocking=False)
        try:
            if spared:  # its request is in: not closed to make room (a few at once, no more)
                self.server.deadlines.disarm(self.connection)
            nudge = getattr(
                self.server, "on_hello", None
            )  # the doors kept now: a launch's is there
            if nudge is not None:
                try:
                    nudge()
                except OmsError as exc:
                    note(f"doors not kept at a handshake: {exc.message}")
            self._reply(200, b'{"answer":"%s"}\n' % answer.encode("ascii"), close=False)
        finally:
            if spared:
                self.server.hellos.release()

    def _refuse(self, status: int, kind: str, message: str) -> None:
        self._reply(status, proxy_rules.error_body(kind, message), close=True)

    def _resting(self, resting: limits.Resting) -> None:
        """A 429 at the proxy for a resting provider: when to ask again, and whether to retry at
        all."""
        extra = [("retry-after", str(resting.retry_after_s))]
        if not resting.retry:
            extra.append(("x-should-retry", "false"))
        body = proxy_rules.error_body("oms_provider_resting", resting.message)
        self._reply(429, body, close=True, extra=extra)

    def _reply(
        self,
        status: int,
        body: bytes,
        *,
        close: bool,
        extra: Sequence[tuple[str, str]] = (),
    ) -> None:
        self.send_response(status)
        for name, value in extra:
            self.send_header(name, value)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        if close:
            self.send_header("Connection", "close")
            self.close_connection = True
        self.end_headers()
        self.wfile.write(body)


def _cost(answer: Answer, body: bytes) -> counting.Usage | None:
    """What an answer costs: what it reported, and, when its last usage never came, at least the
    output its request asked for."""
    if answer.final:
        return answer.usage
    asked = counting.requested_output(body)
    return counting.charged(answer.usage or counting.Usage(), False, asked)
