"""Bubblewrap on this machine: where it is, whether it works here, and the host facts a sandbox plan
needs.

`locate` finds `bwrap` (Debian: `apt-get install bubblewrap`); `probe` runs a minimal sandbox of the
same shape as a worker's (user and PID namespaces, read-only system directories) so a kernel without
user namespaces, or a policy that forbids them, is found before a pane is made. `host` reads which
system directories exist and which are symlinks (merged /usr), which secret files under /etc to
mask, and where DNS configuration really lives. `runtime_roots` and `tool_roots` say which
directories of oms itself and of an agent CLI the sandbox must show read-only so the commands
written into the agent's configuration can run inside.
"""

from __future__ import annotations

import os
import stat
import sys
import time
from collections.abc import Iterable

from oms.adapters.sandbox import ETC_SECRETS, SYSTEM_DIRS, Host, system_args
from oms.errors import ProcessError, ProcessTimeoutError, SandboxUnavailableError
from oms.fsio.outside import read_head, unreadable_by_others
from oms.limits import LIMITS
from oms.process import child_env, is_frozen, run, which

INSTALL = "apt-get install bubblewrap (Debian/Ubuntu; `dnf install bubblewrap` on Fedora)"
VERIFIED = "0.8.0"
SYSTEM_PREFIXES = ("/usr/", "/bin/", "/sbin/", "/lib/", "/lib64/", "/opt/", "/etc/")


def locate() -> str:
    """The real path of `bwrap` on PATH, else `SandboxUnavailableError`."""
    found = which("bwrap", child_env())
    if found is None:
        raise SandboxUnavailableError("bubblewrap (bwrap) is not installed", hint=INSTALL)
    real = os.path.realpath(found)
    st = os.stat(real)
    if not stat.S_ISREG(st.st_mode) or st.st_mode & 0o022 or st.st_uid not in (0, os.geteuid()):
        raise SandboxUnavailableError(
            f"{real} is writable by others or not a regular file; refusing to use it"
        )
    return real


def probe(path: str | None = None) -> str:
    """Run a minimal sandbox of a worker's shape (`SandboxUnavailableError` with the reason if it
    fails); the version is asked only by `version` (delivery runs this on every launch: one process,
    not two). A probe that ran out of time says nothing of the kernel (a machine under load has
    taken 10 s to start one), so it is asked once more, given `probe_busy_timeout_s`, before the
    launch is refused; that refusal says the machine was slow, not that it cannot. Returns
    bubblewrap's path."""
    path = path or locate()
    argv = (
        path,
        "--unshare-user",
        "--unshare-pid",
        "--die-with-parent",
        "--proc",
        "/proc",
        *system_args(system_dirs()),
        "--",
        "/bin/true",
    )
    try:
        try:
            run(argv, timeout=LIMITS.probe_timeout_s, max_output=64 * 1024)
        except ProcessTimeoutError:
            run(argv, timeout=LIMITS.probe_busy_timeout_s, max_output=64 * 1024)
    except ProcessTimeoutError as exc:
        raise SandboxUnavailableError(
            f"bubblewrap did not start a sandbox within {LIMITS.probe_timeout_s:g}s, nor within "
            f"{LIMITS.probe_busy_timeout_s:g}s when asked again",
            hint="the machine is too busy to start one: see what else runs (`uptime`, `top`)",
        ) from exc
    except ProcessError as exc:
        raise SandboxUnavailableError(
            f"bubblewrap cannot make a sandbox here ({exc.message})",
            hint=(
                "oms needs user namespaces (or root): check `sysctl "
                "kernel.unprivileged_userns_clone`, `user.max_user_namespaces` and, on Ubuntu, "
                "`kernel.apparmor_restrict_unprivileged_userns`"
            ),
        ) from exc
    return path


def version(path: str) -> str:
    """What `bwrap --version` says (for `oms doctor`)."""
    try:
        done = run((path, "--version"), timeout=LIMITS.probe_timeout_s, max_output=4096)
    except ProcessError as exc:
        raise SandboxUnavailableError(
            f"bubblewrap does not answer --version ({exc.message})"
        ) from exc
    return done.text().removeprefix("bubblewrap").strip() or "unknown"


