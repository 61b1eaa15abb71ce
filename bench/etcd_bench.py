"""The store on etcd against the store on files, in the same run (ADR 0043).

    .venv/bin/python bench/etcd_bench.py [--records 1000] [--samples 300]
        [--status-tickets 10000 (0: no `oms status` runs)] [--repeat 5] [--oms dist/oms/oms]
        [--deliveries 0 (N: `oms worker deliver` N times on each store)]
        [--tick-tickets 1000 (0: no ticks)] [--ticks 30]

Starts a real 3-member etcd cluster on loopback ports in a scratch directory (tests/etcd_cluster.py;
killed by pid at the end), fills `--records` worker records into a fresh state root and into the
cluster alike, then times, the two stores taking turns: a read of a random record's latest version,
and a compare-and-set transition of one record (`RecordStore.update`: read, decide, write; on etcd
with its ledger entry, ADR 0043 amendment `etcdledger`: by a store that knows the ledger's head, and
by a new one, as a new process's first write is), and the
client's bare round trip (a range of one key) for scale, and a host's heartbeat: written (files: a
beat file published and the older pruned; etcd: the key read, put under its lease fenced by the
conductor's lock of its host, the lease kept alive) and read (every host's, 3 hosts), and a
processing lock taken and let go (`Outbox.lock`: a lock file; etcd: a lease granted, the key
created under it, its keeper started, the lease revoked). Then `oms
status` as a new process (`--oms`: the frozen binary; from source by default) in two demo
repositories of `--status-tickets` open tickets each, one on files and one whose committed `[store]`
names the cluster, taking turns: the first run (it reads every record and writes the summary) and
the median of `--repeat` (it reads what changed: nothing), each with its CPU time (user and system:
what a run costs when the machine is busy). With `--deliveries N`, `oms worker deliver` as a new
process in two test chains (`tests/chain.py`: real git and tmux, a command worker that runs `true`),
one on files and one on the cluster (ADR 0043 amendment `etcddeliver`: its lock a lease, its writes
fenced), an accepted dispatch each, taking turns N times: wall and CPU. Then an idle conductor tick
(ADR 0043, amendment `etcdtick`) in two more repositories of `--tick-tickets` tickets each, files
and etcd, every one blocked for a person (nothing to fill, expire or resolve: the tick has nothing
to do), in this process under the conductor's lock, its memory kept from tick to tick as `oms
conductor run` keeps it, the two taking turns `--ticks` times. Prints medians, p90 and the ratios
etcd / files. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._common import (
    median_ms,
    p90_ms,
    pin_scratch_git,
    print_ratio,
    scratch_anchors,
    table,
    time_interleaved,
)
from oms.adapters import git
from oms.adapters.etcd import store as etcd_locks
from oms.adapters.etcd.client import Etcd
from oms.adapters.etcd.store import EtcdStore
from oms.canonical import add_ms, now
from oms.demo import scratch as demo
from oms.domain import hosts
from oms.domain import tickets as machine
from oms.limits import LIMITS
from oms.services.workspace import Workspace
from oms.store import Change, Record, RecordStore, StateRoot, Store
from oms.store.backend import Fence
from oms.store.hosts import Beats
from oms.store.ledger import LineKey
from oms.store.payloads import as_json
from tests.etcd_cluster import Cluster, pin_cluster
from tests.helpers import T0, payload

HOSTS = 3  # hosts whose heartbeats a read lists


def fill(store: Store, count: int) -> None:
    records = store.records("worker")
    for i in range(count):
        records.create(
            f"dsp-{i}",
            state="idle",
            payload=payload("worker"),
            operation_id="op-0",
            actor="oms-system",
            observed_at=T0,
        )


def concurrent(make: list[Store], each: int, tag: str) -> float:
    """Writes per second of `len(make)` threads creating `each` records apiece at once, each
    through its own store (on etcd: its own client and ledger head; every write also takes the
    next ledger entry, so they contend for one order, as writers on files queue on the log)."""
    start = threading.Barrier(len(make) + 1)

    def run(w: int, store: Store) -> None:
        records = store.records("worker")
        start.wait()
        for i in range(each):
            records.create(
                f"{tag}-{w}-{i}",
                state="idle",
                payload=payload("worker"),
                operation_id="op-0",
                actor="oms-system",
                observed_at=T0,
            )

    threads = [threading.Thread(target=run, args=(w, s)) for w, s in enumerate(make)]
    for thread in threads:
        thread.start()
    start.wait()
    began = time.perf_counter()
    for thread in threads:
        thread.join()
    return len(make) * each / (time.perf_counter() - began)


def fill_tickets(ws: Workspace, count: int, threads: int, *, blocked: bool = False) -> None:
    """`count` open tickets `tkt-1…`, as `oms ticket add` writes them (one body shared), written by
    `threads` writers (on etcd each with a client of its own: the cluster batches their commits);
    `blocked`: each waiting for a person instead (nothing for a tick to do)."""
    sha = ws.store.ticket_content.put(
        {
            "format": "oms-ticket-content-v1",
            "ticket_id": "tkt-1",
            "source": "local",
            "title": "ticket",
            "body": "",
            "repository": None,
            "url": None,
            "number": None,
        }
    )
    backend = ws.store.backend
    prefix = backend.prefix if isinstance(backend, EtcdStore) else None
    urls = [e.url for e in backend.client.endpoints] if isinstance(backend, EtcdStore) else []

    def write(numbers: range) -> None:
        line = backend.line if isinstance(backend, EtcdStore) else None
        store = None if prefix is None else EtcdStore(Etcd(urls), prefix, line)
        records = RecordStore(ws.store.state.root, "ticket", backend=store)
        for n in numbers:
            nxt = machine.new(
                title=f"ticket {n}",
                source="local",
                repository=None,
                content_sha256=sha,
                created_at=T0,
                repository_root=ws.config_root,
                added_by=ws.store.state.meta.key_id,
            )
            if blocked:
                nxt = machine.block(nxt.state, nxt.payload, reason="waits for a person")
            records.create(
                f"tkt-{n}",
                state=nxt.state,
                payload=as_json(nxt.payload),
                operation_id=f"op-{n}",
                actor="oms-system",
                observed_at=T0,
            )
        if store is not None:
            store.close()

    workers = [
        threading.Thread(target=write, args=(range(1 + i, count + 1, threads),))
        for i in range(threads)
    ]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def status_runs(
    base: Path, cluster: Cluster, count: int, repeat: int, oms: list[str]
) -> dict[str, list[float]]:
    """`oms status` in a repository on files and one on the cluster, `count` tickets each: the
    first run of each, then `repeat` runs of each taking turns (seconds)."""
    argvs = {}
    for name in ("files", "etcd"):
        run = demo._prepare(str(base / name))
        if name == "etcd":
            config = Path(run.repo) / ".oms" / "config.toml"
            config.write_text(
                config.read_text()
                + f'\n[store]\nbackend = "etcd"\nendpoints = {json.dumps(cluster.endpoints)}\n'
                + 'prefix = "/oms/bench-status/"\n'
            )
            git.commit_all(run.repo, "the store on etcd")
            pin_cluster(Path(run.repo), Path(run.state_root))  # as `oms store pin-cluster` does
        with Workspace.open(run.state_root, run.repo, etcd=True) as ws:
            fill_tickets(ws, count, 1 if ws.store.backend is None else 8)
        where = ["--state-root", run.state_root, "--config-root", run.repo]
        argvs[name] = [*oms, "status", *where]
    out: dict[str, list[float]] = {}
    for turn in range(repeat + 1):
        for name, argv in argvs.items():
            used = _children_cpu()
            began = time.perf_counter()
            subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, check=True)
            key = f"{name} first" if turn == 0 else name
            out.setdefault(key, []).append(time.perf_counter() - began)
            out.setdefault(f"{key} cpu", []).append(_children_cpu() - used)
    return out


def deliver_runs(
    base: Path, cluster: Cluster, count: int, oms: list[str]
) -> dict[str, list[float]]:
    """`oms worker deliver` of a fresh accepted dispatch, in a chain on files and one on the
    cluster, taking turns `count` times (seconds: wall, and CPU as `<name> cpu`)."""
    from tests.chain import Chain, accepted, make_chain

    class OnEtcd(Chain):
        def workspace(self) -> Workspace:
            return Workspace.open(str(self.state), str(self.repo), clock=self.clock, etcd=True)

    os.environ["OMS_EXECUTABLE"] = (
        oms[0] if len(oms) == 1 else str(Path(sys.executable).parent / "oms")
    )
    made = {name: make_chain(base / f"deliver-{name}") for name in ("files", "etcd")}
    chains: dict[str, Chain] = {}
    started = []
    try:
        for name, gen in made.items():
            (base / f"deliver-{name}").mkdir()
            chain = next(gen)
            started.append(gen)
            if name == "etcd":
                endpoints = json.dumps(cluster.endpoints)
                chain.edit_config(
                    lambda t, e=endpoints: (
                        t
                        + f'\n[store]\nbackend = "etcd"\nendpoints = {e}\n'
                        + 'prefix = "/oms/bench-deliver/"\n'
                    ),
                    commit=True,
                )
                pin_cluster(chain.repo, chain.state)
                chain = OnEtcd(chain.base, chain.repo, chain.state, chain.advisor)
            chains[name] = chain
        out: dict[str, list[float]] = {}
        for turn in range(count):
            for name, chain in chains.items():
                _, event_id = accepted(chain, f"Delivered {turn}")
                where = ["--state-root", str(chain.state), "--config-root", str(chain.repo)]
                used = _children_cpu()
                began = time.perf_counter()
                subprocess.run(
                    [*oms, "worker", "deliver", "--event-id", event_id, *where],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.PIPE,
                    check=True,
                )
                out.setdefault(name, []).append(time.perf_counter() - began)
                out.setdefault(f"{name} cpu", []).append(_children_cpu() - used)
        return out
    finally:
        for gen in started:
            next(gen, None)  # runs make_chain's end: its tmux server killed (its own socket)


TRIPS = [0]  # the etcd client's round trips in `tick_runs`
PER_TICK: list[int] = []  # and in each of its ticks on etcd


def tick_runs(base: Path, cluster: Cluster, count: int, ticks: int) -> dict[str, list[float]]:
    """An idle tick on files and on etcd, `count` blocked tickets each, the two taking turns `ticks`
    times (seconds), each under its conductor lock with its memory kept."""
    from oms.services.conductor import tick as conductor

    opened: list[tuple[str, Workspace, conductor.Memory]] = []
    with contextlib.ExitStack() as stack:
        for name in ("files", "etcd"):
            run = demo._prepare(str(base / f"tick-{name}"))
            if name == "etcd":
                config = Path(run.repo) / ".oms" / "config.toml"
                config.write_text(
                    config.read_text()
                    + f'\n[store]\nbackend = "etcd"\nendpoints = {json.dumps(cluster.endpoints)}\n'
                    + 'prefix = "/oms/bench-tick/"\n'
                )
                git.commit_all(run.repo, "the store on etcd")
                pin_cluster(Path(run.repo), Path(run.state_root))
            ws = stack.enter_context(Workspace.open(run.state_root, run.repo, etcd=True))
            ws.host_name = "bench"
            fill_tickets(ws, count, 1 if ws.store.backend is None else 8, blocked=True)
            stack.enter_context(conductor.lock(ws))  # held for the loop's life, as `run` holds it
            opened.append((name, ws, conductor.Memory()))

        def ticker(ws: Workspace, memory: conductor.Memory) -> Callable[[], object]:
            def one() -> None:
                before = TRIPS[0]
                conductor.tick(ws, held=True, memory=memory)
                if ws.store.backend is not None:
                    PER_TICK.append(TRIPS[0] - before)

            return one

        for _, ws, _ in opened:  # the client's round trips (etcd), counted: per tick, below
            backend = ws.store.backend
            if isinstance(backend, EtcdStore):
                call = backend.client.call

                def counted(path: str, body: dict[str, object], call: Any = call) -> object:
                    TRIPS[0] += 1
                    return call(path, body)

                backend.client.call = counted  # type: ignore[method-assign,assignment]
        try:
            return time_interleaved(
                {f"{name} idle tick": ticker(ws, memory) for name, ws, memory in opened}, ticks
            )
        finally:  # a pane a tick made (a worker it launched) ends with its project's server
            for _, ws, _ in opened:
                sock = Path(ws.store.path) / "tmux.sock"
                tmux = ["tmux", "-S", str(sock), "kill-server"]
                subprocess.run(tmux, capture_output=True, check=False)


def _children_cpu() -> float:
    """The CPU seconds (user and system) of this process's children that ended so far: on a busy
    machine a run's wall is mostly waiting for a core, its CPU is what it costs."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=1000)
    parser.add_argument("--samples", type=int, default=300)
    parser.add_argument("--status-tickets", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--oms", help="the oms to run `oms status` with (default: from source)")
    parser.add_argument(
        "--writers", type=int, default=0, help="also: N concurrent writers' writes/s (0: not)"
    )
    parser.add_argument(
        "--deliveries", type=int, default=0, help="also: `oms worker deliver` N times each (0: not)"
    )
    parser.add_argument("--tick-tickets", type=int, default=1000)
    parser.add_argument("--ticks", type=int, default=30)
    args = parser.parse_args()
    rng = random.Random(7)
    scratch_anchors()
    pin_scratch_git()
    with tempfile.TemporaryDirectory(prefix="oms-bench-") as scratch:
        # the person's settings, where each repository's cluster is pinned: the bench's own
        os.environ["XDG_CONFIG_HOME"] = f"{scratch}/person-config"
        os.makedirs(os.environ["XDG_CONFIG_HOME"], mode=0o700)
        cluster = Cluster(Path(scratch))
        try:
            cluster.start_all()
            state, _ = StateRoot.create(f"{scratch}/state", now())
            state.close()
            files = Store.open(f"{scratch}/state")
            client = Etcd(cluster.endpoints)
            line = LineKey.of(files.state.root, files.state.meta.key_id, files.state.signer)
            etcd_backend = EtcdStore(client, "/oms/bench/", line)
            etcd = Store(files.state, backend=etcd_backend)
            fill(files, args.records)
            fill(etcd, args.records)
            step = iter(range(1, 10**9))

            def reader(store: Store) -> object:
                records = store.records("worker")
                return lambda: records.read(f"dsp-{rng.randrange(args.records)}")

            def writer(store: Store) -> object:
                records = store.records("worker")

                def decide(_current: Record) -> Change:
                    v = next(step)
                    return Change(
                        "working", payload("worker"), f"op-{v}", "oms-system", add_ms(T0, v)
                    )

                return lambda: records.update("dsp-0", decide)

            cold = "/oms/bench-cold/"  # a prefix of its own: `etcd`'s cached head stays right
            fill(Store(files.state, backend=EtcdStore(client, cold, line)), 1)

            def first_write() -> object:  # a new process's first write: its ledger head unknown
                fresh = Store(files.state, backend=EtcdStore(client, cold, line))
                return writer(fresh)()  # type: ignore[operator]

            file_beats, etcd_beats = files.beats(), etcd.beats()
            held = etcd_locks.acquire(etcd_backend, "conductor/host-0", "bench")
            keeper = etcd_locks.Keeper(etcd_backend, held, LIMITS.etcd_lock_ttl_s)  # as a tick
            for host in range(HOSTS):  # every host beat once: a read lists them all
                beat = hosts.beat(f"host-{host}", T0, 1)
                file_beats.write(beat)
                etcd_beats.write(beat)

            def beater(beats: Beats, fence: Fence | None) -> object:
                def write() -> None:
                    beats.write(hosts.beat("host-0", add_ms(T0, next(step)), 1), fence)

                return write

            cases = {
                "files read": reader(files),
                "etcd read": reader(etcd),
                "files transition": writer(files),
                "etcd transition": writer(etcd),
                "etcd transition, head unknown": first_write,
                "etcd round trip": lambda: client.get("/oms/bench/latest/worker/dsp-0"),
                "files beat": beater(file_beats, None),
                "etcd beat (fenced)": beater(etcd_beats, held.fence),
                f"files beats read, {HOSTS} hosts": file_beats.read_all,
                f"etcd beats read, {HOSTS} hosts": etcd_beats.read_all,
                "files processing lock": lambda: files.outbox("bench").lock("evt-b").release(),
                "etcd processing lock": lambda: etcd.outbox("bench").lock("evt-b").release(),
            }
            times = time_interleaved(cases, args.samples)  # type: ignore[arg-type]
            keeper.close()
            rates: dict[str, float] = {}
            for round_ in range(3 if args.writers else 0):  # taking turns, best of 3
                for name in ("files", "etcd"):
                    own = [
                        EtcdStore(Etcd(cluster.endpoints), "/oms/bench/", line)
                        for _ in range(args.writers if name == "etcd" else 0)
                    ]
                    stores = [Store(files.state, backend=b) for b in own] or [files] * args.writers
                    rate = concurrent(stores, 50, f"{name}{round_}")
                    rates[name] = max(rates.get(name, 0.0), rate)
                    for backend in own:
                        backend.close()  # (its client; the state root is `files`')
            client.close()
            files.close()
            oms = [args.oms] if args.oms else [sys.executable, "-m", "oms"]
            status = (
                status_runs(Path(scratch), cluster, args.status_tickets, args.repeat, oms)
                if args.status_tickets
                else {}
            )
            delivered = (
                deliver_runs(Path(scratch), cluster, args.deliveries, oms)
                if args.deliveries
                else {}
            )
            ticks = (
                tick_runs(Path(scratch), cluster, args.tick_tickets, args.ticks)
                if args.tick_tickets
                else {}
            )
        finally:
            cluster.stop()

    rows = [
        [name, f"{median_ms(t):.3f}", f"{p90_ms(t):.3f}", f"{1000 / median_ms(t):.0f}"]
        for name, t in times.items()
    ]
    print(f"{args.records} records each, {args.samples} samples, 3 members on loopback\n")
    print(table(["case", "median ms", "p90 ms", "ops/s"], rows))
    print()
    n = args.records
    print_ratio(
        f"etcd read latest, {n} records",
        median_ms(times["etcd read"]),
        "files",
        median_ms(times["files read"]),
    )
    print_ratio(
        "etcd transition (read, decide, CAS)",
        median_ms(times["etcd transition"]),
        "files",
        median_ms(times["files transition"]),
    )
    print_ratio(
        "etcd transition, head unknown (a new process's first write)",
        median_ms(times["etcd transition, head unknown"]),
        "files",
        median_ms(times["files transition"]),
    )
    print_ratio(
        "etcd read latest",
        median_ms(times["etcd read"]),
        "etcd round trip",
        median_ms(times["etcd round trip"]),
    )
    for name, rate in rates.items():
        print(f"{args.writers} concurrent writers on {name}: {rate:.0f} writes/s (best of 3)")
    print_ratio(
        "etcd heartbeat (get, fenced put, keepalive)",
        median_ms(times["etcd beat (fenced)"]),
        "files",
        median_ms(times["files beat"]),
    )
    print_ratio(
        f"etcd heartbeats read, {HOSTS} hosts",
        median_ms(times[f"etcd beats read, {HOSTS} hosts"]),
        "files",
        median_ms(times[f"files beats read, {HOSTS} hosts"]),
    )
    print_ratio(
        "etcd processing lock (grant, create, keeper, revoke)",
        median_ms(times["etcd processing lock"]),
        "files",
        median_ms(times["files processing lock"]),
    )
    print()
    if delivered:
        print(
            table(
                ["`oms worker deliver`", "median ms", "p90 ms", "CPU median ms"],
                [
                    [
                        f"{name}, {args.deliveries} runs",
                        f"{statistics.median(delivered[name]) * 1000:.0f}",
                        f"{p90_ms(delivered[name]):.0f}",
                        f"{statistics.median(delivered[name + ' cpu']) * 1000:.0f}",
                    ]
                    for name in ("files", "etcd")
                ],
            )
        )
        print()
        print_ratio(
            "`oms worker deliver` on etcd",
            statistics.median(delivered["etcd"]) * 1000,
            "files",
            statistics.median(delivered["files"]) * 1000,
        )
        print_ratio(
            "`oms worker deliver` on etcd, CPU",
            statistics.median(delivered["etcd cpu"]) * 1000,
            "files",
            statistics.median(delivered["files cpu"]) * 1000,
        )
        print()
    if ticks:
        n = args.tick_tickets
        print(
            table(
                ["idle tick", "median ms", "p90 ms"],
                [
                    [f"{name}, {n} tickets", f"{median_ms(t):.1f}", f"{p90_ms(t):.1f}"]
                    for name, t in ticks.items()
                ],
            )
        )
        print()
        print_ratio(
            f"an idle tick on etcd, {n} tickets",
            median_ms(ticks["etcd idle tick"]),
            "files",
            median_ms(ticks["files idle tick"]),
        )
        trips = PER_TICK[-args.ticks :]
        print(
            f"round trips to etcd a tick (the last {len(trips)}): median "
            f"{statistics.median(trips):g}, most {max(trips)}"
        )
        print()
    n = args.status_tickets
    if not n:
        return 0
    print(
        table(
            ["`oms status`", "first run ms", "median ms", "CPU median ms"],
            [
                [
                    f"{name}, {n} tickets",
                    f"{status[name + ' first'][0] * 1000:.0f}",
                    f"{statistics.median(status[name]) * 1000:.0f}",
                    f"{statistics.median(status[name + ' cpu']) * 1000:.0f}",
                ]
                for name in ("files", "etcd")
            ],
        )
    )
    print()
    print_ratio(
        f"`oms status` on etcd, {n} tickets",
        statistics.median(status["etcd"]) * 1000,
        "files",
        statistics.median(status["files"]) * 1000,
    )
    print_ratio(
        f"`oms status` on etcd, {n} tickets, first run",
        status["etcd first"][0] * 1000,
        "files",
        status["files first"][0] * 1000,
        stat="one run",
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
