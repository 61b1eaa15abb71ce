"""`oms worker supervise`: the first process in a worker's pane — its sandbox's parent and its broker.

It reads the launch spec delivery wrote (once: it holds the agent's credential), opens the broker's
socket, starts the agent in its bubblewrap sandbox on the pane's terminal (bubblewrap's arguments come
through a memory file, never the command line), and serves the worker's hooks and bridge until the
sandbox ends (`services/broker.py`). Then it records how the sandbox ended (`panes/<dispatch>.exit.json`:
exit status, signal, or why the sandbox never started — tmux 3.3a does not report a pane's exit status
reliably, ADR 0009), removes its socket and the empty mount points the sandbox left in the worktree.

The sandbox cannot outlive it: bubblewrap runs with `--die-with-parent`, and the sandbox's PID namespace
dies with its init, taking every process the agent started (ADR 0012). When the terminal hangs up (the
pane or the tmux server is gone) the kernel signals only this process: it passes SIGHUP to its group,
SIGTERM after 2 s, SIGKILL to the sandbox after 2 s more, records that end, and ends its whole group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Callable

from oms.adapters.sandbox import command_args, exec_marked
from oms.canonical import JsonObject, check, now
from oms.errors import AlreadyExistsError, NotFoundError, OmsError
from oms.fsio import Root
from oms.fsio.outside import remove_empty_dirs, reserve_descriptor
from oms.process import data_fd, end_own_group, signal_own_group, start_foreground
from oms.services import hooks, launch
from oms.services.broker import Broker, write_log_line
from oms.services.doors import WorkerDoors
from oms.store.documents import encode_document

GRACE_S = 2.0
LOG_CAP = 1024 * 1024
WATCHED = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)
TERMINAL_KEYS = ("TERM", "COLORTERM", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME")


def exit_path(dispatch_id: str) -> str:
    """Where the supervisor records the end of `dispatch_id`'s sandbox."""
    return f"panes/{check(dispatch_id, 'dispatch id')}.exit.json"


def supervise(state_root: str, dispatch_id: str) -> int:
    """Start the sandbox, serve its broker until it ends, record the end; the exit code for this process.

    From here on SIGHUP, SIGINT, SIGTERM and SIGQUIT are only noted (the sandbox, in this process group,
    gets them with their default effect): this process must live to record the end and clean up, also
    while `oms worker stop` signals the pane's group."""
    received: list[int] = []
    for signum in WATCHED:
        signal.signal(signum, lambda s, _f: received.append(s))
    slot = reserve_descriptor()  # the lowest free descriptor, one digit: the exec marker's
    with Root.open(state_root) as root:
        try:
            spec = launch.consume(root, dispatch_id)
        except OmsError as exc:
            record_exit(root, dispatch_id, status=1, signum=None, detail=f"the worker could not start: {exc.message}")
            raise
        log_fd = root.open_log(launch.log_path(dispatch_id))
        budget = [LOG_CAP]

        def log(line: str) -> None:
            write_log_line(log_fd, budget, line)

        try:
            code, ended_by, detail, hung_up = _run(root, os.path.realpath(state_root), spec, log, received, slot)
            record_exit(root, dispatch_id, status=code, signum=ended_by, detail=detail)
        finally:
            root.remove_socket(launch.socket_path(dispatch_id))
            remove_empty_dirs(spec.worktree, tuple(os.path.basename(p) for p in spec.placeholders))
            os.close(log_fd)
    if hung_up:
        end_own_group()  # nothing of this pane's group may outlive it (a no-op unless we lead the group)
    if ended_by is not None:
        return 128 + ended_by
    return code if code is not None else 1


