"""The model proxy's doors and guards (issue 13, ADR 0020, round 3), on real sockets and files: one
door per dispatch holding a token, only its own token counting there, closed with the token; the
request deadline; bounded request bodies; the approved endpoint; Codex's API key never sent to
another endpoint unasked; an unreadable proxy record never starts a second proxy; a live socket
never taken away."""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import JsonObject
from oms.domain import proxy_usage as counting
from oms.domain.codex_login import NO_KEY, Missing, UpstreamAuth
from oms.domain.routing import Provider
from oms.errors import AlreadyExistsError, ConflictError, ResourcesShortError
from oms.limits import LIMITS
from oms.services.proxy import control as proxy_control
from oms.services.proxy import credentials as proxy_credentials
from oms.services.proxy import tokens as proxy_tokens
from oms.services.proxy.credentials import credential_key
from oms.services.proxy.front import Doors, door_dir, door_path
from oms.services.proxy.guards import Deadlines, Held
from tests.attempts import live_attempt
from tests.proxy_rig import (
    ANTHROPIC_KEY,
    CHATGPT_ACCOUNT,
    MESSAGES,
    Rig,
    chatgpt_token,
    make_rig,
    write_chatgpt_login,
)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(tmp_path)


@pytest.fixture
def doors(rig: Rig) -> Iterator[Doors]:
    kept = Doors(rig.server, rig.ws.store.state.root, rig.ws.store.sandboxes())
    yield kept
    kept.stop()


def _sock(rig: Rig, dispatch_id: str) -> str:
    return os.path.join(rig.ws.store.sandboxes().path, door_path(dispatch_id))  # not the state root


