"""Claude Code, interactive (ADR 0009 "Activation", ADR 0011). Pure plan.

The config dir (`homes/claude-<session>` in the sandbox directory, 0700; `/oms/home` inside the
sandbox, as CLAUDE_CONFIG_DIR) pre-seeds onboarding, the API-key approval and the worktree trust;
`settings.json` holds only oms's hooks and `mcp.json` only the bridge, both read-only inside.
`--setting-sources ""` and `--strict-mcp-config` keep a repository's own `.claude/` and `.mcp.json`
out; `--permission-mode dontAsk` with `--allowedTools` naming the three bridge tools runs
unattended. File flags use the `--flag=value` form so the variadic options cannot swallow anything.
A relaunch passes `--resume <id>` instead of `--session-id <id>` (the transcript is in the same
config dir) and is told to continue.
"""

from __future__ import annotations

import json

from oms.adapters.providers.base import (
    CLAUDE_LOGIN,
    CONTINUE,
    HomeFile,
    LaunchPlan,
    LaunchRequest,
    Provider,
    base_env,
    bridge_argv,
    hook_config,
)
from oms.adapters.quoting import check_arg
from oms.adapters.sandbox import HOME_VIEW
from oms.domain.relay import BRIDGE_SERVER, BRIDGE_TOOL_PREFIX, BRIDGE_TOOLS
from oms.store.sandboxes import home_rel


def home(session_id: str) -> str:
    """The private Claude config dir of a session, relative to the sandbox directory (ADR 0026)."""
    return home_rel(f"claude-{session_id}")


def _json(doc: object) -> bytes:
    return (json.dumps(doc, indent=2, sort_keys=True) + "\n").encode()


def settings_json(req: LaunchRequest) -> bytes:
    """Only oms's hooks."""
    return _json({"hooks": hook_config(req, "claude")})


def mcp_json(req: LaunchRequest) -> bytes:
    """Only oms's bridge."""
    argv = bridge_argv(req)
    return _json(
        {
            "mcpServers": {
                BRIDGE_SERVER: {
                    "type": "stdio",
                    "command": argv[0],
                    "args": list(argv[1:]),
                    "env": base_env(req),
                }
            }
        }
    )


def claude_json(req: LaunchRequest) -> bytes:
    """First-run state: onboarding done, the API key approved, the worktree trusted."""
    key = req.passthrough.get("ANTHROPIC_API_KEY", "")
    return _json(
        {
            "hasCompletedOnboarding": True,
            "customApiKeyResponses": {"approved": [key[-20:]] if key else [], "rejected": []},
            "projects": {req.worktree: {"hasTrustDialogAccepted": True}},
        }
    )


def plan(req: LaunchRequest) -> LaunchPlan:
    """The launch plan."""
    check_arg(req.worktree, "worktree path")
    check_arg(req.model, "model")
    check_arg(req.instructions, "executor instructions")
    allowed = ",".join(
        [
            *(BRIDGE_TOOL_PREFIX + tool for tool in BRIDGE_TOOLS),
            *(t for t in req.tools if t not in BRIDGE_TOOLS),
        ]
    )
    argv = (
        "claude",
        f"--settings={HOME_VIEW}/settings.json",
        f"--mcp-config={HOME_VIEW}/mcp.json",
        "--strict-mcp-config",
        "--setting-sources",
        "",
        "--session-id" if req.resume is None else "--resume",
        req.session_id if req.resume is None else check_arg(req.resume, "native session id"),
        f"--append-system-prompt={req.instructions}",
        "--permission-mode",
        "dontAsk",
        f"--allowedTools={allowed}",
        "--model",
        req.model,
    )
    env = {
        **base_env(req),
        **req.passthrough,
        "CLAUDE_CONFIG_DIR": HOME_VIEW,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        # the three bridge tools are small: their schemas up front, no search step
        "ENABLE_TOOL_SEARCH": "false",
    }
    if req.endpoint is not None:
        env["ANTHROPIC_BASE_URL"] = check_arg(req.endpoint, "endpoint")
    return LaunchPlan(
        native_action="claude",
        argv=argv,
        cwd=req.worktree,
        env=env,
        home=home(req.session_id),
        files=(
            HomeFile(".claude.json", claude_json(req), regenerate=True),
            HomeFile("settings.json", settings_json(req), readonly=True),
            HomeFile("mcp.json", mcp_json(req), readonly=True),
        ),
        prompt=req.instructions if req.resume is None else CONTINUE,
        ready_marks=("\u276f",),
        busy_mark="esc to interrupt",
        park_keys=(("Escape",), ("C-u",)),
        quit_keys=(("-l", "/exit"), ("Enter",)),
    )


PROVIDER = Provider(
    transport="claude_interactive",
    name="claude",
    session_mode="pane",
    native_action="claude",
    surface="claude-interactive",
    hook_contract="claude-2.1",
    plan=plan,
    compatible=("claude", "2.1."),
    token_variable="ANTHROPIC_API_KEY",  # noqa: S106 - a variable's name, not a key
    raw_key="ANTHROPIC_API_KEY",
    family="anthropic",
    login=CLAUDE_LOGIN,
    stop_is_final=True,  # let stop, it waits for a prompt nobody will type
)
