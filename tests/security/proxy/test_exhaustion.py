"""One worker's abuse of the loopback model proxy must not stop other workers' traffic (issue 13,
ADR 0020).

The real `oms proxy serve` process (started by `proxy_control.start`). Any process that reaches
127.0.0.1 — every sandbox shares the network — opens connections and never finishes their headers:
no token is needed. Before cd20249's fix each held a thread and a descriptor for 900 s a read, and
once the proxy's descriptors were gone `accept` failed with EMFILE and every other worker's request
waited in the backlog; now a request's headers and body must arrive within 10 s, and at most 256
connections are open at once. The proxy's descriptor limit is lowered to 128 here (it inherits the
deliverer's: 20000 on this host; an agent needs only that many sockets, spread over a few processes)
to keep the test small."""

from __future__ import annotations

import http.client
import json
import resource
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import access
from oms.services.proxy import control as proxy_control
from tests.attempts import attempt_token
from tests.chain import Chain, make_chain
from tests.model_mock import ModelMock, Script
from tests.proxy_rig import MESSAGES


@pytest.fixture
def proxied(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[Chain, ModelMock]]:
    mock = ModelMock(Script([])).start()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-key")
    try:
        for chain in make_chain(tmp_path):
            chain.edit_config(
                lambda s: (
                    s
                    + f'\n[providers.claude-mock]\nfamily = "anthropic"\nendpoint = "{mock.base}"\n'
                ),
                commit=True,
            )
            yield chain, mock
    finally:
        mock.stop()


def test_idle_connections_from_one_sandbox_do_not_stop_other_workers_traffic(
    proxied: tuple[Chain, ModelMock],
) -> None:
    chain, _ = proxied
    with chain.workspace() as ws:
        started = proxy_control.start(ws)
        token = attempt_token(chain, "d-victim", "claude-mock")
    assert started.record is not None
    pid, port = access.integer(started.record, "pid"), access.integer(started.record, "port")
    held: list[socket.socket] = []
    try:
        resource.prlimit(pid, resource.RLIMIT_NOFILE, (128, 128))
        for _ in range(160):  # the attacker: no token, headers never finished
            s = socket.create_connection(("127.0.0.1", port), timeout=5)
            s.sendall(b"POST /p/claude-mock/v1/messages HTTP/1.1\r\n")
            held.append(s)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request(
                "POST",
                "/p/claude-mock/v1/messages",
                body=json.dumps(MESSAGES).encode(),
                headers={"x-api-key": token, "Content-Type": "application/json"},
            )
            response = conn.getresponse()
            status, said = response.status, response.read()
        except OSError as exc:
            pytest.fail(
                f"another worker's request got no answer in 10 s while "
                f"160 idle connections are held: {exc!r}"
            )
        finally:
            conn.close()
        assert status == 200, said
    finally:
        for s in held:
            s.close()
        with chain.workspace() as ws:
            proxy_control.stop(ws)