def _connect(path: str, timeout: float | None = 10) -> socket.socket:
    """A connection to the socket at `path`, through its directory's descriptor (a socket path has
    at most 108 bytes, and the sandbox directory lies beside a test's long temporary directory)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(timeout)
    fd = os.open(os.path.dirname(path), os.O_RDONLY | os.O_DIRECTORY)
    try:
        s.connect(f"/proc/self/fd/{fd}/{os.path.basename(path)}")
    except BaseException:
        s.close()
        raise
    finally:
        os.close(fd)
    return s


def _ask(path: str, token: str, body: object = MESSAGES) -> int:
    data = json.dumps(body).encode()
    s = _connect(path)
    try:
        s.sendall(
            b"POST /p/claude-mock/v1/messages HTTP/1.1\r\nHost: x\r\nx-api-key: %s\r\n"
            b"Connection: close\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s"
            % (token.encode(), len(data), data)
        )
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    finally:
        s.close()
    return int(got.split(b" ", 2)[1])


def test_each_token_gets_its_own_door_which_takes_only_its_token_and_closes_with_it(
    rig: Rig, doors: Doors
) -> None:
    mine, other = rig.token("claude-mock", "d-a"), rig.token("claude-mock", "d-b")
    doors.keep()
    assert sorted(doors.open) == ["d-a", "d-b"]
    assert _ask(_sock(rig, "d-a"), mine) == 200
    assert _ask(_sock(rig, "d-a"), other) == 401  # another dispatch's token is no key on this door
    assert _ask(_sock(rig, "d-b"), other) == 200
    with rig.chain.workspace() as ws:
        proxy_tokens.revoke_token(ws, "d-a")
    doors.keep()
    assert sorted(doors.open) == ["d-b"]
    assert not rig.ws.store.sandboxes().exists(door_path("d-a"))
    assert not rig.ws.store.sandboxes().exists(door_dir("d-a"))  # its directory too


def test_a_door_has_its_own_connection_slots(rig: Rig, doors: Doors) -> None:
    mine, other = rig.token("claude-mock", "d-a"), rig.token("claude-mock", "d-b")
    doors.keep()
    held = []
    try:
        for _ in range(
            LIMITS.proxy_door_connections + 8
        ):  # the agent of d-a fills its door, and more
            s = _connect(_sock(rig, "d-a"), None)  # (blocking: a full backlog waits)
            held.append(s)
            with contextlib.suppress(OSError):  # one over the door's slots is closed at once
                s.sendall(b"POST /p/claude-mock/v1/messages HTTP/1.1\r\n")
        assert _ask(_sock(rig, "d-b"), other) == 200  # another worker is not touched
        assert (
            rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": mine})[0] == 200
        )  # nor the port
    finally:
        for s in held:
            s.close()


def test_a_deadline_shuts_a_connection_that_dribbles_past_it() -> None:
    now = [0.0]
    deadlines = Deadlines(clock=lambda: now[0])
    deadlines.close()  # driven by hand here
    a, b = socket.socketpair()
    try:
        deadlines.arm(a, 10.0)
        now[0] = 9.9
        assert deadlines.expire() == 0
        now[0] = 10.0
        assert deadlines.expire() == 1
        assert b.recv(1) == b""  # shut down: its reader sees the end at once
        deadlines.arm(a, 10.0)
        deadlines.disarm(a)  # its request came in
        now[0] = 100.0
        assert deadlines.expire() == 0
    finally:
        a.close()
        b.close()


def test_room_for_a_new_connection_is_made_by_the_one_waiting_longest() -> None:
    """A full proxy closes the connection nearest its deadline (armed: still waiting for its
    request), never one being answered (disarmed)."""
    now = [0.0]
    deadlines = Deadlines(clock=lambda: now[0])
    deadlines.close()  # driven by hand here
    pairs = [socket.socketpair() for _ in range(3)]
    try:
        (old, old_peer), (answered, answered_peer), (new, new_peer) = pairs
        deadlines.arm(old, 10.0)
        now[0] = 1.0
        deadlines.arm(answered, 10.0)
        deadlines.disarm(answered)  # its request came in: it is being answered
        now[0] = 2.0
        deadlines.arm(new, 10.0)
        assert deadlines.evict_oldest(socket.AF_UNIX)
        assert old_peer.recv(1) == b""  # the oldest waiting one was shut down
        answered_peer.setblocking(False)
        new_peer.setblocking(False)
        for kept in (answered_peer, new_peer):
            with pytest.raises(BlockingIOError):
                kept.recv(1)  # still open
        assert deadlines.evict_oldest(socket.AF_UNIX)  # then the new one, still waiting
        assert not deadlines.evict_oldest(
            socket.AF_UNIX
        )  # the one being answered is never a candidate
    finally:
        for a, b in pairs:
            a.close()
            b.close()


def test_a_token_file_the_proxy_cannot_open_for_want_of_descriptors_is_a_retry(
    rig: Rig, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Out of descriptors, the proxy answers 503 (retry), never "unknown token" (401) or "fenced"
    (403), which a CLI takes as final (seen in a CI run: 160 idle connections, 128 descriptors)."""
    token = rig.token("claude-mock", "d-short")

    def short(*_args: object, **_kwargs: object) -> object:
        raise ResourcesShortError("proxy/tokens/d-short.json: too many open files")

    monkeypatch.setattr(proxy_tokens, "grant_of", short)
    status, _, body = rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})
    assert status == 503, body
    assert b"oms_proxy_busy" in body


def test_held_bytes_are_bounded_per_dispatch_and_in_all() -> None:
    held = Held(per_dispatch=100, total=150)
    assert held.take("a", 60)
    assert not held.take("a", 41)  # over its own share
    assert held.take("b", 90)
    assert not held.take("c", 1)  # over the total
    held.give("a", 60)
    assert held.take("c", 1)
    assert held.held == 91


def test_a_request_over_its_dispatchs_share_of_held_bytes_is_refused_at_once(rig: Rig) -> None:
    token = rig.token("claude-mock", "d-h")
    cap = rig.server.settings.max_request_bytes
    assert rig.server.held.take("d-h", 2 * cap)  # two bodies of the dispatch are being read
    try:
        status, _, body = rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})
        assert status == 503
        assert b"oms_proxy_busy" in body
    finally:
        rig.server.held.give("d-h", 2 * cap)
    assert rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})[0] == 200


