"""The real Codex CLI (codex_goal) through the loopback proxy, as every model worker goes by default
(ADR 0020, 0026: no setting), the model mock as the endpoint: routed to a provider, or not routed at
all (no `[providers]`: its family's implicit provider, upstream the role's endpoint). The agent must
complete its dispatch through the proxy, which `oms worker deliver` starts on demand and the
worker's stop stops; the mock must hear only the real credential — an API key from the proxy's
environment, or the user's Codex ChatGPT login (`auth = "codex-chatgpt"`: its access token and
account, the mock standing in for the ChatGPT backend) — and the sandbox must hold only the
token."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from oms.services.delivery.service import Delivery
from oms.services.proxy import control as proxy_control
from tests.chain import Chain, accepted
from tests.e2e.test_real_agents import CHANGE, _pane_text, _wait_for_result
from tests.e2e.test_through_the_proxy import _environ_of_dispatch
from tests.model_mock import Call, ModelMock, Say, Script
from tests.proxy_rig import CHATGPT_ACCOUNT, chatgpt_token, write_chatgpt_login

ROLE = "oms.goal-long-executor"
REAL_KEY = "sk-proj-the-real-openai-key-held-by-the-proxy-0123456789"
SCAFFOLD_MODEL = 'model = "gpt-6.2-sol"              #'  # the goal-long-executor role's line


@pytest.fixture
def mock() -> Iterator[ModelMock]:
    server = ModelMock(Script([])).start()
    yield server
    server.stop()


@pytest.mark.parametrize("login", ["api-key", "chatgpt", "unrouted"])
def test_the_real_codex_worker_completes_through_the_proxy(
    deliverable: Chain, mock: ModelMock, monkeypatch: pytest.MonkeyPatch, login: str
) -> None:
    codex_home = deliverable.base / "user-codex-home"
    codex_home.mkdir()
    monkeypatch.setenv("CODEX_HOME", str(codex_home))
    if (
        login == "chatgpt"
    ):  # the user's ChatGPT login: the proxy holds it, and no key is in any environment
        secret = chatgpt_token(int(time.time()) + 3600, marker="held-by-the-proxy")
        write_chatgpt_login(codex_home, secret)
        monkeypatch.delenv("OPENAI_API_KEY", raising=False)
        base, auth, want_path, want = (
            f"{mock.base}/backend-api/codex",
            'auth = "codex-chatgpt"\n',
            "/backend-api/codex/responses",
            secret,
        )
    else:  # no login: the proxy holds the key of its environment
        monkeypatch.setenv("OPENAI_API_KEY", REAL_KEY)
        base, auth, want_path, want = f"{mock.base}/v1", "", "/v1/responses", REAL_KEY
    providers_toml = f'\n[providers.codex-a]\nfamily = "openai"\nendpoint = "{base}"\n{auth}'
    providers_toml += 'models = { default = "test-model" }\n'
    if login == "unrouted":  # no providers: the role's own model and endpoint
        providers_toml = ""
        own = f'model = "test-model"\nendpoint = "{base}"\n#'
        deliverable.edit_config(lambda s: s.replace(SCAFFOLD_MODEL, own))
    deliverable.edit_config(
        lambda s: s.replace('role = "oms.command-executor"', f'role = "{ROLE}"') + providers_toml,
        commit=True,
    )
    mock.script = Script(
        [
            Call("read_dispatch", {}),
            Call("acknowledge_dispatch", {}),
            Call("exec_command", {"cmd": CHANGE}),
            Call("record_dispatch_result", {"status": "completed", "summary": "Added AGENT.md."}),
            Call("update_goal", {"status": "complete"}),
            Say("Done: the dispatch has its result."),
        ]
    )
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        routed = ws.store.records("dispatch").read(dispatch_id).payload.get("provider_id")
        assert routed == (None if login == "unrouted" else "codex-a")
        assert proxy_control.status(ws).state == "not running"  # none yet: the launch starts it
    try:
        with deliverable.workspace() as ws:
            outcome = Delivery.open(ws).deliver(event_id)["outcome"]
            running = proxy_control.status(ws)
            assert running.state == "running", running.to_json()
            assert running.record is not None
            assert running.record.get("on_demand") is True
        assert isinstance(outcome, dict)
        logs = "\n".join(
            f.read_text(errors="replace")[-3000:]
            for f in (deliverable.state / "panes").glob("*.log")
        )
        assert outcome["status"] == "created", f"{outcome}\n{logs}"
        try:
            view = _wait_for_result(deliverable, dispatch_id, mock, timeout=90.0)
        except AssertionError:
            log = (deliverable.state / "proxy" / "proxy.log").read_text(errors="replace")
            raise AssertionError(
                f"heard: {mock.heard}\nproxy log:\n{log[-3000:]}\npane:\n"
                f"{_pane_text(deliverable, dispatch_id)}"
            ) from None
        assert view["dispatch_state"] == "result-received"
        assert [s.path for s in mock.seen]
        assert all(p.startswith(want_path) for p, _ in mock.heard), mock.heard
        keys = {h.get("authorization") for _, h in mock.heard}
        assert keys == {f"Bearer {want}"}, keys
        accounts = {h.get("chatgpt-account-id") for _, h in mock.heard}
        assert accounts == ({CHATGPT_ACCOUNT} if login == "chatgpt" else {None}), accounts
        environs = _environ_of_dispatch(dispatch_id)
        assert environs
        assert all(want.encode() not in e for e in environs)
        with deliverable.workspace() as ws:
            Delivery.open(ws).stop(dispatch_id, "test over")
            assert proxy_control.status(ws).state == "not running"  # stopped with its last worker
    finally:
        with deliverable.workspace() as ws:
            proxy_control.stop(ws)
