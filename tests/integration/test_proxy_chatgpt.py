"""Codex's ChatGPT login held by the model proxy (issue 13, ADR 0020): a provider with `auth =
"codex-chatgpt"` is served with the login's access token and account, read from the user's
`auth.json` again whenever it changes, never refreshed by oms, never sent once its `exp` has passed;
the worker's token and any account header it sends never reach the upstream. Real sockets, real
files, the loopback mock as the ChatGPT backend (the only stand-in: no account, no network here)."""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.canonical import parse_ts
from oms.services.chain import providers
from tests.proxy_rig import (
    CHATGPT_ACCOUNT,
    RESPONSES,
    Rig,
    chatgpt_token,
    make_rig,
    write_chatgpt_login,
)

PATH = "/p/codex-chatgpt/responses"


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[Rig]:
    yield from make_rig(tmp_path)


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def test_the_login_is_sent_as_real_codex_sends_it_and_the_workers_own_never(rig: Rig) -> None:
    token = rig.token("codex-chatgpt", "d-c1")
    login = json.loads((rig.codex_home / "auth.json").read_text())
    sent = {
        **_auth(token),
        "ChatGPT-Account-Id": "acct-of-the-agent",
        "OpenAI-Organization": "org-agent",
    }
    status, _, body = rig.post(PATH, RESPONSES, sent)
    assert status == 200, body
    path, heard = rig.mock.heard[-1]
    assert (
        path == "/backend-api/codex/responses"
    )  # the backend's Codex API, below the provider's base
    assert heard["authorization"] == f"Bearer {login['tokens']['access_token']}"
    assert heard["chatgpt-account-id"] == CHATGPT_ACCOUNT  # the proxy's account, not the agent's
    assert "openai-organization" not in heard
    assert token not in json.dumps(heard)


def test_a_refreshed_login_is_used_from_the_next_request_and_the_file_is_never_written(
    rig: Rig,
) -> None:
    token = rig.token("codex-chatgpt", "d-c2")
    assert rig.post(PATH, RESPONSES, _auth(token))[0] == 200
    fresh = chatgpt_token(int(time.time()) + 7200, marker="refreshed")
    write_chatgpt_login(
        rig.codex_home, fresh, account="acct-after-refresh"
    )  # the user's `codex` refreshed it
    before = (rig.codex_home / "auth.json").stat()
    assert rig.post(PATH, RESPONSES, _auth(token))[0] == 200
    heard = rig.mock.heard[-1][1]
    assert heard["authorization"] == f"Bearer {fresh}"
    assert heard["chatgpt-account-id"] == "acct-after-refresh"
    after = (rig.codex_home / "auth.json").stat()
    assert (after.st_mtime_ns, after.st_ino, after.st_size) == (
        before.st_mtime_ns,
        before.st_ino,
        before.st_size,
    )


def test_an_expired_access_token_is_never_sent_and_the_worker_is_told_what_to_do(rig: Rig) -> None:
    token = rig.token("codex-chatgpt", "d-c3")
    write_chatgpt_login(rig.codex_home, chatgpt_token(int(time.time()) - 60, marker="zqxmarker"))
    heard_before = len(rig.mock.heard)
    status, _, body = rig.post(PATH, RESPONSES, _auth(token))
    assert status == 502
    message = json.loads(body)["error"]["message"]
    assert "expired" in message
    assert "run `codex`" in message
    assert "zqxmarker" not in message
    assert "signature" not in message
    assert len(rig.mock.heard) == heard_before  # nothing went upstream
    with rig.chain.workspace() as ws:
        assert "codex-chatgpt" not in providers.standings(ws)  # a login to renew is no cooldown


@pytest.mark.parametrize(
    ("doc", "why"),
    [
        ({"OPENAI_API_KEY": "sk-an-api-key-login-only"}, "no ChatGPT login"),
        ({"tokens": {"access_token": "short", "account_id": "a"}}, "no usable access token"),
        (
            {"tokens": {"access_token": "x" * 40, "account_id": "acct\r\nx-evil: 1"}},
            "no usable account",
        ),
        (
            {"tokens": {"access_token": "x" * 20 + "\r\nx-evil: 1", "account_id": "a"}},
            "no usable access token",
        ),
        ("not json at all", "no readable Codex login"),
    ],
)
def test_a_login_that_is_missing_or_malformed_is_refused_with_its_reason(
    rig: Rig, doc: object, why: str
) -> None:
    token = rig.token("codex-chatgpt", "d-c4")
    path = rig.codex_home / "auth.json"
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc))
    heard_before = len(rig.mock.heard)
    status, _, body = rig.post(PATH, RESPONSES, _auth(token))
    assert status == 502
    assert why in json.loads(body)["error"]["message"]
    assert len(rig.mock.heard) == heard_before


def test_a_login_file_replaced_by_a_fifo_or_a_huge_file_does_not_hang_the_proxy(rig: Rig) -> None:
    token = rig.token("codex-chatgpt", "d-c5")
    path = rig.codex_home / "auth.json"
    path.unlink()
    os.mkfifo(
        path
    )  # a read would block forever: the proxy opens non-blocking and wants a regular file
    started = time.monotonic()
    assert rig.post(PATH, RESPONSES, _auth(token))[0] == 502
    path.unlink()
    path.write_bytes(b" " * (2 * 1024 * 1024))  # over the bound: not read whole
    assert rig.post(PATH, RESPONSES, _auth(token))[0] == 502
    assert time.monotonic() - started < 10


def test_the_backends_usage_limit_rests_the_provider_until_the_reset_its_body_states(
    rig: Rig,
) -> None:
    token = rig.token("codex-chatgpt", "d-c6")
    with rig.chain.workspace() as ws:
        reset_at = parse_ts(ws.now()) // 1000 + 3 * 3600
    error = {
        "error": {
            "type": "usage_limit_reached",
            "message": "You've hit your usage limit.",
            "resets_at": reset_at,
        }
    }
    rig.mock.fail.append((429, error, {}))
    status, _, body = rig.post(PATH, RESPONSES, _auth(token))
    assert status == 429
    assert (
        json.loads(body) == error
    )  # the worker's Codex reads the same answer it would from the backend
    with rig.chain.workspace() as ws:
        standing = providers.standings(ws)["codex-chatgpt"]
    assert standing.cooldown_kind == "quota"
    assert abs(parse_ts(standing.cooldown_until or "") - reset_at * 1000) < 10_000
