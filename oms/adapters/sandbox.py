"""The worker sandbox as a plan: what an agent sees, as bubblewrap arguments (pure; ADR 0012).

Every worker (codex, claude, command) runs inside one. The plan is a function of a `Layout` (the
worker's paths, decided by delivery) and a `Host` (facts about this machine, read by
`adapters/bwrap.py`):

- user, PID, IPC, UTS and network namespaces (`--unshare-user`, `--unshare-pid`, `--unshare-net`,
  ...): the sandbox's network is its own loopback only, unless its role asked for the host's
  (`host_network`, ADR 0026); a model CLI reaches its model through the proxy's door and a relay
  inside. As root the agent is uid/gid 1000 inside, so it holds no capability even in its own
  namespace; `--die-with-parent`: when the broker dies, the sandbox dies, and with its PID
  namespace's init every process the agent started, however detached. That init is hidden from
  `/proc` and a seccomp filter refuses `ptrace` and its kin (`adapters/seccomp.py`), so the agent
  cannot tamper with it;
- system directories read-only (`/usr`, `/etc` with its secret files masked, ...), a private `/tmp`,
  a fresh `/proc` and `/dev`; nothing else of the host: no state root, no home, no other worktree;
- oms's own runtime and the agent CLI's install root read-only, at their real paths (the hook and
  MCP commands written into the agent's configuration name them);
- the private home read-write at `HOME_VIEW`, except the files oms generated (read-only over
  themselves), plus single files bound read-only (the CLI's one credential, a command's own script);
- of the repository's git common dir only what git needs (`GIT_SHOWN`), a sanitised `config` and
  this worktree's gitdir, all read-only; the worktree read-write with its `.git` file read-only;
  empty read-only placeholders at `.codex`, `.claude` and `.mcp.json`, so none of them can be
  created;
- the broker's socket at `BROKER_VIEW` (added by the supervisor, which creates it);
- for a model CLI without the host network, its dispatch's door into the model proxy at `DOOR_VIEW`,
  which a relay inside turns into the loopback port the agent's endpoint names (ADR 0020).
Every host path shown comes from the worktree, the repository's git dir, the runtime, the user's one
credential file, or the sandbox directory (homes, sockets, doors) — never from under the state root,
whose path `/proc/self/mountinfo` would show (ADR 0026).

Order matters: bubblewrap applies the operations in sequence, later mounts on top of earlier ones.
"""

from __future__ import annotations

import posixpath
from typing import NamedTuple

from oms.domain.relay import BROKER_VIEW
from oms.limits import LIMITS

HOME_VIEW = "/oms/home"
# the dispatch's own door into the model proxy, read-only (a sandbox without a network)
DOOR_VIEW = "/oms/door"
# the proxy's socket in it (a restarted proxy's new socket shows there)
MODEL_VIEW = f"{DOOR_VIEW}/model.sock"
PLACEHOLDERS = (".codex", ".claude", ".mcp.json")
# What of a repository's git common dir an agent sees: enough for git to read its worktree's history
# (objects, refs, HEAD, a shallow clone's boundary, info/exclude). Never `config` (a sanitised copy
# is shown instead), `hooks`, `modules` (submodules' configs, with tokens), `git-crypt`, `annex`,
# other worktrees.
GIT_SHOWN = ("objects", "refs", "packed-refs", "HEAD", "shallow", "info")
SANDBOX_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
ROOT_INSIDE_ID = 1000  # uid/gid of the agent inside when oms runs as root (never uid 0 inside)
# System directories shown read-only (each only if the host has it); a symlink is recreated as one.
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
# Files and directories under /etc that hold secrets (readable to root): masked when they exist.
ETC_SECRETS = (
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/ssh",
    "/etc/ssl/private",
    "/etc/security/opasswd",
    "/etc/libvirt",
    "/etc/docker",
)


class Host(NamedTuple):
    """Facts about the machine the plan depends on (read by `adapters/bwrap.py`)."""

    euid: int
    system: tuple[tuple[str, str | None], ...]  # (path, symlink target or None for a directory)
    masked_files: tuple[str, ...] = ()  # ETC_SECRETS that exist as files
    masked_dirs: tuple[str, ...] = ()  # ETC_SECRETS that exist as directories
    extra_ro: tuple[str, ...] = ()  # e.g. /etc/resolv.conf's target when it lives outside /etc


class Layout(NamedTuple):
    """The worker's own paths (real, absolute; decided and checked by delivery)."""

    worktree: str
    common_dir: str  # the repository's git common dir (read-only inside)
    gitdir: str  # this worktree's gitdir, <common_dir>/worktrees/<name>
    home: str  # the private home on the host (read-write inside at HOME_VIEW)
    home_readonly: tuple[str, ...] = ()  # names in the home oms generated: read-only inside
    files: tuple[tuple[str, str], ...] = ()  # (host file, path inside), read-only
    runtime: tuple[str, ...] = ()  # directories shown read-only at their own path (oms, the CLI)
    git_shown: tuple[str, ...] = (
        "objects",
        "refs",
        "HEAD",
    )  # what of the common dir is shown (read-only)
    host_network: bool = False  # the host's network (a role's opt-out, ADR 0026); else loopback


