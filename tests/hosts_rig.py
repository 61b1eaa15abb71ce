"""A rig of hosts on one etcd cluster (issue 28; ADR 0043, amendment `hosts3`), shared by
`tests/integration/etcd/test_hosts_rig.py`, `tests/integration/etcd/test_hosts_chaos.py` and
`bench/hosts_chaos_bench.py`.

- **The network.** A bridge in the root network namespace holds the cluster's client address
  (`Network.gateway`); each host is a network namespace of its own (`ip netns`) joined to the
  bridge by a veth pair, with its own loopback (its model proxy, its brokers). Every process of a
  host (its `oms` commands, its conductor, the tmux server that conductor starts, its panes,
  their bubblewrap sandboxes) runs in its namespace (`nsenter --net`), so a host reaches the
  cluster only through its link. **A partition** is that link taken down (`Network.cut`): the
  host's packets go nowhere — a call in flight waits out its deadline, a new one is not answered,
  exactly as a cable pulled — until `Network.heal` brings it up. The members listen on the bridge's
  address, their peers on loopback: a partition cuts a host, never the cluster.
- **A host** (`Host`): its name (`OMS_HOST`), its state root, its `XDG_CONFIG_HOME`, its clone of
  one shared bare repository (a result branch reaches the others through it), its tmux server (the
  state root's private socket), its conductor process.
- **A clock stepped on one host** (`Host.step_clock`): the host's Python processes (its `oms`
  commands, its conductor, the supervisors its conductor starts) start with `tests/clockstep/`
  first on `PYTHONPATH`, whose `sitecustomize` adds the offset in the host's clock file to
  `time.time`/`time.time_ns` — oms's clock — re-read at most once a second; writing the file steps
  the wall clock of every such process of the host at once, the monotonic clock untouched (as a
  real step). A harness seam, not oms's. Debian's libfaketime was tried first and rejected: it
  hangs a Python thread's timed wait (the lease keeper's `Event.wait`), and with
  `FAKETIME_DONT_FAKE_MONOTONIC` `time.sleep` fails with EINVAL. Only the hosts named `stepped`
  get the seam; the frozen binary ignores `PYTHONPATH`, so the step needs oms run from source.

Every host's namespace, the bridge and the processes the rig started are removed by `close()`
(and by the generator `make_rig`'s end); the cluster is the caller's (`tests/etcd_cluster.py`).
Root and `ip` are needed (`needs_netns`)."""

from __future__ import annotations

import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from oms.adapters import git
from oms.demo import scratch as demo
from oms.services.admin.setup import init
from tests.etcd_cluster import pin_cluster
from tests.helpers import eventually, oms_command

IP = shutil.which("ip")
NSENTER = shutil.which("nsenter") or "nsenter"
CLOCKSTEP = Path(__file__).with_name("clockstep")
HOSTS = ("host-a", "host-b", "host-c")
STANDIN = Path(__file__).with_name("host_standin.py")


def netns_problem() -> str | None:
    """Why this machine cannot give the rig its namespaces (None: it can)."""
    if IP is None:
        return "`ip` (iproute2) is not installed"
    if os.geteuid() != 0:
        return "network namespaces need root"
    return None


needs_netns = pytest.mark.skipif(netns_problem() is not None, reason=str(netns_problem()))


def _ip(*args: str, ns: str | None = None) -> None:
    assert IP is not None
    argv = [IP, "netns", "exec", ns, IP, *args] if ns else [IP, *args]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)}: {done.stderr.strip()}")


def _used_subnets() -> set[str]:
    assert IP is not None
    out = subprocess.run([IP, "-4", "-o", "addr"], capture_output=True, text=True, check=True)
    used = set()
    for line in out.stdout.splitlines():
        for word in line.split():
            if word.count(".") == 3 and "/" in word:
                used.add(".".join(word.split("/")[0].split(".")[:3]))
    return used


