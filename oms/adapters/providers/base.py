"""What every provider plan is made of, and the oms commands written into agent configuration.

A provider turns a `LaunchRequest` into a frozen `LaunchPlan` and touches nothing: files to create
in a private agent home, files to show read-only inside the sandbox (Codex's `auth.json`), the
agent's argv, cwd and environment, and how to activate, park and stop it.
`services/delivery/homes.py` materialises a plan through fsio; `services/delivery/spec.py` wraps it
in the worker's sandbox (ADR 0012).

Everything a plan writes is as the agent sees it inside its sandbox: its home is `HOME_VIEW`, and
the hook and MCP commands are relays (`oms hook provider`, `oms worker bridge`) that name only the
dispatch and session; the state root, the config root and the delivery nonce stay with the broker.

A request that names `resume` (the agent's own session id) is a relaunch after the agent's pane
ended: the same home, configuration and sandbox, the CLI told to continue that session (`codex
resume <id>`, `claude --resume <id>`), and, where the CLI waits for a prompt (Claude Code),
`CONTINUE` typed instead of the instruction.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

from oms.adapters.quoting import check_arg, shell_join
from oms.domain.relay import BRIDGE_TOOLS, HOOK_EVENTS
from oms.provider_names import HOOK_CONTRACT


@dataclass(frozen=True, slots=True)
class LaunchRequest:
    """Everything a provider needs (validated by the caller)."""

    dispatch_id: str
    session_id: str
    role_id: str
    model: str
    worktree: str
    executable: str
    instructions: str
    role_argv: tuple[str, ...] | None = None
    codex_auth: str | None = (
        None  # the real path of the user's Codex auth.json (shown read-only inside)
    )
    passthrough: dict[str, str] = field(default_factory=dict)  # the one credential variable, if any
    tools: tuple[
        str, ...
    ] = ()  # the role's tools under the committed policy (bridge tools included)
    endpoint: str | None = (
        None  # the role's model endpoint (a gateway or proxy); None = the CLI's default
    )
    resume: str | None = (
        None  # the agent's own session id to continue (a relaunch after its pane ended)
    )


@dataclass(frozen=True, slots=True)
class HomeFile:
    """A file to create in the agent home (mode 0600).

    `regenerate`: the agent CLI rewrites this file itself (first-run state, counters), so on reuse
    it is replaced by oms's version (unlink + create, never in place). Otherwise a changed file is
    refused. `readonly`: oms's own configuration (hooks, settings, MCP config): read-only inside the
    sandbox.
    """

    name: str
    data: bytes
    regenerate: bool = False
    readonly: bool = False


@dataclass(frozen=True, slots=True)
class LaunchPlan:
    """How to start, activate, park and stop one agent (pure data)."""

    native_action: str  # goal | claude | command
    argv: tuple[str, ...]
    cwd: str
    env: dict[str, str]
    home: str | None = None  # relative to the sandbox directory (`store/sandboxes.py`)
    files: tuple[HomeFile, ...] = ()
    ro_files: tuple[tuple[str, str], ...] = ()  # (host file, path inside the sandbox), read-only
    prompt: str | None = None  # typed into the pane to start the work
    resume_prompt: str | None = None  # typed to resume after a park (None: `activation.CONTINUE`)
    ready_marks: tuple[str, ...] = ()  # all must be on screen before typing
    busy_mark: str | None = None  # on screen while a turn runs
    goal_mark: str | None = (
        None  # on screen while a goal runs turn after turn (Escape pauses it, between turns too)
    )
    park_keys: tuple[tuple[str, ...], ...] = ()
    quit_keys: tuple[tuple[str, ...], ...] = ()
    # the model proxy's door (its directory, absolute) and the loopback port a relay inside listens
    # on for the agent (ADR 0020); None: the agent talks to no model through the proxy
    model_relay: tuple[str, int] | None = None
    host_network: bool = False  # the role asked for the host's network (ADR 0026); else loopback


@dataclass(frozen=True, slots=True)
class Login:
    """How to ask an agent CLI, offline, whether it can authenticate (`oms doctor`'s login line and
    the advisor's first check: `adapters/cli_models.login_missing`). A provider without one
    (`Provider.login` None) is not asked: doctor says its login is not checked."""

    cli: str  # the CLI, as a person calls it (`codex`)
    title: str  # as a line names it (`the Codex CLI`)
    argv: tuple[str, ...]  # the question; exit 0 = logged in (unless `json_field`)
    keys: tuple[str, ...]  # any of these variables set: it has a key, nothing is asked
    hint: str  # how a person logs it in (one line)
    json_field: str | None = None  # it answers a JSON object: this field false = not logged in


CODEX_LOGIN = Login(
    "codex",
    "the Codex CLI",
    ("codex", "login", "status"),
    ("OPENAI_API_KEY", "CODEX_API_KEY"),
    "run `codex login` (or `printenv OPENAI_API_KEY | codex login --with-api-key`), or give the "
    "role an `endpoint` in .oms/config.toml",
)
CLAUDE_LOGIN = Login(
    "claude",
    "Claude Code",
    ("claude", "auth", "status"),
    ("ANTHROPIC_API_KEY",),
    "run `claude` and `/login`, or set ANTHROPIC_API_KEY, or give the role an `endpoint` in "
    ".oms/config.toml",
    json_field="loggedIn",
)


CODEX_PROVIDER = "oms_endpoint"
CONTINUE = (
    "Continue the dispatch where you stopped."  # typed to resume an interrupted or relaunched agent
)


def codex_provider(endpoint: str, with_key: bool) -> dict[str, object]:
    """The Codex model provider for a role endpoint (Responses API; ADR 0011 "Role endpoints")."""
    provider: dict[str, object] = {
        "name": "oms endpoint",
        "base_url": endpoint,
        "wire_api": "responses",
    }
    if with_key:
        provider["env_key"] = "OPENAI_API_KEY"
    return provider


def oms_args(req: LaunchRequest, *head: str) -> tuple[str, ...]:
    """`oms <head> --dispatch-id … --session-id …` (a relay: the broker holds everything else)."""
    argv = (req.executable, *head, "--dispatch-id", req.dispatch_id, "--session-id", req.session_id)
    for word in argv:
        check_arg(word, "oms command argument")
    return argv


def bridge_argv(req: LaunchRequest) -> tuple[str, ...]:
    """The MCP bridge the agent is configured with."""
    return oms_args(req, "worker", "bridge")


def hook_tools(tools: tuple[str, ...]) -> tuple[str, ...]:
    """The tools PreToolUse lets through besides the bridge's own (the role's grant under the
    policy)."""
    return tuple(t for t in tools if t not in BRIDGE_TOOLS)


def hook_argv(req: LaunchRequest, provider: str, event: str) -> tuple[str, ...]:
    """The hook command `provider` runs for `event` (one command per event: the event a hook answers
    for is the one in its command line, never the payload's), with the role's tool allow-list for
    PreToolUse."""
    if event not in HOOK_EVENTS:
        raise ValueError(f"oms registers no hook for {event!r}")
    argv = oms_args(req, "hook", "provider")
    allowed = ",".join(hook_tools(req.tools))
    return (
        argv[0],
        *argv[1:3],
        "--event",
        event,
        "--provider",
        provider,
        "--provider-version",
        HOOK_CONTRACT[provider],
        *argv[3:],
        "--allowed-tools",
        check_arg(allowed, "allowed tools"),
    )


def hook_config(req: LaunchRequest, provider: str) -> dict[str, list[dict[str, object]]]:
    """The `hooks` table both CLIs read (ADR 0011 "Hooks"): each event its own command."""

    def handler(event: str) -> list[dict[str, object]]:
        return [
            {
                "type": "command",
                "command": shell_join(hook_argv(req, provider, event)),
                "timeout": 10,
            }
        ]

    return {
        "SessionStart": [{"matcher": "startup|resume", "hooks": handler("SessionStart")}],
        "UserPromptSubmit": [{"hooks": handler("UserPromptSubmit")}],
        "Stop": [{"hooks": handler("Stop")}],
        "PreToolUse": [{"matcher": "*", "hooks": handler("PreToolUse")}],
    }


def base_env(req: LaunchRequest) -> dict[str, str]:
    """Environment every agent gets (which dispatch and session it works on; nothing secret)."""
    check_arg(req.worktree, "worktree path")
    env = {"OMS_DISPATCH_ID": req.dispatch_id, "OMS_SESSION_ID": req.session_id}
    for key, value in env.items():
        check_arg(value, key)
    return env


class Provider(NamedTuple):
    """What oms knows of one worker transport, in the transport's own module (`PROVIDER`), gathered
    in `adapters/providers/__init__.py` `REGISTRY`: adding a provider is one module and one line
    there (docs/architecture.md "How to add a provider")."""

    transport: str  # the role's `transport` in the committed config (`codex_goal`, ...)
    name: str  # the provider as hooks and launch specs name it (`codex`, `claude`, `command`)
    session_mode: str  # the session record's `mode` (`goal`, `pane`, `command`)
    native_action: str  # its plans' `native_action` (`goal`, `claude`, `command`)
    surface: str  # the contact surface a live journal names (`codex-goal`, ...)
    hook_contract: str  # what its hooks' `--provider-version` must be (`codex-0.171`, ...)
    plan: Callable[[LaunchRequest], LaunchPlan]  # the launch plan (pure)
    # the agent CLI and the version prefix oms was checked against (None: runs no agent CLI)
    compatible: tuple[str, str] | None = None
    token_variable: str | None = None  # the variable a proxy token goes in (None: no model)
    raw_key: str | None = None  # a `credential = "raw"` role's one variable of the environment
    family: str | None = None  # the model API family its CLI speaks (None: routes nowhere)
    login: Login | None = None  # how its CLI's login is asked (None: not checked)
    # What its agent can still do (ADR 0045 amendment `ends`), asked by the layers below adapters
    # through `oms/provider_names.py` and by delivery through `delivery/plans.py`:
    # - once the Stop gate lets it stop without a result it takes no turn of its own again (Claude
    #   Code waits for a prompt nobody types, `codex exec` exits): its worker is parked `no_result`
    #   at once (`domain/gate.py`); False: it goes on by itself (a Codex goal's next turn)
    stop_is_final: bool = False
    # a person's message typed into its terminal reaches it (`oms worker send`); False: refused
    takes_messages: bool = True
    # a person may park it (`oms worker park`): its park keys pause an agent CLI's turn, a command
    # worker's park is a record its command is not told of; False: refused (it would run on)
    parkable: bool = True
