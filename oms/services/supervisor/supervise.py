"""`oms worker supervise`: the first process in a worker's pane — its sandbox's parent and its
broker.

It reads the launch spec delivery wrote (once: it holds the agent's credential), starts nothing if
the worker was stopped meanwhile (`delivery/start_guard.stopped`) or its terminal hung up, opens the
broker's socket, starts the agent in its bubblewrap sandbox on the pane's terminal (options through
a memory file, never the command line; the sandbox leads its own process group, holding the
terminal: nothing in it can signal this process through a shared group), serves the worker's hooks
and bridge until the sandbox ends, kills its init if it outlived it, and only then records the end
(`exit.json`; tmux misreports exits, ADR 0009).

It asks the one rule of whether the attempt may act (`attempt_end.Watch`, ADR 0028) after every
request its broker serves and at least once a second: once the attempt is over (its dispatch
resolved, cancelled or rejected, or its worker ended) it leaves a kill marker, ends the sandbox
(SIGTERM, SIGKILL after 2 s) and records the end as `oms worker stop` would (salvage first); a
fenced attempt's worker is parked.

The sandbox runs in a cgroup of its own beneath this process's (ADR 0025): bubblewrap joins it
before it executes, with its largest file bounded. No cgroup, no sandbox (unless `[limits] cgroup =
"unsafe-none"`). While it runs, its cgroup's counters are read and its worktree and home measured
(`containment/bounds.py`); a bound reached ends the sandbox, and the end names it (`limit: pids`,
`limit: memory`, `limit: disk`). What is left in the cgroup afterwards is killed and the cgroup
removed, before the end is recorded.

SIGINT, SIGTERM and SIGQUIT sent to this process (or its group) are passed on to the sandbox's
group, as they would have reached the agent in a plain pane. When the terminal hangs up (the pane or
the tmux server is gone) the kernel signals only this process: it passes SIGHUP to the sandbox's
group, SIGTERM after 2 s, SIGKILL after 2 s more, records that end, and ends its own group.
The agent's command waits behind an exec gate (`adapters/sandbox.exec_marked`) until this process
has recorded the sandbox's init: a process killed before then starts no agent at all (bubblewrap's
init asks for its parent-death signal only after its set-up, so it could outlive this process).
bubblewrap runs with `--die-with-parent`: if this process is killed outright later, the sandbox goes
with it (`stop` and `observe` kill its init should the agent have tampered with that chain; `stop`
ends the would-be init that bubblewrap's own race leaves when this process dies in its first
milliseconds: `reaper.end_strays`).
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from oms.canonical import JsonObject, now
from oms.canonical.strict_json import loads_foreign
from oms.errors import (
    AuthorityChangedError,
    CgroupUnavailableError,
    OmsError,
    one_line,
    suppress_faults,
)
from oms.fsio import ProcessIdentity, Root
from oms.fsio.outside import remove_empty_dirs, reserve_descriptor
from oms.fsio.procinfo import boot_id, start_ticks
from oms.limits import LIMITS
from oms.services.delivery import spec as launch_spec
from oms.services.delivery import start_guard
from oms.store.panefiles import log_path, write_exit
from oms.store.sandboxes import broker_rel

if TYPE_CHECKING:
    from oms.adapters import cgroups
    from oms.domain.own_pane import PaneProcess
    from oms.process import Foreground
    from oms.services.containment.bounds import Guard
    from oms.services.doors.broker import Broker
    from oms.services.supervisor import attempt_end

# Everything from the broker's socket on (the sandbox, its cgroup and bounds, the doors, the
# attempt's end watch) is imported once the socket listens: what this process loads before then
# delays every delivery (docs/performance.md, issue 23 item 5;
# tests/integration/test_supervise.py pins it).

WATCHED = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)
TERMINAL_KEYS = ("TERM", "COLORTERM", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME")
Ended = tuple[int | None, int | None, str | None]  # (status, signal, detail)


def supervise(state_root: str, dispatch_id: str) -> int:
    """Start the sandbox, serve its broker until it ends, record the end; the exit code for this
    process.

    From here on SIGHUP, SIGINT, SIGTERM and SIGQUIT are only noted: this process must live to
    record the end and clean up, also while `oms worker stop` signals the pane's group."""
    received: list[int] = []
    for signum in WATCHED:
        signal.signal(signum, lambda s, _f: received.append(s))
    slot = reserve_descriptor()  # the lowest free descriptor, one digit: the exec marker's
    with Root.open(state_root) as root:
        try:
            spec = launch_spec.consume(root, dispatch_id)
            backend = start_guard.backend_of(root, spec.store)  # where its launch wrote the session
        except OmsError as exc:
            record_exit(root, dispatch_id, (1, None, f"the worker could not start: {exc.message}"))
            raise
        own = (  # its pane's first process: this one, or a onefile bootloader (its parent)
            start_guard.pane_process(os.getpid()),
            start_guard.pane_process(os.getppid()),
        )
        why = start_guard.await_registration(
            root,
            spec.dispatch_id,
            spec.session_id,
            received,
            own=own,
            relaunch=spec.relaunch,
            backend=backend,
        )
        if (
            why is not None
        ):  # `oms worker stop` came before the sandbox, or no launch registered the session
            record_exit(root, dispatch_id, (1, None, f"the worker did not start: {why}"))
            raise AuthorityChangedError(
                why, hint=f"`oms worker observe {dispatch_id}` shows its end"
            )
        log_fd = root.open_log(log_path(dispatch_id))
        budget = [LIMITS.supervisor_log_bytes]

        def log(line: str) -> None:
            write_log_line(log_fd, budget, line)

        run = _Run(root, os.path.realpath(state_root), spec, log, received, own)
        ended: Ended = (1, None, "the supervisor failed before the sandbox ended")
        try:
            ended = run.run(slot)
        finally:
            # End first, record after: nothing of the sandbox may outlive this run because the state
            # root became unusable (the end record, the init record and the socket all live there).
            if run.end_sandbox():
                log("the sandbox's init outlived bubblewrap: killed")
            if not run.remove_cgroup():
                log("the sandbox's cgroup could not be removed (a process in it did not end)")
            if run.over is not None:
                run.record_end(spec.config_root)
            if run.reached is not None:
                ended = (ended[0], ended[1], run.reached[1])
            try:
                record_exit(root, dispatch_id, ended, limit=run.reached[0] if run.reached else None)
                run.remove_socket()
            except (OmsError, OSError) as exc:
                log(f"the end could not be recorded: {exc}")
            finally:
                remove_empty_dirs(
                    spec.worktree, tuple(os.path.basename(p) for p in spec.placeholders)
                )
                os.close(log_fd)
                if signal.SIGHUP in received:
                    from oms.process import end_own_group

                    # nothing of this pane's group may outlive it (a no-op unless we lead it)
                    end_own_group()
    status, killed_by, _ = ended
    if killed_by is not None:
        return 128 + killed_by
    return status if status is not None else 1


