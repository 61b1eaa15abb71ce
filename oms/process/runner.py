"""Run a child process: argv only (never a shell), explicit env, a timeout, bounded output.

Errors carry the argv, the exit status and a bounded tail of stderr. Output beyond the cap kills the
child and is an error, so a hostile tool cannot make oms buffer without limit.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import selectors
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from typing import IO, NamedTuple

from oms.errors import ProcessFailedError, ProcessTimeoutError, ToolNotFoundError
from oms.fsio.procinfo import ProcessIdentity, boot_id, group_alive, start_ticks
from oms.limits import LIMITS
from oms.process import landlock
from oms.process.confine import Confinement, before_exec
from oms.process.env import child_env


class Completed(NamedTuple):
    """A finished child process."""

    argv: tuple[str, ...]
    returncode: int
    stdout: bytes
    stderr: bytes

    def text(self) -> str:
        """stdout decoded (UTF-8, replacement for bad bytes), stripped."""
        return self.stdout.decode("utf-8", "replace").strip()


def which(name: str, env: Mapping[str, str] | None = None) -> str | None:
    """The absolute path `name` resolves to on the child's PATH, or None."""
    path = (env if env is not None else os.environ).get("PATH", os.defpath)
    return shutil.which(name, path=path)


def run(
    argv: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = LIMITS.process_timeout_s,
    max_output: int = LIMITS.process_output_bytes,
    stdin: bytes | None = None,
    check: bool = True,
    pass_fds: tuple[int, ...] = (),
    confine: Confinement | None = None,
    die_with_parent: bool = False,
    end_group: bool = False,
) -> Completed:
    """Run `argv` and collect its output. `env` defaults to `child_env()`; `pass_fds`: descriptors
    the child inherits (e.g. a sandbox's seccomp filter); `confine`: the cgroups it joins and its
    largest file, taken on before it executes (`confine.py`); `die_with_parent`: the kernel
    SIGKILLs it when this process ends, however it ends (a long model call: the advisor). An
    interrupt or any error while it runs ends its whole group before it propagates: no child
    outlives the call that started it. `end_group`: its group is ended once it exits, too (what it
    left in the background: a `[notify]` command's)."""
    started = start(
        argv,
        cwd=cwd,
        env=env,
        stdin=stdin is not None,
        pass_fds=pass_fds,
        confine=confine,
        die_with_parent=die_with_parent,
    )
    return started.finish(
        timeout=timeout, max_output=max_output, stdin=stdin, check=check, end_group=end_group
    )


class Started:
    """A child `start` started: its output is collected, bounded, by `finish` (or it is
    `kill`ed)."""

    def __init__(self, proc: subprocess.Popen[bytes], args: tuple[str, ...]) -> None:
        self.proc, self.args, self.done = proc, args, False

    def finish(
        self,
        *,
        timeout: float = LIMITS.process_timeout_s,
        max_output: int = LIMITS.process_output_bytes,
        stdin: bytes | None = None,
        check: bool = True,
        end_group: bool = False,
    ) -> Completed:
        """Feed `stdin`, collect the output (at most `max_output` bytes) until the child ends or
        `timeout` (seconds from now) passes; as `run`."""
        self.done = True
        out, err, why = _collect(self.proc, stdin, timeout, max_output, end_group)
        args, code = self.args, self.proc.returncode
        if why == "timeout":
            said = f"did not finish within {timeout:g}s and was killed"
            raise ProcessTimeoutError(f"{args[0]} {said}")
        if why == "overflow":
            raise ProcessFailedError(args, code, err, why=f"wrote more than {max_output} bytes")
        if check and code != 0:
            raise ProcessFailedError(args, code, err, stdout=out)
        return Completed(args, code, out, err)

    def kill(self) -> None:
        """End it and its whole session unless it was collected."""
        if self.done:
            return
        self.done = True
        _kill(self.proc)
        for pipe in (self.proc.stdin, self.proc.stdout, self.proc.stderr):
            if pipe is not None:
                pipe.close()


