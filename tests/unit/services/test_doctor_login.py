"""`oms doctor`'s login line never crashes: a role whose provider declares no login check, or whose
transport names no CLI oms knows, is a one-line finding (`doctor.login`), never a KeyError; a
provider's own check (its registry entry's `login`) is the one asked (ADR 0045 amendment `ends`)."""

from __future__ import annotations

import os
from dataclasses import replace

import pytest

from oms.adapters.providers import REGISTRY
from oms.adapters.providers.base import Login, Provider
from oms.domain.config import Config, Role, parse_config
from oms.services.admin import doctor

CONFIG = """format = 1
[roles."r.w"]
model = "m"
transport = "command"
sandbox = "ticket-worktree-write"
argv = ["true"]
[roles."r.a"]
model = "m"
transport = "codex_exec"
sandbox = "read-only"
[advisor]
role = "r.a"
[worker]
role = "r.w"
[pool]
max_workers = 1
[lease]
duration_minutes = 30
"""


def _provider(login: Login | None) -> Provider:
    """A fifth provider, `gemini_cli`, as its registry line would declare it."""
    return REGISTRY["codex_goal"]._replace(
        transport="gemini_cli", name="gemini", compatible=("gemini", "1."), login=login
    )


def _role(config: Config) -> Role:
    return replace(config.roles["r.w"], transport="gemini_cli", argv=None)


def test_a_provider_that_declares_no_login_check_is_said_not_checked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    config = parse_config(CONFIG.encode())
    monkeypatch.setitem(REGISTRY, "gemini_cli", _provider(None))
    assert doctor.agent_login(_role(config)) == ("gemini", None)
    check = doctor.login(config, _role(config), True, {"PATH": "/nonexistent"})
    assert (check.ok, check.warn) == (True, True), check
    assert check.detail.startswith("the login of gemini is not checked"), check
    assert "\n" not in check.fix


def test_a_provider_s_own_login_check_is_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """Its registry entry's `login`, a real process (`false`: not logged in; `true`: logged in),
    never Claude Code's or Codex's question."""
    config = parse_config(CONFIG.encode())
    for argv, ok in ((("false",), False), (("true",), True)):
        asked = Login("gemini", "the Gemini CLI", argv, ("GEMINI_API_KEY",), "run `gemini login`")
        monkeypatch.setitem(REGISTRY, "gemini_cli", _provider(asked))
        check = doctor.login(config, _role(config), True, {"PATH": os.environ["PATH"]})
        assert check.ok is ok, check
        if not ok:
            said = "not logged in: the Gemini CLI is not logged in (`false`: "
            assert check.detail.startswith(said), check
            assert check.fix == "run `gemini login`"
    with_key = {"PATH": "/nonexistent", "GEMINI_API_KEY": "k"}  # a key: nothing is asked
    assert doctor.login(config, _role(config), True, with_key).ok


def test_a_transport_with_no_cli_is_a_finding() -> None:
    config = parse_config(CONFIG.encode())
    check = doctor.login(config, config.roles["r.w"], True, {})  # `command`: no CLI to log in
    assert check.warn
    assert "no login check for transport 'command'" in check.detail
    assert "endpoint" in check.fix


def test_a_codex_exec_worker_is_proxied_and_a_codex_exec_advisor_is_not() -> None:
    # `codex_exec` is an advisor's transport and a worker's (ADR 0045): the role's sandbox tells
    # them apart (`is_worker_role`), so the advisor's line asks its own login, the worker's the
    # credential the model proxy would hold
    text = CONFIG.replace(
        'transport = "command"\nsandbox = "ticket-worktree-write"\nargv = ["true"]',
        'transport = "codex_exec"\nsandbox = "ticket-worktree-write"',
    )
    config = parse_config(text.encode())
    worker = doctor.login(config, config.roles["r.w"], True, {"HOME": "/nonexistent"})
    advisor = doctor.login(config, config.roles["r.a"], True, {"HOME": "/nonexistent"})
    assert "the model proxy would hold none" in worker.detail
    assert "model proxy" not in advisor.detail
    assert advisor.detail.startswith("not logged in")
