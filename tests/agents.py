"""Talking to the real agent CLIs offline in tests, against `tests/model_mock.py`."""

from __future__ import annotations

import json
import os
import subprocess
import time
from typing import Any

from tests.helpers import read_line, scaled


def codex_app_server(
    argv: tuple[str, ...],
    codex_home: str,
    cwd: str,
    requests: list[dict[str, Any]],
    timeout: float = 60.0,
) -> dict[int, dict[str, Any]]:
    """Run `codex <flags> app-server`, send initialize + `requests`, return the responses by id."""
    proc = subprocess.Popen(
        ["codex", *argv, "app-server"],
        env={**os.environ, "CODEX_HOME": codex_home},
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        bufsize=0,
    )
    assert proc.stdin is not None
    assert proc.stdout is not None
    messages: list[dict[str, Any]] = [
        {
            "id": 1,
            "method": "initialize",
            "params": {"clientInfo": {"name": "oms-test", "version": "0"}},
        },
        {"method": "initialized"},
        *requests,
    ]
    proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
    wanted = {m["id"] for m in messages if "id" in m}
    got: dict[int, dict[str, Any]] = {}
    pending = bytearray()
    deadline = time.monotonic() + scaled(timeout)
    try:
        while wanted - set(got):
            line = read_line(proc.stdout.fileno(), pending, deadline)
            if line is None:  # its end, or the deadline
                break
            msg = json.loads(line)
            if isinstance(msg.get("id"), int):
                got[msg["id"]] = msg
    finally:
        proc.kill()
        proc.wait()
        proc.stdin.close()
        proc.stdout.close()
    return got


def codex_startup_config(
    argv: tuple[str, ...], codex_home: str
) -> subprocess.CompletedProcess[str]:
    """`codex --strict-config <flags> app-server --print-startup-config`: the offline config
    validator."""
    return subprocess.run(
        ["codex", *argv, "app-server", "--print-startup-config"],
        env={**os.environ, "CODEX_HOME": codex_home},
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