def start(
    argv: Sequence[str],
    *,
    cwd: str | None = None,
    env: Mapping[str, str] | None = None,
    stdin: bool = False,
    pass_fds: tuple[int, ...] = (),
    confine: Confinement | None = None,
    die_with_parent: bool = False,
) -> Started:
    """Start `argv` (in a session of its own, its output piped; `stdin`: a pipe for `finish` to
    feed) and return at once: its output is for `Started.finish` to collect."""
    items: tuple[object, ...] = tuple(argv)
    if not items or any(not isinstance(a, str) or "\x00" in a for a in items):
        raise ValueError("argv must be non-empty text without NUL")
    args = tuple(str(a) for a in items)
    environment = dict(env) if env is not None else child_env()
    exe = args[0] if os.sep in args[0] else which(args[0], environment)
    if exe is None:
        raise ToolNotFoundError(f"{args[0]} is not installed (not found on PATH)")
    prepare = before_exec(confine, _die_with(os.getpid()) if die_with_parent else None)
    try:
        proc = subprocess.Popen(  # argv list, never a shell
            (exe, *args[1:]),
            cwd=cwd,
            env=environment,
            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            close_fds=True,
            pass_fds=pass_fds,
            start_new_session=True,
            preexec_fn=prepare,  # noqa: PLW1509 - writes to descriptors, no lock taken
        )
    except subprocess.SubprocessError as exc:  # a cgroup refused it: it never runs unbounded
        why = "could not join its cgroup"
        raise ProcessFailedError(args, 1, str(exc).encode(), why=why) from exc
    except FileNotFoundError as exc:
        raise ToolNotFoundError(f"{args[0]} is not installed ({exc.strerror})") from exc
    except PermissionError as exc:
        raise ToolNotFoundError(f"{args[0]} is not executable ({exc.strerror})") from exc
    return Started(proc, args)


PR_SET_PDEATHSIG = 1


def _die_with(parent: int) -> Callable[[], None]:
    """What a child runs before it executes to be SIGKILLed when `parent` ends (PR_SET_PDEATHSIG);
    a parent already gone by then ends it at once."""

    libc = ctypes.CDLL(None, use_errno=True)  # loaded here: the child only calls it

    def child() -> None:
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # it went before the signal was asked for: never exec
            raise ChildProcessError("the process that started it has ended")

    return child


def _kill(proc: subprocess.Popen[bytes]) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def _collect(
    proc: subprocess.Popen[bytes],
    stdin: bytes | None,
    timeout: float,
    cap: int,
    end_group: bool = False,
) -> tuple[bytes, bytes, str]:
    """Feed stdin as the child takes it and read both pipes until EOF (bounded), all within
    `timeout`, then wait; returns (stdout, stderr, outcome). The input is written beside the reads,
    never before them: a child that does not read it (or writes a pipe's worth first) is held to
    its time limit all the same."""
    assert proc.stdout is not None  # noqa: S101 - pipes were requested
    assert proc.stderr is not None  # noqa: S101
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    buffers: dict[int, list[bytes]] = {out_fd: [], err_fd: []}
    total = 0
    outcome = "ok"
    deadline = time.monotonic() + timeout
    ended = False
    feed = _Feed(proc.stdin, stdin or b"")
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(out_fd, selectors.EVENT_READ)
            sel.register(err_fd, selectors.EVENT_READ)
            if feed.fd is not None:
                sel.register(feed.fd, selectors.EVENT_WRITE)
            while sel.get_map() and outcome == "ok":
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    outcome = "timeout"
                    break
                for key, _ in sel.select(remaining):
                    if key.fd == feed.fd:
                        if feed.step():
                            sel.unregister(key.fd)
                            feed.close()
                        continue
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        sel.unregister(key.fd)
                        continue
                    buffers[key.fd].append(chunk)
                    total += len(chunk)
                    if total > cap:
                        outcome = "overflow"
                        break
        if outcome == "ok":
            try:
                _wait_exit(proc, deadline, end_group)
            except subprocess.TimeoutExpired:
                outcome = "timeout"
        if outcome != "ok":
            _kill(proc)
        ended = True
    finally:
        if not ended:  # an interrupt (^C), or an error, while it ran: its group goes with the call
            _kill(proc)
        feed.close()
        proc.stdout.close()
        proc.stderr.close()
    return b"".join(buffers[out_fd]), b"".join(buffers[err_fd]), outcome


