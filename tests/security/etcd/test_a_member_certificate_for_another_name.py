"""A member whose certificate the trusted CA signed, but for another name (ADR 0043, amendment
`etcdtls`): another member's certificate, say, served on this member's address by whoever took
it. The client checks the name it dials against the certificate's SAN, not only the signature:
the call is refused in one line naming the endpoint and what the certificate names, and nothing
is sent over it. The member is a stand-in TLS listener (etcd never serves a certificate for
another name of its own accord)."""

from __future__ import annotations

import socket
import ssl
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from oms.adapters.etcd.client import ClientTls, Etcd
from oms.errors import EtcdUnavailableError
from oms.limits import LIMITS
from tests.tls_certs import Leaf, authority, leaf


@contextmanager
def _listener(served: Leaf) -> Iterator[tuple[int, list[bytes]]]:
    """A TLS listener on 127.0.0.1 serving `served`; what it read from each client after a
    handshake."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(served.cert, served.key)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    heard: list[bytes] = []

    def serve() -> None:
        while True:
            try:
                conn, _ = sock.accept()
            except OSError:
                return
            try:
                with context.wrap_socket(conn, server_side=True) as tls:
                    tls.settimeout(2)
                    heard.append(tls.recv(65536))
            except OSError:
                conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield sock.getsockname()[1], heard
    finally:
        sock.close()
        thread.join(timeout=10)


@pytest.fixture
def another_name(tmp_path: Path) -> Iterator[tuple[int, list[bytes], ClientTls]]:
    ca = authority(tmp_path, "ca")
    other = leaf(ca, tmp_path, "member-2", server=True, ip="127.0.0.2")  # signed: another name
    client = leaf(ca, tmp_path, "client", server=False)
    tls = ClientTls(ca.cert_path.read_bytes(), client.cert.read_bytes(), client.key.read_bytes())
    with _listener(other) as (port, heard):
        yield port, heard, tls


def test_a_member_certificate_for_another_name_is_refused(
    another_name: tuple[int, list[bytes], ClientTls],
) -> None:
    port, heard, tls = another_name
    client = Etcd([f"https://127.0.0.1:{port}"], LIMITS._replace(etcd_call_s=2.0), tls=tls)
    try:
        with pytest.raises(EtcdUnavailableError) as caught:
            client.put("/oms/k", b"secret")
    finally:
        client.close()
    said = caught.value.message
    assert "\n" not in said, said
    assert f"127.0.0.1:{port}" in said, said
    assert "does not name 127.0.0.1" in said, said
    assert "as its certificate does" in caught.value.remedy, caught.value.remedy
    assert not any(heard), heard  # no request went over it
