"""The sandbox of a tree job: what an agent saw of its worktree, and nothing more (pure;
docs/adr/0024).

Every operation oms performs on a tree an agent could write runs in one (`adapters/tree_job.py`
starts it, `adapters/tree_work.py` is what runs inside). Its view is the worker sandbox's
(`adapters/sandbox.py`) without the agent's home, credential and broker socket:

- its own user, PID, IPC, UTS and network namespaces (loopback only), a new session,
  `--die-with-parent`, the init hidden (`/proc/1` an empty read-only tmpfs), never uid 0 inside (as
  root: uid/gid 1000);
- system directories read-only, /etc's secrets masked, a private bounded `/tmp` and `/var/tmp`, a
  fresh `/proc` and `/dev`; oms's own runtime read-only at its real paths;
- of the repository's git common dir only what the agent sees (`GIT_SHOWN`), the sanitised config in
  place of the real one, this worktree's gitdir, and the worktree at its real path with its `.git`
  file read-only;
- written only where the job needs it (`TreeView.writable`): `objects` (a commit), `refs` (the
  restore's salvage ref and reset), the `gitdir` (an index), the `worktree` (a reset or a removal),
  `dotgit` (the worktree's `.git` file, which only a removal deletes). Everything else is read-only.

So even a race that wins — a folder turned into a link to `~/.ssh` or to the state root while git
reads — reaches only what the agent could already read: neither the state root nor the user's home
is there. The workers' seccomp filter applies (`--seccomp`), and the environment is cleared.
"""

from __future__ import annotations

import posixpath
from typing import NamedTuple

from oms.adapters.sandbox import GIT_SHOWN, SANDBOX_PATH, Host, confined
from oms.limits import LIMITS

WRITABLE = ("objects", "refs", "gitdir", "worktree", "dotgit")
TREE_HOME = "/tmp"  # noqa: S108 - the job's own private tmpfs


class TreeView(NamedTuple):
    """The paths of one tree job (real, absolute: from the main repository's records) and what it
    writes."""

    worktree: str
    common_dir: str
    gitdir: str
    runtime: tuple[str, ...] = ()  # oms itself, read-only at its own paths
    git_shown: tuple[str, ...] = (
        "objects",
        "refs",
        "HEAD",
    )  # what of the common dir exists to be shown
    writable: tuple[str, ...] = ()  # of WRITABLE


def _check_abs(path: str, what: str) -> str:
    plain = path.startswith("/") and "\x00" not in path and posixpath.normpath(path) == path
    if not plain or path == "/":
        raise ValueError(f"{what} must be a normalised absolute path below / (got {path[:80]!r})")
    return path


def _inside(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def tree_args(
    view: TreeView,
    host: Host,
    *,
    seccomp_fd: int,
    config_fd: int,
    env: tuple[tuple[str, str], ...] = (),
) -> tuple[str, ...]:
    """bubblewrap's options for `view` on `host` (the command follows `--`): `seccomp_fd` holds the
    workers' filter, `config_fd` the repository config shown in place of the real one; `env`: set on
    top of the cleared environment."""
    worktree = _check_abs(view.worktree, "worktree")
    common = _check_abs(view.common_dir, "git common dir")
    gitdir = _check_abs(view.gitdir, "worktree gitdir")
    if posixpath.dirname(gitdir) != posixpath.join(common, "worktrees"):
        raise ValueError("the worktree's gitdir is not under the git common dir's worktrees/")
    if _inside(worktree, common) or _inside(common, worktree):
        raise ValueError("the worktree and the git common dir must not contain each other")
    unknown = sorted(set(view.writable) - set(WRITABLE))
    if unknown:
        raise ValueError(f"{unknown[0][:40]!r} cannot be made writable in a tree job")
    args = confined(host, "oms-tree")
    for path in (*host.extra_ro, *view.runtime):
        args += ["--ro-bind", _check_abs(path, "read-only path"), path]

    def bind(source: str, what: str) -> list[str]:
        return ["--bind" if what in view.writable else "--ro-bind", source, source]

    args += [
        "--size",
        str(LIMITS.sandbox_empty_bytes),
        "--tmpfs",
        common,
    ]  # the allow-list the agent sees, nothing more
    for name in view.git_shown:
        if name not in GIT_SHOWN:
            raise ValueError(f"{name[:40]!r} of the git common dir is not shown to agents")
        args += bind(posixpath.join(common, name), name)
    args += bind(gitdir, "gitdir")
    args += [
        "--ro-bind-data",
        str(config_fd),
        posixpath.join(common, "config"),
        "--remount-ro",
        common,
    ]
    args += bind(worktree, "worktree")
    dotgit = posixpath.join(worktree, ".git")
    args += bind(dotgit, "dotgit") if "dotgit" not in view.writable else []
    args += ["--seccomp", str(seccomp_fd), "--chdir", worktree, "--clearenv"]
    base = (("PATH", SANDBOX_PATH), ("HOME", TREE_HOME), ("LANG", "C.UTF-8"), ("TMPDIR", TREE_HOME))
    for name, value in (*base, *env):
        args += ["--setenv", name, value]
    return tuple(args)
