"""`oms hook provider` and `oms worker bridge` inside a worker's sandbox: thin relays to the pane's
broker.

The sandbox has no state root, no key and no records, so these commands decide nothing: they send
their own argv and input to the broker's socket (`$OMS_BROKER_SOCKET`, default `/oms/broker.sock`,
the only socket bound into the sandbox) and copy the answer back (protocol: `oms/domain/relay.py`,
ADR 0012).

Both load only the C socket module and the frame code (they run on every hook; docs/adr/0010). When
the broker cannot be reached the hook relay still answers in the CLI's contract — `{}`, or a denial
when its `--event` is PreToolUse or names no event (fail closed) — and the bridge relay exits 1,
which an MCP client reports.
"""

from __future__ import annotations

import os
import sys

from oms.domain.relay import (
    BRIDGE_OPTIONS,
    BROKER_VIEW,
    HOOK_OPTIONS,
    RelayError,
    encode_header,
    options,
    parse_answer,
    unanswered,
)

# not `typing.TYPE_CHECKING`: importing typing costs a relay ~3 ms (mypy honours the name)
TYPE_CHECKING = False
if TYPE_CHECKING:
    import _socket

# copies of `Limits` fields (this module imports no typing: ADR 0010); tests/unit/test_one_home.py
STDIN_CAP = 1024 * 1024  # Limits.hook_stdin_bytes
ANSWER_CAP = 4 * 1024 * 1024  # Limits.relay_answer_bytes
HOOK_TIMEOUT_S = 9.5  # Limits.relay_hook_s


def socket_path() -> str:
    """Where the broker listens (inside the sandbox)."""
    return os.environ.get("OMS_BROKER_SOCKET") or BROKER_VIEW


def _connect(timeout: float | None) -> _socket.socket:
    import _socket

    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    sock.settimeout(timeout)
    try:
        sock.connect(socket_path())
    except OSError:
        sock.close()
        raise
    return sock


def _write(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _read_stdin(cap: int) -> bytes:
    chunks: list[bytes] = []
    total = 0
    while total <= cap and (chunk := os.read(0, min(65536, cap + 1 - total))):
        chunks.append(chunk)
        total += len(chunk)
    return b"".join(chunks)


def hook(argv: list[str]) -> int:
    """Relay one hook: stdin to the broker, its answer to stdout (and one line to stderr). Always
    exit 0."""
    data = _read_stdin(STDIN_CAP)
    safe = unanswered(argv)
    try:
        options(tuple(argv), HOOK_OPTIONS)  # the shape only: the values are the broker's to judge
        header = encode_header("hook", argv)
    except RelayError as exc:
        sys.stderr.write(f"oms hook: usage: {str(exc)[:300]}\n")
        _write(1, safe)
        return 0
    try:
        sock = _connect(HOOK_TIMEOUT_S)
        try:
            sock.sendall(header)
            sock.sendall(data)
            sock.shutdown(1)  # SHUT_WR: the request is complete
            chunks: list[bytes] = []
            total = 0
            while chunk := sock.recv(65536):
                chunks.append(chunk)
                total += len(chunk)
                if total > ANSWER_CAP:
                    raise RelayError("the broker's answer is too large")
        finally:
            sock.close()
        out, err = parse_answer(b"".join(chunks))
    except (OSError, RelayError) as exc:
        reason = (
            exc.strerror
            if isinstance(exc, OSError) and exc.strerror
            else str(exc) or type(exc).__name__
        )
        sys.stderr.write(
            f"oms hook: no answer from the oms broker at {socket_path()}: {reason[:200]}\n"
        )
        _write(1, safe)
        return 0
    if err:
        sys.stderr.write(f"oms hook: {err}\n")
    _write(1, out)
    return 0


def bridge(argv: list[str]) -> int:
    """Relay one MCP stdio session: stdin lines to the broker, its lines to stdout, until either
    closes."""
    import select

    try:
        options(tuple(argv), BRIDGE_OPTIONS)
    except RelayError as exc:
        sys.stderr.write(f"oms: usage: oms worker bridge --dispatch-id D --session-id S ({exc})\n")
        return 2
    try:
        header = encode_header("bridge", argv)
        sock = _connect(5.0)
    except (OSError, RelayError) as exc:
        reason = (
            exc.strerror
            if isinstance(exc, OSError) and exc.strerror
            else str(exc) or type(exc).__name__
        )
        sys.stderr.write(
            f"oms bridge: cannot reach the oms broker at {socket_path()}: {reason[:200]}\n"
        )
        return 1
    sfd: int = sock.fileno()
    try:
        sock.settimeout(None)
        sock.sendall(header)
        watching = [0, sfd]
        while True:
            readable, _, _ = select.select(watching, [], [])
            if sfd in readable:
                chunk = sock.recv(65536)
                if not chunk:
                    return 0  # the broker ended the session (it closes after our EOF is answered)
                _write(1, chunk)
            if 0 in readable:
                data = os.read(0, 65536)
                if data:
                    sock.sendall(data)
                else:
                    sock.shutdown(1)  # stdin closed: the client is done
                    watching = [sfd]
    except (BrokenPipeError, ConnectionResetError):
        # the broker ended the session: closed before it read all we sent (it refused it, or the
        # client's EOF came after), which the kernel shows as a reset, not an EOF
        return 0
    except OSError as exc:
        sys.stderr.write(
            f"oms bridge: relay to the oms broker failed: {(exc.strerror or str(exc))[:200]}\n"
        )
        return 1
    finally:
        sock.close()
