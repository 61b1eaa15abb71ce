"""`oms status` tells the truth about the model proxy (ADR 0026: it runs while a worker that has not
ended holds a token). Killed while workers hold tokens — SIGKILLed mid-stream, its record replaced —
the workers showed healthy and nothing said that none of them could reach its model; without a
conductor (a launch by hand started the proxy on demand) no tick ever starts it again. Now status
warns while a token is held and no verified proxy runs, and names the fix."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import access
from oms.process import reap
from oms.services.admin.status import snapshot
from oms.services.proxy import control as proxy_control
from oms.services.proxy import tokens as proxy_tokens
from tests.chain import Chain, make_chain
from tests.proxy_rig import proxies_of

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


def _proxy_warnings(chain: Chain) -> list[str]:
    with chain.workspace() as ws:
        return [w for w in snapshot(ws).warnings if "model proxy" in w]


def test_status_warns_while_a_token_is_held_and_no_proxy_serves(chain: Chain) -> None:
    assert _proxy_warnings(chain) == []  # no token: no proxy is needed
    with chain.workspace() as ws:
        proxy_tokens.issue_token(ws, "dsp-held", "claude-x")
    (down,) = _proxy_warnings(chain)
    assert "no proxy is recorded" in down
    assert "dsp-held" in down
    assert "oms proxy start" in down
    with chain.workspace() as ws:
        started = proxy_control.start(ws)
    assert started.record is not None
    assert _proxy_warnings(chain) == []  # it serves: nothing to say
    pid = access.integer(started.record, "pid")
    os.kill(pid, signal.SIGKILL)  # as a crash mid-stream leaves it
    reap(pid)
    (gone,) = _proxy_warnings(chain)
    assert f"the recorded proxy (pid {pid}) is gone" in gone
    with chain.workspace() as ws:
        proxy_tokens.revoke_token(ws, "dsp-held")
    assert _proxy_warnings(chain) == []  # the token's worker ended: none is needed
