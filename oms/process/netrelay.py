"""`oms worker netrelay --port P -- AGENT...`: inside a sandbox without a network, the agent's only
way to its model (ADR 0020). It listens on 127.0.0.1:P of the sandbox's own network namespace — the
port the agent's endpoint names — and carries each connection, byte for byte, to the model proxy's
Unix socket in the dispatch's own door, bound in read-only at `/oms/door`; it runs the agent as its
child, in the pane's terminal, and exits with its status.

It decides nothing: the proxy checks the token on every request. Terminal signals (Ctrl-C, Ctrl-\\,
Ctrl-Z) are the agent's; SIGTERM and SIGHUP are passed on to it. Loads only the C socket module and
threads (it starts once per sandbox, not per hook).
"""

from __future__ import annotations

import contextlib
import signal
import socket
import subprocess
import sys
import threading

MODEL_VIEW = (
    "/oms/door/model.sock"  # (adapters/sandbox.py binds the dispatch's door directory at /oms/door)
)
USAGE = "oms: usage: oms worker netrelay --port P -- COMMAND...\n"
CHUNK = 65536


def main(args: list[str]) -> int:
    """Parse `--port P -- COMMAND...`, relay, run the command; its exit status."""
    try:
        split = args.index("--")
        options, command = args[:split], args[split + 1 :]
        if len(options) != 2 or options[0] != "--port" or not options[1].isascii() or not command:
            raise ValueError
        port = int(options[1])
        if not 0 < port < 65536:
            raise ValueError
    except ValueError:
        sys.stderr.write(USAGE)
        return 2
    try:
        listener = socket.create_server(("127.0.0.1", port), backlog=64)
    except OSError as exc:
        sys.stderr.write(
            f"oms: error: the model relay cannot listen on 127.0.0.1:{port}: {exc.strerror}\n"
        )
        return 1
    threading.Thread(
        target=serve, args=(listener, MODEL_VIEW), name="oms-netrelay", daemon=True
    ).start()
    return run(command)


def run(command: list[str]) -> int:
    """Run the agent in the terminal; pass SIGTERM/SIGHUP on; its exit status (128 + a signal's
    number)."""
    for quiet in (
        signal.SIGINT,
        signal.SIGQUIT,
        signal.SIGTSTP,
    ):  # the terminal's signals are the agent's
        signal.signal(quiet, signal.SIG_IGN)
    try:
        child = subprocess.Popen(command, close_fds=True, restore_signals=True)  # the approved argv
    except OSError as exc:
        sys.stderr.write(f"oms: error: {command[0]} cannot start: {exc.strerror}\n")
        return 127

    def forward(signum: int, _frame: object) -> None:
        with contextlib.suppress(ProcessLookupError):
            child.send_signal(signum)

    for passed in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(passed, forward)
    status = child.wait()
    return status if status >= 0 else 128 - status


def serve(listener: socket.socket, target: str) -> None:
    """Carry every connection `listener` accepts to the Unix socket `target` (until the listener
    closes)."""
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        threading.Thread(target=_carry, args=(conn, target), daemon=True).start()


def _carry(conn: socket.socket, target: str) -> None:
    """One agent connection to the proxy's socket and back, until both sides are done."""
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM | socket.SOCK_CLOEXEC)
    try:
        upstream.connect(target)
    except OSError:
        conn.close()
        upstream.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, conn), daemon=True)
    back.start()
    _pump(conn, upstream)
    back.join()
    conn.close()
    upstream.close()


def _pump(source: socket.socket, sink: socket.socket) -> None:
    """Copy until `source` ends, then end `sink`'s write side (the other direction goes on)."""
    try:
        while True:
            data = source.recv(CHUNK)
            if not data:
                break
            sink.sendall(data)
    except OSError:
        pass
    with contextlib.suppress(OSError):
        sink.shutdown(socket.SHUT_WR)