class _Run:
    """One sandbox run: start it, serve the broker, escalate on a hang-up, tell how it ended."""

    def __init__(
        self,
        root: Root,
        state_real: str,
        spec: launch_spec.LaunchSpec,
        log: Callable[[str], None],
        received: list[int],
        own: tuple[PaneProcess, ...] = (),
    ) -> None:
        self.root = root
        self.own = own  # its pane's first process: what its broker notes a listing under
        self.state_real = state_real
        self.spec = spec
        self.log = log
        self.received = received
        self.init: ProcessIdentity | None = (
            None  # the sandbox's init, held here whatever the state root says
        )
        self.status_data = b""
        self.watch: attempt_end.Watch | None = None
        self.over: str | None = None  # the rule's line once the attempt is over (its agent ends)
        self.group: cgroups.Cgroup | None = None  # the sandbox's cgroup (ADR 0025)
        self.reached: tuple[str, str] | None = None  # the bound it reached (why it was ended)
        self.gate = -1  # our end of the exec gate (`adapters/sandbox.exec_marked`) while it waits
        self.started = False  # the gate asked: the sandbox was set up, its command about to start
        self.released = False  # the gate was told `go`: its command started
        self.unwatch: Callable[[int], None] = lambda _fd: None

    def remove_socket(self) -> None:
        """Remove the broker's socket (in the sandbox directory, ADR 0026)."""
        with Root.open(self.spec.sandbox_dir) as sandboxes:
            sandboxes.remove_socket(broker_rel(self.spec.dispatch_id))

    def run(self, slot: int) -> Ended:
        spec = self.spec
        sock_rel = broker_rel(spec.dispatch_id)
        with Root.open(spec.sandbox_dir) as sandboxes:  # owner and 0700 checked, never a link
            listener = sandboxes.listen_unix(sock_rel)
        # the broker's socket listens: the rest is loaded now (see the imports above)
        from oms.adapters import cgroups, seccomp
        from oms.adapters.sandbox import command_args, exec_marked
        from oms.domain.cgroups import identity
        from oms.process import data_fd, landlock, start_foreground
        from oms.services.containment.bounds import Guard
        from oms.services.doors import hooks
        from oms.services.doors.broker import Broker
        from oms.services.doors.worker_doors import WorkerDoors

        fds: list[int] = []
        marker_r, marker_w = _marker_pipe(
            slot
        )  # one byte once the sandbox is set up and the agent starts
        status_r, status_w = os.pipe2(
            os.O_CLOEXEC | os.O_NONBLOCK
        )  # bubblewrap's JSON status (its init)
        os.set_blocking(status_w, True)
        fds += [marker_r, marker_w, status_r, status_w]
        seccomp_fd = data_fd(seccomp.encode(seccomp.program(os.uname().machine)), "oms-seccomp")
        config_fd = data_fd(spec.git_config.encode(), "oms-git-config")
        fds += [seccomp_fd, config_fd]
        sock_path = os.path.join(spec.sandbox_dir, sock_rel)
        config = (config_fd, spec.git_config_path)
        args = command_args(
            spec.sandbox, sock_path, status_w, seccomp_fd, config, spec.model_socket
        )
        args_fd = data_fd(
            b"".join(a.encode("utf-8", "surrogateescape") + b"\0" for a in args), "oms-bwrap-args"
        )
        wake_r, wake_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        fds += [args_fd, wake_r, wake_w]
        env = {
            key: os.environ[key] for key in TERMINAL_KEYS if os.environ.get(key)
        }  # the pane's terminal
        env.update(
            spec.env
        )  # nothing else of ours: no LD_LIBRARY_PATH (frozen or not), no state root
        binding = hooks.HookArgs(
            spec.provider,
            spec.provider_version,
            spec.dispatch_id,
            spec.session_id,
            spec.allowed_tools,
        )
        doors = WorkerDoors(
            binding,
            spec.nonce,
            self.state_real,
            spec.config_root,
            self.log,
            own=self.own,
            store=spec.store,  # where its launch wrote: the state root's, or a cluster's
        )
        previous_wakeup = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
        broker = Broker(listener, doors, self.log)
        child = None
        try:
            command = list(spec.command) if marker_w < 0 else exec_marked(spec.command, marker_w)
            passed = (args_fd, status_w, seccomp_fd, config_fd) + (
                () if marker_w < 0 else (marker_w,)
            )
            scoped = landlock.scoping()
            if not scoped:
                self.log(
                    "this kernel has no Landlock scopes (Linux "
                    "6.12): abstract sockets stay reachable"
                )
            argv = [spec.bwrap, "--args", str(args_fd), "--", *command]
            if (
                signal.SIGHUP in self.received
            ):  # the pane is gone: an agent started now would be ended at once
                return 1, None, "the worker did not start: its terminal hung up"
            if marker_w < 0:  # ungated, an agent could start in an init this process never saw
                why = "descriptors 3 to 9 were all taken when it started (its exec gate needs one)"
                return 1, None, f"the worker did not start: {why}"
            try:  # no cgroup, no sandbox
                self.group = cgroups.make(identity("worker", spec.dispatch_id), spec.limits)
                confinement = self.group.confinement(spec.limits.file_bytes)
            except CgroupUnavailableError as exc:
                return 1, None, f"the worker did not start: {exc.message}"
            if spec.limits.unsafe:
                self.log('[limits] cgroup = "unsafe-none": no pids, memory or CPU bound here')
            child = start_foreground(
                argv,
                env=env,
                pass_fds=passed,
                scoped=scoped,
                confine=confinement,
            )
            self.group.release()
            # the attempt's end watch (git, salvage, the tree jobs) loads while bubblewrap sets up
            from oms.services.supervisor import attempt_end

            self.watch = attempt_end.Watch(doors.workspace, spec.dispatch_id, self.log)
            for quiet in (
                signal.SIGTTOU,
                signal.SIGTTIN,
            ):  # the sandbox's group holds the terminal now
                signal.signal(quiet, signal.SIG_IGN)
            for fd in (args_fd, status_w, marker_w, seccomp_fd, config_fd):
                _close(fds, fd)
            broker.watch(wake_r, lambda: _drain(wake_r))
            broker.watch(status_r, lambda: self._status(status_r))
            if marker_r >= 0:
                self.gate, self.unwatch = marker_r, broker.unwatch
                broker.watch(marker_r, self._asked)
            if child.pidfd is not None:
                broker.watch(child.pidfd, lambda: None)
            every = LIMITS.disk_walk_every_s
            guard = Guard(self.group, spec.disk_trees, spec.limits, every_s=every)
            try:
                returncode = self._serve(child, broker, guard)
            finally:
                guard.close()
            if self.reached is None and (late := self.group.reached()) is not None:
                self.reached = (late, guard.detail(late))  # ended by the kernel before a poll
            self._status(status_r)
            self._asked()
            self.log(f"sandbox ended ({returncode}); the broker served {broker.served} requests")
            started = marker_r < 0 or self.released
        finally:
            broker.close()
            if child is not None:
                child.close()
            doors.close()
            listener.close()
            signal.set_wakeup_fd(previous_wakeup)
            for fd in list(fds):
                _close(fds, fd)
        if returncode < 0:
            return None, -returncode, None
        if not started:
            return returncode, None, f"the sandbox did not start (bubblewrap exited {returncode})"
        if (
            128 < returncode <= 128 + 64
        ):  # the agent died of a signal (bubblewrap's init reports 128 + N)
            return None, returncode - 128, None
        return returncode, None, None

    def _serve(self, child: Foreground, broker: Broker, guard: Guard) -> int:
        """Serve until the sandbox ends. On a hang-up: SIGHUP, SIGTERM, then SIGKILL (and its init);
        once the attempt is over (the rule, asked after each request served and every second):
        SIGTERM, then SIGKILL; on a bound reached (`guard`): SIGKILL (and its init)."""
        ending_at: float | None = None
        steps: list[signal.Signals] = []
        next_step, passed_on = 0.0, 0
        while (returncode := child.poll()) is None:
            for signum in self.received[
                passed_on:
            ]:  # a signal to the pane's group is meant for the agent
                passed_on += 1
                if signum != signal.SIGHUP and ending_at is None:
                    child.signal_group(signum)
            if signal.SIGHUP in self.received and ending_at is None:
                ending_at = next_step = time.monotonic()
                steps = [signal.SIGHUP, signal.SIGTERM, signal.SIGKILL]
                self.log("the terminal hung up: ending the sandbox")
            if ending_at is None and self.watch is not None:
                self.over = self.watch.over(broker.served)
                if self.over is not None:
                    ending_at = next_step = time.monotonic()
                    steps = [signal.SIGTERM, signal.SIGKILL]
                    self._mark_over(self.over)
            if ending_at is not None and steps and time.monotonic() >= next_step:
                step = steps.pop(0)
                if step == signal.SIGKILL:
                    child.kill()
                    self.end_sandbox()
                else:
                    child.signal_group(step)
                next_step = time.monotonic() + LIMITS.supervisor_grace_s
            due = guard.due() if self.reached is None else None
            if due is not None and time.monotonic() >= due:
                self._check(child, guard)
                due = guard.due() if self.reached is None else None
            if ending_at is not None:
                wait: float | None = max(0.0, next_step - time.monotonic())
            else:
                wait = None if self.watch is None else self.watch.wait()
            if child.pidfd is None:
                wait = 0.2 if wait is None else min(wait, 0.2)
            if due is not None:
                until = max(0.0, due - time.monotonic())
                wait = until if wait is None else min(wait, until)
            broker.run_once(wait)
        return returncode

    def _mark_over(self, why: str) -> None:
        """The attempt is over: say so, and leave the kill marker that names why (never raises)."""
        self.log(f"the attempt is over ({why}): ending the sandbox")
        from oms.services.supervisor import attempt_end

        if self.watch is not None:
            try:
                attempt_end.mark(self.watch.workspace(), self.spec.dispatch_id, why)
            except (OmsError, OSError) as exc:
                self.log(f"the kill marker could not be left: {exc}")

    def record_end(self, config_root: str) -> None:
        """The sandbox of an attempt that is over has ended: record the end (salvage first; never
        raises)."""
        from oms.services.supervisor import attempt_end
        from oms.services.workspace import Workspace

        try:
            with Workspace.open(self.state_real, config_root, spec_store=self.spec.store) as ws:
                kept = attempt_end.record_end(ws, self.spec.dispatch_id, str(self.over))
            if kept is not None:
                self.log(f"salvaged: {kept}")
        except (OmsError, OSError) as exc:
            self.log(f"the end could not be recorded: {exc}")

    def _check(self, child: Foreground, guard: Guard) -> None:
        """Ask the guard; a bound reached ends the sandbox (its init too): the end's reason."""
        reached = guard.poll()
        if reached is None:
            return
        self.reached = (reached, guard.detail(reached))
        self.log(f"the sandbox reached a bound, ending it: {self.reached[1]}")
        child.kill()
        self.end_sandbox()

    def remove_cgroup(self) -> bool:
        """Kill what is left in the sandbox's cgroup and remove it (True: nothing of it is left)."""
        if self.group is None:
            return True
        try:
            return self.group.remove()
        except OSError:
            return False

    def _status(self, fd: int) -> None:
        """Read bubblewrap's status; record its namespace's init the first time it is named."""
        with contextlib.suppress(BlockingIOError, InterruptedError, OSError):
            while len(self.status_data) < 65536 and (chunk := os.read(fd, 4096)):
                self.status_data += chunk
        if self.init is not None:
            return
        from oms.services.containment import reaper

        pid = _child_pid(self.status_data)
        ticks = start_ticks(pid) if pid is not None else None
        if pid is not None and ticks is not None:
            self.init = ProcessIdentity(boot_id(), pid, ticks)
            try:  # for `observe` and `stop` should this process be killed outright
                reaper.record_init(self.root, self.spec.dispatch_id, self.init)
            except (OmsError, OSError) as exc:  # an init they could not find: nothing starts
                self.log(
                    f"the sandbox's init could not be recorded, its command does not start: {exc}"
                )
                self._shut()
                return
            self._release()
        elif b"\n" in self.status_data:  # named but not identified (it ended): nothing starts
            self.log("the sandbox's init could not be identified: its command does not start")
            self._shut()

    def _asked(self) -> None:
        """The exec gate's byte: the sandbox is set up and its command waits for `go`; anything
        else (its end) closes the gate."""
        if self.gate < 0 or self.started:
            return
        try:
            data = os.read(self.gate, 1)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            data = b""
        if data != b"s":
            self._shut()
            return
        self.started = True
        self._release()

    def _release(self) -> None:
        """Let the sandbox's command start once it asked and its init is recorded: the agent never
        runs in a sandbox whose init `observe` and `stop` could not find, and never after this
        process is gone (the gate then meets the end of our socket and exits)."""
        if self.gate >= 0 and self.started and self.init is not None:
            with contextlib.suppress(OSError):
                self.released = os.write(self.gate, b"go\n") == 3
            self._shut()

    def _shut(self) -> None:
        """Stop watching the gate and shut our end of it (closed with the run): a gate not released
        reads the end instead of `go`, and its shell exits 125."""
        if self.gate >= 0:
            self.unwatch(self.gate)
            with contextlib.suppress(OSError), socket.socket(fileno=os.dup(self.gate)) as end:
                end.shutdown(socket.SHUT_RDWR)
            self.gate = -1

    def end_sandbox(self) -> bool:
        """Kill the sandbox's init if that exact process still runs (by the identity this run
        holds), and forget its record; True if it had to be killed. Raises only for an attack
        (`errors.ATTACKS`)."""
        from oms.process import kill_exact
        from oms.services.containment import reaper

        killed = self.init is not None and kill_exact(self.init)
        ended = False
        with suppress_faults(OmsError, OSError):  # an attack is not swallowed: it propagates
            ended = reaper.end_sandbox(self.root, self.spec.dispatch_id)
        return ended or killed


