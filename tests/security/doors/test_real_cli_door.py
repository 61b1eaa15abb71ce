"""Attacks on the model proxy's door with the real Claude Code as the hand (issues 23 and 24): its
Bash tool, inside the sandbox, speaks to the relay that carries its loopback connections to its
dispatch's door (ADR 0026). The door is for the CLI's model calls; the proxy's handshake
(`/oms-proxy/hello`, an HMAC under a key derived from the state key: how oms trusts a proxy by its
answer, not its port) is oms's own and must not be answered there. Before, any process in any
sandbox could have the proxy sign any challenge it chose, with no token. The only stand-in is the
remote model (tests/model_mock.py)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from oms.services.delivery.service import Delivery
from oms.services.proxy import control as proxy_control
from tests.chain import Chain, accepted
from tests.e2e.test_one_end import _deliver, _proxied, _until
from tests.model_mock import Call, Hold, ModelMock, Say, Script

CHALLENGE = "ab" * 16
# the relay's port from the CLI's own base URL; a raw handshake request, then what came back
PROBE = (
    'port="${ANTHROPIC_BASE_URL#http://127.0.0.1:}"; port="${port%%/*}"; '
    "exec 3<>/dev/tcp/127.0.0.1/$port && "
    f"printf 'GET /oms-proxy/hello?c={CHALLENGE} HTTP/1.1\\r\\nHost: x\\r\\n"
    f"Connection: close\\r\\n\\r\\n' >&3 && "
    "timeout 10 cat <&3 | tr -d '\\r' | sed 's/^/HELLO: /'; echo PROBED"
)


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


def test_a_sandbox_gets_no_proxy_handshake_answer_through_its_door(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch
) -> None:
    _proxied(deliverable, mock, monkeypatch, "claude")
    dispatch_id, event_id = accepted(deliverable)
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Call("Bash", {"command": PROBE, "description": "ask the proxy to sign"}),
            Hold(Say("done")),
        ]
    )
    try:
        _deliver(deliverable, dispatch_id, event_id)
        _until(mock.holding.is_set, "the agent's probe to run", 120.0)
        said = [text for seen in mock.seen for name, text in seen.results if name == "Bash"]
        assert said, "the probe did not run"
        assert "PROBED" in said[0], said[0]
        assert "HELLO: HTTP/1." in said[0], said[0]  # the door answered the request ...
        assert '"answer"' not in said[0], said[0]  # ... but signed nothing
        mock.release.set()
    finally:
        with deliverable.workspace() as ws:
            Delivery.open(ws).stop(dispatch_id, "test over")
            proxy_control.stop(ws)
