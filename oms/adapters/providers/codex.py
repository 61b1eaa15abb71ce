"""Codex CLI in /goal mode (seed 003; ADR 0009, ADR 0011). Pure plan.

The home (`homes/codex-<session>` in the sandbox directory, 0700; `/oms/home` inside the sandbox,
which is not a temporary directory, so Codex creates the helper links its own sandbox needs) holds
`hooks.json` (SessionStart startup|resume, UserPromptSubmit, Stop, PreToolUse -> `oms hook
provider`) and a `config.toml` that pre-seeds every first-run screen (no update check, the worktree
trusted, the TUI flags it would otherwise write), both read-only inside. Its one credential is its
dispatch's proxy token (the custom model provider's `env_key`), or, for a role with `credential =
"raw"`, either a key or the user's `auth.json`, shown read-only over an empty placeholder
(`services/plans.raw_credential`). Hook trust: `--dangerously-bypass-hook-trust` (ADR 0009);
`--trust` is never passed. The MCP server is only oms's bridge, with only the three tools,
auto-approved, required. Codex keeps its own workspace-write sandbox inside oms's (ADR 0012). A
relaunch runs `codex resume <flags> <id>` (its thread is in the same home) and types nothing: Codex
continues the thread's active goal by itself (a typed message would wait behind that turn, and any
hook of it would pass for its confirmation).
"""

from __future__ import annotations

import json

from oms.adapters.providers.base import (
    CODEX_LOGIN,
    CODEX_PROVIDER,
    HomeFile,
    LaunchPlan,
    LaunchRequest,
    Provider,
    base_env,
    bridge_argv,
    codex_provider,
    hook_config,
)
from oms.adapters.quoting import check_arg, toml_string, toml_value
from oms.adapters.sandbox import HOME_VIEW
from oms.domain.relay import BRIDGE_SERVER, BRIDGE_TOOLS
from oms.store.sandboxes import home_rel

SHARED_FEATURE_FLAGS = (  # every Codex worker's (`codex_exec.py` too): hooks on, the rest off
    "--enable",
    "hooks",
    "--disable",
    "apps",
    "--disable",
    "browser_use",
    "--disable",
    "computer_use",
    "--disable",
    "image_generation",
    "--disable",
    "plugins",
)
FEATURE_FLAGS = ("--enable", "goals", *SHARED_FEATURE_FLAGS)


def home(session_id: str) -> str:
    """The private CODEX_HOME of a session, relative to the sandbox directory (ADR 0026)."""
    return home_rel(f"codex-{session_id}")


def hooks_json(req: LaunchRequest) -> bytes:
    """hooks.json calling `oms hook provider --provider codex`."""
    doc = {"hooks": hook_config(req, "codex")}
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()


def config_toml(req: LaunchRequest) -> bytes:
    """config.toml: first-run screens pre-seeded, the worktree trusted (ADR 0009 "Activation")."""
    lines = [
        "check_for_update_on_startup = false",
        f"model = {toml_string(req.model)}",
    ]
    if req.endpoint is not None:
        provider = codex_provider(req.endpoint, "OPENAI_API_KEY" in req.passthrough)
        lines += [
            f"model_provider = {toml_string(CODEX_PROVIDER)}",
            "",
            f"[model_providers.{CODEX_PROVIDER}]",
            *(f"{key} = {toml_value(value)}" for key, value in provider.items()),
        ]
    lines += [
        "",
        f"[projects.{toml_string(req.worktree)}]",
        'trust_level = "trusted"',
        "",
        "[tui]",
        "screen_reader_detection_done = true",
        "",
    ]
    return "\n".join(lines).encode()


def mcp_override(req: LaunchRequest) -> str:
    """The `-c mcp_servers=…` value: only the bridge, only the three tools, approved, required."""
    argv = bridge_argv(req)
    server = {
        "command": argv[0],
        "args": list(argv[1:]),
        "cwd": req.worktree,
        "env": base_env(req),
        "enabled_tools": list(BRIDGE_TOOLS),
        "default_tools_approval_mode": "approve",
        "required": True,
        "startup_timeout_sec": 30,
    }
    return "mcp_servers=" + toml_value({BRIDGE_SERVER: server})


def plan(req: LaunchRequest) -> LaunchPlan:
    """The launch plan."""
    check_arg(req.worktree, "worktree path")
    check_arg(req.model, "model")
    head = (
        ("codex",) if req.resume is None else ("codex", "resume")
    )  # `codex resume` takes every flag
    argv = (
        *head,
        *FEATURE_FLAGS,
        "--strict-config",
        "--ask-for-approval",
        "never",
        "--dangerously-bypass-hook-trust",
        "--sandbox",
        "workspace-write",
        "--model",
        req.model,
        "--config",
        mcp_override(req),
        "--config",
        "sandbox_workspace_write.exclude_slash_tmp=true",
        "--config",
        "sandbox_workspace_write.exclude_tmpdir_env_var=true",
    )
    if req.resume is not None:
        argv += (check_arg(req.resume, "native session id"),)
    env = {**base_env(req), **req.passthrough, "CODEX_HOME": HOME_VIEW}
    files = [
        HomeFile("hooks.json", hooks_json(req), readonly=True),
        HomeFile("config.toml", config_toml(req), regenerate=True, readonly=True),
    ]
    ro_files: tuple[tuple[str, str], ...] = ()
    if req.codex_auth is not None:  # an empty placeholder the real file is shown over, read-only
        files.append(HomeFile("auth.json", b"", regenerate=True))
        ro_files = ((req.codex_auth, f"{HOME_VIEW}/auth.json"),)
    return LaunchPlan(
        native_action="goal",
        argv=argv,
        cwd=req.worktree,
        env=env,
        home=home(req.session_id),
        files=tuple(files),
        ro_files=ro_files,
        prompt=f"/goal {req.instructions}"
        if req.resume is None
        else None,  # it continues its goal by itself
        # a parked goal stays paused until this (a plain prompt runs one turn)
        resume_prompt="/goal resume",
        ready_marks=("for agents", f" {req.model} "),
        busy_mark="esc to interrupt",
        # the footer while /goal runs; "Goal paused (/goal resume)" once paused
        goal_mark="Pursuing goal",
        park_keys=(("Escape",),),
        quit_keys=(("-l", "/exit"), ("Enter",)),
    )


PROVIDER = Provider(
    transport="codex_goal",
    name="codex",
    session_mode="goal",
    native_action="goal",
    surface="codex-goal",
    hook_contract="codex-0.171",
    plan=plan,
    compatible=("codex", "0.171."),
    token_variable="OPENAI_API_KEY",  # noqa: S106 - a variable's name, not a key
    raw_key="OPENAI_API_KEY",
    family="openai",
    login=CODEX_LOGIN,
)