def _check_abs(path: str, what: str) -> str:
    if (
        not path.startswith("/")
        or "\x00" in path
        or posixpath.normpath(path) != path
        or path == "/"
    ):
        raise ValueError(f"{what} must be a normalised absolute path below / (got {path[:80]!r})")
    return path


def _inside(path: str, parent: str) -> bool:
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def bwrap_args(layout: Layout, host: Host) -> tuple[str, ...]:
    """The bubblewrap options for `layout` on `host` (everything but the socket, status fd and
    command)."""
    worktree = _check_abs(layout.worktree, "worktree")
    common = _check_abs(layout.common_dir, "git common dir")
    gitdir = _check_abs(layout.gitdir, "worktree gitdir")
    home = _check_abs(layout.home, "private home")
    if posixpath.dirname(gitdir) != posixpath.join(common, "worktrees"):
        raise ValueError("the worktree's gitdir is not under the git common dir's worktrees/")
    if _inside(worktree, common) or _inside(common, worktree) or _inside(home, worktree):
        raise ValueError("worktree, git common dir and home must not contain each other")
    args: list[str] = ["--unshare-user"]
    if host.euid == 0:
        args += ["--uid", str(ROOT_INSIDE_ID), "--gid", str(ROOT_INSIDE_ID)]
    if not layout.host_network:
        args.append(
            "--unshare-net"
        )  # its own network namespace: loopback only (bubblewrap brings it up)
    args += [
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--hostname",
        "oms-worker",
        "--die-with-parent",
        "--proc",
        "/proc",
        "--size",
        str(LIMITS.sandbox_empty_bytes),
        "--tmpfs",
        # the sandbox's init, whose death takes every sandboxed process: out of the agent's reach
        "/proc/1",
        "--remount-ro",
        "/proc/1",
        "--dev",
        "/dev",
        "--size",
        str(LIMITS.sandbox_tmp_bytes),
        "--tmpfs",
        "/tmp",  # noqa: S108 - a new, private tmpfs inside the sandbox (RAM: bounded)
        "--size",
        str(LIMITS.sandbox_tmp_bytes),
        "--tmpfs",
        "/var/tmp",  # noqa: S108 - likewise
    ]
    args += system_args(host.system)
    for path in host.masked_files:
        args += ["--ro-bind", "/dev/null", _check_abs(path, "masked file")]
    for path in host.masked_dirs:
        args += [
            "--size",
            str(LIMITS.sandbox_empty_bytes),
            "--tmpfs",
            _check_abs(path, "masked directory"),
            "--remount-ro",
            path,
        ]
    for path in (*host.extra_ro, *layout.runtime):
        args += ["--ro-bind", _check_abs(path, "read-only path"), path]
    args += ["--bind", home, HOME_VIEW]
    for name in layout.home_readonly:
        if "/" in name or name in ("", ".", ".."):
            raise ValueError(f"home file name {name[:40]!r} is not a plain name")
        args += ["--ro-bind", posixpath.join(home, name), posixpath.join(HOME_VIEW, name)]
    for source, view in layout.files:
        args += [
            "--ro-bind",
            _check_abs(source, "read-only file"),
            _check_abs(view, "read-only file view"),
        ]
    args += [
        "--size",
        str(LIMITS.sandbox_empty_bytes),
        "--tmpfs",
        common,
    ]  # an allow-list: what git needs, not what the user keeps
    for name in layout.git_shown:
        if name not in GIT_SHOWN:
            raise ValueError(f"{name[:40]!r} of the git common dir is not shown to agents")
        args += ["--ro-bind", posixpath.join(common, name), posixpath.join(common, name)]
    args += [
        "--ro-bind",
        gitdir,
        gitdir,
    ]  # the config follows (`command_args`), then the remount read-only
    args += [
        "--bind",
        worktree,
        worktree,
        "--ro-bind",
        posixpath.join(worktree, ".git"),
        posixpath.join(worktree, ".git"),
    ]
    for name in PLACEHOLDERS:
        mount = posixpath.join(worktree, name)
        args += ["--size", str(LIMITS.sandbox_empty_bytes), "--tmpfs", mount, "--remount-ro", mount]
    args += ["--chdir", worktree]
    return tuple(args)


