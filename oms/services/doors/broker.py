"""The broker: one worker's two doors, served on a Unix socket outside its sandbox (ADR 0012).

`oms worker supervise` runs it beside the sandbox. It is one single-threaded event loop over the
listening socket, its connections and whatever the supervisor watches (the sandbox's pidfd, a signal
pipe), so one hostile or slow relay can never hold another up:

- every connection starts with a relay header (`domain/relay.py`) that must arrive within
  `header_s`; a header that cannot be one closes the connection (one log line);
- a `hook` request (header + stdin until the relay's EOF) must be complete within `hook_s` and at
  most `body_cap + 1` bytes are read; it is answered by `Doors.hook` and closed. Past the deadline,
  or for a broken frame, it gets the hooks' safe answer (`{}`, or a denial when the relay's argv
  names PreToolUse or no event);
- a `bridge` session is answered line by line by the `BridgeSession` its header opened; a line over
  `line_cap` gets a JSON-RPC error and is skipped; it may idle as long as its client lives;
- at most `max_connections` at once (more are closed at once); past `out_cap` bytes of answers
  waiting for a bridge client, its further requests wait, unread, until it reads (a client that
  sends many requests at once and reads is answered at the pace it reads); one that takes none of
  them for `out_s` does not read, and is dropped.
Applying a request is synchronous and bounded by the doors themselves (store writes, git timeouts).
Nothing is stored for a refused request: the doors only write after validating.
"""

from __future__ import annotations

import contextlib
import errno
import selectors
import socket
import time
from collections.abc import Callable

from oms.domain.relay import Header, RelayError, encode_answer, parse_header, unanswered
from oms.services.doors.interface import (
    BridgeSession,
    BrokerLimits,
    DoorRefusedError,
    Doors,
)


class _Conn:
    """One connection and what it has sent and is owed."""

    __slots__ = (
        "closing",
        "eof",
        "events",
        "full_since",
        "header",
        "inbuf",
        "opened",
        "outbuf",
        "session",
        "skipping",
        "sock",
    )

    def __init__(self, sock: socket.socket, opened: float) -> None:
        self.sock = sock
        self.opened = opened
        self.inbuf = bytearray()
        self.outbuf = bytearray()
        self.header: Header | None = None
        self.session: BridgeSession | None = None
        self.skipping = (
            False  # inside an oversized bridge line, or past a hook's body cap (drained until EOF)
        )
        self.eof = False
        self.closing = False  # close once outbuf is flushed
        self.events = selectors.EVENT_READ
        self.full_since: float | None = None  # since when over `out_cap`, nothing taken


