"""`oms worker supervise` with a launch spec of our own: the sandbox starts, the broker serves, the
end is recorded (status, signal, or why the sandbox never started), the socket and mount points are
cleaned."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from oms.adapters import bwrap
from oms.adapters.sandbox import exec_marked, system_args
from oms.canonical import Json, JsonObject, now
from oms.domain.sandbox_limits import SandboxLimits
from oms.fsio import Root
from oms.services.delivery import spec as launch_spec
from oms.services.delivery import start_guard
from oms.store import RecordStore, StateRoot, sandboxes
from oms.store.payloads import as_json
from tests.helpers import eventually, oms_command, payload, stays

SESSION_ID = "11111111-2222-4333-8444-555555555555"


def _spec(
    state: Path,
    worktree: Path,
    command: list[str],
    sandbox: list[str] | None = None,
    *,
    worker: bool = True,
    session: bool = True,
    limits: SandboxLimits | None = None,
    trees: list[str] | None = None,
    dispatch_id: str = "dsp-1",
) -> None:
    host = bwrap.host()
    minimal = [
        "--unshare-user",
        "--unshare-pid",
        "--die-with-parent",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
    ]
    minimal += system_args(host.system)
    minimal += [
        "--bind",
        str(worktree),
        str(worktree),
        "--tmpfs",
        str(worktree / ".codex"),
        "--chdir",
        str(worktree),
    ]
    minimal += [
        "--tmpfs",
        "/oms/git",
    ]  # where the repository config is shown (a mount: remounted read-only)
    doc: JsonObject = {
        "format": "oms-launch-v1",
        "dispatch_id": dispatch_id,
        "session_id": SESSION_ID,
        "provider": "command",
        "provider_version": "command-1",
        "allowed_tools": [],
        "nonce": "0" * 64,
        "config_root": str(worktree),
        "worktree": str(worktree),
        "bwrap": bwrap.locate(),
        "sandbox": list[Json](sandbox if sandbox is not None else minimal),
        "command": list[Json](command),
        "env": {"PATH": "/usr/bin:/bin", "HOME": "/"},
        "placeholders": [str(worktree / ".codex")],
        "git_config_path": "/oms/git/config",
        "git_config": "[core]\n\tbare = false\n",
        "created_at": now(),
        "limits": (limits or SandboxLimits()).to_json(),
        "disk_trees": list[Json](trees or [str(worktree)]),
        "sandbox_dir": _sandbox_dir(state),
    }
    with Root.open(str(state)) as root:
        launch_spec.write(root, doc)
        if worker and RecordStore(root, "worker").read_if_exists(dispatch_id) is None:
            RecordStore(root, "worker").create(  # an idle reservation, as delivery leaves it
                dispatch_id,
                state="idle",
                payload=payload("worker", dispatch_id=dispatch_id),
                operation_id="op-w",
                actor="oms-system",
                observed_at=now(),
            )
        if worker and session and RecordStore(root, "session").read_if_exists(SESSION_ID) is None:
            RecordStore(
                root, "session"
            ).create(  # the session its launch registers just after the pane
                SESSION_ID,
                state="running",
                payload=payload("session", dispatch_id=dispatch_id),
                operation_id="op-s",
                actor="oms-system",
                observed_at=now(),
            )


def _sandbox_dir(state: Path) -> str:
    """The state root's sandbox directory (made the first time): where the broker's socket goes."""
    opened = StateRoot.open(str(state))
    try:
        with sandboxes.open_dir(opened.root, opened.meta.key_id, now()) as found:
            return found.path
    finally:
        opened.close()


@pytest.fixture
def state(tmp_path: Path) -> Path:
    path = tmp_path / "state"
    StateRoot.create(str(path), now())[0].close()
    return path


def _supervise(state: Path, dispatch_id: str = "dsp-1") -> int:
    """A real supervisor process, as a pane starts it (its lowest descriptors free for the exec
    marker)."""
    argv = [
        *oms_command().argv,
        "worker",
        "supervise",
        "--dispatch-id",
        dispatch_id,
        "--state-root",
        str(state),
    ]
    return subprocess.run(argv, stdin=subprocess.DEVNULL, timeout=120, check=False).returncode


def _ended(state: Path, dispatch_id: str = "dsp-1") -> dict[str, object]:
    doc = json.loads((state / "panes" / f"{dispatch_id}.exit.json").read_text())
    assert isinstance(doc, dict)
    return doc


@pytest.mark.parametrize(
    ("script", "status", "signum"),
    [
        ("exit 7", 7, None),
        ("kill -TERM $$", None, 15),
        ("kill -KILL $$", None, 9),
        ("true", 0, None),
    ],
)
def test_the_end_of_the_sandbox_is_recorded(
    state: Path, tmp_path: Path, script: str, status: int | None, signum: int | None
) -> None:
    worktree = tmp_path / "wt"
    worktree.mkdir()
    _spec(state, worktree, ["/bin/sh", "-c", script])
    code = _supervise(state)
    ended = _ended(state)
    assert (ended["status"], ended["signal"]) == (status, signum)
    assert code == (status if status is not None else 128 + (signum or 0))
    assert not (
        state / "panes" / "dsp-1.launch.json"
    ).exists()  # read once: it holds the credential
    assert not Path(_sandbox_dir(state), "brokers", "dsp-1.sock").exists()
    assert not (
        state / "panes" / "dsp-1.init.json"
    ).exists()  # its init is gone, and so is its record
    assert not (worktree / ".codex").exists()  # the sandbox's mount point is gone with it
    assert os.listdir(worktree) == []


def test_a_sandbox_that_cannot_start_says_so(state: Path, tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    worktree.mkdir()
    _spec(state, worktree, ["/bin/true"], sandbox=["--ro-bind", str(tmp_path / "missing"), "/x"])
    assert _supervise(state) == 1
    ended = _ended(state)
    assert ended["status"] == 1
    assert "the sandbox did not start" in str(ended["detail"])


def test_the_agent_sees_its_worktree_and_not_the_state_root(state: Path, tmp_path: Path) -> None:
    worktree = tmp_path / "wt"
    worktree.mkdir()
    probe = (
        f"test -d '{worktree}' && ! test -e '{state}' && ! test -e "
        f"'{tmp_path}/state' && echo seen > seen.txt"
    )
    _spec(state, worktree, ["/bin/sh", "-c", probe])
    assert _supervise(state) == 0
    assert (worktree / "seen.txt").read_text() == "seen\n"


def test_the_sandbox_cannot_reach_a_host_abstract_socket(state: Path, tmp_path: Path) -> None:
    """The network is shared (the model API), and abstract Unix sockets live in the network
    namespace: the Landlock scope the supervisor puts the sandbox in keeps them out of reach (found
    by the escape suite)."""
    import socket

    from oms.process import landlock

    if not landlock.scoping():
        pytest.fail(
            "this kernel has no Landlock scopes: the host's abstract sockets would be reachable"
        )
    name = f"oms-test-canary-{os.getpid()}"
    canary = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    canary.bind("\0" + name)
    canary.listen(1)
    worktree = tmp_path / "wt"
    worktree.mkdir()
    probe = (
        "import socket\n"
        "s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)\n"
        f"try:\n    s.connect('\\0{name}')\n    print('REACHED')\n"
        "except OSError as e:\n    print('refused', e.errno)\n"
    )
    _spec(state, worktree, ["/usr/bin/python3", "-c", probe])
    try:
        argv = [
            *oms_command().argv,
            "worker",
            "supervise",
            "--dispatch-id",
            "dsp-1",
            "--state-root",
            str(state),
        ]
        done = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=120, check=False
        )
    finally:
        canary.close()
    assert done.returncode == 0, done.stderr
    assert "refused" in done.stdout
    assert "REACHED" not in done.stdout


def test_a_supervisor_starts_nothing_for_a_worker_it_cannot_find(
    state: Path, tmp_path: Path
) -> None:
    """The supervisor asks `launch_guards.stopped` before the sandbox: a worker with no record (or
    stopped, `test_no_second_start.py`) gets no agent, and the end says why."""
    worktree = tmp_path / "wt"
    worktree.mkdir()
    marker = worktree / "ran"  # the sandbox binds the worktree: the command could write here
    _spec(state, worktree, ["/bin/sh", "-c", f"touch {marker}"], worker=False)
    assert _supervise(state) != 0
    ended = json.loads((state / "panes" / "dsp-1.exit.json").read_text())
    assert "did not start: the worker has no record" in ended["detail"]
    assert not marker.exists()


def _register_session(state: Path) -> None:
    with Root.open(str(state)) as root:
        RecordStore(root, "session").create(
            SESSION_ID,
            state="running",
            payload=payload("session"),
            operation_id="op-s",
            actor="oms-system",
            observed_at=now(),
        )


def test_a_supervisor_starts_the_agent_only_once_its_session_exists(
    state: Path, tmp_path: Path
) -> None:
    """A launch registers the session just after the pane; a deliverer killed in between leaves the
    supervisor waiting (the agent must not run ahead of its session: no Stop gate could hold it),
    until a re-delivery registers it."""
    worktree = tmp_path / "wt"
    worktree.mkdir()
    marker = worktree / "ran"
    _spec(state, worktree, ["/bin/sh", "-c", f"touch {marker}"], session=False)
    argv = [
        *oms_command().argv,
        "worker",
        "supervise",
        "--dispatch-id",
        "dsp-1",
        "--state-root",
        str(state),
    ]
    proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL)
    try:
        spec = state / "panes" / "dsp-1.launch.json"
        eventually(  # taken: the supervisor now waits for the session
            lambda: not spec.exists(), timeout=30, what="the supervisor takes its spec"
        )

        def waits() -> bool:
            assert proc.poll() is None, "the supervisor ended without a session"
            assert not marker.exists(), "the sandbox started without a session"
            return True

        stays(waits, seconds=1)  # a sandbox started would have run the command by then
        _register_session(state)
        assert proc.wait(timeout=60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert marker.exists()
    assert _ended(state)["status"] == 0


def test_a_supervisor_whose_launch_registers_no_session_starts_nothing(
    state: Path, tmp_path: Path
) -> None:
    """No session within the wait (no re-delivery came), or the terminal hung up meanwhile: nothing
    starts, and the reason says which."""
    worktree = tmp_path / "wt"
    worktree.mkdir()
    _spec(state, worktree, ["true"], session=False)
    with Root.open(str(state)) as root:
        spec = launch_spec.consume(root, "dsp-1")

        def wait(received: list[int]) -> str | None:
            return start_guard.await_registration(
                root,
                spec.dispatch_id,
                spec.session_id,
                received,
                wait_s=0.2,
                own=(start_guard.pane_process(os.getpid()),),
            )

        assert wait([]) == "no launch registered its session within 0.2 s (its deliverer stopped)"
        hung_up = "its terminal hung up while it waited for its session"
        assert wait([signal.SIGHUP]) == hung_up
        _register_session(state)
        assert wait([]) is None  # registered: it starts
        assert wait([signal.SIGHUP]) == hung_up  # gone: another pane's


def test_a_supervisor_starts_only_on_a_session_naming_its_own_pane(
    state: Path, tmp_path: Path
) -> None:
    """A session naming another pane (a stale deliverer's pane found it: GAP_LOCAL_BEGUN) starts
    nothing, at once; a relaunch's supervisor waits for the relaunch to move the session to its own
    pane, and starts once it does (ADR 0043 "branch `ownpane`")."""
    from oms.domain import sessions
    from oms.store import Change, Record

    worktree = tmp_path / "wt"
    worktree.mkdir()
    _spec(state, worktree, ["true"], session=False)
    me = start_guard.pane_process(os.getpid())
    other = start_guard.pane_process(os.getppid())
    assert me != other
    assert me.start_ticks > 0
    with Root.open(str(state)) as root:
        spec = launch_spec.consume(root, "dsp-1")
        store = RecordStore(root, "session")
        named = {**payload("session"), "pane_process": other.to_json()}
        store.create(
            SESSION_ID,
            state="running",
            payload=named,
            operation_id="op-s",
            actor="oms-system",
            observed_at=now(),
        )

        def wait(relaunch: bool, wait_s: float) -> str | None:
            return start_guard.await_registration(
                root,
                spec.dispatch_id,
                spec.session_id,
                [],
                wait_s,
                own=(me,),
                relaunch=relaunch,
                backend=start_guard.backend_of(root, spec.store),
            )

        assert wait(False, 60) == "its session names another pane"  # at once: not the wait's end
        assert wait(True, 0.2) == "its session names another pane"  # waited, never moved

        def move(session: Record) -> Change:  # `native_resume.relaunch`, once its pane exists
            moved = sessions.relaunch(
                session.state, session.payload, pane_id="%4", now=now(), pane_process=me.to_json()
            )
            return Change(moved.state, as_json(moved.payload), "op-m", "oms-system", now())

        store.update(SESSION_ID, move)
        assert wait(True, 60) is None  # the relaunch moved it here
        assert wait(False, 60) is None


def test_a_supervisor_reads_the_store_its_launch_wrote_through(state: Path) -> None:
    """The launch spec's `store` names the backend the deliverer wrote the session through: the
    state root's files, or the etcd cluster `[store]` names (loaded only then; nothing is asked of
    the cluster until a read)."""
    from oms.adapters.etcd.store import EtcdStore
    from oms.store.backend import Files

    with Root.open(str(state)) as root:
        assert isinstance(start_guard.backend_of(root, None), Files)
        assert isinstance(start_guard.backend_of(root, {"backend": "files"}), Files)
        cluster = {"backend": "etcd", "endpoints": ["http://127.0.0.1:2379"], "prefix": "/oms/k/"}
        assert isinstance(start_guard.backend_of(root, cluster), EtcdStore)


ON_NINE = (
    "import os, sys; os.dup2(int(sys.argv[1]), 9); os.close(int(sys.argv[1])); "
    "os.execv(sys.argv[2], sys.argv[2:])"
)  # the gate's end moved to descriptor 9, as a supervisor's


def _gated(tmp_path: Path) -> tuple[socket.socket, subprocess.Popen[bytes], Path]:
    """The exec gate (`exec_marked`) in a real `/bin/sh` on descriptor 9, its other end ours; the
    command leaves a file when it runs."""
    ours, theirs = socket.socketpair()
    ran = tmp_path / "ran"
    argv = exec_marked(("/bin/sh", "-c", f"echo x > {ran}"), 9)
    with theirs:
        proc = subprocess.Popen(
            [sys.executable, "-c", ON_NINE, str(theirs.fileno()), *argv],
            pass_fds=(theirs.fileno(),),
        )
    assert ours.recv(1) == b"s"  # the gate asked
    return ours, proc, ran


def test_the_exec_gate_starts_the_command_only_on_go(tmp_path: Path) -> None:
    """The sandbox's command starts only once the supervisor says `go` (after it recorded the
    init)."""
    ours, proc, ran = _gated(tmp_path)
    stays(lambda: not ran.exists(), seconds=0.3, what="the command waits for go")
    ours.sendall(b"go\n")
    assert proc.wait(timeout=10) == 0
    assert ran.read_text() == "x\n"
    ours.close()


def test_the_exec_gate_starts_nothing_once_its_supervisor_is_gone(tmp_path: Path) -> None:
    """A supervisor killed outright while its sandbox was being set up closes its end: the gate
    meets the end instead of `go` and the agent never runs (bubblewrap's own parent-death chain has
    a window, containers/bubblewrap#633: an init orphaned there would otherwise run the agent)."""
    ours, proc, ran = _gated(tmp_path)
    ours.close()  # what the kernel does to a SIGKILLed supervisor's descriptors
    assert proc.wait(timeout=10) == 125
    assert not ran.exists()


# What `oms worker supervise` may have loaded when its broker's socket listens (issue 23 item 5,
# docs/performance.md): every module before that moment delays every delivery. The attempt's end
# watch (the rule, salvage, git, the tree jobs), the cgroups and the bounds' counters, the doors and
# the sandbox's arguments are loaded after it, while the agent is not started yet.
LATE = {
    "oms.services.supervisor.attempt_end": "the rule is first asked after the socket listens",
    "oms.services.chain.results": "the end watch's",
    "oms.services.checkout.salvage": "the end watch's",
    "oms.adapters.git": "the end watch's (salvage, the tree jobs)",
    "oms.adapters.tree_work": "the end watch's (the tree jobs)",
    "oms.domain.fence": "the end watch's rule",
    "oms.adapters.cgroups": "the sandbox's cgroup is made after the socket listens",
    "oms.domain.cgroups": "the sandbox's cgroup",
    "oms.services.containment.bounds": "the bounds' counters, read while the sandbox runs",
    "oms.fsio.usage": "the bounds' disk walk",
    "oms.process.confine": "the sandbox's confinement",
    "oms.services.doors.worker_doors": "the doors answer requests, after the socket listens",
    "oms.services.doors.broker": "the broker's loop starts after the socket listens",
    "oms.adapters.seccomp": "the sandbox's filter",
    "oms.services.containment.reaper": "the sandbox's init is recorded after it starts",
}
EARLY_BOUND = 50  # oms modules loaded when the socket listens (48 on 2026-12-03; 100 before)

SPY = """import os, sys
before = set(sys.modules)
from oms.fsio import Root
listen = Root.listen_unix
def spy(self, rel, *args):
    with open(os.environ["OMS_TEST_SEEN"], "a") as seen:
        seen.write(repr(sorted(set(sys.modules) - before)) + "\\n")
    return listen(self, rel, *args)
Root.listen_unix = spy
from oms.cli.entry import main
sys.exit(main(sys.argv[1:]))
"""


def test_the_supervisor_loads_little_before_its_broker_listens(state: Path, tmp_path: Path) -> None:
    """Inspected in a source interpreter, at the moment the broker's socket listens (the frozen
    supervisor is timed by bench/deliver_bench.py)."""
    worktree = tmp_path / "wt"
    worktree.mkdir()
    _spec(state, worktree, ["/bin/true"])
    seen = tmp_path / "seen"
    argv = ["worker", "supervise", "--dispatch-id", "dsp-1", "--state-root", str(state)]
    done = subprocess.run(
        [sys.executable, "-c", SPY, *argv],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        env={
            **os.environ,
            "OMS_TEST_SEEN": str(seen),
            "PYTHONPATH": str(Path(__file__).parents[2]),
        },
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    loaded = set(eval(seen.read_text().splitlines()[0]))  # noqa: S307 - our own probe's repr
    assert {name: why for name, why in LATE.items() if name in loaded} == {}
    ours = sorted(m for m in loaded if m.startswith("oms"))
    assert len(ours) <= EARLY_BOUND, f"{len(loaded)} modules: " + " ".join(ours)