def confined(
    host: Host, hostname: str, *, network: bool = False, cgroup_ns: bool = True
) -> list[str]:
    """The options every sandbox but a worker's begins with (a check, a quota probe, a tree job):
    its own user (never uid 0 inside), PID, IPC and UTS namespaces, its own network (loopback
    only) unless `network`, its own cgroup namespace if the kernel has one (`cgroup_ns`), a new
    session, gone with its parent; a fresh `/proc` with the init's entry hidden, `/dev`, private
    bounded `/tmp` and `/var/tmp`; the system directories read-only, the `/etc` secrets masked."""
    args: list[str] = ["--unshare-user"]
    if host.euid == 0:
        args += ["--uid", str(ROOT_INSIDE_ID), "--gid", str(ROOT_INSIDE_ID)]
    if not network:
        args.append("--unshare-net")
    args += ["--unshare-pid", "--unshare-ipc", "--unshare-uts"]
    if cgroup_ns:
        args.append("--unshare-cgroup-try")
    args += [
        "--die-with-parent", "--new-session", "--hostname", hostname,
        "--proc", "/proc",
        # the init: oms's env, argv
        "--size", str(LIMITS.sandbox_empty_bytes), "--tmpfs", "/proc/1", "--remount-ro", "/proc/1",
        "--dev", "/dev",
        "--size", str(LIMITS.sandbox_tmp_bytes), "--tmpfs", "/tmp",  # noqa: S108 - private, bounded
        "--size", str(LIMITS.sandbox_tmp_bytes), "--tmpfs", "/var/tmp",  # noqa: S108 - likewise
    ]  # fmt: skip
    args += system_args(host.system)
    for path in host.masked_files:
        args += ["--ro-bind", "/dev/null", _check_abs(path, "masked file")]
    for path in host.masked_dirs:
        args += [
            "--size",
            str(LIMITS.sandbox_empty_bytes),
            "--tmpfs",
            _check_abs(path, "masked directory"),
            "--remount-ro",
            path,
        ]
    return args


def system_args(system: tuple[tuple[str, str | None], ...]) -> list[str]:
    """The system directories, read-only (a symlink recreated as one: merged /usr)."""
    args: list[str] = []
    for path, target in system:
        _check_abs(path, "system directory")
        args += ["--symlink", target, path] if target is not None else ["--ro-bind", path, path]
    return args


def command_args(
    sandbox: tuple[str, ...],
    socket_path: str,
    status_fd: int,
    seccomp_fd: int,
    config: tuple[int, str] | None = None,
    model_socket: str | None = None,
) -> list[str]:
    """The options bubblewrap reads from its `--args` descriptor: the plan, the broker socket, the
    descriptor where bubblewrap reports its namespace's init (`child-pid`, a host pid: the
    supervisor kills it to end the sandbox whatever the agent did), the seccomp filter
    (`adapters/seccomp.py`), and the repository config shown in place of the real one (`config`: a
    descriptor and the config's path; the real file may hold remotes with credentials). The command
    itself follows `--` on bubblewrap's own command line: it is not secret, and bubblewrap does not
    take a command from `--args`."""
    socket_bind = ["--bind", _check_abs(socket_path, "broker socket"), BROKER_VIEW]
    if (
        model_socket is not None
    ):  # the dispatch's door into the model proxy (a directory), for no network
        socket_bind += ["--ro-bind", _check_abs(model_socket, "model proxy door"), DOOR_VIEW]
    out = [*sandbox, *socket_bind, "--json-status-fd", str(status_fd), "--seccomp", str(seccomp_fd)]
    if config is not None:
        path = _check_abs(config[1], "repository config")
        out += ["--ro-bind-data", str(config[0]), path, "--remount-ro", posixpath.dirname(path)]
    return out


def exec_marked(command: tuple[str, ...], fd: int) -> list[str]:
    """`command` behind a one-line `/bin/sh` gate on `fd` (one end of a socket pair whose other end
    only the supervisor holds): it writes one byte (the sandbox was set up and the command is
    starting: bubblewrap's own status reports its child before the mounts, so a failed setup would
    look like the agent exiting 1), then waits for the supervisor's `go` line and only then execs
    the command. A supervisor gone by then (its end closed: the write fails or the read meets the
    end) starts nothing: the command runs only once the supervisor has recorded the sandbox's init.
    Nothing of it stays: `exec` replaces the shell, and the agent does not inherit `fd`."""
    if not command or not 2 < fd < 10:
        raise ValueError("a command and a descriptor above stdio are needed")
    gate = f'printf s >&{fd} && read -r go <&{fd} && exec {fd}>&- && exec "$0" "$@"; exit 125'
    return ["/bin/sh", "-c", gate, *command]


def environment(
    base: dict[str, str], plan_env: dict[str, str], path_dirs: tuple[str, ...]
) -> dict[str, str]:
    """The agent's environment inside: terminal and locale from `base`, then the plan's, then oms's
    own (HOME, TMPDIR, PATH, the broker socket): never the host's paths, never oms's state root."""
    keep = ("TERM", "COLORTERM", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "USER", "LOGNAME")
    env = {key: base[key] for key in keep if key in base}
    env.setdefault("TERM", "xterm-256color")
    env.update(plan_env)
    extra = [d for d in path_dirs if d and d not in SANDBOX_PATH.split(":")]
    env.update(
        {
            "HOME": HOME_VIEW,
            "TMPDIR": "/tmp",  # noqa: S108 - the sandbox's own private tmpfs
            "PATH": ":".join([*dict.fromkeys(extra), SANDBOX_PATH]),
            "OMS_BROKER_SOCKET": BROKER_VIEW,
        }
    )
    return env


def placeholder_paths(worktree: str) -> tuple[str, ...]:
    """The mount points bubblewrap leaves in the worktree (empty directories, removed after the
    run)."""
    return tuple(posixpath.join(worktree, name) for name in PLACEHOLDERS)