def _child_pid(data: bytes) -> int | None:
    """The `child-pid` bubblewrap reports first on `--json-status-fd` (its namespace's init, a host
    pid)."""
    head = data.split(b"\n", 1)[0] if b"\n" in data else b""
    try:
        doc = loads_foreign(head) if head else None
    except ValueError:
        return None
    pid = doc.get("child-pid") if isinstance(doc, dict) else None
    return pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 1 else None


def _close(fds: list[int], fd: int) -> None:
    if fd >= 0 and fd in fds:
        fds.remove(fd)
        with contextlib.suppress(OSError):
            os.close(fd)


def _drain(fd: int) -> None:
    with contextlib.suppress(BlockingIOError, InterruptedError):
        while os.read(fd, 512):
            pass


def _marker_pipe(slot: int) -> tuple[int, int]:
    """The exec gate's socket pair (`adapters/sandbox.exec_marked`): (this process's end, the
    sandbox's end, which is `slot`, reserved when this process started so it has one digit, all a
    `/bin/sh` redirection accepts); (-1, -1) when the slot is not below 10 (then nothing starts:
    an ungated command could run in an init this process never recorded)."""
    if not 2 < slot < 10:
        os.close(slot)
        return -1, -1
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    os.dup2(theirs.fileno(), slot, inheritable=False)
    theirs.close()
    os.set_blocking(ours.fileno(), False)
    return ours.detach(), slot


