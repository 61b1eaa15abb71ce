"""A quota probe is the repository's committed argv, which nobody approves (SECURITY.md: repository
contents are untrusted). Its sandbox shows what runs it and nothing of the user's (ADR 0026,
amendment `probes`): not the home (an SSH key there), not the files its argv names, not the host's
network — unless the provider's configuration says `quota_probe_network = "host"`, which `oms
doctor` and `oms status` show as a warning. A program or an interpreter installed under the home
(a Python from pyenv) is still shown, with its libraries, so the probe runs."""

from __future__ import annotations

import shutil
import socket
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.errors import ProcessError
from oms.services.chain import providers
from tests.chain import Chain

pytestmark = pytest.mark.usefixtures("probes_given_time")  # (a Python probe, on a loaded machine)

SECRET = "-----BEGIN OPENSSH PRIVATE KEY----- probe-must-never-read-this"


@pytest.fixture
def home_key(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A user's home with a private key in it, as the probe's caller's HOME: outside `/tmp` (which
    every sandbox replaces with its own) and the system directories, as a real home is."""
    home = Path(tempfile.mkdtemp(prefix="oms-probe-home-", dir="/var/tmp"))
    (home / ".ssh").mkdir()
    key = home / ".ssh" / "id_rsa"
    key.write_text(SECRET)
    monkeypatch.setenv("HOME", str(home))
    yield key
    shutil.rmtree(home)


@pytest.fixture
def listener() -> Iterator[int]:
    """A TCP service on the host's loopback, counting who reached it."""
    server = socket.create_server(("127.0.0.1", 0))
    server.settimeout(0.2)
    reached: list[int] = []
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except OSError:
                continue
            reached.append(1)
            conn.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join()
    server.close()


def _probe(chain: Chain, argv: tuple[str, ...], *, host_network: bool = False) -> str:
    with chain.workspace() as ws:
        opt_in = {"host_network": True} if host_network else {}
        sandboxed = providers.sandboxed(ws, argv, None, **opt_in)
    return providers.run_probe(sandboxed).decode("utf-8", "replace")


def test_a_committed_probe_cannot_read_the_users_home(chain: Chain, home_key: Path) -> None:
    with pytest.raises(ProcessError) as refused:
        _probe(chain, ("cat", str(home_key)))  # a file its argv names is not shown either
    assert SECRET not in str(refused.value)
    with pytest.raises(ProcessError):
        _probe(chain, ("sh", "-c", f"ls {home_key.parent}"))


def test_a_committed_probe_cannot_reach_the_hosts_network(chain: Chain, listener: int) -> None:
    reach = f"exec 3<>/dev/tcp/127.0.0.1/{listener} && echo 42"
    with pytest.raises(ProcessError, match="exited 1"):
        _probe(chain, ("bash", "-c", reach))
    assert _probe(chain, ("bash", "-c", reach), host_network=True).strip() == "42"  # the opt-in


def test_a_probe_installed_under_the_home_runs_with_its_interpreter(chain: Chain) -> None:
    """The Python running these tests (under the user's home on CI: pyenv) runs a probe as its
    argv[0], its standard library and shared library shown beside it."""
    out = _probe(chain, (sys.executable, "-c", "import json, ssl; print(41 + 1)"))
    assert out.strip() == "42"
