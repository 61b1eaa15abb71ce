"""A model proxy served in this process in front of the loopback model mock, on a real chain's state
root, for the proxy's integration and attack tests: real sockets, real files, the real config."""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from oms.services.proxy.control import settings_for
from oms.services.proxy.front import wait_for_door
from oms.services.proxy.server import ProxyServer
from oms.services.workspace import Workspace
from tests.chain import Chain, make_chain
from tests.model_mock import ModelMock, Script

_HELD: dict[str, int] = {}  # sandbox directory -> a descriptor of it, held for the test run


def door_socket(ws: Workspace, dispatch_id: str) -> str:
    """A path to a dispatch's door, once the proxy opened it, short enough for AF_UNIX's 108 bytes:
    through a descriptor of the sandbox directory (ADR 0026: it lies beside a test's long temporary
    directory)."""
    sandboxes = ws.store.sandboxes()
    rel = wait_for_door(sandboxes, dispatch_id)
    if sandboxes.path not in _HELD:
        _HELD[sandboxes.path] = os.open(sandboxes.path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    return f"/proc/self/fd/{_HELD[sandboxes.path]}/{rel}/model.sock"


def proxies_of(state_root: str) -> list[int]:
    """The pids of every live `oms proxy serve` process for `state_root` (from /proc: a leaked,
    unrecorded one too)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            raw = (entry / "cmdline").read_bytes().split(b"\0")
            argv = [a.decode("utf-8", "replace") for a in raw]
            state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
        except OSError:
            continue
        line = " ".join(argv)
        if state != "Z" and "proxy serve" in line and f"--state-root {state_root} " in line + " ":
            out.append(int(entry.name))
    return sorted(out)


ANTHROPIC_KEY = "sk-ant-real-key-held-by-the-proxy"
OPENAI_KEY = "sk-openai-real-key-held-by-the-proxy"
ROLE = "oms.ticket-executor"
PROVIDERS = """
[providers.claude-mock]
family = "anthropic"
endpoint = "{base}"

[providers.claude-other]
family = "anthropic"
endpoint = "{base}"

[providers.codex-mock]
family = "openai"
endpoint = "{base}/v1"
key_env = "OMS_TEST_OPENAI_API_KEY"

[providers.codex-chatgpt]
family = "openai"
endpoint = "{base}/backend-api/codex"
auth = "codex-chatgpt"

[proxy]
max_request_bytes = {cap}
"""
CHATGPT_ACCOUNT = "acct-held-by-the-proxy"


def chatgpt_token(exp: int, marker: str = "a") -> str:
    """An access token shaped as Codex's (a JWT; unsigned: only its `exp` is read, never
    trusted)."""
    import base64

    def part(doc: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(doc).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none'})}.{part({'exp': exp, 'marker': marker})}.signature-{marker}"


def write_chatgpt_login(home: Path, access: str, account: str = CHATGPT_ACCOUNT) -> None:
    """The user's Codex ChatGPT login as Codex 0.171 writes it (`auth.json`, mode 0600)."""
    home.mkdir(parents=True, exist_ok=True)
    tokens = {
        "id_token": access,
        "access_token": access,
        "refresh_token": "rt-never-used",
        "account_id": account,
    }
    doc = {
        "auth_mode": "chatgpt",
        "OPENAI_API_KEY": None,
        "tokens": tokens,
        "last_refresh": "2026-12-01T00:00:00Z",
    }
    path = home / "auth.json"
    path.write_text(json.dumps(doc))
    path.chmod(0o600)