def _kind(path: str) -> str | None:
    """`dir`, `file`, `link` or None (absent or anything else), without following a link."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    return (
        "dir"
        if stat.S_ISDIR(mode)
        else "file"
        if stat.S_ISREG(mode)
        else "link"
        if stat.S_ISLNK(mode)
        else None
    )


def system_dirs() -> tuple[tuple[str, str | None], ...]:
    """The system directories this machine has: (path, symlink target, or None for a directory)."""
    found = ((path, _kind(path)) for path in SYSTEM_DIRS)
    return tuple(
        (path, os.readlink(path) if kind == "link" else None)
        for path, kind in found
        if kind in ("dir", "link")
    )


USERNS_SYSCTLS = (
    "user/max_user_namespaces",
    "kernel/unprivileged_userns_clone",
    "kernel/apparmor_restrict_unprivileged_userns",
)


def kernel_facts() -> dict[str, str]:
    """What the sandbox relies on from the kernel: who we are, and the user-namespace switches that
    exist."""
    facts = {"euid": str(os.geteuid()), "kernel": os.uname().release}
    for name in USERNS_SYSCTLS:
        value = read_head(f"/proc/sys/{name}", 64).decode("ascii", "replace").strip()
        if value:
            facts[name.replace("/", ".")] = value
    return facts


def userns_blocked(facts: dict[str, str]) -> str | None:
    """Why unprivileged user namespaces are off, from `kernel_facts` (None: nothing says so; root
    needs none)."""
    if facts.get("euid") == "0":
        return None
    if facts.get("user.max_user_namespaces") == "0":
        return "user.max_user_namespaces is 0"
    if facts.get("kernel.unprivileged_userns_clone") == "0":
        return "kernel.unprivileged_userns_clone is 0"
    if facts.get("kernel.apparmor_restrict_unprivileged_userns") == "1":
        return (
            "kernel.apparmor_restrict_unprivileged_userns is 1 "
            "(an AppArmor profile must allow bwrap)"
        )
    return None


_HOST: list[tuple[float, Host]] = []  # (when it was read, what): a launch reads it once


def host() -> Host:
    """This machine's system directories, /etc secrets to mask (as root: every file in /etc other
    users cannot read), and DNS configuration's real place; read again once `Limits.host_facts_s`
    passed (as root the walk of /etc costs ~10 ms, and a launch asks for a tree job and a worker
    sandbox)."""
    now = time.monotonic()
    if _HOST and now - _HOST[0][0] < LIMITS.host_facts_s:
        return _HOST[0][1]
    facts = _read_host()
    _HOST[:] = [(now, facts)]
    return facts


def _read_host() -> Host:
    dirs = [path for path in ETC_SECRETS if _kind(path) == "dir"]
    files = [path for path in ETC_SECRETS if _kind(path) == "file"]
    if (
        os.geteuid() == 0
    ):  # the agent maps to root, the owner of root's private files: mask them all in /etc
        more_files, more_dirs = unreadable_by_others("/etc")
        dirs += [d for d in more_dirs if d not in dirs]
        files += [
            f for f in more_files if f not in files and not any(f.startswith(d + "/") for d in dirs)
        ]
    extra: list[str] = []
    resolv = os.path.realpath("/etc/resolv.conf")
    if os.path.isfile(resolv) and not resolv.startswith(SYSTEM_PREFIXES):
        extra.append(resolv)  # e.g. systemd-resolved's stub under /run
    return Host(os.geteuid(), system_dirs(), tuple(files), tuple(dirs), tuple(extra))


def _outside_system(path: str) -> bool:
    return not path.startswith(SYSTEM_PREFIXES)


def runtime_roots(executable: str) -> tuple[str, ...]:
    """Directories the oms `executable` needs inside the sandbox (read-only): the frozen bundle, or,
    from source, the virtual environment, the Python it was made from, and the `oms` package."""
    real = os.path.realpath(executable)
    if is_frozen() and real == os.path.realpath(sys.executable):
        roots = [os.path.dirname(real)]
    else:
        import oms

        roots = [os.path.realpath(sys.prefix), os.path.realpath(sys.base_prefix)]
        roots.append(os.path.dirname(os.path.realpath(oms.__file__)))
        roots.append(os.path.dirname(real))
    return _minimal(r for r in roots if _outside_system(r + "/"))


def tool_roots(name: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(the real path of agent CLI `name`, the directories it needs read-only, directories for
    PATH).

    A CLI installed in a system directory needs nothing more; one installed elsewhere (nvm, a user
    npm prefix) is shown with its install root (`lib/node_modules` of its prefix, else its
    directory) and the interpreter its first line names."""
    found = which(name, child_env())
    if found is None:
        raise SandboxUnavailableError(f"{name} is not installed (not found on PATH)")
    real = os.path.realpath(found)
    if not _outside_system(found) and not _outside_system(real):
        return found, (), ()  # shown as the system has it (a link in /usr/bin stays a link)
    roots: list[str] = []
    path_dirs: list[str] = []
    for path in (real, interpreter(real)):
        if path is None or not _outside_system(path):
            continue
        marker = "/lib/node_modules/"
        roots.append(
            path[: path.index(marker) + len(marker) - 1]
            if marker in path
            else os.path.dirname(path)
        )
        path_dirs.append(os.path.dirname(path))
    return real, _minimal(roots), tuple(dict.fromkeys(path_dirs))


