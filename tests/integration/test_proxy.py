"""The loopback model proxy (issue 13, ADR 0020) in front of the model mock, over real sockets: both
APIs forwarded and streamed as they arrive, the real key sent upstream in place of the worker's
token, usage counted per dispatch, a 429 or a usage-limit answer resting the provider, a spent
budget refused."""

from __future__ import annotations

import hashlib
import hmac
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import parse_ts
from oms.services.chain import providers
from oms.services.proxy import tokens as proxy_tokens
from tests.helpers import eventually
from tests.proxy_rig import ANTHROPIC_KEY, MESSAGES, OPENAI_KEY, RESPONSES, ROLE, Rig, make_rig


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(tmp_path)


def _usage(rig: Rig, dispatch_id: str, want: tuple[int, int, int], timeout: float = 10.0) -> None:
    """Wait (polling, with a deadline) until the dispatch's written usage is `want` (input, output,
    requests)."""

    def written() -> bool:
        usage, requests, _ = proxy_tokens.read_usage(rig.ws.store.state.root, dispatch_id)
        assert (usage.input_tokens, usage.output_tokens, requests) == want
        return True

    eventually(written, timeout=timeout, what="the usage is written")


def _stream_first_then_rest(
    rig: Rig, path: str, body: object, headers: dict[str, str], first: bytes
) -> bytes:
    """Send a streamed request while the mock holds its answer after the first event: that event
    must reach the client before the mock is released (so the proxy buffers nothing); then the
    rest."""
    rig.mock.trickle = True
    conn = rig.connect()
    try:
        conn.request("POST", path, body=json.dumps(body).encode(), headers=headers)
        response = conn.getresponse()
        assert response.status == 200
        assert response.getheader("Transfer-Encoding") == "chunked"
        assert response.getheader("Content-Type") == "text/event-stream"
        seen = b""
        while first not in seen:
            piece = response.read1(65536)
            assert piece, "the stream ended before its first event"
            seen += piece
        # the mock marks itself holding just after it flushes that event: wait for the mark
        assert rig.mock.holding.wait(30), "the mock never held its answer"
        assert not rig.mock.release.is_set()
        rig.mock.release.set()
        return seen + response.read()
    finally:
        conn.close()


def test_anthropic_messages_stream_through_with_the_real_key_and_never_the_token(rig: Rig) -> None:
    token = rig.token("claude-mock")
    text = _stream_first_then_rest(
        rig,
        "/p/claude-mock/v1/messages",
        MESSAGES,
        {"x-api-key": token, "anthropic-version": "2023-06-01"},
        b"event: message_start",
    )
    assert text.count(b"event: ") == 6
    assert text.rstrip().endswith(b'{"type": "message_stop"}')
    path, headers = rig.mock.heard[-1]
    assert path == "/v1/messages"
    assert headers["x-api-key"] == ANTHROPIC_KEY
    assert headers["anthropic-version"] == "2023-06-01"  # the worker's own headers pass
    assert "authorization" not in headers
    assert all(token not in v and token.split(".")[2] not in v for v in headers.values())
    _usage(rig, "d-1", (10, 5, 1))


def test_openai_responses_stream_through_with_the_providers_own_key_variable(rig: Rig) -> None:
    token = rig.token("codex-mock", "d-2")
    text = _stream_first_then_rest(
        rig,
        "/p/codex-mock/responses",
        RESPONSES,
        {"Authorization": f"Bearer {token}"},
        b"event: response.created",
    )
    assert b"event: response.completed" in text
    path, headers = rig.mock.heard[-1]
    assert path == "/v1/responses"
    assert headers["authorization"] == f"Bearer {OPENAI_KEY}"  # key_env, not OPENAI_API_KEY
    assert all(token.split(".")[2] not in v for v in headers.values())
    _usage(rig, "d-2", (10, 5, 1))


def test_usage_of_whole_json_answers_adds_up_per_dispatch(rig: Rig) -> None:
    token = rig.token("claude-mock", "d-3")
    for _ in range(3):
        status, _, body = rig.post(
            "/p/claude-mock/v1/messages", {**MESSAGES, "stream": False}, {"x-api-key": token}
        )
        assert status == 200, body
        assert json.loads(body)["usage"] == {"input_tokens": 10, "output_tokens": 1}
    _usage(rig, "d-3", (30, 3, 3))
    with rig.chain.workspace() as ws:  # a new proxy process reads where the last one left off
        assert proxy_tokens.read_usage(ws.store.state.root, "d-3")[0].total == 33