def test_an_answer_without_its_last_usage_is_charged_what_was_asked() -> None:
    assert counting.requested_output(b'{"max_tokens": 8000}') == 8000
    assert counting.requested_output(b'{"max_output_tokens": 300}') == 300
    assert counting.requested_output(b"not json") == 0
    seen = counting.Usage(10, 1)
    assert counting.charged(seen, True, 8000) == seen
    assert counting.charged(seen, False, 8000) == counting.Usage(10, 8000)
    assert counting.charged(counting.Usage(10, 9000), False, 8000) == counting.Usage(10, 9000)
    sse = counting.SseUsage()
    sse.feed(
        b'data: {"type":"message_start","message":{"usage":{"inp'
        b'ut_tokens":5,"output_tokens":1}}}\n\n'
    )
    before = sse.final
    sse.feed(
        b'data: {"type":"message_delta","delta":{"stop_reason":"end'
        b'_turn"},"usage":{"output_tokens":7}}\n\n'
    )
    assert (before, sse.final) == (False, True)
    assert sse.usage == counting.Usage(5, 7)


def test_a_token_reaches_its_provider_only_at_the_endpoint_its_dispatch_was_approved_for(
    rig: Rig,
) -> None:
    token = rig.token("claude-mock", "d-e")
    path = rig.chain.state / proxy_tokens.token_path("d-e")
    doc = json.loads(path.read_text())
    doc["approved_endpoint"] = "https://elsewhere.example.com"
    path.unlink()
    path.write_text(json.dumps(doc, sort_keys=True, separators=(",", ":")))
    path.chmod(0o600)
    status, _, body = rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})
    assert status == 409
    assert b"not the one approved" in body
    assert not rig.mock.heard