def _run(
    root: Root,
    state_real: str,
    spec: launch.LaunchSpec,
    log: Callable[[str], None],
    received: list[int],
    slot: int,
) -> tuple[int | None, int | None, str | None, bool]:
    """(status, signal, detail, hung up) of one sandbox run."""
    sock_rel = launch.socket_path(spec.dispatch_id)
    listener = root.listen_unix(sock_rel)
    status_r, status_w = _marker_pipe(slot)  # the exec marker: one byte once the sandbox is set up
    args = command_args(spec.sandbox, os.path.join(state_real, sock_rel))
    args_fd = data_fd(b"".join(a.encode("utf-8", "surrogateescape") + b"\0" for a in args), "oms-bwrap-args")
    env = {key: os.environ[key] for key in TERMINAL_KEYS if os.environ.get(key)}  # the pane's terminal
    env.update(spec.env)  # nothing else of ours: no LD_LIBRARY_PATH (frozen or not), no state root
    doors = WorkerDoors(
        hooks.HookArgs(spec.provider, spec.provider_version, spec.dispatch_id, spec.session_id, spec.allowed_tools),
        spec.nonce,
        state_real,
        spec.config_root,
        log,
    )
    wake_r, wake_w = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
    previous_wakeup = signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    broker = Broker(listener, doors, log)
    child = None
    try:
        command = list(spec.command) if status_w < 0 else exec_marked(spec.command, status_w)
        argv = [spec.bwrap, "--args", str(args_fd), "--", *command]
        child = start_foreground(argv, env=env, pass_fds=(args_fd,) if status_w < 0 else (args_fd, status_w))
        os.close(args_fd)
        if status_w >= 0:
            os.close(status_w)
        status_w = args_fd = -1
        broker.watch(wake_r, lambda: _drain(wake_r))
        if child.pidfd is not None:
            broker.watch(child.pidfd, lambda: None)
        hung_up_at: float | None = None
        steps = [signal.SIGHUP, signal.SIGTERM, signal.SIGKILL]
        next_step = 0.0
        while (returncode := child.poll()) is None:
            if signal.SIGHUP in received and hung_up_at is None:
                hung_up_at = next_step = time.monotonic()
                log("the terminal hung up: ending the sandbox")
            if hung_up_at is not None and steps and time.monotonic() >= next_step:
                step = steps.pop(0)
                if step == signal.SIGKILL:
                    child.kill()
                else:
                    signal_own_group(step)  # our own copy is only noted; the sandbox gets the default
                next_step = time.monotonic() + GRACE_S
            wait = None if hung_up_at is None else max(0.0, next_step - time.monotonic())
            if child.pidfd is None:
                wait = 0.2 if wait is None else min(wait, 0.2)
            broker.run_once(wait)
        log(f"sandbox ended ({returncode}); the broker served {broker.served} requests")
        started = status_r < 0 or _started(status_r)
    finally:
        broker.close()
        if child is not None:
            child.close()
        doors.close()
        listener.close()
        signal.set_wakeup_fd(previous_wakeup)
        for fd in (wake_r, wake_w, status_r, status_w, args_fd):  # each closed once (-1 once closed)
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
    hung_up = signal.SIGHUP in received
    if returncode < 0:
        return None, -returncode, None, hung_up
    if not started:
        return returncode, None, f"the sandbox did not start (bubblewrap exited {returncode})", hung_up
    if 128 < returncode <= 128 + 64:  # the agent died of a signal (bubblewrap's init reports 128 + N)
        return None, returncode - 128, None, hung_up
    return returncode, None, None, hung_up


def _drain(fd: int) -> None:
    with contextlib.suppress(BlockingIOError, InterruptedError):
        while os.read(fd, 512):
            pass


def _marker_pipe(slot: int) -> tuple[int, int]:
    """A pipe for the exec marker whose write end is `slot` (reserved when this process started, so it has
    one digit, all a `/bin/sh` redirection accepts); (-1, -1) when the slot is not below 10 (then an end
    is recorded without telling a failed sandbox set-up apart)."""
    if not 2 < slot < 10:
        os.close(slot)
        return -1, -1
    read_end, write_end = os.pipe2(os.O_CLOEXEC)
    os.dup2(write_end, slot, inheritable=False)
    os.close(write_end)
    return read_end, slot


def _started(fd: int) -> bool:
    """Did the sandboxed command start? (The exec marker wrote its byte: `adapters/sandbox.exec_marked`.)"""
    with contextlib.suppress(OSError):
        os.set_blocking(fd, False)
        return os.read(fd, 1) == b"s"
    return False


def record_exit(root: Root, dispatch_id: str, *, status: int | None, signum: int | None, detail: str | None) -> None:
    """Publish the exit record (once per launch; a record already there is kept)."""
    doc: JsonObject = {
        "format": "oms-exit-v1",
        "dispatch_id": dispatch_id,
        "status": status if status is None or 0 <= status <= 255 else 255,
        "signal": signum,
        "ended_at": now(),
    }
    if detail:
        doc["detail"] = " ".join(detail.split())[:512]
    rel = exit_path(dispatch_id)
    root.mkdirs("panes")
    with contextlib.suppress(AlreadyExistsError):
        root.publish(rel, encode_document(doc, "pane-exit", rel, 4096))


def clear(root: Root, dispatch_id: str) -> None:
    """Forget an earlier launch's exit record (a new pane is starting)."""
    with contextlib.suppress(NotFoundError):
        root.unlink(exit_path(dispatch_id))
