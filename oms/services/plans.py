"""What a worker launch runs (DESIGN.md §5, STYLE.md 7): the oms executable written into hooks and MCP
config, the agent CLI's version, the provider's launch plan and the supervisor's launch spec.

- The executable is the real, absolute, non-symlink path of the running oms (or `OMS_EXECUTABLE`),
  checked executable; a frozen binary is `sys.executable`.
- A Codex or Claude Code worker needs a CLI version whose hook and flag contract oms was verified
  against (`COMPATIBLE`); a command worker needs none.
- A plan is pure given its inputs (`adapters/providers`); the agent CLI sees only its own provider's
  credential and endpoint of the deliverer's environment (`PASSTHROUGH`).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

from oms.adapters import tools
from oms.adapters.providers import claude, codex, command
from oms.adapters.providers.base import LaunchPlan, LaunchRequest, hook_tools
from oms.canonical import JsonObject, access, operation_nonce
from oms.domain.config import role as configured_role
from oms.errors import ConfigError, InvalidInputError
from oms.fsio.outside import regular_file_target
from oms.process import oms_executable
from oms.services import sandboxing
from oms.services.homes import home_path
from oms.services.instructions import executor_instructions
from oms.services.liveness import CONSUMER
from oms.services.workspace import Workspace
from oms.store import Record
from oms.version import HOOK_CONTRACT

SESSION_MODE = {"codex_goal": "goal", "claude_interactive": "pane", "command": "command"}
PROVIDER = {"codex_goal": "codex", "claude_interactive": "claude", "command": "command"}
SURFACE = {"goal": "codex-goal", "claude": "claude-interactive"}  # the journal's contact surface (else command)
COMPATIBLE = {"codex_goal": ("codex", "0.171."), "claude_interactive": ("claude", "2.1.")}
# What each agent CLI may see of the deliverer's environment: its own credential and endpoint, nothing of
# another provider's (a command worker gets none).
PASSTHROUGH = {
    "codex_goal": ("OPENAI_API_KEY", "OPENAI_BASE_URL", "CODEX_API_KEY"),
    "claude_interactive": ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"),
    "command": (),
}


TOKEN_VARIABLE = {"codex_goal": "OPENAI_API_KEY", "claude_interactive": "ANTHROPIC_API_KEY"}


@dataclass(frozen=True, slots=True)
class ProxyRoute:
    """Where a proxied agent sends its model traffic, and the token that is its only key (ADR 0020); its
    sandbox has no network: the proxy's Unix socket (`socket`, absolute) is bound in and a relay inside
    listens on 127.0.0.1:`port` for the agent."""

    endpoint: str
    token: str
    socket: str
    port: int


resolve_executable = oms_executable  # the oms executable hooks, the MCP config and tree jobs run


def check_cli_version(provider_mode: str) -> None:
    """The agent CLI must be a version whose hook and flag contract oms was verified against."""
    wanted = COMPATIBLE.get(provider_mode)
    if wanted is None:
        return
    found = tools.probe(next(t for t in tools.TOOLS if t.name == wanted[0]))
    if found.error is not None or found.version is None or not found.version.startswith(wanted[1]):
        raise ConfigError(
            f"{wanted[0]} {found.version or found.error} is not compatible (expected {wanted[1]}x)",
            hint=found.tool.install,
        )


def plan(
    ws: Workspace,
    dispatch: Record,
    *,
    executable: str,
    env: Mapping[str, str],
    role_argv: tuple[str, ...] | None,
    tools: tuple[str, ...] = (),
    instructions: str | None = None,
    resume: str | None = None,
    proxy: ProxyRoute | None = None,
) -> LaunchPlan:
    """The provider launch plan for a dispatch (pure given its inputs; a launch passes the approved
    instructions, read once; a relaunch the agent's own session id to continue; `proxy`: the agent talks
    to the loopback proxy with its token, and no credential of the deliverer's environment reaches it)."""
    payload = dispatch.payload
    endpoint = payload.get("model_endpoint")
    endpoint = endpoint if isinstance(endpoint, str) else None
    mode = str(payload["provider_mode"])
    if proxy is not None:
        endpoint, env = proxy.endpoint, {TOKEN_VARIABLE[mode]: proxy.token}
    req = LaunchRequest(
        dispatch_id=dispatch.record_id,
        session_id=access.text(payload, "session_id"),
        role_id=access.text(payload, "role_id"),
        model=access.text(payload, "model_id"),
        worktree=access.text(payload, "worktree_path"),
        executable=executable,
        instructions=executor_instructions(ws) if instructions is None else instructions,
        role_argv=role_argv,
        codex_auth=codex_auth(env, required=endpoint is None) if mode == "codex_goal" else None,
        passthrough={k: env[k] for k in PASSTHROUGH.get(mode, ()) if env.get(k)},
        tools=tools,
        endpoint=endpoint,
        resume=resume,
    )
    if mode == "codex_goal":
        return _relayed(codex.plan(req), proxy)
    if mode == "claude_interactive":
        return _relayed(claude.plan(req), proxy)
    if mode == "command":
        return command.plan(req)
    raise InvalidInputError(f"provider mode {mode} cannot run a worker")


def _relayed(launch_plan: LaunchPlan, proxy: ProxyRoute | None) -> LaunchPlan:
    """The plan of a proxied agent: its sandbox without a network, the proxy reached through the relay."""
    return launch_plan if proxy is None else replace(launch_plan, model_relay=(proxy.socket, proxy.port))


def native(ws: Workspace, dispatch: Record, *, executable: str, env: Mapping[str, str]) -> LaunchPlan:
    """The plan of a launched worker under the configured role (its keys: park, quit, prompt marks)."""
    argv = configured_role(ws.config(), access.text(dispatch.payload, "role_id")).argv
    return plan(ws, dispatch, executable=executable, env=env, role_argv=argv)


def surface(launch_plan: LaunchPlan) -> str:
    """The contact surface the live journal names for this agent."""
    return SURFACE.get(launch_plan.native_action, "command")


def launch_spec(
    ws: Workspace, dispatch: Record, launch_plan: LaunchPlan, tools: tuple[str, ...], executable: str
) -> JsonObject:
    """The supervisor's launch spec: the plan inside its sandbox, and the broker's binding."""
    payload = dispatch.payload
    provider = PROVIDER[str(payload["provider_mode"])]
    if launch_plan.home is None:
        raise InvalidInputError("a worker needs a private home")
    return sandboxing.build(
        launch_plan,
        dispatch_id=dispatch.record_id,
        session_id=access.text(payload, "session_id"),
        provider=provider,
        provider_version=HOOK_CONTRACT[provider],
        allowed_tools=hook_tools(tools),
        nonce=operation_nonce(access.text(payload, "delivery_event_id"), CONSUMER),
        config_root=ws.config_root,
        home_abs=home_path(ws.store.path, launch_plan.home),
        executable=executable,
        state_root=ws.store.path,
    )


def codex_auth(env: Mapping[str, str], *, required: bool = True) -> str | None:
    """The user's Codex `auth.json` (optional with a role endpoint: a gateway may need no login)."""
    base = env.get("CODEX_HOME") or os.path.join(env.get("HOME", "/nonexistent"), ".codex")
    path = os.path.join(base, "auth.json")
    if not required and not os.path.lexists(path):
        return None
    return regular_file_target(path)