@dataclass
class Rig:
    """The chain, the mock upstream, the proxy and its workspace."""

    chain: Chain
    mock: ModelMock
    server: ProxyServer
    ws: Workspace
    codex_home: Path

    @property
    def port(self) -> int:
        return self.server.port

    def token(self, provider_id: str, dispatch_id: str = "d-1", role_id: str | None = None) -> str:
        """A token of a live attempt under `dispatch_id` (`tests/attempts.py`)."""
        from tests.attempts import attempt_token

        return attempt_token(self.chain, dispatch_id, provider_id, role_id=role_id)

    def post(
        self, path: str, body: object, headers: dict[str, str] | None = None
    ) -> tuple[int, dict[str, str], bytes]:
        """One request through the proxy, the whole answer read."""
        conn = self.connect()
        try:
            data = body if isinstance(body, bytes) else json.dumps(body).encode()
            conn.request(
                "POST",
                path,
                body=data,
                headers={"Content-Type": "application/json", **(headers or {})},
            )
            response = conn.getresponse()
            return (
                response.status,
                {k.lower(): v for k, v in response.getheaders()},
                response.read(),
            )
        finally:
            conn.close()

    def connect(self) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)

    def hammered(self, token: str, fact: Callable[[], None]) -> Hammered:
        """Whole Anthropic requests with `token` sent back to back from a thread: three forwarded,
        then `fact` (what must end the attempt's requests), then five more sent; what each got."""
        from tests.helpers import eventually

        path, whole = "/p/claude-mock/v1/messages", dict(MESSAGES, stream=False)
        sent: list[tuple[float, int]] = []
        stop = threading.Event()

        def hammer() -> None:
            while not stop.is_set():
                at = time.monotonic()
                status, _, _ = self.post(path, whole, {"x-api-key": token})
                sent.append((at, status))

        thread = threading.Thread(target=hammer, daemon=True)
        thread.start()
        try:
            eventually(
                lambda: sum(1 for _, s in sent if s == 200) >= 3,
                timeout=30,
                what="three requests forwarded before the fact",
            )
            fact()
            written, heard = time.monotonic(), len(self.mock.heard)
            eventually(
                lambda: sum(1 for at, _ in sent if at > written) >= 5,
                timeout=30,
                what="five requests sent after the fact",
            )
        finally:
            stop.set()
            thread.join(30)
        return Hammered(sent, written, heard)


@dataclass
class Hammered:
    """What `Rig.hammered` sent: (when, status) per request, when the fact was written, and how
    many requests the upstream had heard by then."""

    sent: list[tuple[float, int]]
    written: float
    heard_then: int

    @property
    def after(self) -> list[int]:
        """The statuses of the requests sent after the fact."""
        return [status for at, status in self.sent if at > self.written]

    @property
    def forwarded(self) -> int:
        return sum(1 for _, status in self.sent if status == 200)


def make_rig(
    tmp_path: Path,
    *,
    budget: int | None = None,
    cap: int = 1024 * 1024,
    on: Callable[[Chain], Chain] | None = None,
) -> Iterator[Rig]:
    """The rig; `budget`: the Claude role's token budget; `cap`: the request body bound; `on`:
    the chain moved onto another store before the proxy opens (an etcd cluster's)."""
    mock = ModelMock(Script([])).start()
    for made in make_chain(tmp_path):
        chain = made if on is None else on(made)
        extra = PROVIDERS.format(base=mock.base, cap=cap)
        line = "" if budget is None else f"token_budget = {budget}\n"
        chain.edit_config(
            lambda s, extra=extra, line=line: (
                s.replace(
                    'transport = "claude_interactive"\n',
                    f'transport = "claude_interactive"\n{line}',
                )
                + extra
            ),
            commit=True,
        )
        ws = chain.workspace()
        codex_home = tmp_path / "codex-home"
        write_chatgpt_login(codex_home, chatgpt_token(int(time.time()) + 3600))
        env = {
            "ANTHROPIC_API_KEY": ANTHROPIC_KEY,
            "OMS_TEST_OPENAI_API_KEY": OPENAI_KEY,
            "OPENAI_API_KEY": "sk-unused",
            "CODEX_HOME": str(codex_home),
        }
        server = ProxyServer(settings_for(ws, b"k" * 32, env), 0)
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield Rig(chain, mock, server, ws, codex_home)
        finally:
            mock.release.set()
            server.shutdown()
            server.server_close()
            thread.join(10)
            ws.close()
            mock.stop()


MESSAGES = {
    "model": "claude-test",
    "max_tokens": 64,
    "stream": True,
    "messages": [{"role": "user", "content": "hi"}],
}
RESPONSES = {
    "model": "gpt-test",
    "stream": True,
    "input": [{"type": "message", "role": "user", "content": []}],
}
