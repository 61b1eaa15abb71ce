"""Run one tree job: an operation on an agent's worktree, inside the sandbox that shows what the
agent saw (docs/adr/0024; the view: `adapters/tree_sandbox.py`; the job: `adapters/tree_work.py`).

The host never reads the worktree: it asks the main repository what it records of it
(`git.linked_worktree`: the admin dir, HEAD, branch), checks the repository's own config (and the
worktree's `config.worktree`) names no command git could run, then starts bubblewrap around the same
oms executable the hooks use (`oms worker tree-job`; frozen, or from source with its virtual
environment, its Python and the package shown read-only), hands it one bounded JSON job on stdin and
reads one bounded JSON answer from stdout (`domain/tree_jobs.py`: strict, closed; an error comes
back as the same `OmsError` class). A job that answers nothing, too much, or not as its kind allows
is a `TreeJobError`; a job past its time is killed with its whole PID namespace.

Each job runs in a cgroup of its own (`oms-j-<pid>-<n>`, beneath oms's own: ADR 0025), its largest
file bounded, joined before bubblewrap executes: what an agent left (a `.gitignore` git holds at
five times its size, a deep or wide tree) cannot make a job take the host's memory or tasks. A job
that reaches its bound is ended and says which (`limit: memory`); what is left of it is killed when
its cgroup is removed. `unsafe_none`: the approved `[limits] cgroup = "unsafe-none"` of where it
runs (no cgroup can be had there: the job runs unbounded, as the worker did).

`run_git` is the light form for delivery's hot path: one hardened git command in the same sandbox,
no oms process inside (`git --git-dir=<its admin dir> --work-tree=<the worktree>`: the worktree's
`.git` file is not followed; the host checks it names the admin dir, `checkout.verify`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping
from typing import TYPE_CHECKING

from oms.adapters import bwrap, cgroups, git, seccomp
from oms.adapters.sandbox import GIT_SHOWN
from oms.adapters.tree_sandbox import TreeView, tree_args
from oms.canonical import JsonObject
from oms.domain import tree_jobs
from oms.domain.cgroups import identity
from oms.domain.sandbox_limits import REQUIRED, UNSAFE_NONE, SandboxLimits
from oms.errors import ProcessTimeoutError, SandboxUnavailableError, TreeJobError, reason_line
from oms.limits import LIMITS
from oms.process import Completed, Started, child_env, data_fd, oms_executable, start

if TYPE_CHECKING:
    from oms.schemas.payloads import DispatchPayload

COMMAND = ("worker", "tree-job")


def run_job(
    kind: str,
    repository: str,
    linked: git.Linked,
    fields: Mapping[str, object] | None = None,
    *,
    writable: tuple[str, ...] = (),
    timeout: float = LIMITS.tree_job_timeout_s,
    unsafe_none: bool = False,
    config: list[tuple[str, str]] | None = None,
) -> JsonObject:
    """Run a `kind` job (its own `fields`) on `linked`, a worktree of `repository`; its checked
    result. `config`: the repository's config entries, when the caller read them itself (a
    salvage, which runs whatever they say: git inside sees only the sanitised config,
    `git.sandbox_config`); else they are checked first (`git.refuse_unsafe_config`)."""
    data = tree_jobs.job(kind, linked.worktree, linked.gitdir, linked.common, **(fields or {}))
    executable = oms_executable(os.environ)
    runtime = bwrap.runtime_roots(executable)
    command = (executable, *COMMAND)
    started = _start(
        repository,
        linked,
        command,
        runtime=runtime,
        writable=writable,
        stdin=True,
        unsafe_none=unsafe_none,
        config=config,
    )
    what = f"the {kind} job on {linked.worktree}"
    cap = LIMITS.tree_answer_bytes + LIMITS.tree_stderr_bytes
    done = finish(started, what, timeout, cap, stdin=data)
    if done.returncode != 0:
        said = reason_line(done.stderr) or reason_line(done.stdout)
        why = f"exited {done.returncode}: {said or 'no reason'}"
        raise TreeJobError(f"the {kind} job on {linked.worktree} {why}")
    return tree_jobs.read_answer(kind, done.stdout)


def run_git(
    repository: str,
    linked: git.Linked,
    *args: str,
    max_output: int,
    timeout: float = LIMITS.process_timeout_s,
    config: list[tuple[str, str]] | None = None,
    unsafe_none: bool = False,
) -> Completed:
    """One hardened, read-only git command on `linked`, in its tree sandbox (no oms process inside):
    `git --git-dir=<admin dir> --work-tree=<worktree> <args>` with git's hardening (`git.HARDENING`,
    `git.GIT_ENV`). Its exit status is the caller's to judge; more output than `max_output` is an
    error. `config`: the repository's config entries, already checked
    (`git.refuse_unsafe_config`)."""
    started = start_git(repository, linked, *args, config=config, unsafe_none=unsafe_none)
    what = f"git {args[0] if args else ''} in {linked.worktree}"
    return finish(started, what, timeout, max_output)


def start_git(
    repository: str,
    linked: git.Linked,
    *args: str,
    config: list[tuple[str, str]] | None = None,
    unsafe_none: bool = False,
) -> Job:
    """`run_git`, started: its output is collected by `finish` (meanwhile the caller works on)."""
    where = (f"--git-dir={linked.gitdir}", f"--work-tree={linked.worktree}")
    command = ("git", *where, *git.HARDENING, *args)
    env = tuple(git.GIT_ENV.items())
    return _start(repository, linked, command, env=env, config=config, unsafe_none=unsafe_none)


class Job:
    """A started tree sandbox and the cgroup that bounds it (removed, with what is left in it, once
    the job is collected or killed)."""

    def __init__(self, started: Started, group: cgroups.Cgroup) -> None:
        self.started, self.group = started, group

    def kill(self) -> None:
        """End it unless it was collected; its cgroup is removed either way."""
        try:
            self.started.kill()
        finally:
            self.group.remove()


def finish(
    job: Job,
    what: str,
    timeout: float,
    max_output: int,
    stdin: bytes | None = None,
) -> Completed:
    """Collect what a started sandbox says (its exit status is the caller's to judge); a job that
    reached its cgroup's bound is a `TreeJobError` naming the limit."""
    try:
        try:
            cap = max_output
            done = job.started.finish(timeout=timeout, max_output=cap, stdin=stdin, check=False)
        except ProcessTimeoutError as exc:
            raise ProcessTimeoutError(f"{what} took more than {timeout:g}s and was killed") from exc
        finally:
            reached = job.group.reached()
    finally:
        job.group.remove()
    if reached is not None:
        raise TreeJobError(f"{what} reached its bound (limit: {reached}) and was ended")
    return done


_JOBS = [0]


def unsafe_of(payload: DispatchPayload) -> bool:
    """Whether a dispatch's approved limits (`role_limits`, ADR 0025) run with no cgroup."""
    limits = payload.get("role_limits")
    return limits is not None and limits["cgroup"] == UNSAFE_NONE


def bounds(unsafe_none: bool = False) -> SandboxLimits:
    """What bounds a tree job (`Limits.tree_job_*`; `unsafe_none`: no cgroup, see above)."""
    return SandboxLimits(
        pids=LIMITS.tree_job_pids,
        memory_bytes=LIMITS.tree_job_memory_bytes,
        file_bytes=LIMITS.tree_job_file_bytes,
        disk_bytes=LIMITS.tree_job_file_bytes,
        cgroup=UNSAFE_NONE if unsafe_none else REQUIRED,
    )


@functools.cache
def _filter(machine: str) -> bytes:
    """The workers' seccomp filter for `machine`, encoded (the same every time: made once)."""
    try:
        return seccomp.encode(seccomp.program(machine))
    except ValueError as exc:
        raise SandboxUnavailableError(f"{exc}: oms cannot sandbox a tree job here") from exc


def _start(
    repository: str,
    linked: git.Linked,
    command: tuple[str, ...],
    *,
    runtime: tuple[str, ...] = (),
    writable: tuple[str, ...] = (),
    env: tuple[tuple[str, str], ...] = (),
    stdin: bool = False,
    config: list[tuple[str, str]] | None = None,
    unsafe_none: bool = False,
) -> Job:
    """Start `command` in the tree sandbox of `linked`, in a cgroup of its own (the repository's
    config checked first, unless `config` holds its checked entries: nothing it names runs, inside
    either; the sandbox shows the sanitised config in its place)."""
    entries = git.refuse_unsafe_config(repository, linked.gitdir) if config is None else config
    view = TreeView(
        worktree=linked.worktree,
        common_dir=linked.common,
        gitdir=linked.gitdir,
        runtime=runtime,
        git_shown=tuple(n for n in GIT_SHOWN if os.path.lexists(os.path.join(linked.common, n))),
        writable=writable,
    )
    limits = bounds(unsafe_none)
    _JOBS[0] += 1
    group = cgroups.make(identity("job", f"{os.getpid()}-{_JOBS[0]}"), limits)
    seccomp_fd = data_fd(_filter(os.uname().machine), "oms-seccomp")
    config_fd = data_fd(git.sandbox_config(entries).encode("utf-8"), "oms-git-config")
    try:
        options = tree_args(view, bwrap.host(), seccomp_fd=seccomp_fd, config_fd=config_fd, env=env)
        argv = (bwrap.locate(), *options, "--", *command)
        fds = (seccomp_fd, config_fd)
        confine = group.confinement(limits.file_bytes)
        started = start(argv, env=child_env(), stdin=stdin, pass_fds=fds, confine=confine)
    except BaseException:
        group.remove()
        raise
    finally:  # (the child holds its own copies once started)
        group.release()
        os.close(seccomp_fd)
        os.close(config_fd)
    return Job(started, group)
