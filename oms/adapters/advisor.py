"""Run the advisor role headless and read its verdict.

The advisor gets one request (schema `advisor-request`) and must answer with one JSON object (schema
`advisor-verdict`) that echoes the intent digest it judged. Transports:

* `command`: the role's argv; the request JSON on stdin; the verdict JSON on stdout.
* `codex_exec`: `codex -a never exec --strict-config --sandbox read-only --ephemeral --output-schema
  F -` with instructions and the request on stdin; the last message (the verdict) on stdout.
* `claude_print`: `claude -p --output-format json --json-schema S --setting-sources ""
  --strict-mcp-config` with the prompt on stdin; the verdict is the `result` (or
  `structured_output`) of its JSON envelope.

`plan` is pure (argv and stdin); `run` executes it through `oms.process` with a timeout and an
output cap, and records provenance (argv, exit code, output, start and finish times).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from oms.adapters.cli_models import login_missing
from oms.adapters.providers.base import (
    CLAUDE_LOGIN,
    CODEX_LOGIN,
    CODEX_PROVIDER,
    Login,
    codex_provider,
)
from oms.adapters.quoting import toml_value
from oms.canonical import JsonObject, dumps, loads_object
from oms.canonical.strict_json import loads_foreign
from oms.domain.config import Role
from oms.errors import AdvisorError, InvalidInputError, ProcessError
from oms.limits import LIMITS
from oms.process import child_env, run

# Where an advisor's CLI starts: nothing an agent wrote is there (docs/adr/0024).
ADVISOR_CWD = "/"
# What an advisor process may see of the environment beyond the base allow-list: its own
# credentials.
ADVISOR_ENV = (
    "CODEX_HOME",
    "OPENAI_API_KEY",
    "CODEX_API_KEY",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_BASE_URL",
    "CLAUDE_CONFIG_DIR",
    "SSL_CERT_FILE",
    "NODE_EXTRA_CA_CERTS",
)

INSTRUCTIONS = (
    "You are the oms advisor. Review the dispatch intent below "
    "before an untrusted coding agent is launched "
    "on it. Approve only if the ticket is safe and sensible to "
    "hand to an agent with exactly the listed "
    "capabilities, in the listed worktree, on the listed branch. Answer with one JSON object: "
    '{"verdict": "approve" | "reject", "rationale": "<why, one paragraph>", '
    '"dispatch_intent_sha256": "<the digest given in the request>"}.'
)


@dataclass(frozen=True, slots=True)
class Plan:
    """How to start the advisor."""

    argv: tuple[str, ...]
    stdin: bytes
    envelope: str  # "plain" (the verdict is stdout) or "claude" (stdout is Claude's JSON envelope)
    env: tuple[tuple[str, str], ...] = ()  # set on top of the allow-listed environment
    login: Login | None = None  # its CLI's login, checked before it runs (no role endpoint)


# an advisor transport -> how its CLI's login is asked (`command` runs no agent CLI)
LOGINS = {"codex_exec": CODEX_LOGIN, "claude_print": CLAUDE_LOGIN}


@dataclass(frozen=True, slots=True)
class AdvisorRun:
    """What running the advisor produced (its provenance)."""

    argv: tuple[str, ...]
    exit_code: int
    stdout: bytes
    started_at: str
    finished_at: str
    stderr: bytes = b""


def plan(
    role: Role,
    request: JsonObject,
    verdict_schema_path: str,
    verdict_schema: JsonObject,
    *,
    openai_key: bool = False,
) -> Plan:
    """The launch plan for `role` (pure). `openai_key`: OPENAI_API_KEY is set (a role endpoint then
    uses it)."""
    body = dumps(request)
    prompt = (INSTRUCTIONS + "\n\nRequest:\n" + body.decode("utf-8") + "\n").encode("utf-8")
    if role.transport == "command":
        if not role.argv:
            raise InvalidInputError(f"advisor role {role.role_id} has no argv")
        return Plan(role.argv, body + b"\n", "plain")
    if role.transport == "codex_exec":
        provider: tuple[str, ...] = ()
        if role.endpoint is not None:
            provider = (
                "--config",
                f"model_provider={toml_value(CODEX_PROVIDER)}",
                "--config",
                f"model_providers.{CODEX_PROVIDER}="
                f"{toml_value(codex_provider(role.endpoint, openai_key))}",
            )
        return Plan(
            (
                "codex",
                "-a",
                "never",
                "exec",
                "--strict-config",
                "--disable",
                "unbounded_connection_retries",
                "--sandbox",
                "read-only",
                "--skip-git-repo-check",
                "--ephemeral",
                "--model",
                role.model,
                *provider,
                "--output-schema",
                verdict_schema_path,
                "-",
            ),
            prompt,
            "plain",
            login=LOGINS[role.transport] if role.endpoint is None else None,
        )
    if role.transport == "claude_print":
        return Plan(
            (
                "claude",
                "-p",
                "--output-format",
                "json",
                f"--json-schema={json.dumps(verdict_schema)}",
                "--model",
                role.model,
                "--setting-sources",
                "",
                "--strict-mcp-config",
                "--tools",
                "",
            ),
            prompt,
            "claude",
            (("ANTHROPIC_BASE_URL", role.endpoint),) if role.endpoint is not None else (),
            login=LOGINS[role.transport] if role.endpoint is None else None,
        )
    raise InvalidInputError(f"transport {role.transport} cannot run an advisor")


def execute(
    advisor: Plan,
    *,
    clock: Callable[[], str],
    timeout: float = LIMITS.advisor_timeout_s,
) -> AdvisorRun:
    """Run the plan from `ADVISOR_CWD`; a CLI that is not logged in (checked first, in a second), a
    failure to start or a timeout is an `AdvisorError` that says why and what to do.

    Never from the dispatch's worktree: a retry's worktree holds the previous agent's files, and an
    agent CLI loads what it finds where it runs (instructions, settings, skills) — `codex exec` runs
    with `--skip-git-repo-check`, `claude -p` with no setting sources, and neither needs a
    project."""
    env = {**child_env(keep=ADVISOR_ENV), **dict(advisor.env)}
    if advisor.login is not None:
        missing = login_missing(advisor.login, env)
        if missing is not None:
            raise AdvisorError(f"cannot run the advisor: {missing}", hint=advisor.login.hint)
    started = clock()
    try:
        done = run(
            advisor.argv,
            cwd=ADVISOR_CWD,
            env=env,
            stdin=advisor.stdin,
            timeout=timeout,
            max_output=LIMITS.advisor_output_bytes,
            check=False,
            die_with_parent=True,  # a model call never outlives the conductor or command that asked
        )
    except ProcessError as exc:
        raise AdvisorError(f"advisor {advisor.argv[0]} did not run: {exc.message}") from exc
    return AdvisorRun(advisor.argv, done.returncode, done.stdout, started, clock(), done.stderr)


NETWORK_HINT = (
    "the model API could not be reached: check the network, or give the advisor role an `endpoint`"
)
_LOGIN_WORDS = (
    "not logged in",
    "/login",
    "codex login",
    "401",
    "unauthorized",
    "invalid api key",
    "api key",
)
_NETWORK_WORDS = ("network", "resolve", "connect", "timed out", "timeout", "unreachable", "dns")


def last_line(output: bytes, cap: int = LIMITS.advisor_said_chars) -> str:
    """The last non-empty line of a CLI's output, printable, at most `cap` characters ('' when
    none)."""
    for raw in reversed(output.decode("utf-8", "replace").splitlines()):
        line = "".join(c for c in raw if c.isprintable()).strip()
        line = _strip_ansi(line)
        if line:
            return line if len(line) <= cap else line[: cap - 3] + "..."
    return ""


def _strip_ansi(text: str) -> str:
    import re

    return re.sub(r"\[[0-9;?]*[A-Za-z]", "", text).strip()


def advice(said: str) -> str | None:
    """What to do about an advisor's last words (None: nothing known)."""
    low = said.lower()
    if any(w in low for w in _LOGIN_WORDS):
        return "log in: " + CODEX_LOGIN.hint + "; for Claude: " + CLAUDE_LOGIN.hint
    if any(w in low for w in _NETWORK_WORDS):
        return NETWORK_HINT
    return None


