"""Each agent CLI gets exactly one credential (issue 23 item 3, ADR 0026): through the proxy only
its dispatch's token; with a role's `credential = "raw"` one of the user's, by the documented rule
(Codex to OpenAI's own API: the login file, else the key; Codex to an endpoint and Claude Code: the
key); never Codex's `auth.json` beside an API key, never a base URL of the deliverer's
environment."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import pytest

from oms.canonical import Json
from oms.errors import ConfigError
from oms.services.delivery import plans
from oms.services.delivery.plans import ProxyRoute
from oms.services.workspace import Workspace
from oms.store import Record
from tests.helpers import T0, payload

REAL = "sk-the-users-real-key-0123456789"
TOKEN = "oms.dsp-1.aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
ROUTE = ProxyRoute("http://127.0.0.1:4321/p/oms-openai", TOKEN, "/sbx/doors/dsp-1", 4321)
CREDENTIAL_VARIABLES = ("OPENAI_API_KEY", "CODEX_API_KEY", "ANTHROPIC_API_KEY")
BASE_URLS = ("OPENAI_BASE_URL", "ANTHROPIC_BASE_URL")
ELSEWHERE = "https://elsewhere.invalid"


def _dispatch(mode: str, **fields: Json) -> Record:
    given: dict[str, Json] = {"provider_mode": mode, "role_argv": None, "model_id": "test-model"}
    body = payload("dispatch", **{**given, **fields})
    sha = "0" * 64
    return Record("dispatch", "dsp-1", 1, "accepted", 0, "op", "oms-system", T0, None, body, sha)


def _credentials(
    mode: str,
    env: dict[str, str],
    proxy: ProxyRoute | None,
    **fields: Json,
) -> list[str]:
    """Every credential the plan hands the CLI: variables, and `auth.json` if it is shown."""
    plan = plans.plan(
        cast(Workspace, None),  # (only read for the instructions, which are given)
        _dispatch(mode, **fields),
        executable="/opt/oms/oms",
        env=env,
        role_argv=None,
        instructions="Work the dispatch.",
        proxy=proxy,
    )
    assert not any(plan.env.get(name) == ELSEWHERE for name in BASE_URLS)  # the approved one only
    found = [f"{name}={plan.env[name]}" for name in CREDENTIAL_VARIABLES if name in plan.env]
    shown = [view for _source, view in plan.ro_files if view.endswith("/auth.json")]
    return found + [view.rsplit("/", 1)[1] for view in shown]


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    """A user with a Codex login and both families' keys, and a base URL, in the deliverer's
    environment."""
    (tmp_path / ".codex").mkdir()
    (tmp_path / ".codex" / "auth.json").write_text('{"OPENAI_API_KEY": "sk-login"}')
    return {
        "HOME": str(tmp_path),
        "OPENAI_API_KEY": REAL,
        "CODEX_API_KEY": REAL,
        "ANTHROPIC_API_KEY": REAL,
        "OPENAI_BASE_URL": ELSEWHERE,
        "ANTHROPIC_BASE_URL": ELSEWHERE,
    }


@pytest.mark.parametrize("mode", ["codex_goal", "codex_exec", "claude_interactive"])
def test_through_the_proxy_the_token_is_the_only_credential(mode: str, env: dict[str, str]) -> None:
    variable = plans.TOKEN_VARIABLE[mode]
    assert _credentials(mode, env, ROUTE) == [f"{variable}={TOKEN}"]


@pytest.mark.parametrize("mode", ["codex_goal", "codex_exec", "claude_interactive"])
def test_without_a_route_a_default_worker_holds_nothing(mode: str, env: dict[str, str]) -> None:
    """A plan made without the proxy (to park or stop a worker) carries no credential at all."""
    assert _credentials(mode, env, None) == []


CODEX_MODES = ["codex_goal", "codex_exec"]  # every Codex transport: the same rule


@pytest.mark.parametrize("mode", CODEX_MODES)
def test_a_raw_codex_to_openai_gets_the_login_file_alone(mode: str, env: dict[str, str]) -> None:
    raw = {"role_credential": "raw", "role_network": "host"}
    assert _credentials(mode, env, ROUTE, **raw) == ["auth.json"]
    assert _credentials(mode, env, None, **raw) == ["auth.json"]


@pytest.mark.parametrize("mode", CODEX_MODES)
def test_a_raw_codex_without_a_login_gets_the_key_alone(
    mode: str,
    env: dict[str, str],
    tmp_path: Path,
) -> None:
    (tmp_path / ".codex" / "auth.json").unlink()
    raw = {"role_credential": "raw", "role_network": "host"}
    assert _credentials(mode, env, None, **raw) == [f"OPENAI_API_KEY={REAL}"]
    with pytest.raises(ConfigError, match="no Codex login"):
        _credentials(mode, {"HOME": env["HOME"]}, None, **raw)


@pytest.mark.parametrize("mode", CODEX_MODES)
def test_a_raw_codex_to_an_endpoint_and_a_raw_claude_get_the_key_alone(
    mode: str, env: dict[str, str]
) -> None:
    raw: dict[str, Json] = {"role_credential": "raw", "role_network": "host"}
    gateway = {**raw, "model_endpoint": "https://gateway.invalid/v1"}
    assert _credentials(mode, env, None, **gateway) == [f"OPENAI_API_KEY={REAL}"]
    assert _credentials("claude_interactive", env, None, **raw) == [f"ANTHROPIC_API_KEY={REAL}"]


def test_a_command_worker_holds_no_model_credential(env: dict[str, str]) -> None:
    plan = plans.plan(
        cast(Workspace, None),
        _dispatch("command", role_argv=["true"]),
        executable="/opt/oms/oms",
        env=env,
        role_argv=("true",),
        instructions="Work the dispatch.",
    )
    assert not any(name in plan.env for name in (*CREDENTIAL_VARIABLES, *BASE_URLS))
    assert plan.ro_files == ()
    assert not plan.host_network