class _Feed:
    """A child's stdin, written without blocking as it takes it (`step`), then closed. A child that
    ended (or closed its input) before reading it all is no error here: its exit status and output
    say what happened."""

    def __init__(self, pipe: IO[bytes] | None, data: bytes) -> None:
        self.pipe, self.data, self.at = pipe, memoryview(data), 0
        self.fd: int | None = None
        if pipe is None:
            return
        if not data:
            self.close()
            return
        self.fd = pipe.fileno()
        os.set_blocking(self.fd, False)

    def step(self) -> bool:
        """Write what the pipe takes now; True once all is written or the child stopped reading."""
        assert self.fd is not None  # noqa: S101 - registered only with a descriptor
        try:
            self.at += os.write(self.fd, self.data[self.at : self.at + 65536])
        except BlockingIOError:
            return False
        except (BrokenPipeError, ConnectionResetError):
            return True
        return self.at >= len(self.data)

    def close(self) -> None:
        if self.pipe is not None:
            with contextlib.suppress(OSError):
                self.pipe.close()
            self.pipe, self.fd = None, None


def _wait_exit(proc: subprocess.Popen[bytes], deadline: float, end_group: bool = False) -> None:
    """Wait for the child's exit on its pidfd (`Popen.wait(timeout)` polls with 1, 2, 4 ms sleeps:
    ~1 ms lost per child, and a delivery runs twenty), then reap it. `end_group`: first SIGKILL
    what is left of its process group — while the child is not reaped yet, so its id (the group's)
    can name no other group."""
    try:
        fd = os.pidfd_open(proc.pid)
    except OSError:  # gone already, or a kernel before 5.3
        proc.wait(max(0.0, deadline - time.monotonic()))
        return
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(fd, selectors.EVENT_READ)
            if not sel.select(max(0.0, deadline - time.monotonic())):
                raise subprocess.TimeoutExpired(proc.args, 0)
        if end_group:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)
    finally:
        os.close(fd)
    proc.wait()


class _HangUpError(Exception):
    """SIGHUP arrived while the supervisor waited."""


class Supervised:
    """How a supervised child ended, and whether its terminal hung up (see `supervise`)."""

    __slots__ = ("hung_up", "returncode")

    def __init__(self, returncode: int, hung_up: bool) -> None:
        self.returncode = returncode
        self.hung_up = hung_up


def supervise(argv: Sequence[str], *, grace: float = 2.0) -> Supervised:
    """Run `argv` in the foreground (same terminal, same environment) and wait for it.

    Its return code is negative when a signal killed it. SIGINT, SIGTERM and SIGQUIT sent to the
    group reach the child with their default effect (handled signals are reset by exec); this
    process only notes them, so it survives to report the end. SIGHUP is different: when the
    terminal hangs up (the pane or the whole tmux server is gone) the kernel signals only the
    session leader, which is this process, so the child would run on unseen. The supervisor passes
    SIGHUP to its process group, then SIGTERM after `grace` seconds, then SIGKILLs the child after
    `grace` more: no agent outlives its pane. The previous handlers are restored afterwards.
    """
    args = tuple(argv)
    if not args:
        raise ValueError("nothing to run")
    watched = (signal.SIGHUP, signal.SIGINT, signal.SIGTERM, signal.SIGQUIT)
    previous = {signum: signal.getsignal(signum) for signum in watched}
    state = {"hung_up": False, "waiting": False}

    def note(_signum: int, _frame: object) -> None:
        return None

    def hang_up(_signum: int, _frame: object) -> None:
        if state["hung_up"]:
            return  # our own forwarded SIGHUP, or a second one
        state["hung_up"] = True
        if state["waiting"]:
            raise _HangUpError  # leave the blocking wait (PEP 475 would otherwise resume it)

    for signum in watched:
        signal.signal(signum, hang_up if signum == signal.SIGHUP else note)
    try:
        try:
            child = subprocess.Popen(args, close_fds=True)  # argv list, never a shell
        except OSError as exc:
            raise ToolNotFoundError(f"{args[0]}: {exc.strerror}") from exc
        return Supervised(_wait_through_hangup(child, state, grace), bool(state["hung_up"]))
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _wait_through_hangup(
    child: subprocess.Popen[bytes], state: dict[str, bool], grace: float
) -> int:
    steps = [signal.SIGHUP, signal.SIGTERM, signal.SIGKILL]  # what a hang-up escalates through
    next_step_at: float | None = None
    while True:
        state["waiting"] = True
        try:
            if state["hung_up"] and next_step_at is None:
                next_step_at = time.monotonic()  # the hang-up came before or during the last wait
            if next_step_at is not None and time.monotonic() >= next_step_at and steps:
                signum = steps.pop(0)
                with contextlib.suppress(ProcessLookupError):
                    if signum == signal.SIGKILL:
                        # the group's last stragglers go with the supervisor (`end_own_group`)
                        child.kill()
                    else:
                        os.killpg(
                            os.getpgrp(), signum
                        )  # we note our own copy; the child gets the default
                next_step_at = time.monotonic() + grace
            timeout = (
                None
                if next_step_at is None or not steps
                else max(0.0, next_step_at - time.monotonic())
            )
            return child.wait(timeout)
        except (_HangUpError, subprocess.TimeoutExpired):
            continue
        finally:
            state["waiting"] = False


