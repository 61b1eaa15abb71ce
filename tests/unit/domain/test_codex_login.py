"""Codex's login as the proxy reads it (`domain/codex_login.py`), the reset a ChatGPT usage-limit
body states (`domain/proxy_limits.body_reset_s`), and the config rules of `auth = "codex-chatgpt"`:
property tests for both parsers (never a crash, never a header-unsafe value out), examples for each
refusal."""

from __future__ import annotations

import base64
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from oms.canonical import parse_ts
from oms.domain import codex_login, proxy, proxy_limits
from oms.domain.codex_login import Missing, UpstreamAuth
from oms.domain.config import parse_config
from oms.domain.routing import Routing
from oms.errors import ConfigError, SchemaValidationError
from oms.limits import LIMITS
from tests.strategies import profile_values
from tests.unit.domain.test_proxy import CONFIG

NOW = "2026-12-01T12:00:00.000Z"
NOW_S = parse_ts(NOW) // 1000
ROUTING = Routing({})


def _jwt(claims: object) -> str:
    def part(doc: object) -> str:
        return base64.urlsafe_b64encode(json.dumps(doc).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none'})}.{part(claims)}.sig"


def _login(access: object, account: object = "acct-1") -> dict[str, object]:
    return {
        "OPENAI_API_KEY": None,
        "tokens": {"access_token": access, "account_id": account, "refresh_token": "r"},
    }


def test_a_chatgpt_login_gives_its_access_token_account_and_expiry() -> None:
    access = _jwt({"exp": NOW_S + 600})
    assert codex_login.chatgpt(_login(access), NOW_S) == UpstreamAuth(access, "acct-1", NOW_S + 600)
    no_exp = _jwt({"sub": "u"})
    assert codex_login.chatgpt(_login(no_exp), NOW_S) == UpstreamAuth(no_exp, "acct-1", None)


@pytest.mark.parametrize(
    ("doc", "why"),
    [
        (None, "no ChatGPT login"),
        ({"OPENAI_API_KEY": "sk-key-login-only-000"}, "no ChatGPT login"),
        ({"tokens": []}, "no ChatGPT login"),
        (_login(None), "no usable access token"),
        (_login("tiny"), "no usable access token"),
        (_login("a" * 20 + " b"), "no usable access token"),
        (_login("a" * 20 + "\nx: y"), "no usable access token"),
        (_login("a" * 9000), "no usable access token"),
        (_login("a" * 20, None), "names no usable account"),
        (_login("a" * 20, "acct 1"), "names no usable account"),
        (_login("a" * 20, "a" * 129), "names no usable account"),
        (_login(_jwt({"exp": NOW_S})), "has expired"),
    ],
)
def test_what_is_not_a_usable_chatgpt_login_says_why(doc: object, why: str) -> None:
    found = codex_login.chatgpt(doc, NOW_S)
    assert isinstance(found, Missing)
    assert why in found.why
    assert "codex" in found.why  # and what to run


def test_an_api_key_login_gives_its_key_and_nothing_else() -> None:
    assert codex_login.api_key({"OPENAI_API_KEY": "sk-proj-0123456789abcdef"}) == UpstreamAuth(
        "sk-proj-0123456789abcdef"
    )
    for doc in (
        None,
        {},
        {"OPENAI_API_KEY": None},
        {"OPENAI_API_KEY": "sk with space 0000000"},
        _login("a" * 20),
    ):
        assert isinstance(codex_login.api_key(doc), Missing)


@pytest.mark.parametrize(
    ("token", "want"),
    [
        (_jwt({"exp": 1_800_000_000}), 1_800_000_000),
        (_jwt({"exp": "1800000000"}), None),
        (_jwt({"exp": True}), None),
        (_jwt({"exp": -5}), None),
        (_jwt({"exp": 1 << 41}), None),
        (_jwt([1, 2]), None),
        ("a.b", None),
        ("a.!!!.c", None),
        ("sk-plain-api-key", None),
    ],
)
def test_the_expiry_of_a_token_is_read_from_its_exp_claim_only(
    token: str, want: int | None
) -> None:
    assert codex_login.jwt_expiry(token) == want


_HEADER_SAFE = set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~+/=-")


_TOKENS = st.text(
    alphabet=st.characters(min_codepoint=0, max_codepoint=0x7F), min_size=0, max_size=40
)


@given(
    st.one_of(
        profile_values,
        st.builds(_login, st.one_of(_TOKENS, profile_values), st.one_of(_TOKENS, profile_values)),
    )
)
def test_no_login_document_crashes_the_reader_or_yields_a_header_unsafe_value(doc: object) -> None:
    for found in (codex_login.chatgpt(doc, NOW_S), codex_login.api_key(doc)):
        if isinstance(found, UpstreamAuth):
            assert set(found.bearer) <= _HEADER_SAFE
            assert found.account_id is None or set(found.account_id) <= _HEADER_SAFE
        else:
            assert found.why


@given(st.binary(max_size=200))
def test_any_bytes_parse_to_a_document_or_none(data: bytes) -> None:
    codex_login.parse(data)  # never raises: a broken file is "no readable login"


def test_a_chatgpt_login_goes_to_the_backends_codex_api_unless_an_endpoint_is_set() -> None:
    assert (
        proxy.upstream_base("openai", None, "codex-chatgpt")
        == "https://chatgpt.com/backend-api/codex"
    )
    assert (
        proxy.upstream_base("openai", "http://127.0.0.1:9/x/", "codex-chatgpt")
        == "http://127.0.0.1:9/x"
    )
    assert proxy.upstream_base("openai", None) == "https://api.openai.com/v1"


@pytest.mark.parametrize(
    ("error", "want"),
    [
        ({"type": "usage_limit_reached", "resets_at": NOW_S + 5400}, 5400),
        ({"type": "usage_limit_reached", "resets_in_seconds": 90}, 90),
        (
            {"type": "usage_limit_reached", "resets_at": NOW_S - 50},
            1,
        ),  # already past: the least rest
        ({"type": "usage_limit_reached", "resets_at": NOW_S + 10**9}, LIMITS.cooldown_max_s),
        ({"type": "usage_limit_reached", "resets_at": "soon"}, None),
        ({"type": "usage_limit_reached", "resets_at": True}, None),
        ({"type": "usage_limit_reached"}, None),
    ],
)
def test_a_usage_limit_body_states_its_reset_in_its_own_fields(
    error: dict[str, object], want: int | None
) -> None:
    assert proxy_limits.body_reset_s(json.dumps({"error": error}).encode(), NOW) == want


def test_a_reset_in_the_body_counts_only_with_a_limit_type_and_after_the_headers() -> None:
    body = json.dumps(
        {"error": {"type": "usage_limit_reached", "resets_at": NOW_S + 7200}}
    ).encode()
    from_body = proxy_limits.cooldown_for(429, body, {}, NOW, ROUTING)
    assert from_body is not None
    assert parse_ts(from_body.until) == parse_ts(NOW) + 7_200_000
    from_headers = proxy_limits.cooldown_for(429, body, {"retry-after": "60"}, NOW, ROUTING)
    assert from_headers is not None
    assert parse_ts(from_headers.until) == parse_ts(NOW) + 60_000
    echoed = json.dumps(
        {"error": {"type": "invalid_request_error", "resets_at": NOW_S + 9999}}
    ).encode()
    assert proxy_limits.cooldown_for(400, echoed, {}, NOW, ROUTING) is None


@given(st.binary(max_size=300), st.integers(min_value=0, max_value=599))
def test_no_error_body_crashes_the_limit_reader(body: bytes, status: int) -> None:
    found = proxy_limits.body_reset_s(body, NOW)
    assert found is None or 1 <= found <= LIMITS.cooldown_max_s
    proxy_limits.cooldown_for(status, body, {}, NOW, ROUTING)


def test_a_chatgpt_provider_is_codexs_and_reads_no_variable() -> None:
    good = parse_config(CONFIG + b'[providers.cg]\nfamily = "openai"\nauth = "codex-chatgpt"\n')
    assert good.routing.providers["cg"].auth == "codex-chatgpt"
    assert (
        parse_config(CONFIG + b'[providers.k]\nfamily = "openai"\n').routing.providers["k"].auth
        == "key"
    )
    with pytest.raises(ConfigError, match="auth codex-chatgpt is for family openai"):
        parse_config(CONFIG + b'[providers.cg]\nfamily = "anthropic"\nauth = "codex-chatgpt"\n')
    with pytest.raises(ConfigError, match="not key_env"):
        parse_config(
            CONFIG
            + b'[providers.cg]\nfamily = "openai"\nauth = "codex-chatgpt"\nkey_env = "X_API_KEY"\n'
        )
    with pytest.raises((ConfigError, SchemaValidationError)):
        parse_config(CONFIG + b'[providers.cg]\nfamily = "openai"\nauth = "oauth"\n')
