"""The oms configuration (`.oms/config.toml` in the config root): parsing and validation, pure.

TOML is parsed with `tomllib`, then held to the JSON record profile (no floats, no dates: TOML
allows both, and JSON Schema's `integer` would accept `1.0`), then to `schemas/config.schema.json`.
Errors name the file and the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from typing import Any

from oms.canonical import JsonObject, check, dumps
from oms.canonical.ids import ROLE_ID, folder_label
from oms.domain.proxy import IMPLICIT
from oms.domain.routing import (
    DEFAULT_COST_TIER,
    Provider,
    RouteClass,
    Routing,
    family_of,
)
from oms.domain.sandbox_limits import SandboxLimits
from oms.domain.sandbox_limits import parse as parse_limits
from oms.errors import CanonicalJsonError, ConfigError, SchemaValidationError
from oms.limits import LIMITS
from oms.provider_names import WORKER_TRANSPORTS as WORKER_TRANSPORTS  # noqa: PLC0414 (re-exported)
from oms.schemas import validate

CONFIG_PATH = ".oms/config.toml"
NETWORK_DEFAULT, CREDENTIAL_DEFAULT = "none", "token"  # contained and keyless (ADR 0026)
ADVISOR_TRANSPORTS = ("command", "codex_exec", "claude_print")
WORKER_SANDBOX = "ticket-worktree-write"  # the one sandbox a worker role runs in


@dataclass(frozen=True, slots=True)
class Role:
    """One configured role."""

    role_id: str
    model: str
    transport: str
    sandbox: str
    argv: tuple[str, ...] | None
    endpoint: str | None = (
        None  # the model API the agent CLI talks to (a gateway, a proxy); None = its default
    )
    # a worker with no result after this many turns or minutes is let stop and parked
    # (`domain/gate.py`)
    max_turns_without_result: int = LIMITS.turns_without_result
    max_minutes_without_result: int = LIMITS.minutes_without_result
    deadline_minutes: int = (
        LIMITS.deadline_minutes  # the conductor stops a worker running longer (`deadline`)
    )
    route: RouteClass = field(
        default_factory=RouteClass
    )  # which providers may serve it (`domain/routing.py`)
    token_budget: int | None = (
        None  # model tokens a dispatch may use through the proxy (`domain/proxy.py`)
    )
    limits: SandboxLimits = field(default_factory=SandboxLimits)  # `[limits]` + its own (ADR 0025)
    network: str = "none"  # "host": the host's network, not loopback only (an opt-out, ADR 0026)
    credential: str = "token"  # "raw": the user's real credential, not a proxy token (an opt-out)

    @property
    def opt_outs(self) -> tuple[str, ...]:
        """The containment this role gives up, as `key = "value"` (none by default; ADR 0026)."""
        out: list[str] = []
        if self.network != NETWORK_DEFAULT:
            out.append(f'network = "{self.network}"')
        if self.credential != CREDENTIAL_DEFAULT:
            out.append(f'credential = "{self.credential}"')
        return tuple(out)


@dataclass(frozen=True, slots=True)
class ProxyConfig:
    """`[proxy]`: the loopback model proxy's port (0: any free one), its request body bound and how
    long a connection may take to send its request (`request_deadline_s`, at most the default).
    Every model worker goes through it unless its role says `credential = "raw"` (ADR 0026);
    `workers = true`, which ADR 0020 asked for, is accepted and changes nothing."""

    port: int = 0
    max_request_bytes: int = LIMITS.proxy_request_bytes
    request_deadline_s: float = LIMITS.proxy_header_s  # may be shorter, never longer


@dataclass(frozen=True, slots=True)
class StoreConfig:
    """`[store]` (ADR 0043): where records, events and locks live — `files` (the state root) or
    `etcd` (its members' `endpoints`, under `prefix`; None: `/oms/<state key id>/`)."""

    backend: str = "files"
    endpoints: tuple[str, ...] = ()
    prefix: str | None = None


@dataclass(frozen=True, slots=True)
class Config:
    """The validated configuration."""

    roles: dict[str, Role]
    advisor_role: str
    worker_role: str
    max_workers: int
    lease_minutes: int
    tick_seconds: int
    worktrees_directory: str | None  # None: one per repository (`worktrees_directory`)
    raw: JsonObject
    routing: Routing = field(
        default_factory=lambda: Routing({})
    )  # the providers and the fleet's order (none: every role uses its own fields)
    proxy: ProxyConfig = field(default_factory=ProxyConfig)
    limits: SandboxLimits = field(default_factory=SandboxLimits)  # `[limits]`: checks, probes
    # a `[notify]` table left here: ignored, never run — it lives in the person's own settings
    # (ADR 0036, amended: `domain/notify.py`); `oms status` and `oms doctor` say where it moved
    stale_notify: bool = False
    store: StoreConfig = field(default_factory=StoreConfig)  # `[store]` (ADR 0043)
    # `[pool] approval_wait_minutes`: a person's approval waited for this long, then the conductor
    # rejects the dispatch (ADR 0008, amendment `waits`)
    approval_wait_minutes: int = LIMITS.approval_wait_minutes


def store_backend_named(data: bytes) -> str:
    """The store backend configuration bytes name (`[store] backend`, ADR 0043), read for that
    one key, so a configuration invalid elsewhere still says where its store is: "files" when it
    is not said or the TOML does not parse (a command that needs the configuration says why)."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return "files"
    table = doc.get("store")
    backend = table.get("backend", "files") if isinstance(table, dict) else "files"
    return backend if isinstance(backend, str) else "files"


def parse_config(data: bytes, where: str = CONFIG_PATH) -> Config:
    """Parse and validate configuration bytes; `ConfigError` names `where` and the key."""
    try:
        doc = tomllib.loads(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{where}: not UTF-8 at byte {exc.start}") from exc
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{where}: invalid TOML: {exc}") from exc
    try:
        dumps(doc)  # the JSON profile: rejects floats, dates and times
        validate("config", doc, where=where)
    except (CanonicalJsonError, SchemaValidationError) as exc:
        raise ConfigError(
            exc.message if exc.message.startswith(where) else f"{where}: {exc.message}"
        ) from exc
    routing = _routing(doc, where)
    limits = parse_limits(doc.get("limits"), f"{where}: [limits]")
    roles = {}
    for role_id, spec in doc["roles"].items():
        check(role_id, f"{where}: roles key", ROLE_ID)
        argv = spec.get("argv")
        roles[role_id] = Role(
            role_id,
            spec["model"],
            spec["transport"],
            spec["sandbox"],
            tuple(argv) if argv is not None else None,
            spec.get("endpoint"),
            spec.get("max_turns_without_result", LIMITS.turns_without_result),
            spec.get("max_minutes_without_result", LIMITS.minutes_without_result),
            spec.get("deadline_minutes", LIMITS.deadline_minutes),
            _route_class(spec, role_id, routing, where),
            spec.get("token_budget"),
            parse_limits(spec.get("limits"), f"{where}: roles.{role_id}.limits", limits),
            spec.get("network", NETWORK_DEFAULT),
            spec.get("credential", CREDENTIAL_DEFAULT),
        )
        _check_opt_outs(roles[role_id], where)
    for key, allowed in (("advisor", ADVISOR_TRANSPORTS), ("worker", WORKER_TRANSPORTS)):
        role = roles.get(doc[key]["role"])
        if role is None:
            raise ConfigError(f"{where}: {key}.role {doc[key]['role']!r} is not a configured role")
        if role.transport not in allowed:
            raise ConfigError(
                f"{where}: roles.{role.role_id}.transport {role.transport!r} cannot serve as "
                f"the {key} (expected one of {', '.join(allowed)})"
            )
    if roles[doc["advisor"]["role"]].sandbox != "read-only":
        raise ConfigError(
            f"{where}: roles.{doc['advisor']['role']}.sandbox must be read-only for the advisor"
        )
    return Config(
        roles=roles,
        advisor_role=doc["advisor"]["role"],
        worker_role=doc["worker"]["role"],
        max_workers=doc["pool"]["max_workers"],
        tick_seconds=doc["pool"].get("tick_seconds", LIMITS.tick_seconds),
        lease_minutes=doc["lease"]["duration_minutes"],
        worktrees_directory=doc.get("worktrees", {}).get("directory"),
        raw=doc,
        routing=routing,
        proxy=_proxy(doc, where),
        limits=limits,
        stale_notify="notify" in doc,
        store=_store(doc, where),
        approval_wait_minutes=doc["pool"].get(
            "approval_wait_minutes", LIMITS.approval_wait_minutes
        ),
    )


def _store(doc: dict[str, Any], where: str) -> StoreConfig:
    table = dict(doc.get("store", {}))
    backend = table.get("backend", "files")
    endpoints = tuple(table.get("endpoints", ()))
    if backend == "etcd" and not endpoints:
        raise ConfigError(
            f'{where}: store.backend = "etcd" needs store.endpoints',
            hint='name the members, e.g. endpoints = ["http://127.0.0.1:2379"]',
        )
    if backend == "files" and (endpoints or "prefix" in table):
        raise ConfigError(f'{where}: store.endpoints and store.prefix need backend = "etcd"')
    return StoreConfig(backend, endpoints, table.get("prefix"))


def _proxy(doc: dict[str, Any], where: str) -> ProxyConfig:
    table = dict(doc.get("proxy", {}))
    if table.get("workers") is False:
        raise ConfigError(
            f"{where}: proxy.workers = false: every model worker goes through the proxy now "
            "(ADR 0026); "
            'a role that must hold its real key says credential = "raw" and network = "host"',
        )
    return ProxyConfig(
        table.get("port", 0),
        table.get("max_request_bytes", LIMITS.proxy_request_bytes),
        float(table.get("request_deadline_s", LIMITS.proxy_header_s)),
    )


def is_worker_role(role: Role) -> bool:
    """A role a worker may run under: a worker transport and the worker's sandbox. The transport
    alone does not say it: an advisor's transport may share a worker's name (`command`,
    `codex_exec`), and an advisor's sandbox is read-only."""
    return role.transport in WORKER_TRANSPORTS and role.sandbox == WORKER_SANDBOX


def _check_opt_outs(role: Role, where: str) -> None:
    """`network` and `credential` are a worker's; a raw credential is used directly, so it needs the
    host network; a command worker holds no model credential."""
    key = f"{where}: roles.{role.role_id}"
    if role.opt_outs and not is_worker_role(role):
        why = f"network and credential are a worker role's (transport {role.transport})"
        raise ConfigError(f"{key}: {why}")
    if role.credential != CREDENTIAL_DEFAULT and role.transport == "command":
        raise ConfigError(f"{key}.credential: a command worker holds no model credential")
    if role.credential != CREDENTIAL_DEFAULT and role.network == NETWORK_DEFAULT:
        needs = 'needs network = "host" (a raw key is used directly)'
        raise ConfigError(f'{key}.credential = "{role.credential}" {needs}')


def _routing(doc: dict[str, Any], where: str) -> Routing:
    """`[providers.*]` and `[routing]`: every provider a route names must be configured."""
    providers = {}
    for provider_id, spec in dict(doc.get("providers", {})).items():
        if provider_id in IMPLICIT.values():
            raise ConfigError(f"{where}: providers.{provider_id}: the name is oms's own (ADR 0026)")
        probe = spec.get("quota_probe")
        providers[provider_id] = Provider(
            provider_id,
            spec["family"],
            spec.get("enabled", True),
            spec.get("endpoint"),
            spec.get("cost_tier", DEFAULT_COST_TIER),
            frozenset(spec.get("tags", [])),
            dict(spec.get("models", {})),
            tuple(probe) if probe is not None else None,
            spec.get("quota_skip_at", LIMITS.quota_skip_at),
            spec.get("key_env"),
            spec.get("auth", "key"),
            spec.get("quota_probe_network", "none"),
        )
        _check_auth(providers[provider_id], where)
    table = dict(doc.get("routing", {}))
    order = tuple(table.get("order", []))
    for name in (*order, *([table["active"]] if "active" in table else [])):
        if name not in providers:
            raise ConfigError(f"{where}: routing names provider {name!r}, which is not configured")
    return Routing(
        providers,
        order,
        table.get("active"),
        table.get("cooldown_minutes", LIMITS.cooldown_minutes),
        table.get("transient_cooldown_seconds", LIMITS.transient_cooldown_s),
    )


def _check_auth(provider: Provider, where: str) -> None:
    """A ChatGPT login is Codex's (an OpenAI provider) and comes from its login file, never a
    variable."""
    if provider.auth != "codex-chatgpt":
        return
    if provider.family != "openai":
        raise ConfigError(
            f"{where}: providers.{provider.provider_id}: auth codex-chatgpt is for family openai"
        )
    if provider.key_env is not None:
        raise ConfigError(
            f"{where}: providers.{provider.provider_id}: auth "
            f"codex-chatgpt reads Codex's login, not key_env"
        )


def _route_class(spec: dict[str, Any], role_id: str, routing: Routing, where: str) -> RouteClass:
    """A role's `route` table: its providers must be configured and speak the role's CLI's
    family."""
    table = dict(spec.get("route", {}))
    if not table:
        return RouteClass()
    if not routing.providers:
        raise ConfigError(f"{where}: roles.{role_id}.route needs [providers] to route to")
    provider, _, alias = str(table.get("provider", "")).partition("/")
    family = family_of(str(spec["transport"]))
    for name in ([provider] if provider else []) + list(table.get("order", [])):
        found = routing.providers.get(name)
        if found is None:
            raise ConfigError(
                f"{where}: roles.{role_id}.route names provider {name!r}, which is not configured"
            )
        if found.family != family:
            raise ConfigError(
                f"{where}: roles.{role_id}.route names provider {name!r}, which speaks "
                f"{found.family}; the role's transport {spec['transport']} speaks "
                f"{family or 'no model API'}"
            )
    return RouteClass(
        provider or None,
        alias or None,
        table.get("max_cost_tier"),
        frozenset(table.get("require_tags", [])),
        tuple(table["order"]) if "order" in table else None,
    )


DEFAULT_CONFIG = """\
# oms configuration. Schema: schemas/config.schema.json. `oms doctor` checks it.
format = 1

[advisor]
role = "oms.exec-advisor"          # reviews every dispatch intent before delivery

[worker]
role = "oms.ticket-executor"       # the role new dispatches use

[pool]
max_workers = 2
# tick_seconds = 30                # `oms conductor run`: seconds between ticks (new events wake \
it sooner)

[lease]
duration_minutes = 60

[worktrees]
# directory = "../oms-worktrees/<this repository's folder name>"  # the default: one per repository

# [limits]                         # what bounds each sandbox (docs/adr/0025); a role may override
# pids = 2048                      # tasks (threads count too)
# memory_bytes = 4_294_967_296     # 4 GiB, its /tmp included, never swap
# cpu_weight = 50                  # half a default share: oms itself stays responsive
# disk_bytes = 10_737_418_240      # its worktree and home (a check: its checkout)
# file_bytes = 4_294_967_296       # the largest file it may write
# cgroup = "unsafe-none"           # only where no cgroup can be had: then nothing is bounded

[roles."oms.ticket-executor"]      # Claude Code, interactive, in a tmux pane
model = "sonnet"                   # Claude Code's alias for the latest Sonnet (`oms doctor` warns \
of a retired model)
transport = "claude_interactive"
sandbox = "ticket-worktree-write"

[roles."oms.goal-long-executor"]   # Codex CLI in /goal mode
model = "gpt-6.2-sol"              # `codex debug models` lists what Codex offers (`oms doctor` \
checks it)
transport = "codex_goal"
sandbox = "ticket-worktree-write"
# max_turns_without_result = 100   # a worker with no result after this many turns is parked \
(no_result)
# max_minutes_without_result = 60  # ... or after this many minutes
# deadline_minutes = 480           # the conductor stops a worker running longer (end reason \
`deadline`)

[roles."oms.exec-advisor"]         # headless reviewer (codex exec --output-schema); prints a JSON \
verdict
model = "gpt-6.2-sol"
transport = "codex_exec"
sandbox = "read-only"
"""


WORKTREES_PARENT = "oms-worktrees"  # beside the repository: `../oms-worktrees/<its folder name>`


def worktrees_directory(config: Config, config_root: str) -> str:
    """The absolute worktrees directory: `[worktrees] directory`, relative to the config root; by
    default `../oms-worktrees/<the repository's folder name>`, one per repository, so that the
    worktrees of two repositories side by side never share a path (ADR 0032)."""
    import os.path

    if config.worktrees_directory is None:
        parent = os.path.dirname(config_root.rstrip("/"))
        return os.path.normpath(os.path.join(parent, WORKTREES_PARENT, folder_label(config_root)))
    return os.path.normpath(os.path.join(config_root, config.worktrees_directory))


def role(config: Config, role_id: str, where: str = CONFIG_PATH) -> Role:
    """A configured role, or `ConfigError` naming it."""
    found = config.roles.get(role_id)
    if found is None:
        raise ConfigError(
            f"{where}: role {role_id!r} is not configured (roles: "
            f"{', '.join(sorted(config.roles))})"
        )
    return found
