"""The worker providers, for the layers below adapters/. Generated from the provider registry
(oms/adapters/providers/__init__.py `REGISTRY`: each provider's module) by build/gen_validators.py.
Do not edit: adding a provider is its module and its line in `REGISTRY` (docs/architecture.md
"How to add a provider")."""

from __future__ import annotations

# a worker role's `transport`
WORKER_TRANSPORTS: tuple[str, ...] = (
    "codex_goal",
    "claude_interactive",
    "command",
    "codex_exec",
)

# the providers as hooks, launch specs and private homes name them
NAMES: tuple[str, ...] = (
    "codex",
    "claude",
    "command",
)

# transport -> name (a dispatch's `engine`)
ENGINES: dict[str, str] = {
    "codex_goal": "codex",
    "claude_interactive": "claude",
    "command": "command",
    "codex_exec": "codex",
}

# the contact surface a live journal names
SURFACES: tuple[str, ...] = (
    "codex-goal",
    "claude-interactive",
    "command",
    "codex-exec",
)

# a session record's `mode`
SESSION_MODES: tuple[str, ...] = (
    "goal",
    "pane",
    "command",
    "exec",
)

# name -> what `oms hook provider --provider-version` must be
HOOK_CONTRACT: dict[str, str] = {
    "codex": "codex-0.171",
    "claude": "claude-2.1",
    "command": "command-1",
}

# transport -> the agent CLI its launch runs
CLI: dict[str, str] = {
    "codex_goal": "codex",
    "claude_interactive": "claude",
    "codex_exec": "codex",
}

# transport -> the model API family its CLI speaks (the proxy routes it)
FAMILIES: dict[str, str] = {
    "codex_goal": "openai",
    "claude_interactive": "anthropic",
    "codex_exec": "openai",
}

# the transports whose agent, let stop without a result, takes no turn again
FINAL_STOP: tuple[str, ...] = (
    "claude_interactive",
    "codex_exec",
)
