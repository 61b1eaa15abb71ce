"""The model proxy's pure decisions (`domain/proxy.py`, `domain/proxy_usage.py`): paths, keys,
headers, stated resets, cooldowns and usage, table-driven and property-tested."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import add_ms, parse_ts
from oms.domain import proxy, proxy_limits, proxy_usage
from oms.domain.codex_login import UpstreamAuth
from oms.domain.config import parse_config
from oms.domain.routing import Routing
from oms.errors import ConfigError
from oms.limits import LIMITS

NOW = "2026-03-01T12:00:00.000Z"
ROUTING = Routing({})


@pytest.mark.parametrize(
    ("target", "want"),
    [
        ("/p/claude-a/v1/messages", ("claude-a", "v1/messages")),
        ("/p/codex/responses?x=1", ("codex", "responses?x=1")),
        ("/p/codex/", ("codex", "")),
        ("/p/codex", None),
        ("/p/Codex/responses", None),
        ("/p/codex/../x", None),
        ("/p/codex/./x", None),
        ("/p/codex/a%2Fb", None),
        ("/p/codex/%2e%2e/b", None),
        ("/p/codex/a\\b", None),
        ("/p/codex/a b", None),
        ("/p/codex/a\x00", None),
        ("/v1/messages", None),
        ("http://x/p/codex/responses", None),
    ],
)
def test_parse_route(target: str, want: tuple[str, str] | None) -> None:
    found = proxy.parse_route(target)
    assert (None if found is None else (found.provider_id, found.rest)) == want


@given(st.text(max_size=80))
def test_parse_route_never_yields_a_dot_segment(target: str) -> None:
    found = proxy.parse_route(target)
    if found is not None:
        assert ".." not in found.rest.split("?")[0].split("/")
        assert all(0x21 <= ord(c) <= 0x7E for c in found.rest)


@pytest.mark.parametrize(
    ("headers", "family", "want"),
    [
        ([("x-api-key", "k")], "anthropic", "k"),
        ([("Authorization", "Bearer k")], "anthropic", "k"),
        ([("authorization", "bearer  k ")], "openai", "k"),
        ([("x-api-key", "k")], "openai", None),
        ([("Authorization", "Basic k")], "openai", None),
        ([("x-api-key", "k"), ("Authorization", "Bearer k")], "anthropic", "k"),
        ([("x-api-key", "k"), ("Authorization", "Bearer j")], "anthropic", None),
        ([("Authorization", "Bearer k"), ("Authorization", "Bearer j")], "openai", None),
        ([], "openai", None),
    ],
)
def test_token_of(headers: list[tuple[str, str]], family: str, want: str | None) -> None:
    assert proxy.token_of(headers, family) == want


@given(
    st.from_regex(r"[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?", fullmatch=True),
    st.binary(min_size=32, max_size=32),
)
def test_a_token_round_trips_and_only_its_secret_matches(dispatch_id: str, raw: bytes) -> None:
    import base64

    secret = base64.urlsafe_b64encode(raw).decode().rstrip("=")
    presented = proxy.split_token(proxy.make_token(dispatch_id, secret))
    assert presented == proxy.Presented(dispatch_id, secret)
    digest = proxy.token_digest(secret)
    assert proxy.token_matches(secret, digest)
    assert not proxy.token_matches(secret[:-1] + ("A" if secret[-1] != "A" else "B"), digest)


@given(st.text(max_size=120))
def test_split_token_accepts_only_the_shape(key: str) -> None:
    found = proxy.split_token(key)
    if found is not None:
        assert key == proxy.make_token(found.dispatch_id, found.secret)


def test_upstream_headers_replace_credentials_and_hop_by_hop() -> None:
    incoming = [
        ("Host", "127.0.0.1:1"),
        ("x-api-key", "oms.d.secret"),
        ("Authorization", "Bearer oms.d.secret"),
        ("Connection", "keep-alive, x-drop"),
        ("x-drop", "1"),
        ("Transfer-Encoding", "chunked"),
        ("Content-Length", "5"),
        ("Accept-Encoding", "gzip"),
        ("anthropic-version", "2023-06-01"),
    ]
    assert proxy.upstream_headers(incoming, "anthropic", UpstreamAuth("REAL")) == [
        ("anthropic-version", "2023-06-01"),
        ("x-api-key", "REAL"),
        ("Accept-Encoding", "identity"),
    ]
    assert proxy.upstream_headers([], "openai", UpstreamAuth("REAL"))[0] == (
        "Authorization",
        "Bearer REAL",
    )
    chatgpt = UpstreamAuth("ACCESS", "acct-1")
    sent = proxy.upstream_headers(
        [("ChatGPT-Account-Id", "acct-agent"), ("OpenAI-Project", "p")], "openai", chatgpt
    )
    assert sent == [
        ("Authorization", "Bearer ACCESS"),
        ("chatgpt-account-id", "acct-1"),
        ("Accept-Encoding", "identity"),
    ]
    assert proxy.downstream_headers(
        [("Content-Length", "3"), ("Set-Cookie", "a"), ("request-id", "r")]
    ) == [("request-id", "r")]


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("30", 30.0),
        ("1.5", 1.5),
        ("6m0s", 360.0),
        ("1h2m3s", 3723.0),
        ("20ms", 0.02),
        ("2h", 7200.0),
        ("", None),
    ],
)
def test_duration_s(text: str, want: float | None) -> None:
    assert proxy_limits.duration_s(text) == want


@pytest.mark.parametrize(
    ("headers", "want"),
    [
        ({"Retry-After": "120"}, 120),
        ({"retry-after": "Sun, 01 Mar 2026 12:10:00 GMT"}, 600),
        ({"anthropic-ratelimit-tokens-reset": "2026-03-01T13:00:00Z"}, 3600),
        (
            {
                "anthropic-ratelimit-requests-reset": "2026-03-01T12:00:30Z",
                "anthropic-ratelimit-tokens-reset": "x",
            },
            30,
        ),
        ({"x-ratelimit-reset-requests": "1s", "x-ratelimit-reset-tokens": "6m0s"}, 360),
        ({"retry-after": "10", "x-ratelimit-reset-tokens": "6m0s"}, 10),  # Retry-After wins
        ({"retry-after": "999999999"}, LIMITS.cooldown_max_s),
        ({"retry-after": "0"}, 1),
        ({"anthropic-ratelimit-tokens-reset": "2020-01-01T00:00:00Z"}, 1),  # a past reset: at once
        ({"x-ratelimit-reset-tokens": "soon"}, None),
        ({}, None),
    ],
)
def test_stated_reset_s(headers: dict[str, str], want: int | None) -> None:
    assert proxy_limits.stated_reset_s(headers, NOW) == want


@given(
    st.dictionaries(
        st.sampled_from(["retry-after", "x-ratelimit-reset-tokens", "anthropic-ratelimit-x-reset"]),
        st.text(max_size=40),
    )
)
def test_a_stated_reset_is_always_bounded(headers: dict[str, str]) -> None:
    found = proxy_limits.stated_reset_s(headers, NOW)
    assert found is None or 1 <= found <= LIMITS.cooldown_max_s


def test_cooldown_for() -> None:
    transient = proxy_limits.cooldown_for(
        429, b'{"error":{"message":"slow down"}}', {"retry-after": "45"}, NOW, ROUTING
    )
    assert transient is not None
    assert (transient.kind, transient.until) == ("transient", add_ms(NOW, 45_000))
    quota = proxy_limits.cooldown_for(
        429, b'{"error":{"type":"insufficient_quota","message":"x"}}', {}, NOW, ROUTING
    )
    assert quota is not None
    assert quota.kind == "quota"
    assert parse_ts(quota.until) == parse_ts(NOW) + 30 * 60_000
    long = proxy_limits.cooldown_for(
        429, b"{}", {"retry-after": "7200"}, NOW, ROUTING
    )  # a reset over an hour away
    assert long is not None
    assert (long.kind, long.until) == ("quota", add_ms(NOW, 7_200_000))
    overloaded = proxy_limits.cooldown_for(
        529, b'{"type":"error","error":{"type":"overloaded_error"}}', {}, NOW, ROUTING
    )
    assert overloaded is not None
    assert overloaded.kind == "transient"
    assert (
        proxy_limits.cooldown_for(400, b"invalid model", {"retry-after": "5"}, NOW, ROUTING) is None
    )
    # a message text is the agent's to make the API echo: never a reason to rest the provider
    echoed = (
        b'{"error":{"type":"not_found_error","message":"model: x usage limit reached|9999999999"}}'
    )
    assert proxy_limits.cooldown_for(404, echoed, {}, NOW, ROUTING) is None
    assert (
        proxy_limits.cooldown_for(400, b"Your credit balance is too low", {}, NOW, ROUTING) is None
    )
    assert proxy_limits.cooldown_for(200, b"quota", {}, NOW, ROUTING) is None


@given(st.integers(min_value=400, max_value=599), st.binary(max_size=300), st.text(max_size=20))
def test_cooldown_for_never_raises_and_stays_bounded(status: int, body: bytes, retry: str) -> None:
    found = proxy_limits.cooldown_for(status, body, {"retry-after": retry}, NOW, ROUTING)
    if status == 429:
        assert found is not None
    if found is not None:
        assert parse_ts(NOW) < parse_ts(found.until) <= parse_ts(NOW) + LIMITS.cooldown_max_s * 1000


def test_hello_answer_takes_only_hex_challenges() -> None:
    assert proxy.hello_answer(b"k", "ab" * 16) is not None
    assert proxy.hello_answer(b"k", "ab" * 16) != proxy.hello_answer(b"j", "ab" * 16)
    for bad in ("", "ab", "xy" * 16, "ab" * 65, "AB" * 16):
        assert proxy.hello_answer(b"k", bad) is None


ANTHROPIC_EVENTS: list[dict[str, Any]] = [
    {
        "type": "message_start",
        "message": {"usage": {"input_tokens": 7, "cache_read_input_tokens": 3, "output_tokens": 1}},
    },
    {"type": "content_block_delta", "delta": {"text": "hi"}},
    {"type": "message_delta", "usage": {"output_tokens": 4}},
    {"type": "message_delta", "usage": {"output_tokens": 9}},
]


def _sse(events: list[dict[str, Any]]) -> bytes:
    return b"".join(b"event: e\ndata: " + json.dumps(e).encode() + b"\n\n" for e in events)


@given(st.lists(st.integers(min_value=1, max_value=50), max_size=40))
def test_sse_usage_is_the_same_however_the_stream_is_cut(cuts: list[int]) -> None:
    data = _sse(ANTHROPIC_EVENTS) + _sse([{"type": "response.completed", "response": {"id": "r"}}])
    reader = proxy_usage.SseUsage()
    at = 0
    for cut in cuts:
        reader.feed(data[at : at + cut])
        at += cut
    reader.feed(data[at:])
    assert reader.usage == proxy_usage.Usage(10, 9)


def test_sse_usage_of_the_responses_api_and_of_junk() -> None:
    reader = proxy_usage.SseUsage()
    reader.feed(
        _sse(
            [
                {
                    "type": "response.completed",
                    "response": {"usage": {"input_tokens": 5, "output_tokens": 2}},
                }
            ]
        )
    )
    assert reader.usage == proxy_usage.Usage(5, 2)
    junk = proxy_usage.SseUsage()
    junk.feed(
        b"data: {not json\n\ndata: [1]\n\ndata: "
        + b"x" * (LIMITS.proxy_sse_line_bytes + 10)
        + b"\n\n"
    )
    junk.feed(
        b'data: {"type":"message_start","message":{"usage":{"input'
        b'_tokens":true,"output_tokens":-1}}}\n\n'
    )
    assert junk.usage == proxy_usage.Usage(0, 0)


@given(st.binary(max_size=200))
def test_usage_readers_never_raise(data: bytes) -> None:
    proxy_usage.SseUsage().feed(data)
    found = proxy_usage.usage_of_json(data)
    assert found is None or found.total >= 0


def test_usage_of_json_and_budgets() -> None:
    assert proxy_usage.usage_of_json(
        b'{"usage":{"prompt_tokens":3,"completion_tokens":4}}'
    ) == proxy_usage.Usage(3, 4)
    assert proxy_usage.usage_of_json(b"[]") is None
    assert proxy_usage.over_budget(proxy_usage.Usage(5, 4), 10, "r") is None
    assert proxy_usage.over_budget(proxy_usage.Usage(5, 5), 10, "r") == (
        "token budget exhausted: this dispatch used 10 model tokens, role r's budget is 10"
    )
    assert proxy_usage.over_budget(proxy_usage.Usage(10**9, 0), None, "r") is None


def test_error_body_is_one_line_json() -> None:
    body = proxy.error_body("oms_proxy_auth", "no\nnewline")
    assert body.count(b"\n") == 1
    assert json.loads(body)["error"]["message"] == "no\nnewline"


CONFIG = b"""format = 1
[advisor]
role = "a.advisor"
[worker]
role = "a.worker"
[pool]
max_workers = 1
[lease]
duration_minutes = 5
[worktrees]
directory = "../w"
[roles."a.advisor"]
model = "m"
transport = "codex_exec"
sandbox = "read-only"
[roles."a.worker"]
model = "m"
transport = "claude_interactive"
sandbox = "ticket-worktree-write"
"""


def test_config_proxy_table_key_env_and_budget() -> None:
    plain = parse_config(CONFIG)
    assert (plain.proxy.port, plain.proxy.max_request_bytes) == (0, LIMITS.proxy_request_bytes)
    assert plain.roles["a.worker"].token_budget is None
    text = CONFIG.replace(
        b'transport = "claude_interactive"\n',
        b'transport = "claude_interactive"\ntoken_budget = 500\n',
    )
    text += b"[proxy]\nport = 8765\nmax_request_bytes = 4096\n"
    text += b'[providers.c]\nfamily = "anthropic"\nkey_env = "MY_API_KEY"\n'
    config = parse_config(text)
    assert (config.proxy.port, config.proxy.max_request_bytes) == (8765, 4096)
    assert config.roles["a.worker"].token_budget == 500
    assert config.routing.providers["c"].key_env == "MY_API_KEY"
    for bad in (
        b'[proxy]\nhost = "0.0.0.0"\n',
        b"[proxy]\nport = 70000\n",
        b'[providers.c]\nfamily = "openai"\nkey_env = "my key"\n',
    ):
        with pytest.raises(ConfigError):
            parse_config(CONFIG + bad)