class Network:
    """A bridge holding the cluster's address and one namespace per host, each joined to it by a
    veth pair; `cut`/`heal` take a host's link down and up."""

    def __init__(self, hosts: tuple[str, ...]) -> None:
        tag = secrets.token_hex(3)
        used = _used_subnets()
        free = [f"10.{a}.{b}" for a in range(200, 250) for b in range(256)]
        rng = secrets.SystemRandom()
        subnet = next(s for s in rng.sample(free, 64) if s not in used)
        self.bridge = f"omsbr{tag}"
        self.gateway = f"{subnet}.1"
        self.namespaces: dict[str, str] = {}
        self.links: dict[str, str] = {}
        self.addresses: dict[str, str] = {}
        try:
            _ip("link", "add", self.bridge, "type", "bridge")
            _ip("addr", "add", f"{self.gateway}/24", "dev", self.bridge)
            _ip("link", "set", self.bridge, "up")
            for i, host in enumerate(hosts):
                ns, outer, inner = f"oms-{tag}-{host}", f"omsv{tag}{i}", f"omsi{tag}{i}"
                _ip("netns", "add", ns)
                self.namespaces[host] = ns
                _ip("link", "add", outer, "type", "veth", "peer", "name", inner)
                self.links[host] = outer
                _ip("link", "set", inner, "netns", ns)
                _ip("link", "set", outer, "master", self.bridge)
                _ip("link", "set", outer, "up")
                address = f"{subnet}.{10 + i}"
                self.addresses[host] = address
                _ip("addr", "add", f"{address}/24", "dev", inner, ns=ns)
                _ip("link", "set", inner, "up", ns=ns)
                _ip("link", "set", "lo", "up", ns=ns)
        except BaseException:
            self.close()
            raise

    def cut(self, host: str) -> None:
        """Partition `host`: its link down, nothing it sends reaches the cluster."""
        _ip("link", "set", self.links[host], "down")

    def heal(self, host: str) -> None:
        _ip("link", "set", self.links[host], "up")

    def close(self) -> None:
        for outer in self.links.values():
            with contextlib.suppress(RuntimeError):
                _ip("link", "del", outer)
        for ns in self.namespaces.values():
            with contextlib.suppress(RuntimeError):
                _ip("netns", "del", ns)
        with contextlib.suppress(RuntimeError):
            _ip("link", "del", self.bridge)