def outside_system(path: str) -> bool:
    """Whether `path` lies outside the system directories every sandbox shows anyway."""
    return _outside_system(path)


def program_roots(name: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(the real path of program `name`, what a sandbox must show of the user's files to run it,
    directories for PATH), for a command run in a sandbox that shows nothing of the user's home (a
    quota probe): the program (a bare name found on PATH) and the interpreter its `#!` line names,
    each that lies outside the system directories shown as itself or, in a `bin` directory, as that
    directory and the `lib` and `lib64` beside it (a Python or a Node installed under the home
    needs its libraries) — never a directory that holds the home."""
    found = name if name.startswith("/") else which(name, child_env())
    if found is None:
        raise SandboxUnavailableError(f"{name[:200]} is not installed (not found on PATH)")
    real = os.path.realpath(found)
    if not os.path.isfile(real):
        raise SandboxUnavailableError(f"{name[:200]} is not a program on this machine")
    home = os.path.realpath(os.path.expanduser("~"))
    roots: list[str] = []
    path_dirs: list[str] = []
    for path in (real, interpreter(real)):
        if path is None or not _outside_system(path):
            continue
        folder = os.path.dirname(path)
        if os.path.basename(folder) != "bin" or _holds(folder, home):
            roots.append(path)
            continue
        roots.append(folder)
        path_dirs.append(folder)
        prefix = os.path.dirname(folder)
        if _holds(prefix, home):
            continue
        roots += [
            os.path.join(prefix, lib)
            for lib in ("lib", "lib64")
            if os.path.isdir(os.path.join(prefix, lib))
        ]
    return real, _minimal(roots), tuple(dict.fromkeys(path_dirs))


def _holds(folder: str, path: str) -> bool:
    """`folder` is `path` or one of its ancestors."""
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def interpreter(path: str) -> str | None:
    """The real path of the program a script's `#!` line runs (through `/usr/bin/env NAME` too)."""
    head = read_head(path, 256)
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words:
        return None
    program = words[1] if os.path.basename(words[0]) == "env" and len(words) > 1 else words[0]
    found = program if program.startswith("/") else which(program, child_env())
    return os.path.realpath(found) if found else None


def _minimal(paths: Iterable[str]) -> tuple[str, ...]:
    """Distinct paths, dropping any inside another (one bind covers both)."""
    unique = sorted(set(paths))
    out: list[str] = []
    for path in unique:
        if not any(path == kept or path.startswith(kept.rstrip("/") + "/") for kept in out):
            out.append(path)
    return tuple(out)
