"""Contained by default (issue 23 item 3, ADR 0026), with a real command worker in its real sandbox:
its network is its own loopback (a TCP service on the host's loopback, started here, is out of its
reach), the state root's path is nowhere it can read (mountinfo, environments, command lines, its
home's files, the worktree's `.git`), and the host's network is a role's only by its approved
intent: `network = "host"` is captured in the dispatch intent, and a change after review parks the
worker naming the field."""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
from collections.abc import Iterator

import pytest

from oms.canonical import access
from oms.services.chain import dispatches
from oms.services.delivery.service import Delivery
from tests.chain import Chain, accepted
from tests.helpers import eventually

PY = sys.executable  # shown read-only inside: oms's own runtime
PROBE = r"""#!__PY__
# What a worker can read of where it runs, and whether it reaches a TCP service on the host's
# loopback.
import json, os, socket, sys

seen = {"env": json.dumps(dict(os.environ))}


def read(name, path):
    try:
        with open(path, "rb") as f:
            seen[name] = f.read(1 << 20).decode("utf-8", "replace")
    except OSError as exc:
        seen[name] = "unreadable: %s" % exc


s = socket.socket()
s.settimeout(3)
try:
    s.connect(("127.0.0.1", int(sys.argv[1])))
    seen["host_loopback"] = "reached"
except OSError as exc:
    seen["host_loopback"] = "unreachable: %s" % exc
finally:
    s.close()
read("mountinfo", "/proc/self/mountinfo")
read("mounts", "/proc/self/mounts")
for pid in sorted(p for p in os.listdir("/proc") if p.isdigit()):
    read("cmdline %s" % pid, "/proc/%s/cmdline" % pid)
    read("environ %s" % pid, "/proc/%s/environ" % pid)
read(".git", os.path.join(os.getcwd(), ".git"))
home = os.environ["HOME"]
for top, dirs, files in os.walk(home):
    for name in files:
        if not name.startswith("probe."):
            read("home " + os.path.join(top, name), os.path.join(top, name))
with open(os.path.join(home, "probe.tmp"), "w") as f:
    json.dump(seen, f)
os.rename(os.path.join(home, "probe.tmp"), os.path.join(home, "probe.json"))
os.execv("/bin/sleep", ["sleep", "600"])
"""


class Listener:
    """A TCP service on the host's loopback that counts who connects."""

    def __init__(self) -> None:
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(0.2)
        self.port = int(self.sock.getsockname()[1])
        self.accepted = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.sock.close()


@pytest.fixture
def listener() -> Iterator[Listener]:
    found = Listener()
    yield found
    found.close()


def _probe_role(chain: Chain, port: int, extra: str = "") -> None:
    """The command worker role runs the probe (`extra`: more keys of the role)."""
    probe = chain.base / "probe.py"
    probe.write_text(PROBE.replace("__PY__", PY))
    probe.chmod(0o755)
    argv = f'argv = ["{probe}", "{port}"]{extra}'
    chain.edit_config(lambda s: s.replace('argv = ["true"]', argv), commit=True)


def _run_probe(chain: Chain, dispatch_id: str, event_id: str) -> dict[str, str]:
    """Deliver the probe, wait for what it saw (its home is wherever the sandbox shows /oms/home
    from), stop it."""
    with chain.workspace() as ws:
        outcome = access.obj(Delivery.open(ws).deliver(event_id), "outcome")
    assert outcome["status"] == "created", outcome
    mine = f"-{outcome['session_id']}"
    found = eventually(
        lambda: [p for p in chain.base.rglob("probe.json") if mine in str(p)],
        timeout=30,
        what="the probe reports",
    )
    seen = json.loads(found[0].read_text())
    with chain.workspace() as ws:
        Delivery.open(ws).stop(dispatch_id, "probe done")
    assert isinstance(seen, dict)
    return {str(k): str(v) for k, v in seen.items()}


def test_a_command_worker_cannot_reach_a_tcp_service_on_the_hosts_loopback(
    deliverable: Chain, listener: Listener
) -> None:
    _probe_role(deliverable, listener.port)
    seen = _run_probe(deliverable, *accepted(deliverable))
    assert seen["host_loopback"].startswith("unreachable"), seen["host_loopback"]
    assert listener.accepted == 0
    with socket.create_connection(("127.0.0.1", listener.port), timeout=5):
        pass  # the service was there all along: the host itself reaches it
    eventually(lambda: listener.accepted == 1, timeout=5, what="the host's connection is accepted")


def test_the_state_roots_path_is_nowhere_a_worker_can_read(
    deliverable: Chain,
    listener: Listener,
) -> None:
    _probe_role(deliverable, listener.port)
    seen = _run_probe(deliverable, *accepted(deliverable))
    assert "/oms/home" in seen["mountinfo"]  # it read its mounts: each bind's source is named there
    assert seen[".git"].startswith("gitdir: ")
    assert any(name.startswith("environ ") for name in seen)  # every visible process's environment
    state_paths = {str(deliverable.state), os.path.realpath(deliverable.state)}
    leaks = sorted(name for name, text in seen.items() if any(path in text for path in state_paths))
    assert leaks == [], f"the state root's path is readable inside: {leaks}"


def test_the_host_network_is_a_roles_only_by_its_approved_intent(
    deliverable: Chain,
    listener: Listener,
) -> None:
    _probe_role(deliverable, listener.port, '\nnetwork = "host"')
    dispatch_id, event_id = accepted(deliverable)
    with deliverable.workspace() as ws:
        dispatch = dispatches.get(ws, dispatch_id)
        assert dispatch.payload["role_network"] == "host"  # what the advisor reviewed
    seen = _run_probe(deliverable, dispatch_id, event_id)
    assert seen["host_loopback"] == "reached"
    assert listener.accepted >= 1

    dispatch_id, event_id = accepted(deliverable, "Another ticket")
    after_review = ('\nnetwork = "host"', "")
    deliverable.edit_config(lambda s: s.replace(*after_review), commit=True)
    with deliverable.workspace() as ws:
        outcome = access.obj(Delivery.open(ws).deliver(event_id), "outcome")
    assert outcome["status"] == "parked", outcome
    assert "changed since it was approved: role_network" in str(outcome["reason"]), outcome
