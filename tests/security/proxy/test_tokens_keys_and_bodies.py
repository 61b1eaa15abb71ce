"""Attacks on the loopback model proxy (issue 13, ADR 0020) by a worker holding, at most, its own
token: no request without a valid token for the provider its path names is forwarded, nor one over
the body bound; the real key never leaves the proxy but toward the upstream; the token's secret is
stored nowhere."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.domain.proxy import check_bind
from oms.errors import InvalidInputError
from oms.services.proxy import tokens as proxy_tokens
from tests.proxy_rig import ANTHROPIC_KEY, MESSAGES, OPENAI_KEY, RESPONSES, Rig, make_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(tmp_path, cap=4096)


def _refused(
    rig: Rig, path: str, headers: dict[str, str], status: int = 401, body: object = MESSAGES
) -> str:
    got, answer_headers, answer = rig.post(path, body, headers)
    assert got == status, answer
    assert answer.count(b"\n") == 1  # one line of JSON
    assert answer_headers["connection"] == "close"
    assert rig.mock.heard == []  # nothing was forwarded
    return str(json.loads(answer)["error"]["message"])


def test_no_token_is_refused(rig: Rig) -> None:
    assert "missing, unknown or revoked" in _refused(rig, "/p/claude-mock/v1/messages", {})


@pytest.mark.parametrize(
    "key",
    [
        "sk-ant-guess",
        "oms.d-1.",
        "oms.d-1." + "A" * 43,  # the shape of a token, another secret
        "oms.D-1." + "A" * 43,
        "oms.d-1." + "A" * 42 + "=",
        "oms.../../tokens/d-1." + "A" * 43,
        ANTHROPIC_KEY,  # the real key is no key for the proxy
    ],
)
def test_a_wrong_or_forged_token_is_refused(rig: Rig, key: str) -> None:
    rig.token("claude-mock", "d-1")
    assert "missing, unknown or revoked" in _refused(
        rig, "/p/claude-mock/v1/messages", {"x-api-key": key}
    )


def test_a_revoked_token_is_refused_at_once(rig: Rig) -> None:
    token = rig.token("claude-mock", "d-1")
    assert rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})[0] == 200
    rig.mock.heard.clear()
    with rig.chain.workspace() as ws:
        assert proxy_tokens.revoke_token(ws, "d-1")
        assert not proxy_tokens.revoke_token(ws, "d-1")
    _refused(rig, "/p/claude-mock/v1/messages", {"x-api-key": token})


def test_a_new_token_for_a_dispatch_ends_its_old_one(rig: Rig) -> None:
    old = rig.token("claude-mock", "d-1")
    new = rig.token("claude-mock", "d-1")
    _refused(rig, "/p/claude-mock/v1/messages", {"x-api-key": old})
    assert rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": new})[0] == 200


def test_a_token_reaches_only_the_provider_it_was_issued_for(rig: Rig) -> None:
    token = rig.token("claude-mock", "d-1")
    message = _refused(rig, "/p/claude-other/v1/messages", {"x-api-key": token})
    assert message == "this token is not valid for provider claude-other"
    _refused(rig, "/p/codex-mock/responses", {"Authorization": f"Bearer {token}"}, body=RESPONSES)


def test_an_openai_provider_takes_only_a_bearer_and_two_different_keys_are_none(rig: Rig) -> None:
    token = rig.token("codex-mock", "d-1")
    _refused(rig, "/p/codex-mock/responses", {"x-api-key": token}, body=RESPONSES)
    other = rig.token("claude-mock", "d-2")
    _refused(
        rig, "/p/claude-mock/v1/messages", {"x-api-key": other, "Authorization": f"Bearer {token}"}
    )


@pytest.mark.parametrize(
    "path",
    [
        "/v1/messages",
        "/p/ghost/v1/messages",
        "/p/claude-mock",
        "/p/claude-mock/../claude-other/v1/messages",
        "/p/claude-mock/%2e%2e/x",
        "/p/claude-mock/v1%2fmessages",
        "http://evil.example/p/claude-mock/v1/messages",
    ],
)
def test_a_path_that_names_no_provider_cleanly_is_refused(rig: Rig, path: str) -> None:
    token = rig.token("claude-mock", "d-1")
    _refused(rig, path, {"x-api-key": token})


def test_a_body_over_the_bound_is_refused_unread(rig: Rig) -> None:
    token = rig.token("claude-mock", "d-1")
    huge = {**MESSAGES, "pad": "x" * 8192}
    message = _refused(
        rig, "/p/claude-mock/v1/messages", {"x-api-key": token}, status=413, body=huge
    )
    assert message.startswith("request body of ")
    assert message.endswith("(expected at most 4096)")


def test_a_chunked_body_over_the_bound_is_refused(rig: Rig) -> None:
    token = rig.token("claude-mock", "d-1")
    with socket.create_connection(("127.0.0.1", rig.port), timeout=10) as sock:
        head = (
            "POST /p/claude-mock/v1/messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
            f"x-api-key: {token}\r\n\r\n"
        )
        sock.sendall(
            head.encode() + b"1000\r\n" + b"x" * 4096 + b"\r\n" + b"10\r\n" + b"y" * 16 + b"\r\n"
        )
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert rig.mock.heard == []


def test_the_worker_cannot_choose_the_upstream_or_smuggle_headers(rig: Rig) -> None:
    token = rig.token("codex-mock", "d-1")
    headers = {
        "Authorization": f"Bearer {token}",
        "Host": "evil.example",
        "Connection": "x-smuggled",
        "x-smuggled": "1",
        "Proxy-Authorization": "Basic Zm9v",
        "Cookie": "session=1",
    }
    assert rig.post("/p/codex-mock/responses", RESPONSES, headers)[0] == 200
    _, seen = rig.mock.heard[-1]
    assert seen["host"] == f"127.0.0.1:{rig.mock.port}"
    assert seen["authorization"] == f"Bearer {OPENAI_KEY}"
    for name in ("x-smuggled", "proxy-authorization", "cookie", "x-api-key"):
        assert name not in seen


def test_the_token_file_holds_no_secret_and_the_answer_no_key(rig: Rig) -> None:
    token = rig.token("claude-mock", "d-1")
    stored = (rig.chain.state / "proxy" / "tokens" / "d-1.json").read_text()
    assert token.split(".")[2] not in stored
    assert (rig.chain.state / "proxy" / "tokens" / "d-1.json").stat().st_mode & 0o077 == 0
    _, headers, body = rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})
    assert ANTHROPIC_KEY.encode() not in body
    assert all(ANTHROPIC_KEY not in v for v in headers.values())


def test_it_binds_loopback_only(rig: Rig) -> None:
    assert rig.server.server_address[0] == "127.0.0.1"
    for host in (
        "0.0.0.0",  # noqa: S104 - each must be refused
        "::",
        "localhost",
        "192.168.1.2",
        "127.0.0.2",
    ):
        with pytest.raises(InvalidInputError, match=r"binds 127\.0\.0\.1 only"):
            check_bind(host)
