"""Probe the external tools oms drives (git, tmux, Codex CLI, Claude Code): present? which version?

Parsing is pure (`parse_version`); only `probe` starts a process, through `oms.process`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from oms.errors import ProcessError
from oms.limits import LIMITS
from oms.process import run, which


@dataclass(frozen=True, slots=True)
class Tool:
    """How to ask a tool for its version, and what oms was verified against."""

    name: str
    version_argv: tuple[str, ...]
    verified: str
    install: str


TOOLS = (
    Tool("git", ("git", "--version"), "2.39", "apt-get install git"),
    Tool("tmux", ("tmux", "-V"), "3.3a", "apt-get install tmux"),
    Tool("codex", ("codex", "--version"), "0.171.0", "npm install -g @openai/codex@0.171.0"),
    Tool(
        "claude",
        ("claude", "--version"),
        "2.1.332",
        "npm install -g @anthropic-ai/claude-code@2.1.332",
    ),
)

_VERSION = re.compile(r"(?<![0-9.])([0-9]+\.[0-9]+(?:\.[0-9]+)?[a-z]?)")


def parse_version(output: str) -> str | None:
    """The first dotted version number in a tool's `--version` output."""
    match = _VERSION.search(output)
    return match.group(1) if match else None


@dataclass(frozen=True, slots=True)
class Probe:
    """What probing one tool found."""

    tool: Tool
    path: str | None
    version: str | None
    error: str | None


def probe(tool: Tool) -> Probe:
    """Locate `tool` on PATH and ask its version (bounded in time and output)."""
    path = which(tool.version_argv[0])
    if path is None:
        return Probe(tool, None, None, "not found on PATH")
    try:
        done = run(
            (path, *tool.version_argv[1:]), timeout=LIMITS.probe_timeout_s, max_output=64 * 1024
        )
    except ProcessError as exc:
        return Probe(tool, path, None, exc.message)
    version = parse_version(
        done.stdout.decode("utf-8", "replace") + " " + done.stderr.decode("utf-8", "replace")
    )
    return Probe(tool, path, version, None if version else "printed no version number")
