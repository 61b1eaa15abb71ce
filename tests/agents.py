"""Talking to the real agent CLIs offline in tests, against `tests/model_mock.py`."""

from __future__ import annotations

import json
import os
import select
import subprocess
import time
from typing import Any


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
        text=True,
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
    for message in messages:
        proc.stdin.write(json.dumps(message) + "\n")
    proc.stdin.flush()
    wanted = {m["id"] for m in messages if "id" in m}
    got: dict[int, dict[str, Any]] = {}
    deadline = time.monotonic() + timeout
    try:
        while wanted - set(got) and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stdout], [], [], 1.0)
            if not ready:
                continue
            line = proc.stdout.readline()
            if not line:
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
