"""The oms configuration (`.oms/config.toml` in the config root): parsing and validation, pure.

TOML is parsed with `tomllib`, then held to the JSON record profile (no floats, no dates: TOML allows
both, and JSON Schema's `integer` would accept `1.0`), then to `schemas/config.schema.json`. Errors name
the file and the key.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass

from oms.canonical import JsonObject, check, dumps
from oms.canonical.ids import ROLE_ID
from oms.domain.gate import MAX_MINUTES_WITHOUT_RESULT, MAX_TURNS_WITHOUT_RESULT
from oms.errors import CanonicalJsonError, ConfigError, SchemaValidationError
from oms.schemas import validate

CONFIG_PATH = ".oms/config.toml"
DEADLINE_MINUTES = 480  # a worker's wall-clock limit unless its role says otherwise
TICK_SECONDS = 30  # `oms conductor run`'s interval unless the pool says otherwise
WORKER_TRANSPORTS = ("command", "codex_goal", "claude_interactive")
ADVISOR_TRANSPORTS = ("command", "codex_exec", "claude_print")


@dataclass(frozen=True, slots=True)
class Role:
    """One configured role."""

    role_id: str
    model: str
    transport: str
    sandbox: str
    argv: tuple[str, ...] | None
    endpoint: str | None = None  # the model API the agent CLI talks to (a gateway, a proxy); None = its default
    # a worker with no result after this many turns or minutes is let stop and parked (`domain/gate.py`)
    max_turns_without_result: int = MAX_TURNS_WITHOUT_RESULT
    max_minutes_without_result: int = MAX_MINUTES_WITHOUT_RESULT
    deadline_minutes: int = DEADLINE_MINUTES  # the conductor stops a worker running longer (`deadline`)


@dataclass(frozen=True, slots=True)
class Config:
    """The validated configuration."""

    roles: dict[str, Role]
    advisor_role: str
    worker_role: str
    max_workers: int
    lease_minutes: int
    tick_seconds: int
    worktrees_directory: str
    raw: JsonObject


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
        raise ConfigError(exc.message if exc.message.startswith(where) else f"{where}: {exc.message}") from exc
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
            spec.get("max_turns_without_result", MAX_TURNS_WITHOUT_RESULT),
            spec.get("max_minutes_without_result", MAX_MINUTES_WITHOUT_RESULT),
            spec.get("deadline_minutes", DEADLINE_MINUTES),
        )
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
        raise ConfigError(f"{where}: roles.{doc['advisor']['role']}.sandbox must be read-only for the advisor")
    return Config(
        roles=roles,
        advisor_role=doc["advisor"]["role"],
        worker_role=doc["worker"]["role"],
        max_workers=doc["pool"]["max_workers"],
        tick_seconds=doc["pool"].get("tick_seconds", TICK_SECONDS),
        lease_minutes=doc["lease"]["duration_minutes"],
        worktrees_directory=doc["worktrees"]["directory"],
        raw=doc,
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
# tick_seconds = 30                # `oms conductor run`: seconds between ticks (new events wake it sooner)

[lease]
duration_minutes = 60

[worktrees]
directory = "../oms-worktrees"     # relative to this repository; must be outside the state root

[roles."oms.ticket-executor"]      # Claude Code, interactive, in a tmux pane
model = "claude-sonnet-4-5"
transport = "claude_interactive"
sandbox = "ticket-worktree-write"

[roles."oms.goal-long-executor"]   # Codex CLI in /goal mode
model = "gpt-5-codex"
transport = "codex_goal"
sandbox = "ticket-worktree-write"
# max_turns_without_result = 100   # a worker with no result after this many turns is parked (no_result)
# max_minutes_without_result = 60  # ... or after this many minutes
# deadline_minutes = 480           # the conductor stops a worker running longer (end reason `deadline`)

[roles."oms.exec-advisor"]         # headless reviewer (codex exec --output-schema); prints a JSON verdict
model = "gpt-5-codex"
transport = "codex_exec"
sandbox = "read-only"
"""


def worktrees_directory(config: Config, config_root: str) -> str:
    """The absolute worktrees directory (relative paths are relative to the config root)."""
    import os.path

    return os.path.normpath(os.path.join(config_root, config.worktrees_directory))


def role(config: Config, role_id: str, where: str = CONFIG_PATH) -> Role:
    """A configured role, or `ConfigError` naming it."""
    found = config.roles.get(role_id)
    if found is None:
        raise ConfigError(f"{where}: role {role_id!r} is not configured (roles: {', '.join(sorted(config.roles))})")
    return found