class Broker:
    """The event loop (see the module docstring)."""

    def __init__(
        self,
        listener: socket.socket,
        doors: Doors,
        log: Callable[[str], None],
        limits: BrokerLimits | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.listener = listener
        self.doors = doors
        self.log = log
        self.limits = limits or BrokerLimits()
        self.clock = clock
        self.conns: set[_Conn] = set()
        self.served = 0
        listener.setblocking(False)
        self.sel = selectors.DefaultSelector()
        self.sel.register(listener, selectors.EVENT_READ, None)

    # ------------------------------------------------------------------ loop
    def watch(self, fd: int, callback: Callable[[], None]) -> None:
        """Call `callback` whenever `fd` is readable (the sandbox's pidfd, a signal pipe)."""
        self.sel.register(fd, selectors.EVENT_READ, callback)

    def unwatch(self, fd: int) -> None:
        """Stop watching `fd` (one no longer watched is left alone)."""
        with contextlib.suppress(KeyError, ValueError):
            self.sel.unregister(fd)

    def run_once(self, timeout: float | None) -> None:
        """Wait up to `timeout` seconds (None: until something happens), then handle what is
        ready."""
        deadline = self._next_deadline()
        if deadline is not None:
            wait = max(0.0, deadline - self.clock())
            timeout = wait if timeout is None else min(timeout, wait)
        try:
            ready = self.sel.select(timeout)
        except InterruptedError:
            ready = []
        for key, mask in ready:
            if key.fileobj is self.listener:
                self._accept()
            elif isinstance(key.data, _Conn):
                self._service(key.data, mask)
            elif callable(key.data):
                key.data()
        self._expire()

    def close(self) -> None:
        """Close every connection and the selector (the listener belongs to the caller)."""
        for conn in list(self.conns):
            self._drop(conn)
        self.sel.close()

    # ------------------------------------------------------------------ connections
    def _accept(self) -> None:
        while True:
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as exc:
                if exc.errno in (errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM):
                    self.log(f"cannot accept a connection: {exc.strerror}")
                    return
                raise
            if len(self.conns) >= self.limits.max_connections:
                self.log(f"refused a connection: {self.limits.max_connections} are already open")
                sock.close()
                continue
            sock.setblocking(False)
            conn = _Conn(sock, self.clock())
            self.conns.add(conn)
            self.sel.register(sock, selectors.EVENT_READ, conn)

    def _service(self, conn: _Conn, mask: int) -> None:
        try:
            if mask & selectors.EVENT_READ and not conn.eof:
                self._read(conn)
            if conn in self.conns and conn.outbuf and mask & selectors.EVENT_WRITE:
                sent = conn.sock.send(conn.outbuf)
                del conn.outbuf[:sent]
                conn.full_since = None if sent else conn.full_since
                self._bridge_progress(conn)  # the requests that waited for this room
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop(conn)
            return
        if conn in self.conns:
            self._settle(conn)

    def _read(self, conn: _Conn) -> None:
        chunk = conn.sock.recv(65536)
        if not chunk:
            conn.eof = True
        else:
            conn.inbuf += chunk
        if conn.header is None:
            try:
                conn.header = parse_header(bytes(conn.inbuf[: 16 * 1024 + 1]))
            except RelayError as exc:
                self.log(f"refused a connection: {exc}")
                self._finish(conn, b"")
                return
            if conn.header is None:
                if conn.eof:
                    self.log("refused a connection: it closed before its header was complete")
                    self._finish(conn, b"")
                return
            del conn.inbuf[: conn.header.size]
            if conn.header.door == "bridge":
                self._open_bridge(conn)
                if conn.closing:
                    return
        if conn.header.door == "hook":
            self._hook_progress(conn)
        else:
            self._bridge_progress(conn)

    def _hook_progress(self, conn: _Conn) -> None:
        assert conn.header is not None  # noqa: S101 - only called with a header
        if len(conn.inbuf) > self.limits.body_cap and not conn.skipping:
            conn.skipping = (
                True  # drain the rest until the relay's EOF (the header decides the safe answer)
            )
            del conn.inbuf[:]
        elif conn.skipping:
            del conn.inbuf[:]
        if not conn.eof:
            return
        if conn.skipping:
            self.log(f"hook input is larger than {self.limits.body_cap} bytes")
            self._finish(
                conn, self._safe(conn), f"hook input is larger than {self.limits.body_cap} bytes"
            )
            return
        try:
            out, err = self.doors.hook(conn.header.argv, bytes(conn.inbuf))
        except DoorRefusedError as exc:
            self.log(f"hook refused: {exc}")
            out, err = self._safe(conn), str(exc)
        # the door boundary: a bug answers safely, never kills the broker
        except Exception as exc:  # noqa: BLE001
            self.log(f"hook internal error: {type(exc).__name__}: {str(exc)[:200]}")
            out, err = self._safe(conn), f"internal error in oms ({type(exc).__name__})"
        self.served += 1
        self._finish(conn, out, err)

    def _open_bridge(self, conn: _Conn) -> None:
        assert conn.header is not None  # noqa: S101
        try:
            conn.session = self.doors.bridge(conn.header.argv)
        except DoorRefusedError as exc:
            self.log(f"bridge refused: {exc}")
            refusal = (
                b'{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"'
                + _json_text(f"oms bridge refused: {exc}")
                + b'"}}\n'
            )
            self._queue(conn, refusal)
            conn.closing = True

    def _bridge_progress(self, conn: _Conn) -> None:
        session = conn.session
        if session is None:
            return
        while len(conn.outbuf) <= self.limits.out_cap:  # past it, they wait until it reads
            end = conn.inbuf.find(b"\n")
            if end < 0:
                if len(conn.inbuf) > self.limits.line_cap:
                    del conn.inbuf[:]
                    if not conn.skipping:
                        conn.skipping = True
                        self.log(f"bridge line longer than {self.limits.line_cap} bytes")
                        self._queue(conn, *session.oversized())
                if conn.eof:
                    if conn.inbuf.strip() and not conn.skipping:
                        self._answer_line(conn, session, bytes(conn.inbuf))
                    del conn.inbuf[:]
                    conn.closing = True
                return
            line = bytes(conn.inbuf[: end + 1])
            del conn.inbuf[: end + 1]
            if conn.skipping:
                conn.skipping = False
                continue
            if len(line) > self.limits.line_cap:
                self.log(f"bridge line longer than {self.limits.line_cap} bytes")
                self._queue(conn, *session.oversized())
            elif line.strip():
                self._answer_line(conn, session, line)

    def _answer_line(self, conn: _Conn, session: BridgeSession, line: bytes) -> None:
        self.served += 1
        self._queue(conn, *session.line(line))

    # ------------------------------------------------------------------ output and lifetime
    def _safe(self, conn: _Conn) -> bytes:
        return unanswered(None if conn.header is None else conn.header.argv)

    def _finish(self, conn: _Conn, out: bytes, err: str = "") -> None:
        if conn.header is not None and conn.header.door == "hook":
            self._queue(conn, encode_answer(out, err))
        conn.closing = True
        del conn.inbuf[:]

    def _queue(self, conn: _Conn, *data: bytes) -> None:
        for item in data:
            conn.outbuf += item

    def _settle(self, conn: _Conn) -> None:
        full = len(conn.outbuf) > self.limits.out_cap
        if not full:
            conn.full_since = None
        elif conn.full_since is None:
            conn.full_since = self.clock()
        if conn.closing and not conn.outbuf:
            self._drop(conn)
            return
        if (
            conn.eof
            and not conn.outbuf
            and conn.header is not None
            and conn.header.door == "bridge"
        ):
            self._drop(conn)
            return
        want = selectors.EVENT_READ if not conn.eof and not conn.closing and not full else 0
        if conn.outbuf:
            want |= selectors.EVENT_WRITE
        if want == 0:
            self._drop(conn)
        elif want != conn.events:
            conn.events = want
            self.sel.modify(conn.sock, want, conn)

    def _drop(self, conn: _Conn) -> None:
        self.conns.discard(conn)
        with contextlib.suppress(KeyError, ValueError):
            self.sel.unregister(conn.sock)
        with contextlib.suppress(OSError):
            conn.sock.close()

    def _next_deadline(self) -> float | None:
        times = [self._deadline(c) for c in self.conns]
        live = [t for t in times if t is not None]
        return min(live) if live else None

    def _deadline(self, conn: _Conn) -> float | None:
        if conn.full_since is not None:  # over `out_cap`: it must take some within `out_s`
            return conn.full_since + self.limits.out_s
        if conn.closing:
            return (
                conn.opened + self.limits.hook_s + self.limits.header_s
            )  # a reader that never drains
        if conn.header is None:
            return conn.opened + self.limits.header_s
        if conn.header.door == "hook":
            return conn.opened + self.limits.hook_s
        return None

    def _expire(self) -> None:
        now = self.clock()
        for conn in list(self.conns):
            deadline = self._deadline(conn)
            if deadline is None or now < deadline:
                continue
            if conn.full_since is not None:
                self.log("dropped a connection that does not read its answers")
                self._drop(conn)
            elif conn.closing:
                self._drop(conn)
            elif conn.header is None:
                self.log("dropped a connection that sent no header in time")
                self._drop(conn)
            else:
                self.log("hook request not complete in time")
                self._finish(conn, self._safe(conn), "hook request not complete in time")
                self._try_flush(conn)

    def _try_flush(self, conn: _Conn) -> None:
        try:
            sent = conn.sock.send(conn.outbuf)
            del conn.outbuf[:sent]
        except (BlockingIOError, InterruptedError):
            pass
        except OSError:
            self._drop(conn)
            return
        self._settle(conn)


def _json_text(text: str) -> bytes:
    import json

    return json.dumps(text, ensure_ascii=True)[1:-1].encode("ascii")
