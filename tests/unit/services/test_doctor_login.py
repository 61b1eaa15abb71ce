"""`oms doctor`'s login line never crashes: a role whose CLI oms has no login hint for, or whose
transport names no CLI oms knows, is a one-line finding (`doctor.login`), never a KeyError."""

from __future__ import annotations

import pytest

from oms.adapters import cli_models
from oms.domain.config import parse_config
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


def test_a_cli_with_no_login_hint_is_a_finding(monkeypatch: pytest.MonkeyPatch) -> None:
    config = parse_config(CONFIG.encode())
    monkeypatch.setitem(doctor.CLI_OF, "codex_exec", "gemini")  # a CLI oms has no hint for
    monkeypatch.setattr(cli_models, "login_missing", lambda cli, _env: f"{cli} has no login")
    check = doctor.login(config, config.roles["r.a"], True, {})
    assert (check.ok, check.detail) == (False, "not logged in: gemini has no login (used)")
    assert "gemini" in check.fix
    assert "\n" not in check.fix


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
