"""Helpers for the agent side: a dispatch bound to a session, a raw MCP stdio client, state snapshots."""

from __future__ import annotations

import hashlib
import json
import os
import select
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from oms.canonical import operation_nonce
from oms.services.delivery import CONSUMER
from oms.version import HOOK_CONTRACT
from tests.chain import Chain, accepted
from tests.helpers import OmsCommand, git


@dataclass
class Bound:
    """An accepted dispatch and everything its hooks and bridge are started with."""

    chain: Chain
    dispatch_id: str
    event_id: str
    session_id: str
    worktree: Path

    @property
    def nonce(self) -> str:
        return operation_nonce(self.event_id, CONSUMER)

    def roots(self) -> list[str]:
        return [
            "--state-root",
            str(self.chain.state),
            "--workspace-root",
            str(self.chain.repo),
            "--config-root",
            str(self.chain.repo),
        ]

    def bridge_args(self, session_id: str | None = None) -> list[str]:
        return [
            "worker",
            "bridge",
            "--dispatch-id",
            self.dispatch_id,
            "--session-id",
            session_id or self.session_id,
            *self.roots(),
        ]

    def hook_args(self, provider: str, allowed: str = "", version: str | None = None) -> list[str]:
        return [
            "hook",
            "provider",
            "--provider",
            provider,
            "--provider-version",
            version or HOOK_CONTRACT[provider],
            "--dispatch-id",
            self.dispatch_id,
            "--session-id",
            self.session_id,
            *self.roots(),
            "--allowed-tools",
            allowed,
        ]

    def env(self, nonce: str | None = None) -> dict[str, str]:
        return {**os.environ, "OMS_DELIVERY_NONCE": nonce if nonce is not None else self.nonce}

    def commit_change(self, text: str = "work\n") -> str:
        (self.worktree / "WORK.md").write_text(text)
        git("add", "WORK.md", cwd=self.worktree)
        git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "work", cwd=self.worktree)
        return git("rev-parse", "HEAD", cwd=self.worktree).strip()


def bind(chain: Chain, title: str = "Fix the flaky test") -> Bound:
    """An accepted (not yet delivered) dispatch: the bridge and hooks need nothing more."""
    dispatch_id, event_id = accepted(chain, title)
    with chain.workspace() as ws:
        payload = ws.store.records("dispatch").read(dispatch_id).payload
    return Bound(chain, dispatch_id, event_id, str(payload["session_id"]), Path(str(payload["worktree_path"])))


SPAWNED: list[RawClient] = []


class RawClient:
    """A real `oms worker bridge` process driven line by line."""

    def __init__(self, oms: OmsCommand, args: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(
            [*oms.argv, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            bufsize=0,
        )
        self._buf = b""
        self.stderr = b""
        self.next_id = 100
        SPAWNED.append(self)

    def send_raw(self, data: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def send(self, message: dict[str, Any]) -> None:
        self.send_raw(json.dumps(message).encode() + b"\n")

    def recv(self, timeout: float = 30.0) -> dict[str, Any]:
        doc = self.recv_json(timeout)
        assert isinstance(doc, dict)
        return doc

    def recv_json(self, timeout: float = 30.0) -> Any:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            assert left > 0, "no reply from the bridge"
            ready, _, _ = select.select([self.proc.stdout], [], [], left)
            if ready:
                chunk = os.read(self.proc.stdout.fileno(), 65536)
                assert chunk, f"bridge closed stdout (stderr: {self.stderr_text()})"
                self._buf += chunk
        line, _, self._buf = self._buf.partition(b"\n")
        return json.loads(line)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            message["params"] = params
        self.send(message)
        reply = self.recv()
        assert reply["id"] == self.next_id
        return reply

    def initialize(self, version: str = "2025-11-25") -> dict[str, Any]:
        reply = self.request(
            "initialize",
            {"protocolVersion": version, "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
        )
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        return reply

    def call(self, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
        reply = self.request("tools/call", {"name": name, "arguments": arguments or {}})
        result = reply["result"]
        assert isinstance(result, dict)
        return result

    def close(self, timeout: float = 30.0) -> int:
        """Close stdin (EOF), wait for the exit, and collect what is left on stdout and stderr."""
        assert self.proc.stdin is not None
        assert self.proc.stdout is not None
        assert self.proc.stderr is not None
        self.proc.stdin.close()
        code = self.proc.wait(timeout)
        self._buf += self.proc.stdout.read()
        self.stderr = self.proc.stderr.read()
        self.proc.stdout.close()
        self.proc.stderr.close()
        return code

    def stderr_text(self) -> str:
        return "(running)" if self.proc.poll() is None else self.stderr.decode(errors="replace")

    def rest_of_stdout(self) -> bytes:
        return self._buf

    def kill(self) -> None:
        """Kill the bridge if it is still running (cleanup after a failed test)."""
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None and not pipe.closed:
                pipe.close()


def structured(result: dict[str, Any]) -> dict[str, Any]:
    """The structured content of a tool result, checked against its text block."""
    text = result["content"][0]["text"]
    data = json.loads(text)
    if "structuredContent" in result:
        assert result["structuredContent"] == data
    assert isinstance(data, dict)
    return data


def snapshot(root: Path) -> dict[str, str]:
    """Every file and directory under `root` with a digest of its content and mode."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            path = Path(dirpath) / name
            out[str(path.relative_to(root)) + "/"] = oct(path.lstat().st_mode)
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_socket():
                continue
            st = path.lstat()
            out[str(path.relative_to(root))] = f"{oct(st.st_mode)}:{hashlib.sha256(path.read_bytes()).hexdigest()}"
    return out
