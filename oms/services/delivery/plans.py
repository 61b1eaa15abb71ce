"""What a worker launch runs (ADR 0001, ADR 0009): the oms executable written into hooks and MCP
config, the agent CLI's version, the provider's launch plan and the supervisor's launch spec.

- The executable is the real, absolute, non-symlink path of the running oms (or `OMS_EXECUTABLE`),
  checked executable; a frozen binary is `sys.executable`.
- A Codex or Claude Code worker needs a CLI version whose hook and flag contract oms was verified
  against (`COMPATIBLE`); a command worker needs none.
- A plan is pure given its inputs (`adapters/providers`). A model CLI holds exactly one credential:
  its dispatch's proxy token (the default), or, where its role says `credential = "raw"`, one
  credential of the user's (`raw_credential`); never an endpoint of the deliverer's environment (ADR
  0026).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, replace

from oms.adapters import tools
from oms.adapters.providers import REGISTRY
from oms.adapters.providers.base import LaunchPlan, LaunchRequest, hook_tools
from oms.canonical import JsonObject, operation_nonce
from oms.domain.config import CREDENTIAL_DEFAULT, NETWORK_DEFAULT
from oms.domain.config import role as configured_role
from oms.errors import ConfigError, InvalidInputError
from oms.fsio.outside import regular_file_target
from oms.process import oms_executable
from oms.provider_names import HOOK_CONTRACT
from oms.services.chain.liveness import CONSUMER
from oms.services.containment import sandboxing
from oms.services.delivery.homes import home_path
from oms.services.workspace import Workspace
from oms.services.workspace.instructions import executor_instructions
from oms.store import Record
from oms.store.payloads import dispatch_payload, text_set

# Views of the provider registry (`adapters/providers`), by transport
SESSION_MODE = {t: p.session_mode for t, p in REGISTRY.items()}
PROVIDER = {t: p.name for t, p in REGISTRY.items()}
SURFACE = {p.native_action: p.surface for p in REGISTRY.values()}  # the journal's contact surface
COMPATIBLE = {t: p.compatible for t, p in REGISTRY.items() if p.compatible is not None}
TOKEN_VARIABLE = {t: p.token_variable for t, p in REGISTRY.items() if p.token_variable}
# A role with `credential = "raw"` (ADR 0026): the one variable of the deliverer's environment its
# CLI may see (Codex without an endpoint takes the user's login file first: `raw_credential`).
RAW_KEY = {t: p.raw_key for t, p in REGISTRY.items() if p.raw_key}
# What a person may ask of its agent (ADR 0045 amendment `ends`): a message (`oms worker send`), a
# park (`oms worker park`)
TAKES_MESSAGES = {t: p.takes_messages for t, p in REGISTRY.items()}
PARKABLE = {t: p.parkable for t, p in REGISTRY.items()}


@dataclass(frozen=True, slots=True)
class ProxyRoute:
    """Where a proxied agent sends its model traffic, and the token that is its only key (ADR 0020,
    0026). Without a network (the default) the dispatch's door (`socket`, absolute: a directory in
    the sandbox directory) is bound in and a relay inside listens on 127.0.0.1:`port` for the agent;
    with the host network (`socket` None) the agent reaches the proxy's own port."""

    endpoint: str
    token: str
    socket: str | None
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
    instructions, read once; a relaunch the agent's own session id to continue; `proxy`: the agent
    talks to the loopback proxy with its token, and no credential of the deliverer's environment
    reaches it)."""
    payload = dispatch_payload(dispatch)
    endpoint = payload["model_endpoint"]
    mode = payload["provider_mode"]
    auth: str | None = None
    keys: dict[str, str] = {}
    raw = payload.get("role_credential", CREDENTIAL_DEFAULT) != CREDENTIAL_DEFAULT
    if mode in TOKEN_VARIABLE and raw:
        auth, keys = raw_credential(mode, endpoint, env)
    elif proxy is not None and mode in TOKEN_VARIABLE:  # (no route: no credential, e.g. `native`)
        endpoint, keys = proxy.endpoint, {TOKEN_VARIABLE[mode]: proxy.token}
    req = LaunchRequest(
        dispatch_id=dispatch.record_id,
        session_id=payload["session_id"],
        role_id=payload["role_id"],
        model=payload["model_id"],
        worktree=payload["worktree_path"],
        executable=executable,
        instructions=executor_instructions(ws) if instructions is None else instructions,
        role_argv=role_argv,
        codex_auth=auth,
        passthrough=keys,
        tools=tools,
        endpoint=endpoint,
        resume=resume,
    )
    host = payload.get("role_network", NETWORK_DEFAULT) != NETWORK_DEFAULT
    provider = REGISTRY.get(mode)
    if provider is None:
        raise InvalidInputError(f"provider mode {mode} cannot run a worker")
    route = proxy if provider.token_variable is not None else None  # (a command has no model)
    return _contained(provider.plan(req), route, host)


def raw_credential(
    mode: str,
    endpoint: str | None,
    env: Mapping[str, str],
) -> tuple[str | None, dict[str, str]]:
    """The one credential a role with `credential = "raw"` gives its CLI (ADR 0026): (Codex's login
    file, variables). Codex talking to OpenAI's own API (no endpoint) gets the user's login file if
    there is one, else `OPENAI_API_KEY`; Codex with an endpoint (a gateway) and Claude Code get
    their family's key variable, if the environment has it; never two, never a base URL (the
    endpoint is the approved one)."""
    variable = RAW_KEY[mode]
    key = {variable: env[variable]} if env.get(variable) else {}
    if PROVIDER[mode] != "codex" or endpoint is not None:  # (every Codex transport)
        return None, key
    login = codex_auth(env, required=False)
    if login is not None:
        return login, {}
    if not key:
        raise ConfigError(
            "codex has no credential: no Codex login (auth.json) and no OPENAI_API_KEY",
            hint="run `codex login`, or set OPENAI_API_KEY",
        )
    return None, key


def _contained(launch_plan: LaunchPlan, proxy: ProxyRoute | None, host_network: bool) -> LaunchPlan:
    """The plan in its sandbox's network: its own (loopback only), the proxy reached through the
    relay and the dispatch's door; or, asked for by its role, the host's."""
    if host_network:
        return replace(launch_plan, host_network=True)
    if proxy is None or proxy.socket is None:
        return launch_plan
    return replace(launch_plan, model_relay=(proxy.socket, proxy.port))


def native(
    ws: Workspace, dispatch: Record, *, executable: str, env: Mapping[str, str]
) -> LaunchPlan:
    """The plan of a launched worker under the configured role (its keys: park, quit, prompt
    marks)."""
    argv = configured_role(ws.config(), dispatch_payload(dispatch)["role_id"]).argv
    return plan(ws, dispatch, executable=executable, env=env, role_argv=argv)


def surface(launch_plan: LaunchPlan) -> str:
    """The contact surface the live journal names for this agent."""
    return SURFACE.get(launch_plan.native_action, "command")


def launch_spec(
    ws: Workspace,
    dispatch: Record,
    launch_plan: LaunchPlan,
    tools: tuple[str, ...],
    executable: str,
) -> JsonObject:
    """The supervisor's launch spec: the plan inside its sandbox, and the broker's binding."""
    payload = dispatch_payload(dispatch)
    provider = PROVIDER[payload["provider_mode"]]
    if launch_plan.home is None:
        raise InvalidInputError("a worker needs a private home")
    return sandboxing.build(
        launch_plan,
        dispatch_id=dispatch.record_id,
        session_id=payload["session_id"],
        provider=provider,
        provider_version=HOOK_CONTRACT[provider],
        allowed_tools=hook_tools(tools),
        nonce=operation_nonce(
            text_set(payload["delivery_event_id"], "delivery_event_id"), CONSUMER
        ),
        config_root=ws.config_root,
        home_abs=home_path(ws.store.sandboxes().path, launch_plan.home),
        executable=executable,
        state_root=ws.store.path,
        sandbox_dir=ws.store.sandboxes().path,
    )


def codex_auth(env: Mapping[str, str], *, required: bool = True) -> str | None:
    """The user's Codex `auth.json` (optional with a role endpoint: a gateway may need no login)."""
    base = env.get("CODEX_HOME") or os.path.join(env.get("HOME", "/nonexistent"), ".codex")
    path = os.path.join(base, "auth.json")
    if not required and not os.path.lexists(path):
        return None
    return regular_file_target(path)
