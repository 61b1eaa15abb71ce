"""Hosts on one etcd cluster (issue 28; ADR 0043, amendment `hosts3`): how cost grows with hosts,
and the three-host chaos as a soak.

    .venv/bin/python bench/hosts_chaos_bench.py [--small] [--repeat 5] [--chaos]
        [--tickets 60] [--seconds 600] [--gap 5] [--settle 900] [--seed 28]

The rig (`tests/hosts_rig.py`): a real 3-member etcd cluster and three hosts on this machine, each
a network namespace with its own state root, settings and clone of one bare repository (root and
`ip` needed). **Cost by hosts**: with 1, 2 and 3 hosts beating (each host's `oms conductor tick`
run once: its heartbeat under its lease), host-a's idle `oms conductor tick` and its `oms ticket
add` (a ticket's overhead: the write every ticket costs) are timed, the cases taking turns with
the same commands on state roots of files (the demo's project without `[store]`: one ticked, never
given a ticket, one given the tickets, never ticked) in the same run. The adds are timed after
every tick (with every host up): a tick on etcd launches queued tickets, so none is queued while
the ticks are timed.
**The chaos** (`--chaos`): `tests/hosts_chaos.py` with `--tickets` tickets on the three hosts —
SIGKILLs of conductors, deliverers and brokers, an etcd member killed and restarted, a host
partitioned longer than its lock's lease, a host's clock stepped — then the counts that must be 0
(duplicate launches, lost results, unfenced writes, the unsettled, unclean audits). A store
whose tick does not launch on etcd is named and exits 1.
`--small` (CI's run, tests/bench/test_benches_run.py): 1 and 3 hosts, one sample each.
"""

from __future__ import annotations

import argparse
import contextlib
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import median_ms, pin_scratch_git, print_ratio, scratch_anchors, time_interleaved
from oms.demo import scratch as demo
from tests.etcd_cluster import Cluster
from tests.helpers import oms_command
from tests.hosts_chaos import dumps, run
from tests.hosts_rig import HOSTS, Host, Network, Rig, make_rig, netns_problem

NOT_YET = "not on an etcd store yet"


def _runner(argv: list[str], env: dict[str, str] | None = None) -> Callable[[], None]:
    def once() -> None:
        subprocess.run(
            argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True
        )

    return once


def _host_call(host: Host, *args: str) -> Callable[[], None]:
    roots = ("--state-root", str(host.state), "--config-root", str(host.repo))
    return _runner(host.argv(*oms_command().argv, *args, *roots), host.env())


def _files_call(state: str, repo: str, *args: str) -> Callable[[], None]:
    return _runner([*oms_command().argv, *args, "--state-root", state, "--config-root", repo])


def by_hosts(rig: Rig, base: Path, counts: list[int], repeat: int, warmup: int) -> None:
    files = demo._prepare(str(base / "files"))  # ticked: never given a ticket, so idle
    added = demo._prepare(str(base / "added"))  # given the tickets, never ticked
    hosts = [rig.hosts[name] for name in HOSTS]
    titles = iter(range(1_000_000))
    for count in counts:
        for host in hosts[:count]:  # each beats once: `count` hosts are up
            done = host.oms("conductor", "tick", "--json")
            assert done.returncode == 0, done.stdout + done.stderr
        tick = time_interleaved(
            {
                "etcd": _host_call(hosts[0], "conductor", "tick", "--json"),
                "files": _files_call(files.state_root, files.repo, "conductor", "tick", "--json"),
            },
            repeat,
            warmup=warmup,
        )
        print_ratio(
            f"an idle `oms conductor tick` on etcd, {count} hosts up",
            median_ms(tick["etcd"]),
            "on files",
            median_ms(tick["files"]),
        )

    # the adds after every tick: a tick on etcd launches queued tickets, so none is queued
    # while the ticks are timed (the adds' tickets stay queued: the rig is not ticked again)

    def add_etcd() -> None:
        _host_call(hosts[0], "ticket", "add", "--title", f"t {next(titles)}", "--body", "x")()

    def add_files() -> None:
        argv = ("ticket", "add", "--title", f"t {next(titles)}", "--body", "x")
        _files_call(added.state_root, added.repo, *argv)()

    add = time_interleaved({"etcd": add_etcd, "files": add_files}, repeat, warmup=warmup)
    print_ratio(
        f"`oms ticket add` on etcd, {counts[-1]} hosts up",
        median_ms(add["etcd"]),
        "on files",
        median_ms(add["files"]),
    )


def chaos(rig: Rig, cluster: Cluster, args: argparse.Namespace) -> int:
    host = rig.hosts["host-a"]
    host.oms("ticket", "add", "--title", "probe", "--body", "does a tick launch?")
    tick = host.oms("conductor", "tick", "--json")
    if NOT_YET in tick.stdout + tick.stderr:
        print("the chaos needs a tick that launches on etcd: its deliver and fill say "
              f"'{NOT_YET}' (branch etcddeliver)", flush=True)  # fmt: skip
        return 1
    outcome = run(
        rig, cluster, seed=args.seed, tickets_n=args.tickets, seconds=args.seconds,
        gap=args.gap, settle_s=args.settle,
    )  # fmt: skip
    print(dumps(outcome), flush=True)
    for line in outcome.bad():
        print(f"violation: {line}", flush=True)
    return 1 if outcome.bad() else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--small", action="store_true", help="CI's size: 1 and 3 hosts, 1 sample")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--chaos", action="store_true", help="then run the three-host chaos")
    parser.add_argument("--tickets", type=int, default=60)
    parser.add_argument("--seconds", type=float, default=600.0)
    parser.add_argument("--gap", type=float, default=5.0)
    parser.add_argument("--settle", type=float, default=900.0)
    parser.add_argument("--seed", type=int, default=28)
    args = parser.parse_args()
    problem = netns_problem()
    if problem is not None:
        print(f"the rig cannot run here: {problem}", file=sys.stderr)
        return 1
    print(f"seed: {args.seed}", flush=True)
    pin_scratch_git()
    scratch_anchors()
    counts, repeat, warmup = ([1, 3], 1, 0) if args.small else ([1, 2, 3], args.repeat, 1)
    tmp = Path(tempfile.mkdtemp(prefix="oms-hosts-"))
    network = Network(HOSTS)
    cluster = Cluster(tmp / "etcd", address=network.gateway)
    (tmp / "etcd").mkdir()
    rigs = None
    try:
        cluster.start_all()
        rigs = make_rig(tmp / "rig", network, cluster.endpoints, "/oms-bench/", stepped=("host-b",))
        rig = next(rigs)
        by_hosts(rig, tmp, counts, repeat, warmup)
        return chaos(rig, cluster, args) if args.chaos else 0
    finally:
        if rigs is not None:
            with contextlib.suppress(StopIteration):
                next(rigs)
        cluster.stop()
        network.close()
        for project in ("files", "added"):  # a tmux server a files tick started, if any
            sock = tmp / project / "state" / "tmux.sock"
            subprocess.run(
                ["tmux", "-S", str(sock), "kill-server"], capture_output=True, check=False
            )
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