class Foreground:
    """A child on this process's terminal, leading its own process group, which holds the terminal's
    foreground (a worker's sandbox: nothing in it can signal this process through a shared group),
    with a pidfd so an event loop can wait for it beside its sockets."""

    __slots__ = ("_popen", "pid", "pidfd")

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen
        self.pid = popen.pid
        try:
            self.pidfd: int | None = os.pidfd_open(popen.pid)
        except OSError:  # a kernel before 5.3: the caller polls
            self.pidfd = None

    def poll(self) -> int | None:
        """Its return code once it has ended (negative: the signal that killed it), else None."""
        return self._popen.poll()

    def wait(self, timeout: float | None = None) -> int:
        """Wait for it (`ProcessTimeoutError` after `timeout`)."""
        try:
            return self._popen.wait(timeout)
        except subprocess.TimeoutExpired as exc:
            raise ProcessTimeoutError(
                f"{self._popen.args!r} did not end within {timeout}s"
            ) from exc

    def kill(self) -> None:
        """SIGKILL it (a sandbox's PID namespace goes with it)."""
        with contextlib.suppress(ProcessLookupError):
            self._popen.kill()

    def signal_group(self, signum: int) -> None:
        """Send `signum` to its process group (it leads one)."""
        if self.pid > 1:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signum)

    def close(self) -> None:
        """Release the pidfd."""
        if self.pidfd is not None:
            os.close(self.pidfd)
            self.pidfd = None


def start_foreground(
    argv: Sequence[str],
    *,
    env: Mapping[str, str],
    pass_fds: tuple[int, ...] = (),
    scoped: bool = False,
    confine: Confinement | None = None,
) -> Foreground:
    """Start `argv` (an absolute program) in the foreground of this process's terminal: its own
    process group, made the terminal's foreground group (when stdin is a terminal this process
    controls), the given environment only, and only `pass_fds` beyond stdio. `scoped`: in a Landlock
    domain that may neither reach an abstract socket nor signal a process outside it
    (`landlock.py`); `confine`: in its cgroups, its largest file bounded, before it executes
    (`confine.py`)."""
    args = tuple(argv)
    if not args or not os.path.isabs(args[0]) or any("\x00" in a for a in args):
        raise ValueError("argv must be an absolute program and words without NUL")
    prepare = before_exec(confine, landlock.scope_self if scoped else None)
    try:
        child = subprocess.Popen(  # never a shell; the supervisor that calls this has one thread
            args,
            env=dict(env),
            close_fds=True,
            pass_fds=pass_fds,
            process_group=0,
            preexec_fn=prepare,  # noqa: PLW1509 - single-threaded caller
        )
    except subprocess.SubprocessError as exc:  # a cgroup or the Landlock domain refused it
        raise ProcessFailedError(args, 1, str(exc).encode(), why="could not be confined") from exc
    except OSError as exc:
        raise ToolNotFoundError(f"{args[0]}: {exc.strerror}") from exc
    with contextlib.suppress(OSError):
        os.setpgid(
            child.pid, child.pid
        )  # also here: the terminal must not be handed over before it exists
    with contextlib.suppress(OSError):
        if os.isatty(0) and os.tcgetpgrp(0) == os.getpgrp():
            os.tcsetpgrp(0, child.pid)
    return Foreground(child)


