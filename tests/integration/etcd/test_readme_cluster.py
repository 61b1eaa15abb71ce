"""README's "A small etcd cluster" runs as written (ADR 0043, amendment `hosts3`): its members'
block starts three members that report healthy (its ports and data directory moved to free ones
of the test's), its `[store]` and `host.toml` are what the hosts use, and its per-host block
(`oms init`, `oms conductor run … &`, `oms ticket add`, `oms status`) run as written in two
hosts' clones of one repository on a real cluster: each host lists both hosts' tickets, and
`oms status` both hosts."""

from __future__ import annotations

import json
import os
import random
import re
import shlex
import shutil
import signal
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from oms.adapters import git
from oms.demo import scratch as demo
from tests.etcd_cluster import ETCD, Cluster
from tests.helpers import REPO, eventually, oms_command

pytestmark = pytest.mark.skipif(ETCD is None, reason="etcd is not installed")

SECTION = "## A small etcd cluster"


def _blocks(lang: str) -> list[str]:
    text = (REPO / "README.md").read_text()
    start = text.index(SECTION)
    end = text.index("\n## ", start + len(SECTION))
    return re.findall(rf"```{lang}\n(.*?)```", text[start:end], re.S)


def _free_base() -> int:
    """A port base whose +0, +1, +10, +11, +20, +21 are free on loopback now."""
    rng = random.Random()
    for _ in range(50):
        base = rng.randrange(30000, 60000, 100)
        socks = []
        try:
            for port in (base + d for d in (0, 1, 10, 11, 20, 21)):
                sock = socket.socket()
                socks.append(sock)
                sock.bind(("127.0.0.1", port))
            return base
        except OSError:
            continue
        finally:
            for sock in socks:
                sock.close()
    raise AssertionError("no free ports")


def _moved(text: str, base: int, data: Path) -> str:
    """README's ports 2<i>379/2<i>380 moved to base+10i / base+10i+1, ~/etcd to `data`."""
    text = text.replace("~/etcd", str(data))
    text = text.replace("2${i}379", f"$(({base} + 10 * i))").replace(
        "2${i}380", f"$(({base} + 10 * i + 1))"
    )
    for i in range(3):
        text = text.replace(f"2{i}379", str(base + 10 * i)).replace(
            f"2{i}380", str(base + 10 * i + 1)
        )
    return text


def test_the_readme_members_block_starts_a_healthy_cluster(tmp_path: Path) -> None:
    members, health = _blocks("sh")[0].split("done\n")
    data = tmp_path / "etcd"
    data.mkdir()
    base = _free_base()
    pids = tmp_path / "pids"
    script = _moved(members, base, data).replace("2>&1 &", f"2>&1 & echo $! >> {pids}") + "done\n"
    subprocess.run(["sh", "-c", script], check=True, timeout=60)
    try:
        assert len(pids.read_text().split()) == 3

        def healthy() -> bool:
            done = subprocess.run(
                shlex.split(_moved(health, base, data)),
                capture_output=True, text=True, timeout=60, check=False,
            )  # fmt: skip
            return done.returncode == 0 and (done.stdout + done.stderr).count("is healthy") == 3

        eventually(healthy, timeout=60, what="the README's three members are healthy")
    finally:
        for pid in pids.read_text().split() if pids.exists() else []:
            try:
                os.kill(int(pid), signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.fixture
def hosts(
    tmp_path: Path, etcd_cluster: Cluster
) -> Iterator[dict[str, tuple[Path, dict[str, str]]]]:
    """Two hosts' clones of one repository whose committed `[store]` is README's (the members
    the session's cluster), each with its own HOME, settings (README's `host.toml`) and state."""
    tomls = _blocks("toml")
    store = next(t for t in tomls if t.startswith("[store]"))
    host_toml = next(t for t in tomls if t.startswith("[host]"))
    for i, endpoint in enumerate(etcd_cluster.endpoints):
        store = store.replace(f"http://127.0.0.1:2{i}379", endpoint)
    store += f'prefix = "/oms-readme/{os.getpid()}-{tmp_path.name}/"\n'
    seed = demo._prepare(str(tmp_path / "seed"))
    config = Path(seed.repo, ".oms/config.toml")
    config.write_text(config.read_text() + "\n" + store)
    git.commit_all(seed.repo, "the cluster")
    shared = tmp_path / "shared.git"
    subprocess.run(["git", "clone", "-q", "--bare", seed.repo, str(shared)], check=True)
    out: dict[str, tuple[Path, dict[str, str]]] = {}
    short: list[Path] = []
    for name in ("build-1", "build-2"):
        home = tmp_path / name
        clone = home / "repo"
        subprocess.run(["git", "clone", "-q", str(shared), str(clone)], check=True)
        env = {k: v for k, v in os.environ.items() if k != "OMS_HOST"}
        state_home = Path(tempfile.mkdtemp(prefix="omsr"))  # a tmux socket's path is short
        short.append(state_home)
        env.update(
            HOME=str(home),
            XDG_CONFIG_HOME=str(home / ".config"),
            XDG_STATE_HOME=str(state_home),
        )
        settings = home / ".config/oms"
        settings.mkdir(parents=True)
        settings.chmod(0o700)
        (settings / "host.toml").write_text(host_toml.replace("build-1", name))
        (settings / "host.toml").chmod(0o600)
        out[name] = (clone, env)
    try:
        yield out
    finally:
        for _, env in out.values():  # each host's tmux server, if its conductor started one
            for sock in Path(env["XDG_STATE_HOME"]).glob("oms/*/tmux.sock"):
                subprocess.run(
                    ["tmux", "-S", str(sock), "kill-server"], capture_output=True, check=False
                )
        for path in short:
            shutil.rmtree(path, ignore_errors=True)


def _run_block(clone: Path, env: dict[str, str], started: list[subprocess.Popen[bytes]]) -> None:
    block = next(b for b in _blocks("sh") if b.startswith("oms init"))
    oms = " ".join(shlex.quote(a) for a in oms_command().argv)
    for line in block.strip().splitlines():
        command = oms + line[len("oms") :]
        if command.endswith("&"):
            background = ["sh", "-c", "exec " + command[:-1]]
            quiet = subprocess.DEVNULL
            started.append(
                subprocess.Popen(background, cwd=clone, env=env, stdout=quiet, stderr=quiet)
            )
            continue
        done = subprocess.run(
            ["sh", "-c", command], cwd=clone, env=env, capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, f"{line}: {done.stdout}{done.stderr}"


def test_the_readme_host_blocks_run_on_two_hosts(
    hosts: dict[str, tuple[Path, dict[str, str]]],
) -> None:
    started: list[subprocess.Popen[bytes]] = []
    try:
        for clone, env in hosts.values():
            _run_block(clone, env, started)
        clone, env = hosts["build-1"]

        def both_listed() -> bool:
            done = subprocess.run(
                [*oms_command().argv, "status", "--json"],
                cwd=clone, env=env, capture_output=True, text=True, check=False,
            )  # fmt: skip
            assert done.returncode == 0, done.stdout + done.stderr
            views = {v["host"]: v["state"] for v in json.loads(done.stdout)["hosts"]}
            return views == {"build-1": "up", "build-2": "up"}

        eventually(both_listed, timeout=60, what="both hosts' conductors beat")
        done = subprocess.run(
            [*oms_command().argv, "ticket", "list", "--json"],
            cwd=clone, env=env, capture_output=True, text=True, check=True,
        )  # fmt: skip
        assert done.stdout.count("Fix the flaky test") == 2  # both hosts' tickets
    finally:
        for proc in started:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
