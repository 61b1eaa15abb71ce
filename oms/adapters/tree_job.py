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

`run_git` is the light form for delivery's hot path: one hardened git command in the same sandbox,
no oms process inside (`git --git-dir=<its admin dir> --work-tree=<the worktree>`: the worktree's
`.git` file is not followed; the host checks it names the admin dir, `checkout.verify`).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Mapping

from oms.adapters import bwrap, git, seccomp
from oms.adapters.sandbox import GIT_SHOWN
from oms.adapters.tree_sandbox import TreeView, tree_args
from oms.canonical import JsonObject
from oms.domain import tree_jobs
from oms.errors import ProcessTimeoutError, SandboxUnavailableError, TreeJobError, reason_line
from oms.limits import LIMITS
from oms.process import Completed, Started, child_env, data_fd, oms_executable, start

COMMAND = ("worker", "tree-job")


def run_job(
    kind: str,
    repository: str,
    linked: git.Linked,
    fields: Mapping[str, object] | None = None,
    *,
    writable: tuple[str, ...] = (),
    timeout: float = LIMITS.tree_job_timeout_s,
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
) -> Completed:
    """One hardened, read-only git command on `linked`, in its tree sandbox (no oms process inside):
    `git --git-dir=<admin dir> --work-tree=<worktree> <args>` with git's hardening (`git.HARDENING`,
    `git.GIT_ENV`). Its exit status is the caller's to judge; more output than `max_output` is an
    error. `config`: the repository's config entries, already checked
    (`git.refuse_unsafe_config`)."""
    started = start_git(repository, linked, *args, config=config)
    what = f"git {args[0] if args else ''} in {linked.worktree}"
    return finish(started, what, timeout, max_output)


def start_git(
    repository: str,
    linked: git.Linked,
    *args: str,
    config: list[tuple[str, str]] | None = None,
) -> Started:
    """`run_git`, started: its output is collected by `finish` (meanwhile the caller works on)."""
    where = (f"--git-dir={linked.gitdir}", f"--work-tree={linked.worktree}")
    command = ("git", *where, *git.HARDENING, *args)
    return _start(repository, linked, command, env=tuple(git.GIT_ENV.items()), config=config)


def finish(
    started: Started,
    what: str,
    timeout: float,
    max_output: int,
    stdin: bytes | None = None,
) -> Completed:
    """Collect what a started sandbox says (its exit status is the caller's to judge)."""
    try:
        return started.finish(timeout=timeout, max_output=max_output, stdin=stdin, check=False)
    except ProcessTimeoutError as exc:
        raise ProcessTimeoutError(f"{what} took more than {timeout:g}s and was killed") from exc


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
) -> Started:
    """Start `command` in the tree sandbox of `linked` (the repository's config checked first,
    unless `config` holds its checked entries: nothing it names runs, inside either; the sandbox
    shows the sanitised config in its place)."""
    entries = git.refuse_unsafe_config(repository, linked.gitdir) if config is None else config
    view = TreeView(
        worktree=linked.worktree,
        common_dir=linked.common,
        gitdir=linked.gitdir,
        runtime=runtime,
        git_shown=tuple(n for n in GIT_SHOWN if os.path.lexists(os.path.join(linked.common, n))),
        writable=writable,
    )
    seccomp_fd = data_fd(_filter(os.uname().machine), "oms-seccomp")
    config_fd = data_fd(git.sandbox_config(entries).encode("utf-8"), "oms-git-config")
    try:
        options = tree_args(view, bwrap.host(), seccomp_fd=seccomp_fd, config_fd=config_fd, env=env)
        argv = (bwrap.locate(), *options, "--", *command)
        return start(argv, env=child_env(), stdin=stdin, pass_fds=(seccomp_fd, config_fd))
    finally:  # (the child holds its own copies once started)
        os.close(seccomp_fd)
        os.close(config_fd)
