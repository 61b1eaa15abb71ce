"""Helpers for the agent side: a dispatch bound to a session, its broker, a raw MCP stdio client,
state snapshots.

`oms hook provider` and `oms worker bridge` are relays (ADR 0012): a test runs them as real
processes against a real broker (`services/doors/broker.py` with the worker's doors) served from a
thread of the test process on a short socket path, just as `oms worker supervise` serves one beside
a sandbox.
"""

from __future__ import annotations

import hashlib
import json
import os
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from oms.canonical import operation_nonce
from oms.provider_names import HOOK_CONTRACT
from oms.services.chain.liveness import CONSUMER
from oms.services.doors import bridge
from oms.services.doors.broker import Broker
from oms.services.doors.hooks import HookArgs
from oms.services.doors.interface import BrokerLimits
from oms.services.doors.worker_doors import WorkerDoors
from tests.chain import Chain, accepted
from tests.helpers import OmsCommand, git


class ServedBroker:
    """A broker for one binding, served from a thread (stopped by `stop`, or after the test)."""

    def __init__(self, doors: WorkerDoors, limits: BrokerLimits | None = None) -> None:
        self.dir = tempfile.mkdtemp(prefix="omsb", dir="/tmp")  # short: a socket path has 108 bytes
        self.path = os.path.join(self.dir, "broker.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(16)
        self.logs: list[str] = []
        self.doors = doors
        doors.log = self.logs.append
        self.broker = Broker(self.listener, doors, self.logs.append, limits)
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()
        BROKERS.append(self)

    def _serve(self) -> None:
        while not self._stop.is_set():
            self.broker.run_once(0.05)

    def env(self) -> dict[str, str]:
        return {**os.environ, "OMS_BROKER_SOCKET": self.path}

    def stop(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        self.thread.join(10)
        self.broker.close()
        self.doors.close()
        self.listener.close()
        shutil.rmtree(self.dir, ignore_errors=True)


BROKERS: list[ServedBroker] = []


@dataclass
class Bound:
    """An accepted dispatch and everything its hooks and bridge are started with."""

    chain: Chain
    dispatch_id: str
    event_id: str
    session_id: str
    worktree: Path
    brokers: dict[tuple[str, str, str], ServedBroker] = field(default_factory=dict)

    @property
    def nonce(self) -> str:
        return operation_nonce(self.event_id, CONSUMER)

    def binding(self, provider: str = "command", allowed: str = "") -> HookArgs:
        tools = tuple(t for t in allowed.split(",") if t)
        return HookArgs(provider, HOOK_CONTRACT[provider], self.dispatch_id, self.session_id, tools)

    def broker(
        self, provider: str = "command", allowed: str = "", nonce: str | None = None
    ) -> ServedBroker:
        """The broker of this worker as delivery would bind it for `provider` (one per binding)."""
        key = (provider, allowed, nonce if nonce is not None else self.nonce)
        served = self.brokers.get(key)
        if served is None or served._stop.is_set():
            doors = WorkerDoors(
                self.binding(provider, allowed),
                key[2],
                str(self.chain.state),
                str(self.chain.repo),
                print,
            )
            served = self.brokers[key] = ServedBroker(doors)
        return served

    def bridge_args(self, session_id: str | None = None) -> list[str]:
        return [
            "worker",
            "bridge",
            "--dispatch-id",
            self.dispatch_id,
            "--session-id",
            session_id or self.session_id,
        ]

    def hook_args(
        self, provider: str, allowed: str = "", version: str | None = None, *, event: str
    ) -> list[str]:
        """The hook command oms registers for `event` (one per event)."""
        return [
            "hook",
            "provider",
            "--event",
            event,
            "--provider",
            provider,
            "--provider-version",
            version or HOOK_CONTRACT[provider],
            "--dispatch-id",
            self.dispatch_id,
            "--session-id",
            self.session_id,
            "--allowed-tools",
            allowed,
        ]

    def env(
        self, nonce: str | None = None, provider: str = "command", allowed: str = ""
    ) -> dict[str, str]:
        """The environment of a relay that reaches this worker's broker (bound for `provider`)."""
        return self.broker(provider, allowed, nonce).env()

    def commit_change(self, text: str = "work\n") -> str:
        (self.worktree / "WORK.md").write_text(text)
        git("add", "WORK.md", cwd=self.worktree)
        git(
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t",
            "commit",
            "-q",
            "-m",
            "work",
            cwd=self.worktree,
        )
        return git("rev-parse", "HEAD", cwd=self.worktree).strip()


class BoundTools(bridge.Tools):
    """The bridge's tools as the broker holds them, over a workspace of their own (close it
    after)."""

    def __init__(
        self, bound: Bound, session_id: str | None = None, nonce: str | None = None
    ) -> None:
        self.ws = bound.chain.workspace()
        args = bridge.BridgeArgs(
            bound.dispatch_id, session_id or bound.session_id, nonce or bound.nonce
        )
        super().__init__(args, lambda: self.ws)

    def close(self) -> None:
        self.ws.close()


def bind(chain: Chain, title: str = "Fix the flaky test") -> Bound:
    """An accepted (not yet delivered) dispatch: the bridge and hooks need nothing more."""
    dispatch_id, event_id = accepted(chain, title)
    with chain.workspace() as ws:
        payload = ws.store.records("dispatch").read(dispatch_id).payload
    return Bound(
        chain,
        dispatch_id,
        event_id,
        str(payload["session_id"]),
        Path(str(payload["worktree_path"])),
    )


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
            {
                "protocolVersion": version,
                "capabilities": {},
                "clientInfo": {"name": "test", "version": "1"},
            },
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
    """Every file and directory under `root` with a digest of its content and mode — but an empty
    folder of the outbox: the first lock of a consumer makes it (a refused `oms worker resume`
    takes the dispatch's typing lock, ADR 0045 `resumeonce`), and it holds nothing once the lock
    is let go."""
    out: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames:
            path = Path(dirpath) / name
            rel = str(path.relative_to(root))
            if rel.startswith("outbox/") and not any(path.iterdir()):
                continue  # a lock's folder, empty
            out[rel + "/"] = oct(path.lstat().st_mode)
        for name in filenames:
            path = Path(dirpath) / name
            if path.is_socket():
                continue
            st = path.lstat()
            out[str(path.relative_to(root))] = (
                f"{oct(st.st_mode)}:{hashlib.sha256(path.read_bytes()).hexdigest()}"
            )
    return out