def test_codexs_api_key_goes_only_to_openais_own_api_unasked(tmp_path: Path) -> None:
    home = tmp_path / "codex"
    home.mkdir()
    (home / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-codex-login-key-0000"}))
    env = {"CODEX_HOME": str(home)}
    own = proxy_credentials.credential_of(Provider("o", "openai"), env)
    assert own.current() == UpstreamAuth("sk-codex-login-key-0000")
    official = Provider("o", "openai", endpoint="https://api.openai.com/v1")
    assert proxy_credentials.credential_of(official, env).current() == UpstreamAuth(
        "sk-codex-login-key-0000"
    )
    for endpoint in (
        "http://127.0.0.1:9/v1",
        "https://gateway.example.com/v1",
        "http://api.openai.com/v1",
    ):
        found = proxy_credentials.credential_of(
            Provider("o", "openai", endpoint=endpoint), env
        ).current()
        assert isinstance(found, Missing), endpoint  # a gateway gets a key only by name (`key_env`)


def test_an_unreadable_record_never_starts_a_second_proxy(rig: Rig) -> None:
    root = rig.ws.store.state.root
    root.mkdirs("proxy")
    root.publish(proxy_control.RECORD, b"{not a record")
    found = proxy_control.status(rig.ws)
    assert found.state == "unreadable"
    with pytest.raises(ConflictError, match="already recorded"):
        proxy_control.start(rig.ws)
    stopped = proxy_control.stop(rig.ws)
    assert "no process was signalled" in stopped.note
    assert proxy_control.status(rig.ws).state == "not running"


def test_a_live_socket_is_never_taken_away(rig: Rig) -> None:
    root = rig.ws.store.state.root
    root.mkdirs("proxy/doors/d-live")
    first = root.listen_unix("proxy/doors/d-live/model.sock")
    served = threading.Event()

    def accept() -> None:
        conn, _ = first.accept()
        served.set()
        conn.close()

    threading.Thread(target=accept, daemon=True).start()
    try:
        with pytest.raises(AlreadyExistsError, match="a live socket"):
            root.listen_unix("proxy/doors/d-live/model.sock")
        assert served.wait(5)  # (the probe's connection)
    finally:
        first.close()
    second = root.listen_unix("proxy/doors/d-live/model.sock")  # a dead one is replaced
    second.close()


def test_a_start_under_way_is_told_not_raced(rig: Rig) -> None:
    from oms.fsio import locks

    root = rig.ws.store.state.root
    root.mkdirs("proxy")
    with locks.acquire(root, proxy_control.START_LOCK):
        started = time.monotonic()
        with pytest.raises(ConflictError, match="another `oms proxy start` is under way"):
            proxy_control.start(rig.ws)
        assert time.monotonic() - started < 5
    assert proxy_control.status(rig.ws).state == "not running"


def test_a_launchs_handshake_finds_its_door_open(rig: Rig) -> None:
    """ADR 0026: a launch issues its token, then checks the proxy's handshake; the proxy keeps its
    doors before it answers, so the door is there at once (before: up to the doors' next pass)."""
    with rig.chain.workspace() as ws:
        try:
            proxy_control.ensure(ws)  # a real proxy process, started on demand
            for n in range(5):
                proxy_tokens.issue_token(ws, f"d-now-{n}", "claude-mock")
                assert proxy_control.ensure(ws).state == "running"  # its handshake
                assert ws.store.sandboxes().exists(door_path(f"d-now-{n}"))
        finally:
            proxy_control.stop(ws)


def test_an_unrouted_worker_reaches_its_approved_endpoint_through_its_familys_implicit_provider(
    rig: Rig,
) -> None:
    """ADR 0026: a dispatch not routed to a configured provider goes through `oms-anthropic` (or
    `oms-openai`), upstream the endpoint its dispatch was approved with, with the proxy's key."""
    approved: JsonObject = {
        "provider_mode": "claude_interactive",
        "engine": "claude",
        "role_argv": None,
        "model_endpoint": rig.mock.base,
    }
    live_attempt(rig.chain, "dsp-unrouted", approved)  # only a live attempt is forwarded (ADR 0028)
    token = rig.token("oms-anthropic", "dsp-unrouted")
    assert rig.post("/p/oms-anthropic/v1/messages", MESSAGES, {"x-api-key": token})[0] == 200
    assert [headers.get("x-api-key") for _, headers in rig.mock.heard] == [ANTHROPIC_KEY]
    assert rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})[0] == 401
    bearer = {"authorization": f"Bearer {token}"}
    assert rig.post("/p/oms-openai/responses", MESSAGES, bearer)[0] == 401


def test_an_implicit_openai_provider_holds_the_key_or_the_codex_login(tmp_path: Path) -> None:
    """Codex to OpenAI's own API: `OPENAI_API_KEY`, else the login's API key, else its ChatGPT
    login; towards a role's own endpoint only the environment's key, else none (never the login)."""
    home = tmp_path / "codex"
    home.mkdir()
    env = {"CODEX_HOME": str(home)}
    (home / "auth.json").write_text(json.dumps({"OPENAI_API_KEY": "sk-codex-login-key-0000"}))
    held = proxy_credentials.credentials({}, env)
    own = credential_key("oms-openai", None)
    gateway = credential_key("oms-openai", "https://gateway.example.com/v1")
    assert held[own].current() == UpstreamAuth("sk-codex-login-key-0000")
    assert held[gateway].current() == UpstreamAuth(NO_KEY)  # no key: the login never goes there
    write_chatgpt_login(home, chatgpt_token(int(time.time()) + 3600))
    chatgpt = proxy_credentials.credentials({}, env)[own].current()
    assert isinstance(chatgpt, UpstreamAuth)
    assert chatgpt.account_id == CHATGPT_ACCOUNT
    keyed = proxy_credentials.credentials({}, {**env, "OPENAI_API_KEY": "sk-env"})
    assert keyed[own].current() == keyed[gateway].current() == UpstreamAuth("sk-env")
