"""A connection that goes away prints no traceback (ADR 0007: one-line errors, never a traceback;
SECURITY.md "The board in a browser").

Any local process, with no token, can open a connection to `oms web`, send a request and reset it
before the answer is read — and so does a browser tab closed while its poll is answered. Before the
fix each such connection printed socketserver's whole traceback (`ConnectionResetError`) into the
terminal the person runs `oms web` in: a flood anyone on the machine could write to."""

from __future__ import annotations

import socket
import struct
import subprocess

from tests.chain import Chain
from tests.helpers import OmsCommand

RESETS = 20


def test_reset_connections_print_no_traceback(chain: Chain, oms: OmsCommand) -> None:
    roots = ("--state-root", str(chain.state), "--config-root", str(chain.repo))
    proc = subprocess.Popen(
        [*oms.argv, "web", *roots], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        port = int(line.split("127.0.0.1:", 1)[1].split("/", 1)[0])
        request = f"GET /api/board HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode()
        for _ in range(RESETS):  # no token: answered 403, but the answer finds the peer gone
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            s.sendall(request)
            s.close()  # a reset (linger 0), before the answer is read
        done = socket.create_connection(("127.0.0.1", port), timeout=10)  # served after them all
        done.sendall(request)
        assert done.recv(12).startswith(b"HTTP/1.0 403")
        done.close()
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=30)
    assert "Traceback" not in err, err[:2000]
    assert "ConnectionResetError" not in err