def data_fd(data: bytes, name: str = "oms-data") -> int:
    """A readable descriptor holding `data` (an anonymous memory file), positioned at its start: how
    a child gets arguments that must not appear in its command line."""
    fd = os.memfd_create(name, os.MFD_CLOEXEC)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


def kill_exact(who: ProcessIdentity, signum: int = signal.SIGKILL) -> bool:
    """SIGKILL (or `signum`) the process `who` if that exact process (pid, start time, boot) still
    runs; True if signalled. Through a pidfd, so a pid recycled between the check and the signal is
    never hit."""
    if who.pid <= 1 or who.boot_id != boot_id():
        return False
    try:
        fd = os.pidfd_open(who.pid)
    except OSError:
        return False
    try:
        if start_ticks(who.pid) != who.start_ticks:
            return False
        signal.pidfd_send_signal(fd, signum)
        return True
    except OSError:
        return False
    finally:
        os.close(fd)


_DETACHED: dict[
    int, subprocess.Popen[bytes]
] = {}  # kept, never collected while running: no warning


def start_detached(
    argv: Sequence[str], *, env: Mapping[str, str], cwd: str, pass_fds: tuple[int, ...], log_fd: int
) -> ProcessIdentity:
    """Start `argv` (an absolute program) as a daemon: its own session, stdin from /dev/null, stdout
    and stderr to `log_fd`, and only `pass_fds` beyond them (at their numbers). The caller may exit
    while it runs (an orphan is reaped by init). Returns its identity, read before it can have
    exited and been replaced (it is our child until then)."""
    args = tuple(argv)
    if not args or not os.path.isabs(args[0]) or any("\x00" in a for a in args):
        raise ValueError("argv must be an absolute program and words without NUL")
    try:
        child = subprocess.Popen(  # argv list, never a shell
            args,
            cwd=cwd,
            env=dict(env),
            stdin=subprocess.DEVNULL,
            stdout=log_fd,
            stderr=log_fd,
            close_fds=True,
            pass_fds=pass_fds,
            start_new_session=True,
        )
    except OSError as exc:
        raise ToolNotFoundError(f"{args[0]}: {exc.strerror}") from exc
    _DETACHED[child.pid] = child
    return ProcessIdentity(boot_id(), child.pid, start_ticks(child.pid) or 0)


def reap(pid: int) -> None:
    """Collect the exit of `pid` if this process started it detached and it has ended (else
    nothing)."""
    child = _DETACHED.get(pid)
    if child is not None and child.poll() is not None:
        del _DETACHED[pid]


def running(pid: int) -> bool:
    """Whether `pid`, started detached by this process, runs still (its exit is collected when it
    has ended)."""
    reap(pid)
    return pid in _DETACHED


def end_own_group() -> None:
    """SIGKILL this process's group, this process included: the last act of a hung-up supervisor
    that leads its group (the first process of a pane), once it has recorded how its child ended.
    Anything else in the group, e.g. a grandchild that ignored SIGHUP and SIGTERM, must not outlive
    the pane."""
    if os.getpgrp() != os.getpid() or os.getpgrp() <= 1:
        return  # not a group leader: never signal a group we did not start
    os.killpg(os.getpgrp(), signal.SIGKILL)


def kill_group(pgid: int, *, grace: float = 2.0) -> bool:
    """SIGTERM the process group `pgid`, then SIGKILL what is left after `grace` seconds.

    Returns True when the group is gone — no live member left: zombies do not count (`group_alive`;
    a zombie holds nothing and no signal ends it). Used to make sure a stopped pane leaves no
    process behind.
    """
    if pgid <= 1:
        raise ValueError("refusing to signal process group <= 1")
    try:
        os.killpg(pgid, signal.SIGTERM)
    except ProcessLookupError:
        return True
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        if not group_alive(pgid):
            return True
        time.sleep(0.02)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(pgid, signal.SIGKILL)
    time.sleep(0.05)
    return not group_alive(pgid)