def test_a_429_rests_the_provider_until_the_stated_reset(rig: Rig) -> None:
    token = rig.token("claude-mock", "d-4")
    error = {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "Number of requests exceeded"},
    }
    rig.mock.fail.append((429, error, {"retry-after": "120"}))
    status, headers, body = rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})
    assert status == 429
    assert json.loads(body) == error  # the worker sees the upstream's answer
    assert headers["retry-after"] == "120"
    with rig.chain.workspace() as ws:
        standing = providers.standings(ws)["claude-mock"]
        record = ws.store.records("provider").read("claude-mock")
        now = parse_ts(ws.now())
    assert standing.cooldown_kind == "transient"
    assert abs(parse_ts(standing.cooldown_until or "") - (now + 120_000)) < 10_000
    assert record.payload["cooldown_source"] == "proxy: d-4"


def test_a_usage_limit_answer_rests_the_provider_as_quota_until_the_headers_reset(rig: Rig) -> None:
    token = rig.token("codex-mock", "d-5")
    error = {"error": {"type": "usage_limit_reached", "message": "You've hit your usage limit."}}
    rig.mock.fail.append(
        (429, error, {"x-ratelimit-reset-requests": "2h0m0s", "x-ratelimit-reset-tokens": "30s"})
    )
    status, _, _ = rig.post(
        "/p/codex-mock/responses", RESPONSES, {"Authorization": f"Bearer {token}"}
    )
    assert status == 429
    with rig.chain.workspace() as ws:
        standing = providers.standings(ws)["codex-mock"]
        now = parse_ts(ws.now())
        assert (
            providers.route(ws, ws.config().roles["oms.goal-long-executor"])
            .excluded["codex-mock"]
            .startswith("in quota cooldown until")
        )
    assert standing.cooldown_kind == "quota"
    assert (
        abs(parse_ts(standing.cooldown_until or "") - (now + 7200_000)) < 10_000
    )  # the later reset


def test_an_error_that_is_no_limit_rests_nothing(rig: Rig) -> None:
    token = rig.token("claude-mock", "d-6")
    rig.mock.fail.append(
        (400, {"type": "error", "error": {"type": "invalid_request_error", "message": "bad"}}, {})
    )
    assert rig.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})[0] == 400
    with rig.chain.workspace() as ws:
        assert "claude-mock" not in providers.standings(ws)


def test_the_handshake_answers_with_the_key_it_was_given(rig: Rig) -> None:
    conn = rig.connect()
    challenge = "ab" * 16
    conn.request("GET", f"/oms-proxy/hello?c={challenge}")
    answer = json.loads(conn.getresponse().read())["answer"]
    expected = hmac.new(
        b"k" * 32, b"oms-proxy-hello-v1\0" + challenge.encode(), hashlib.sha256
    ).hexdigest()
    assert answer == expected
    conn.close()


@pytest.fixture
def budgeted(tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(tmp_path, budget=20)


def test_a_spent_token_budget_refuses_the_dispatchs_next_request(budgeted: Rig) -> None:
    token = budgeted.token("claude-mock", "d-7", role_id=ROLE)
    other = budgeted.token("claude-mock", "d-8", role_id=ROLE)
    assert (
        budgeted.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})[0] == 200
    )  # 15 tokens
    assert (
        budgeted.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})[0] == 200
    )  # 30: over
    status, _, body = budgeted.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": token})
    assert status == 429
    assert body.count(b"\n") == 1
    message = json.loads(body)["error"]["message"]
    assert (
        message
        == f"token budget exhausted: this dispatch used 30 model tokens, role {ROLE}'s budget is 20"
    )
    assert len(budgeted.mock.heard) == 2  # never forwarded
    assert (
        budgeted.post("/p/claude-mock/v1/messages", MESSAGES, {"x-api-key": other})[0] == 200
    )  # per dispatch
