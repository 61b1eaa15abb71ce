"""Run the advisor role headless and read its verdict.

The advisor gets one request (schema `advisor-request`) and must answer with one JSON object (schema
`advisor-verdict`) that echoes the intent digest it judged. Transports:

* `command`: the role's argv; the request JSON on stdin; the verdict JSON on stdout.
* `codex_exec`: `codex -a never exec --strict-config --sandbox read-only --ephemeral --output-schema F -`
  with instructions and the request on stdin; the last message (the verdict) on stdout.
* `claude_print`: `claude -p --output-format json --json-schema S --setting-sources "" --strict-mcp-config`
  with the prompt on stdin; the verdict is the `result` (or `structured_output`) of its JSON envelope.

`plan` is pure (argv and stdin); `run` executes it through `oms.process` with a timeout and an output
cap, and records provenance (argv, exit code, output, start and finish times).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from oms.adapters.providers.base import CODEX_PROVIDER, codex_provider
from oms.adapters.quoting import toml_value
from oms.canonical import JsonObject, dumps, loads_object
from oms.domain.config import Role
from oms.errors import AdvisorError, InvalidInputError, ProcessError
from oms.process import child_env, run

ADVISOR_TIMEOUT_S = 600.0
ADVISOR_OUTPUT_BYTES = 256 * 1024
# What an advisor process may see of the environment beyond the base allow-list: its own credentials.
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
    "You are the oms advisor. Review the dispatch intent below before an untrusted coding agent is launched "
    "on it. Approve only if the ticket is safe and sensible to hand to an agent with exactly the listed "
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


@dataclass(frozen=True, slots=True)
class AdvisorRun:
    """What running the advisor produced (its provenance)."""

    argv: tuple[str, ...]
    exit_code: int
    stdout: bytes
    started_at: str
    finished_at: str


def plan(
    role: Role,
    request: JsonObject,
    verdict_schema_path: str,
    verdict_schema: JsonObject,
    *,
    openai_key: bool = False,
) -> Plan:
    """The launch plan for `role` (pure). `openai_key`: OPENAI_API_KEY is set (a role endpoint then uses it)."""
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
                f"model_providers.{CODEX_PROVIDER}={toml_value(codex_provider(role.endpoint, openai_key))}",
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
        )
    raise InvalidInputError(f"transport {role.transport} cannot run an advisor")


def execute(advisor: Plan, *, cwd: str, clock: Callable[[], str], timeout: float = ADVISOR_TIMEOUT_S) -> AdvisorRun:
    """Run the plan; a failure to start or a timeout is an `AdvisorError`."""
    started = clock()
    try:
        done = run(
            advisor.argv,
            cwd=cwd,
            env={**child_env(keep=ADVISOR_ENV), **dict(advisor.env)},
            stdin=advisor.stdin,
            timeout=timeout,
            max_output=ADVISOR_OUTPUT_BYTES,
            check=False,
        )
    except ProcessError as exc:
        raise AdvisorError(f"advisor {advisor.argv[0]} did not run: {exc.message}") from exc
    return AdvisorRun(advisor.argv, done.returncode, done.stdout, started, clock())


def verdict(advisor: Plan, result: AdvisorRun) -> JsonObject:
    """The verdict object from the advisor's stdout (not yet schema-checked)."""
    if result.exit_code != 0:
        raise AdvisorError(f"advisor {result.argv[0]} exited {result.exit_code}")
    try:
        doc = loads_object(result.stdout.strip())
        if advisor.envelope == "claude":
            structured = doc.get("structured_output")
            if isinstance(structured, dict):
                return structured
            text = doc.get("result")
            if not isinstance(text, str):
                raise AdvisorError("advisor's Claude envelope has no result")
            doc = loads_object(text.strip().encode("utf-8"))
    except InvalidInputError as exc:
        raise AdvisorError(f"advisor output is not one JSON object: {exc.message}") from exc
    return doc
