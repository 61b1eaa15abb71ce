"""`oms proxy start|status|stop` as real processes (issue 13, ADR 0020): the proxy is trusted only
once it answers the handshake, a listener on its port that cannot is not, `stop` signals only the
exact process recorded, and a stale record is cleaned with a note; errors are one line."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import JsonObject
from oms.fsio.procinfo import ProcessIdentity, boot_id, is_alive, start_ticks
from oms.services.proxy.control import RECORD
from oms.store.documents import encode_document
from tests.attempts import attempt_token
from tests.chain import Chain, make_chain
from tests.helpers import OmsCommand, eventually
from tests.model_mock import ModelMock, Script
from tests.proxy_rig import ANTHROPIC_KEY, MESSAGES, PROVIDERS

pytestmark = pytest.mark.cli

IMPOSTOR = r"""
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer
class H(BaseHTTPRequestHandler):
    def do_GET(self):
        body = json.dumps({"answer": "0" * 64}).encode()
        self.send_response(200); self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
    def log_message(self, *a): pass
server = HTTPServer(("127.0.0.1", 0), H)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


@pytest.fixture
def chain(tmp_path: Path, mock: ModelMock) -> Iterator[Chain]:
    for made in make_chain(tmp_path):
        made.edit_config(lambda s: s + PROVIDERS.format(base=mock.base, cap=1 << 20), commit=True)
        yield made


def _run(oms: OmsCommand, chain: Chain, *args: str) -> subprocess.CompletedProcess[str]:
    env = {"ANTHROPIC_API_KEY": ANTHROPIC_KEY}
    return oms.run(
        "proxy", *args, "--state-root", str(chain.state), "--config-root", str(chain.repo), env=env
    )


def _record(chain: Chain) -> dict[str, object]:
    return dict(json.loads((chain.state / RECORD).read_text()))


def _wait_gone(who: ProcessIdentity, timeout: float = 10.0) -> bool:
    return eventually(lambda: not is_alive(who), timeout=timeout, what=f"{who} ends")


def test_start_status_request_stop(oms: OmsCommand, chain: Chain, mock: ModelMock) -> None:
    started = _run(oms, chain, "start", "--json")
    assert started.returncode == 0, started.stderr
    doc = json.loads(started.stdout)
    assert doc["state"] == "running"
    assert "hello_nonce" not in doc["proxy"]
    record = _record(chain)
    who = ProcessIdentity(
        str(record["boot_id"]), int(str(record["pid"])), int(str(record["start_ticks"]))
    )
    try:
        assert is_alive(who)
        status = _run(oms, chain, "status")
        assert status.returncode == 0, status.stderr
        assert status.stdout.startswith("proxy: running (pid ")
        assert "handshake verified" in status.stdout
        token = attempt_token(chain, "d-1", "claude-mock")  # the child has its starter's env's key
        import http.client

        conn = http.client.HTTPConnection("127.0.0.1", int(str(record["port"])), timeout=30)
        conn.request(
            "POST",
            "/p/claude-mock/v1/messages",
            body=json.dumps(MESSAGES),
            headers={"x-api-key": token},
        )
        assert conn.getresponse().status == 200
        conn.close()
        assert mock.heard[-1][1]["x-api-key"] == ANTHROPIC_KEY
        again = _run(oms, chain, "start")
        assert again.returncode != 0
        assert again.stderr.splitlines()[0].startswith(
            "oms: error: the model proxy is already recorded: pid "
        )
        assert "Traceback" not in again.stderr
    finally:
        stopped = _run(oms, chain, "stop")
    assert stopped.returncode == 0, stopped.stderr
    assert stopped.stdout == "proxy: stopped (stopped)\n"
    assert _wait_gone(who)
    assert not (chain.state / RECORD).exists()
    assert _run(oms, chain, "status").stdout == "proxy: not running (no proxy is recorded)\n"


def test_a_stale_record_is_named_and_cleaned(oms: OmsCommand, chain: Chain) -> None:
    assert _run(oms, chain, "start").returncode == 0
    record = _record(chain)
    os.kill(int(str(record["pid"])), signal.SIGKILL)  # the proxy this test started dies
    who = ProcessIdentity(
        str(record["boot_id"]), int(str(record["pid"])), int(str(record["start_ticks"]))
    )
    assert _wait_gone(who)
    status = _run(oms, chain, "status", "--json")
    assert json.loads(status.stdout)["state"] == "stale"
    stopped = _run(oms, chain, "stop")
    assert stopped.returncode == 0
    assert stopped.stdout.startswith(
        f"proxy: stale (removed a stale record: the recorded proxy (pid {who.pid}) is gone"
    )
    assert not (chain.state / RECORD).exists()


def _impostor() -> tuple[subprocess.Popen[str], int]:
    proc = subprocess.Popen([sys.executable, "-c", IMPOSTOR], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    return proc, int(proc.stdout.readline())


def _end(proc: subprocess.Popen[str]) -> None:
    proc.kill()
    proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()


def _write_record(chain: Chain, pid: int, ticks: int, port: int) -> None:
    doc: JsonObject = {
        "format": 1,
        "pid": pid,
        "start_ticks": ticks,
        "boot_id": boot_id(),
        "port": port,
        "hello_nonce": "0" * 32,
        "started_at": "2026-01-01T00:00:00.000Z",
    }
    with chain.workspace() as ws:
        ws.store.state.root.mkdirs("proxy")
        ws.store.state.root.publish(RECORD, encode_document(doc, "proxy-record", RECORD, 4096))


def test_a_process_listening_on_the_recorded_port_is_not_trusted(
    oms: OmsCommand, chain: Chain
) -> None:
    proc, port = _impostor()
    try:
        _write_record(chain, proc.pid, start_ticks(proc.pid) or 0, port)
        status = _run(oms, chain, "status")
        assert status.returncode == 1
        assert status.stderr.splitlines()[0] == (
            f"oms: error: proxy unverified: pid {proc.pid} runs but what "
            f"listens on port {port} fails the handshake"
        )
        assert "Traceback" not in status.stderr
        started = _run(oms, chain, "start")
        assert started.returncode == 1
        assert "the model proxy is already recorded" in started.stderr
    finally:
        _end(proc)


def test_stop_never_signals_a_process_whose_start_time_differs(
    oms: OmsCommand, chain: Chain
) -> None:
    proc, port = _impostor()
    try:
        _write_record(
            chain, proc.pid, (start_ticks(proc.pid) or 0) + 1, port
        )  # its pid, another start
        stopped = _run(oms, chain, "stop")
        assert stopped.returncode == 0, stopped.stderr
        assert stopped.stdout.startswith("proxy: stale (removed a stale record:")
        assert proc.poll() is None  # never signalled
        assert not (chain.state / RECORD).exists()
    finally:
        _end(proc)