def record_exit(root: Root, dispatch_id: str, ended: Ended, limit: str | None = None) -> None:
    """Publish the exit record (once per pane: `panefiles.write_exit`); `limit`: the bound the
    sandbox reached, why it was ended."""
    status, signum, detail = ended
    doc: JsonObject = {
        "format": "oms-exit-v1",
        "dispatch_id": dispatch_id,
        "status": status if status is None or 0 <= status <= 255 else 255,
        "signal": signum,
        "ended_at": now(),
    }
    if detail:
        doc["detail"] = one_line(detail)
    if limit is not None:
        doc["limit"] = limit
    doc.update(
        pane_pid=os.getpid(), pane_started=start_ticks(os.getpid()) or 0
    )  # this pane's own record
    write_exit(root, doc)


def write_log_line(fd: int, budget: list[int], line: str) -> None:
    """Append one bounded line to a broker log descriptor, while `budget[0]` bytes remain (then
    nothing)."""
    stamp = time.strftime("%Y-%m-%dT%H:%M:%SZ ", time.gmtime())
    data = (stamp + " ".join(line.split())[:300] + "\n").encode("utf-8", "replace")
    if budget[0] < len(data):
        return
    budget[0] -= len(data)
    with contextlib.suppress(OSError):
        os.write(fd, data)