def stream(
    argv: Sequence[str],
    sink: Callable[[bytes], bool],
    *,
    env: Mapping[str, str],
    timeout: float,
    max_stderr: int = LIMITS.stream_stderr_bytes,
) -> Completed:
    """Run `argv` and hand its stdout to `sink` chunk by chunk as it comes (nothing of it kept):
    `sink` returns False when it wants no more (a pager that was quit), and the child is ended.
    stderr is kept, bounded. `check` as `run`: a non-zero exit is `ProcessFailedError`, unless the
    sink stopped it. Returns its exit (stdout empty)."""
    started = start(argv, env=env)
    proc = started.proc
    started.done = True
    assert proc.stdout is not None  # noqa: S101 - pipes were requested
    assert proc.stderr is not None  # noqa: S101
    out_fd, err_fd = proc.stdout.fileno(), proc.stderr.fileno()
    err: list[bytes] = []
    kept = 0
    outcome = "ok"
    deadline = time.monotonic() + timeout
    ended = False
    try:
        with selectors.DefaultSelector() as sel:
            sel.register(out_fd, selectors.EVENT_READ)
            sel.register(err_fd, selectors.EVENT_READ)
            while sel.get_map() and outcome == "ok":
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    outcome = "timeout"
                    break
                for key, _ in sel.select(remaining):
                    chunk = os.read(key.fd, 65536)
                    if not chunk:
                        sel.unregister(key.fd)
                    elif key.fd == out_fd:
                        if not sink(chunk):
                            outcome = "stopped"
                            break
                    elif kept < max_stderr:
                        err.append(chunk[: max_stderr - kept])
                        kept += len(err[-1])
        if outcome == "ok":
            try:
                _wait_exit(proc, deadline)
            except subprocess.TimeoutExpired:
                outcome = "timeout"
        if outcome != "ok":
            _kill(proc)
        ended = True
    finally:
        if not ended:
            _kill(proc)
        proc.stdout.close()
        proc.stderr.close()
    args, code = started.args, proc.returncode
    if outcome == "timeout":
        raise ProcessTimeoutError(f"{args[0]} did not finish within {timeout:g}s and was killed")
    if outcome == "ok" and code != 0:
        raise ProcessFailedError(args, code, b"".join(err))
    return Completed(args, code if outcome == "ok" else 0, b"", b"".join(err))


class Pager:
    """A pager on this process's terminal (`start_pager`): `write` hands it text until it is quit
    (then False), `close` waits for the person to leave it."""

    __slots__ = ("_popen",)

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self._popen = popen

    def write(self, data: bytes) -> bool:
        """Give the pager `data`; False once it was quit (its input closed)."""
        pipe = self._popen.stdin
        assert pipe is not None  # noqa: S101 - a pipe was requested
        try:
            pipe.write(data)
            pipe.flush()
        except (BrokenPipeError, ValueError):
            return False
        return True

    def close(self) -> int:
        """No more input; wait until the person quits the pager."""
        if self._popen.stdin is not None:
            with contextlib.suppress(BrokenPipeError, ValueError):
                self._popen.stdin.close()
        while True:
            try:
                return self._popen.wait()
            except KeyboardInterrupt:  # ^C belongs to the pager (less ignores it), as with git
                continue


def start_pager(argv: Sequence[str], *, env: Mapping[str, str]) -> Pager:
    """Start a pager (argv, never a shell) reading a pipe, writing to this process's stdout (a
    terminal); `ToolNotFoundError` when there is no such program."""
    args = tuple(argv)
    if not args or any("\x00" in a for a in args):
        raise ValueError("argv must be non-empty text without NUL")
    environment = dict(env)
    exe = args[0] if os.sep in args[0] else which(args[0], environment)
    if exe is None:
        raise ToolNotFoundError(f"{args[0]} is not installed (not found on PATH)")
    try:
        popen = subprocess.Popen(  # argv list, never a shell; stdout and stderr: the terminal
            (exe, *args[1:]), env=environment, stdin=subprocess.PIPE, close_fds=True
        )
    except OSError as exc:
        raise ToolNotFoundError(f"{args[0]}: {exc.strerror}") from exc
    return Pager(popen)
