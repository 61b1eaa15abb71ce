"""A model proxy started again after one died serves on the port the one before had (ADR 0026).

A worker whose role says `network = "host"` is told the proxy's port itself (its CLI's base URL:
`http://127.0.0.1:<port>/p/<provider>`), not a door. With `[proxy] port = 0` (the default: any free
port) a proxy started again after a crash — by the conductor's next tick or `oms worker deliver` —
took another port: such a worker was left for good without its proxy, sending its token and its
prompts to a port that any local user could take next. The proxy started again asks for the port
of the record it replaces first (any other port only if that one is taken)."""

from __future__ import annotations

import errno
import os
import signal
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import access
from oms.fsio.procinfo import start_ticks
from oms.process import reap
from oms.services.proxy import control as proxy_control
from tests.chain import Chain, make_chain
from tests.helpers import eventually
from tests.proxy_rig import proxies_of

GONE_S = 10.0  # a SIGKILLed process is gone well within this
TIME_WAIT_S = 90.0  # a closed TCP connection's TIME-WAIT (60 s on Linux) is over by then
PROVIDER = '\n[providers.claude-x]\nfamily = "anthropic"\nendpoint = "http://127.0.0.1:9"\n'


@pytest.fixture
def chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Chain]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-key")
    for made in make_chain(tmp_path):
        made.edit_config(lambda s: s + PROVIDER, commit=True)
        try:
            yield made
        finally:
            with made.workspace() as ws:
                proxy_control.stop(ws)
            for pid in proxies_of(str(made.state)):
                os.kill(pid, signal.SIGKILL)
                reap(pid)


def _killed(chain: Chain) -> int:
    """Start a proxy, SIGKILL it (as a crash leaves it: its record stale); its port."""
    with chain.workspace() as ws:
        first = proxy_control.start(ws)
    assert first.record is not None
    pid = access.integer(first.record, "pid")
    os.kill(pid, signal.SIGKILL)

    def gone() -> bool:  # as the record's status asks: an exiting process, its cmdline already
        reap(pid)  # empty, is not listed by `proxies_of` yet still counts as running (a full run)
        return start_ticks(pid) is None  # (a zombie counts as gone)

    eventually(gone, timeout=GONE_S, what=f"the proxy {pid} gone after SIGKILL")
    return access.integer(first.record, "port")


def test_a_proxy_started_again_after_a_crash_serves_on_the_same_port(chain: Chain) -> None:
    for _ in range(3):
        port = _killed(chain)
        with chain.workspace() as ws:
            assert proxy_control.status(ws).state == "stale"
            again = proxy_control.ensure(ws)  # what a tick or a launch does
        assert again.record is not None
        assert access.integer(again.record, "port") == port
        with chain.workspace() as ws:
            proxy_control.stop(ws)


def _squat(port: int) -> socket.socket | None:
    """A socket listening on `port`; None when another process's socket holds it already (the
    kernel hands a freed port out again as any connection's own end, beside other tests)."""
    squatter = socket.socket()
    try:
        squatter.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        squatter.bind(("127.0.0.1", port))
        squatter.listen()
    except OSError as err:
        squatter.close()
        if err.errno != errno.EADDRINUSE:
            raise
        return None
    return squatter


def test_a_port_taken_meanwhile_does_not_stop_the_proxy_starting(chain: Chain) -> None:
    port = _killed(chain)
    squatted: list[socket.socket] = []

    def squat() -> bool:  # the killed proxy's closed connections wait (TIME-WAIT) on its port,
        held = _squat(port)  # and the kernel may refuse a listener beside them until they end:
        if held is not None:  # the proxy would start on that port again (its record's) meanwhile
            squatted.append(held)
        return held is not None

    eventually(squat, timeout=TIME_WAIT_S, what=f"a listener of ours on the freed port {port}")
    with squatted[0]:
        with chain.workspace() as ws:
            again = proxy_control.ensure(ws)
    assert again.record is not None
    assert access.integer(again.record, "port") != port
