"""One model proxy per state root, and its log bounded (issue 24's 1-hour soak): each test failed
before its fix. The soak left 13 `oms proxy serve` processes for one state root (a start SIGKILLed
before it recorded its proxy left that proxy serving, unrecorded, holding the doors of every
token), and the recorded one logged "a live socket is there" for each door ten times a second
until proxy.log was 1.67 GB."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from oms.canonical import access
from oms.fsio.procinfo import ProcessIdentity, boot_id, start_ticks
from oms.process import reap
from oms.services.proxy import control as proxy_control
from oms.services.proxy import tokens as proxy_tokens
from oms.services.proxy.front import Doors, door_dir, door_path
from oms.services.proxy.server import ProxyServer
from oms.services.proxy.watch import CappedLog
from oms.store.documents import encode_document
from tests.chain import Chain, make_chain
from tests.chaos import proxy_violations
from tests.helpers import eventually
from tests.proxy_rig import proxies_of

PROVIDER = '\n[providers.claude-x]\nfamily = "anthropic"\nendpoint = "http://127.0.0.1:9"\n'
LINE = "x" * 99 + "\n"
SLEEP = "import time; time.sleep(120)"
EXIT_S = 20.0  # a superseded proxy stops within its watch period, a start within its timeout


@pytest.fixture
def chain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Chain]:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-real-key")
    for made in make_chain(tmp_path):
        made.edit_config(
            lambda s: s + PROVIDER,
            commit=True,
        )
        try:
            yield made
        finally:
            with made.workspace() as ws:
                proxy_control.stop(ws)
            for pid in proxies_of(str(made.state)):
                os.kill(pid, 9)
                reap(pid)


def _until(holds: Callable[[], object], what: str) -> None:
    eventually(holds, timeout=EXIT_S, what=what)


def _reap_all(state: str) -> None:
    for pid in proxies_of(state):
        reap(pid)


def test_a_proxy_started_while_another_serves_the_root_leaves_one_serving(chain: Chain) -> None:
    """A start whose record is lost (its starter SIGKILLed before it recorded it) then a second
    start: one proxy serves, the recorded one."""
    with chain.workspace() as ws:
        first = proxy_control.start(ws)
        assert first.record is not None
        ws.store.state.root.unlink(proxy_control.RECORD)  # as a killed start leaves it: unrecorded
        second = proxy_control.start(ws)
        assert second.record is not None
    recorded = access.integer(second.record, "pid")

    def one() -> bool:
        _reap_all(str(chain.state))
        return proxies_of(str(chain.state)) == [recorded]

    alive = proxies_of(str(chain.state))
    _until(one, f"one proxy for the state root, pid {recorded}; alive: {alive}")
    assert not proxy_violations(str(chain.state))


def test_a_proxy_whose_record_names_another_process_exits(chain: Chain) -> None:
    with chain.workspace() as ws:
        found = proxy_control.start(ws)
        assert found.record is not None
        pid = access.integer(found.record, "pid")
        other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"])
        try:
            ticks = start_ticks(other.pid)
            assert ticks is not None
            who = ProcessIdentity(boot_id(), other.pid, ticks)
            doc = {**found.record, "pid": who.pid, "start_ticks": who.start_ticks}
            root = ws.store.state.root
            root.unlink(proxy_control.RECORD)
            root.publish(proxy_control.RECORD, encode_document(doc, "proxy-record", "r", 4096))

            def gone() -> bool:
                _reap_all(str(chain.state))
                return pid not in proxies_of(str(chain.state))

            _until(gone, f"the proxy {pid} the record no longer names to exit")
            root.unlink(proxy_control.RECORD)
        finally:
            other.kill()
            other.wait()


def test_the_proxy_log_stays_under_its_cap_when_another_holds_a_door(
    chain: Chain, capfd: pytest.CaptureFixture[str]
) -> None:
    """A door whose socket another proxy holds is not opened; that is said once, not once a pass,
    and the log is rotated at its cap (one old file kept)."""
    with chain.workspace() as ws:
        proxy_tokens.issue_token(ws, "d-held", "claude-x")
        sandboxes = ws.store.sandboxes()
        sandboxes.mkdirs(door_dir("d-held"))
        held = sandboxes.listen_unix(door_path("d-held"))  # another proxy's live door
        try:
            server = ProxyServer(proxy_control.settings_for(ws, b"k" * 32, {}), 0)
            doors = Doors(server, ws.store.state.root, sandboxes)
            try:
                deadline = time.monotonic() + 2.0
                while time.monotonic() < deadline:  # 2 s of the door loop's passes (0.1 s apart)
                    doors.keep()
                    time.sleep(0.01)
            finally:
                doors.stop()
                server.server_close()
        finally:
            held.close()
        said = capfd.readouterr().err.count("no door for d-held")
        assert said == 1, f"the held door was logged {said} times in 2 s"
        root = ws.store.state.root
        cap = 4096
        log = CappedLog(root, proxy_control.LOG, cap)
        fd = root.open_log(proxy_control.LOG)
        saved = os.dup(2)
        os.dup2(fd, 2)
        os.close(fd)
        try:

            def writer() -> None:
                for _ in range(500):
                    log.write(LINE)

            threads = [threading.Thread(target=writer) for _ in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
        finally:
            os.dup2(saved, 2)
            os.close(saved)
        logs = (proxy_control.LOG, proxy_control.LOG + ".1")
        sizes = [os.path.getsize(os.path.join(chain.state, p)) for p in logs]
        assert max(sizes) <= cap, f"proxy.log and proxy.log.1: {sizes} bytes, cap {cap}"
        assert sizes[1] > 0  # rotated, not just cut


def test_the_chaos_check_counts_every_proxy_of_the_state_root(tmp_path: Path) -> None:
    """Two `oms proxy serve` processes for one state root, neither recorded: both are violations."""
    state = str(tmp_path / "state")
    argv = [sys.executable, "-c", SLEEP, "proxy", "serve", "--state-root", state]
    fakes = [subprocess.Popen(argv) for _ in range(2)]
    try:
        _until(lambda: len(proxies_of(state)) == 2, "the two stand-ins to run")
        found = proxy_violations(state)
        assert len(found) == 3, found  # each unrecorded, and two of them
    finally:
        for p in fakes:
            p.kill()
            p.wait()
