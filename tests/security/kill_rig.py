"""The rig of `tests/security/exactly_once/test_kill_anywhere.py`: the real `oms` CLI in
subprocesses against a `deliverable` chain, a worker that counts its own starts, and a view of the
processes, panes and files each dispatch has.

Everything here looks from outside: the processes of a dispatch are found in /proc by the
`OMS_DISPATCH_ID` their environment carries (the sandbox's bubblewrap, the agent) or by the
`--dispatch-id` on their command line (the pane's supervisor); tmux is asked on the state root's own
socket. Only processes of this rig's dispatches, and tmux servers started on this rig's socket, are
ever signalled, by PID.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from oms.demo.scratch import WORKER_SCRIPT
from tests.chain import Chain, sandbox_dir
from tests.helpers import REPO, eventually

# One line per start in the worker's private home (`homes/command-<session>`, which outlives its
# panes: a resumed worker appends to the same file), then it waits like an agent that never
# finishes.
COUNTER = r"""#!/bin/sh
echo "start $$" >> "$HOME/starts.log"
exec sleep 600
"""
# The same, but slow to end like a real agent: it ignores SIGHUP and SIGTERM (a supervisor whose
# terminal hung up needs its SIGKILL, 4 s later).
STUBBORN = r"""#!/bin/sh
echo "start $$" >> "$HOME/starts.log"
trap '' HUP TERM
exec sleep 600
"""

Check = Callable[[], bool]


def poll(
    check: Check, timeout: float, what: str, interval: float = 0.01, stable: float = 0.0
) -> None:
    """Wait until `check()` holds — and keeps holding for `stable` seconds (a scan of /proc is no
    atomic snapshot: "nothing runs" is believed once it stays so) — or fail naming `what`
    (`tests.helpers.eventually`, polling at most every `interval` seconds)."""
    since: list[float] = []  # when `check()` last began to hold

    def held() -> bool:
        now = time.monotonic()
        if not check():
            since.clear()
            return False
        since[:] = since or [now]
        return now - since[0] >= stable

    eventually(held, timeout=timeout, what=what, first_poll=interval, max_poll=interval)


@dataclass(frozen=True)
class Proc:
    """One live process of a dispatch."""

    pid: int
    ppid: int
    comm: str
    role: str  # "bwrap" | "agent" | "supervisor" | "other"


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(1 << 20)
    except OSError:
        return None


def processes(dispatch_ids: set[str]) -> dict[str, list[Proc]]:
    """The live (not zombie) processes of each of `dispatch_ids`, from /proc."""
    found: dict[str, list[Proc]] = {d: [] for d in dispatch_ids}
    wanted_env = {f"OMS_DISPATCH_ID={d}".encode(): d for d in dispatch_ids}
    wanted_arg = {d.encode(): d for d in dispatch_ids}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        stat = _read(f"/proc/{name}/stat")
        if stat is None:
            continue
        close = stat.rfind(b")")
        comm = stat[stat.find(b"(") + 1 : close].decode("utf-8", "replace")
        tail = stat[close + 2 :].split()
        if not tail or tail[0] in (b"Z", b"X"):
            continue
        ppid = int(tail[1])
        owner: str | None = None
        role = "other"
        argv = (_read(f"/proc/{name}/cmdline") or b"").split(b"\0")
        if b"supervise" in argv and b"--dispatch-id" in argv:
            i = argv.index(b"--dispatch-id")
            owner = wanted_arg.get(argv[i + 1]) if i + 1 < len(argv) else None
            role = "supervisor"
        if owner is None:
            for var in (_read(f"/proc/{name}/environ") or b"").split(b"\0"):
                if var in wanted_env:
                    owner = wanted_env[var]
                    role = "bwrap" if comm == "bwrap" else "agent" if comm == "sleep" else "other"
                    break
        if owner is not None:
            found[owner].append(Proc(int(name), ppid, comm, role))
    return found


def servers_on(sock: str) -> list[int]:
    """The tmux servers started on `sock`: a server keeps the command line of the client that
    started it (`tmux -S <sock> new-session ...`), so one whose socket file was unlinked under it (a
    `kill-server` racing a `new-session` that finds the dying server's socket and starts another) is
    found here although `tmux -S <sock>` no longer reaches it."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or (_read(f"/proc/{name}/comm") or b"") != b"tmux: server\n":
            continue
        argv = (_read(f"/proc/{name}/cmdline") or b"").split(b"\0")
        if sock.encode() in argv:
            found.append(int(name))
    return found


def sandboxes(procs: list[Proc]) -> int:
    """How many sandboxes run: bubblewrap processes whose parent is not itself one of them."""
    bw = {p.pid for p in procs if p.role == "bwrap"}
    return sum(1 for p in procs if p.role == "bwrap" and p.ppid not in bw)


# What a process's command line and environment say about its dispatch, known until it execs:
# (the `--dispatch-id` of a supervisor's argv, the OMS_DISPATCH_ID values of its environment).
Claims = tuple[bytes | None, tuple[bytes, ...]]
_DISPATCH_VAR = b"OMS_DISPATCH_ID="


def _stat(pid: str) -> bytes | None:
    """/proc/<pid>/stat (one line of a few hundred bytes), read with the fewest calls."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        return os.read(fd, 4096)
    except OSError:
        return None
    finally:
        os.close(fd)


def _claims(pid: str, comm: str) -> Claims:
    argv = (_read(f"/proc/{pid}/cmdline") or b"").split(b"\0")
    arg = None
    if b"supervise" in argv and b"--dispatch-id" in argv:
        i = argv.index(b"--dispatch-id")
        arg = argv[i + 1] if i + 1 < len(argv) else None
    env: tuple[bytes, ...] = ()
    if comm in ("bwrap", "sleep"):  # the only roles with an environment the sampler counts
        environ = (_read(f"/proc/{pid}/environ") or b"").split(b"\0")
        env = tuple(v.removeprefix(_DISPATCH_VAR) for v in environ if v.startswith(_DISPATCH_VAR))
    return arg, env


@dataclass
class Sampler:
    """Samples /proc every few ms in a thread: the most sandboxes, agents and supervisors each
    dispatch ever had at once (two at once is the violation the sampled counts exist to catch).

    It counts what `processes` finds, but reads a process's command line and environment only when
    it first sees it and again after it execs (its comm or the address of its text, in
    /proc/<pid>/stat, changes: ASLR), which are all that change them: a sample of an unchanged
    /proc reads one stat file a process, about a quarter of what `processes` reads (the other
    readings block on each process's memory), so samples come several times as often for the same
    CPU, which they took from everything else the test runs."""

    dispatch_ids: set[str] = field(default_factory=set)
    most: dict[str, dict[str, int]] = field(default_factory=dict)
    samples: int = 0
    _stop: threading.Event = field(default_factory=threading.Event)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _thread: threading.Thread | None = None
    _known: dict[tuple[str, bytes, str, bytes], Claims] = field(default_factory=dict)

    def watch(self, dispatch_id: str) -> None:
        with self._lock:
            self.dispatch_ids.add(dispatch_id)
            self.most.setdefault(dispatch_id, {"sandboxes": 0, "agents": 0, "supervisors": 0})

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(10)

    def scan(self, dispatch_ids: set[str]) -> dict[str, list[Proc]]:
        """What `processes(dispatch_ids)` finds of the roles this sampler counts (supervisors,
        sandboxes' bubblewrap, agents), from the stat files and what `_known` says."""
        found: dict[str, list[Proc]] = {d: [] for d in dispatch_ids}
        wanted = {d.encode(): d for d in dispatch_ids}
        known: dict[tuple[str, bytes, str, bytes], Claims] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            stat = _stat(name)
            if stat is None:
                continue
            close = stat.rfind(b")")
            comm = stat[stat.find(b"(") + 1 : close].decode("utf-8", "replace")
            tail = stat[close + 2 :].split()
            if len(tail) < 24 or tail[0] in (b"Z", b"X"):
                continue
            key = (name, tail[19], comm, tail[23])  # pid, start time, comm, start of its text
            claims = self._known.get(key) or _claims(name, comm)
            known[key] = claims
            arg, env = claims
            if arg in wanted:
                found[wanted[arg]].append(Proc(int(name), int(tail[1]), comm, "supervisor"))
                continue
            owner = next((wanted[v] for v in env if v in wanted), None)
            if owner is not None:
                role = "bwrap" if comm == "bwrap" else "agent"  # env is read for these two only
                found[owner].append(Proc(int(name), int(tail[1]), comm, role))
        self._known = known
        return found

    def sample(self) -> None:
        with self._lock:
            ids = set(self.dispatch_ids)
        seen = self.scan(ids)
        with self._lock:
            self.samples += 1
            for dispatch_id, procs in seen.items():
                most = self.most[dispatch_id]
                most["sandboxes"] = max(most["sandboxes"], sandboxes(procs))
                most["agents"] = max(most["agents"], sum(p.role == "agent" for p in procs))
                most["supervisors"] = max(
                    most["supervisors"], sum(p.role == "supervisor" for p in procs)
                )

    def _run(self) -> None:
        while not self._stop.is_set():
            self.sample()
            self._stop.wait(0.005)


class Rig:
    """The chain, an `oms` executable that runs this checkout, and the CLI calls the tests make."""

    def __init__(self, chain: Chain, bindir: Path, *, stubborn: bool = False) -> None:
        self.chain = chain
        binary = os.environ.get("OMS_TEST_BINARY")
        if binary:
            self.exe = os.path.abspath(binary)
        # outside the state root's directory: the sandbox would otherwise show it (and oms refuses)
        else:
            wrapper = bindir / "oms"
            wrapper.write_text(f'#!/bin/sh\nPYTHONPATH={REPO} exec {sys.executable} -m oms "$@"\n')
            wrapper.chmod(0o755)
            self.exe = str(wrapper)
        self.env = {**os.environ, "OMS_EXECUTABLE": self.exe}
        self.sock = str(chain.state / "tmux.sock")
        counter = chain.base / "counter.sh"
        counter.write_text(STUBBORN if stubborn else COUNTER)
        counter.chmod(0o755)
        agent = chain.base / "agent.sh"
        agent.write_text(WORKER_SCRIPT)
        chain.edit_config(
            lambda s: s.replace('argv = ["true"]', f'argv = ["{counter}"]'), commit=True
        )
        self.started: set[str] = set()  # every dispatch this rig delivered

    # ------------------------------------------------------------------ the CLI
    def argv(self, *args: str) -> list[str]:
        where = [
            "--state-root",
            str(self.chain.state),
            "--config-root",
            str(self.chain.repo),
            "--json",
        ]
        return [self.exe, *args, *where]

    def spawn(self, *args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            self.argv(*args),
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=False,
        )

    def run(self, *args: str, timeout: float = 60) -> tuple[int, dict[str, object], str]:
        done = subprocess.run(
            self.argv(*args), env=self.env, capture_output=True, timeout=timeout, check=False
        )
        return done.returncode, json_doc(done.stdout), done.stderr.decode("utf-8", "replace")

    def deliver_until_answered(self, event_id: str, timeout: float = 60) -> dict[str, object]:
        """`oms worker deliver` again until it answers: its outcome, or the error it refuses with (a
        lock that a live resume or an orphaned deliverer still holds is retried)."""

        def answered() -> dict[str, object] | None:
            code, out, err = self.run("worker", "deliver", "--event-id", event_id)
            outcome = out.get("outcome")
            if isinstance(outcome, dict):
                return outcome
            if out.get("ok") is not False:  # (not a wait: fail at once)
                raise RuntimeError(f"deliver answered neither an outcome nor an error: {out} {err}")
            if out.get("error") != "lock-held":
                return {"status": "error", **out}
            raise AssertionError(f"deliver: lock held: {code} {out} {err}")

        return eventually(answered, timeout=timeout, what="deliver answers", max_poll=0.02)

    def observe(self, dispatch_id: str) -> dict[str, object]:
        code, out, err = self.run("worker", "observe", dispatch_id)
        assert code == 0, (out, err)
        return out

    # ------------------------------------------------------------------ what there is
    def session_id(self, dispatch_id: str) -> str:
        with self.chain.workspace() as ws:
            return str(ws.store.records("dispatch").read(dispatch_id).payload["session_id"])

    def starts(self, dispatch_id: str) -> int:
        home = sandbox_dir(self.chain.state) / "homes" / f"command-{self.session_id(dispatch_id)}"
        log = home / "starts.log"
        return len(log.read_text().splitlines()) if log.exists() else 0

    def panes(self) -> list[tuple[str, str, bool, str]]:
        """Every pane of the tmux server (session, pane id, dead, tag), tagged by oms or not."""
        fmt = "#{session_name}\t#{pane_id}\t#{pane_dead}\t#{@oms_dispatch}"
        done = subprocess.run(
            ["tmux", "-S", self.sock, "list-panes", "-a", "-F", fmt],
            capture_output=True,
            text=True,
            check=False,
        )
        if done.returncode != 0:
            return []
        rows = [line.split("\t") for line in done.stdout.splitlines()]
        return [(r[0], r[1], r[2] == "1", r[3]) for r in rows if len(r) == 4]

    def live_panes(self, dispatch_id: str) -> list[tuple[str, str, bool, str]]:
        return [p for p in self.panes() if not p[2] and dispatch_id in (p[0], p[3])]

    def procs(self, dispatch_id: str) -> list[Proc]:
        return processes({dispatch_id})[dispatch_id]

    def receipt(self, event_id: str) -> dict[str, object] | None:
        path = self.chain.state / "outbox" / "oms-worker-delivery" / f"{event_id}.receipt.json"
        return json.loads(path.read_text()) if path.exists() else None

    def tmux(self, *args: str) -> None:
        subprocess.run(["tmux", "-S", self.sock, *args], capture_output=True, check=False)

    # ------------------------------------------------------------------ the end
    def cleanup(self) -> list[str]:
        """Kill, by PID, whatever of this rig's dispatches still runs, and the tmux server on our
        socket (asked to end, then any server started on it killed by PID: one may run where the
        socket no longer reaches it); what had to be killed (a test that expected nothing to run
        reports it)."""
        self.tmux("kill-server")
        for pid in servers_on(self.sock):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        leftovers = []
        for dispatch_id, procs in processes(self.started).items():
            for p in procs:
                leftovers.append(f"{dispatch_id}: {p}")
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p.pid, signal.SIGKILL)
        return leftovers


def json_doc(out: bytes) -> dict[str, object]:
    try:
        doc = json.loads(out)
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}