def _envelope(stdout: bytes) -> dict[str, object]:
    """Claude Code's `--output-format json` envelope (bounded: the output cap held it), or
    AdvisorError."""
    try:
        doc = loads_foreign(stdout)
    except (ValueError, RecursionError) as exc:
        raise AdvisorError(
            f"advisor claude printed no JSON envelope ({type(exc).__name__})"
        ) from None
    if not isinstance(doc, dict):
        raise AdvisorError("advisor claude printed no JSON envelope (not an object)")
    return doc


def verdict(advisor: Plan, result: AdvisorRun) -> JsonObject:
    """The verdict object from the advisor's stdout (not yet schema-checked)."""
    if result.exit_code != 0:
        said = last_line(result.stderr) or last_line(result.stdout)
        raise AdvisorError(
            f"advisor {result.argv[0]} exited {result.exit_code}"
            + (f": {said}" if said else " and said nothing"),
            hint=advice(said)
            or f"run the advisor role's CLI ({result.argv[0]}) by hand to see why",
        )
    try:
        if advisor.envelope != "claude":
            return loads_object(result.stdout.strip())
        envelope = _envelope(
            result.stdout
        )  # Claude's own JSON (costs are floats): only the verdict is oms's
        structured = envelope.get("structured_output")
        if isinstance(structured, dict):
            return loads_object(
                json.dumps(structured).encode("utf-8")
            )  # the verdict, as strict as any
        text = envelope.get("result")
        if envelope.get("is_error") is True and isinstance(text, str):
            said = last_line(text.encode("utf-8"))
            raise AdvisorError(f"advisor claude failed: {said}", hint=advice(said))
        if not isinstance(text, str):
            raise AdvisorError("advisor's Claude envelope has no result")
        return loads_object(text.strip().encode("utf-8"))
    except InvalidInputError as exc:
        raise AdvisorError(f"advisor output is not one JSON object: {exc.message}") from exc