@dataclass
class Host:
    """One simulated host: its namespace, name, state root, settings, clone and processes."""

    name: str
    ns: str
    base: Path
    stepped: bool = False
    procs: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def state(self) -> Path:
        return self.base / "state"

    @property
    def repo(self) -> Path:
        return self.base / "repo"

    @property
    def config_home(self) -> Path:
        return self.base / "config"

    @property
    def clock_file(self) -> Path:
        return self.base / "clock"

    def env(self) -> dict[str, str]:
        """The environment of this host's processes."""
        env = dict(os.environ)
        env.update(OMS_HOST=self.name, XDG_CONFIG_HOME=str(self.config_home))
        binary = os.environ.get("OMS_TEST_BINARY")
        env["OMS_EXECUTABLE"] = (
            os.path.abspath(binary) if binary else str(Path(sys.executable).parent / "oms")
        )
        if self.stepped:
            path = [str(CLOCKSTEP), *filter(None, [os.environ.get("PYTHONPATH")])]
            env.update(PYTHONPATH=os.pathsep.join(path), OMS_RIG_CLOCK_FILE=str(self.clock_file))
        return env

    def argv(self, *argv: str) -> list[str]:
        """`argv` in this host's network namespace, and in no other new namespace: `nsenter
        --net`, not `ip netns exec`, which also makes a mount namespace with `/sys` mounted anew,
        where no cgroup v2 is mounted (a sandbox's cgroup is then refused: "needs a person")."""
        return [NSENTER, f"--net=/run/netns/{self.ns}", *argv]

    def oms(self, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """`oms *args` run as this host, in its namespace, on its state root and clone."""
        roots = ("--state-root", str(self.state), "--config-root", str(self.repo))
        return subprocess.run(
            self.argv(*oms_command().argv, *args, *roots),
            capture_output=True,
            text=True,
            env=self.env(),
            timeout=timeout,
            check=False,
        )

    def start(self, *argv: str, out: Path) -> subprocess.Popen[bytes]:
        """A long-lived process of this host (its own process group), its output to `out`."""
        with out.open("ab") as sink:
            proc = subprocess.Popen(
                self.argv(*argv),
                env=self.env(),
                stdin=subprocess.DEVNULL,
                stdout=sink,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        self.procs.append(proc)
        return proc

    def start_conductor(self, interval: str = "1") -> subprocess.Popen[bytes]:
        """`oms conductor run` of this host."""
        roots = ("--state-root", str(self.state), "--config-root", str(self.repo))
        argv = (*oms_command().argv, "conductor", "run", *roots, "--interval", interval, "--json")
        return self.start(*argv, out=self.base / "conductor.jsonl")

    def start_standin(self, lease_s: int, ttl: int) -> subprocess.Popen[bytes]:
        """`tests/host_standin.py`: the conductor's lock and heartbeat of this host, taken and
        renewed through the service functions (what is served on etcd before the tick is)."""
        argv = (sys.executable, str(STANDIN), str(self.state), str(self.repo), str(lease_s))
        out = self.base / "standin.jsonl"
        out.unlink(missing_ok=True)  # its events are this stand-in's
        return self.start(*argv, str(ttl), out=out)

    def standin_events(self) -> list[dict[str, object]]:
        return _json_lines(self.base / "standin.jsonl")

    def kill(self, proc: subprocess.Popen[bytes]) -> None:
        """SIGKILL `proc`'s process group (it started one) and reap it."""
        if proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        if proc in self.procs:
            self.procs.remove(proc)

    def step_clock(self, seconds: int) -> None:
        """Step the wall clock of every process of this host by `seconds` (from its start)."""
        assert self.stepped, f"{self.name} has no stepped clock (`stepped`)"
        self.clock_file.write_text(f"{seconds}\n")

    def kill_tmux(self) -> None:
        subprocess.run(
            self.argv("tmux", "-S", f"{self.state}/tmux.sock", "kill-server"),
            capture_output=True,
            check=False,
        )

    def close(self) -> None:
        for proc in list(self.procs):
            self.kill(proc)
        self.kill_tmux()


def _json_lines(path: Path) -> list[dict[str, object]]:
    out = []
    if path.exists():
        for line in path.read_bytes().split(b"\n")[:-1]:
            with contextlib.suppress(ValueError):
                out.append(json.loads(line))
    return out


@dataclass
class Rig:
    """The shared bare repository (its committed `[store]` names the cluster) and the hosts."""

    base: Path
    network: Network
    endpoints: list[str]
    prefix: str
    hosts: dict[str, Host]

    def close(self) -> None:
        for host in self.hosts.values():
            host.close()


def store_table(endpoints: list[str], prefix: str) -> str:
    """The committed `[store]` of a repository whose records are the cluster's."""
    return (
        f'\n[store]\nbackend = "etcd"\nendpoints = {json.dumps(endpoints)}\nprefix = "{prefix}"\n'
    )


def make_rig(
    base: Path,
    network: Network,
    endpoints: list[str],
    prefix: str,
    *,
    stepped: tuple[str, ...] = (),
    max_workers: int = 2,
) -> Iterator[Rig]:
    """The rig in `base` over `network`'s hosts: the demo's project (its command worker) with a
    `[store]` naming the cluster, pushed to a bare repository that every host clones; a state
    root per host. Closing the generator ends every process the rig started."""
    seed = demo._prepare(str(base / "seed"), max_workers=max_workers)
    config = Path(seed.repo, ".oms/config.toml")
    config.write_text(config.read_text() + store_table(endpoints, prefix))
    git.commit_all(seed.repo, "the rig's store: the etcd cluster")
    shared = base / "shared.git"
    subprocess.run(["git", "clone", "-q", "--bare", seed.repo, str(shared)], check=True)
    hosts = {}
    for name, ns in network.namespaces.items():
        host = Host(name, ns, base / name, stepped=name in stepped)
        host.base.mkdir()
        host.config_home.mkdir(mode=0o700)
        host.clock_file.write_text("0\n")
        subprocess.run(["git", "clone", "-q", str(shared), str(host.repo)], check=True)
        init(str(host.state), str(host.repo))
        pin_cluster(host.repo, host.state, host.config_home)  # `oms store pin-cluster` there
        hosts[name] = host
    pin_keys(hosts)
    rig = Rig(base, network, endpoints, prefix, hosts)
    try:
        yield rig
    finally:
        rig.close()


def pin_keys(hosts: dict[str, Host]) -> None:
    """Each host's state key pinned on every other (`oms host key`'s line under `[hosts]` in their
    `etcd.toml`; ADR 0043, amendment `hostkeys`), so each host's `oms audit verify` vouches for
    the others' ledger entries."""
    lines = {}
    for name, host in hosts.items():
        done = host.oms("host", "key")
        assert done.returncode == 0, done.stdout + done.stderr
        lines[name] = done.stdout.strip()
    for name, host in hosts.items():
        settings = host.config_home / "oms"
        settings.mkdir(mode=0o700, exist_ok=True)
        others = [line for other, line in lines.items() if other != name]
        path = settings / "etcd.toml"
        path.write_text("[hosts]\n" + "\n".join(others) + "\n")
        path.chmod(0o600)


def answers(host: Host) -> bool:
    """Whether `host` reaches the cluster now (`oms ticket list` answers)."""
    return host.oms("ticket", "list", "--json", timeout=60).returncode == 0


def wait_reaches(host: Host, timeout: float = 60) -> None:
    eventually(lambda: answers(host), timeout=timeout, what=f"{host.name} reaches the cluster")
